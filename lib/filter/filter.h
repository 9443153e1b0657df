/*
 * filter.h - event filters (docs/FILTERS.md): a layer above the reader that
 * the tables and the report use.  A filter is text parsed once into a tree of
 * comparisons joined by and, or and not, then matched per event - first with
 * what the event's header and the reader's state say, then, when a term needs
 * it, with the decoded payload.
 *
 *   parse.c   the text into the tree (values: numbers, ranges, times, GUIDs, globs)
 *   match.c   an event against the tree, three-valued: yes, no, or needs decoding
 *   names.c   what the filter saw: provider names by GUID (so that a provider glob is
 *             decided once per GUID), the names each pattern met, and the closest ones
 *   select.c  what analyses take from a filter: its time window and process selection,
 *             and what the reader may skip (etl_reader_set_filter)
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_FILTER_FILTER_H
#define ETL_FILTER_FILTER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"
#include "util/htab.h"

/* FN_ANY: "or"ed patterns of one text field (as etldump's and Python's lists give them), each
 * distinct text matched against them once (parse.c folds them, match.c remembers) */
enum fkind { FN_CMP, FN_AND, FN_OR, FN_NOT, FN_ANY };
enum fop { FO_EQ, FO_NE, FO_LT, FO_GT, FO_LE, FO_GE, FO_ANY, FO_ALL };
/* what a comparison looks at: the header's fields (@name), else a payload property */
enum ffield {
	FF_PROVIDER, FF_NAME, FF_PROCESS,                          /* text */
	FF_ID, FF_OPCODE, FF_LEVEL, FF_KEYWORDS, FF_VERSION, FF_PID, FF_TID, FF_CPU, /* numbers */
	FF_TIME, FF_PROPERTY, FF_COUNT
};
#define FF_IS_TEXT(f) ((f) <= FF_PROCESS)
#define FF_IS_HEADER_NUMBER(f) ((f) >= FF_ID && (f) <= FF_CPU)

#define FILTER_MAX_RANGES 64
#define FILTER_MAX_PATTERNS 32 /* text patterns whose hits and names are kept */

struct frange {
	uint64_t lo, hi;
};

struct fnode {
	enum fkind kind;
	struct fnode *a, *b;   /* operands (FN_NOT: a) */
	/* FN_CMP */
	enum ffield field;
	enum fop op;
	char *prop;            /* FF_PROPERTY: the property's name */
	char *value;           /* the value as written */
	char *folded;          /* the value in ASCII lower case: globs and text comparisons */
	int numeric;           /* the value is a number (num; an integer also in u) */
	double num;
	uint64_t u;
	struct frange *ranges; /* "5", "1-9", "1,5-9": = and != test membership */
	size_t nranges;
	int is_guid;           /* FF_PROVIDER: the value is a GUID */
	struct etl_guid guid;
	int64_t time;          /* FF_TIME: a FILETIME, or 100 ns from each trace's start */
	int time_rel;
	int pattern;           /* a text pattern's index (FILTER_MAX_PATTERNS: not kept), else -1 */
	/* FN_ANY: its patterns (FN_CMP nodes, all of field), and the texts met with whether one of
	 * them matched (under the filter's mu; at most FILTER_MEMO_MAX) */
	struct fnode **any;
	size_t nany;
	struct etl_htab memo;
};

#define FILTER_MEMO_MAX 65536

struct filter_pattern {
	const struct fnode *node;
	atomic_int hit;        /* an event's name matched it */
	atomic_int tried;      /* it was compared with a name (else it cannot say it matched nothing) */
};

struct etl_filter {
	char *text;
	struct fnode *root;    /* NULL: the empty filter, which matches every event */
	struct filter_pattern patterns[FILTER_MAX_PATTERNS];
	size_t npatterns;
	int provider_globs;    /* some @provider compares text: names are looked up by GUID */
	unsigned parts;        /* etl_filter_parts, found once */
	/* names.c, under mu: provider names by GUID; the names seen per text field */
	pthread_mutex_t mu;
	struct etl_htab by_guid;
	struct etl_htab seen[3]; /* FF_PROVIDER, FF_NAME, FF_PROCESS */
	size_t seen_bytes;
};

/* ---- parse.c ---- */
void etl__fnode_free(struct fnode *n);
/* "or"s of one text field's patterns into FN_ANY nodes; n, or the node that replaces it. */
struct fnode *etl__filter_fold(struct fnode *n);
struct fnode *etl__filter_parse(struct etl_filter *f, const char *text, char *err, size_t errlen);
/* A time ("2024-01-02T03:04:05.5Z", or from the trace's start "+1.5s", "250ms"): 0, or -1. */
int etl__filter_time(const char *spec, int64_t *v, int *rel);

/* ---- match.c ---- */
enum { FM_NO = 0, FM_YES = 1, FM_UNKNOWN = 2 };
struct fctx {
	struct etl_filter *f;
	const struct etl_reader *r;
	const struct etl_event *ev;
	const struct etl_decoded *d;
	int decoded;           /* d is the decoding (NULL: none could be made) */
	/* with no event (analyses' rows): the pid and process name to test */
	int row;
	uint32_t pid;
	const char *process;
};
int etl__filter_eval(const struct fnode *n, struct fctx *c);
/* Case-insensitive glob of a folded pattern against a name. */
int etl__filter_glob(const char *folded_pattern, const char *name);
/* The trace start of the event's input, for relative times. */
int64_t etl__filter_trace_start(const struct etl_reader *r, int trace);

/* ---- names.c ---- */
void etl__filter_names_init(struct etl_filter *f);
void etl__filter_names_free(struct etl_filter *f);
/* Whether text met FN_ANY node n before: 1 with *yes, else 0; and what it gave. */
int etl__filter_memo_get(struct etl_filter *f, const struct fnode *n, const char *text, int *yes);
void etl__filter_memo_put(struct etl_filter *f, struct fnode *n, const char *text, int yes);
void etl__filter_memo_free(struct fnode *n);
/* The provider name the filter saw for g, copied into out (cap bytes): 1, or 0 unknown. */
int etl__filter_provider_of(struct etl_filter *f, const struct etl_guid *g, char *out, size_t cap);
void etl__filter_saw_provider(struct etl_filter *f, const struct etl_guid *g, const char *name);
/* A name of a text field met while matching, for the closest-name suggestions. */
void etl__filter_saw(struct etl_filter *f, enum ffield field, const char *name);

#endif

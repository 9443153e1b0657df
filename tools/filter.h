/*
 * filter.h - etldump's event filters.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETLDUMP_FILTER_H
#define ETLDUMP_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include <etl.h>

#define FILTER_MAX 64

struct range {
	uint64_t lo, hi;
};

struct filter {
	/* providers: a GUID, or a name or glob matched against the decoded provider name */
	const char *providers[FILTER_MAX];
	size_t nproviders;
	/* event names or globs (-e), matched case-insensitively against the decoded name */
	const char *names[FILTER_MAX];
	size_t nnames;
	struct where *where; /* --where, or NULL */
	/* process image names or globs, matched case-insensitively (the reader's process table) */
	const char *processes[FILTER_MAX];
	size_t nprocesses;
	struct range ids[FILTER_MAX], opcodes[FILTER_MAX], pids[FILTER_MAX], tids[FILTER_MAX], cpus[FILTER_MAX];
	size_t nids, nopcodes, npids, ntids, ncpus;
	int max_level; /* -1: any */
	uint64_t keywords_any, keywords_all;
	int have_any, have_all;
	/* time window: absolute FILETIMEs, or relative to each trace's start (100 ns units) */
	int since_rel, until_rel, have_since, have_until;
	int64_t since, until;
};

void filter_init(struct filter *f);
/* Parsers of the option values; 0 on success, -1 with a message in err. */
int filter_add_ranges(struct range *r, size_t *n, const char *spec, char *err, size_t errlen);
int filter_set_time(struct filter *f, int is_until, const char *spec, char *err, size_t errlen);
int filter_add_provider(struct filter *f, const char *spec, char *err, size_t errlen);
int filter_add_process(struct filter *f, const char *spec, char *err, size_t errlen);
int filter_parse_u64(const char *s, uint64_t *v);

/* Checks that need no decoding. */
int filter_header(const struct filter *f, const struct etl_reader *r, const struct etl_event *ev);
int filter_add_name(struct filter *f, const char *spec, char *err, size_t errlen);
int filter_set_where(struct filter *f, const char *spec, char *err, size_t errlen);
void filter_free(struct filter *f);
/* Whether the filters that remain after the header's need the event decoded. */
int filter_needs_decoding(const struct filter *f);
/* The filters of the decoded event (d may be NULL): provider (GUID, or the decoded name), event
 * name, --where. */
int filter_decoded(const struct filter *f, const struct etl_event *ev, const struct etl_decoded *d);

#endif

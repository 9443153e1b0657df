/*
 * match.c - an event (or an analysis row: a pid and a process name) against
 * a filter's tree, three-valued: yes, no, or unknown until the payload is
 * decoded.  Every glob and text comparison ignores ASCII case.  A field the
 * event does not have makes its comparison false (and its "not" true).
 *
 * SPDX-License-Identifier: MIT
 */
#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "filter/filter.h"

/* s in lower case into buf (cap bytes), or into memory of its own when longer (*own: free it). */
static char *lower(const char *s, char *buf, size_t cap, char **own)
{
	size_t n = strlen(s), i;
	char *d = n < cap ? buf : (*own = etl__malloc(n + 1));

	for (i = 0; d && i < n; i++)
		d[i] = (char)tolower((unsigned char)s[i]);
	if (d)
		d[n] = 0;
	return d;
}

/* (plain POSIX fnmatch: FNM_CASEFOLD is an extension; names of any length, never cut) */
int etl__filter_glob(const char *folded_pattern, const char *name)
{
	char nb[512], *own = NULL, *n = lower(name, nb, sizeof(nb), &own);
	int hit = n && fnmatch(folded_pattern, n, 0) == 0;

	etl__free(own);
	return hit;
}

static int text_order(const char *folded, const char *name)
{
	const unsigned char *a = (const unsigned char *)name, *b = (const unsigned char *)folded;

	for (; *a && tolower(*a) == *b; a++, b++)
		;
	return tolower(*a) - *b;
}

int64_t etl__filter_trace_start(const struct etl_reader *r, int trace)
{
	const struct etl_trace_info *t = r ? etl_reader_trace_info(r, trace) : NULL;

	return t ? (int64_t)etl_trace_info_start_time(t) : 0;
}

static int by_order(enum fop op, int c)
{
	switch (op) {
	case FO_EQ: return c == 0;
	case FO_NE: return c != 0;
	case FO_LT: return c < 0;
	case FO_GT: return c > 0;
	case FO_LE: return c <= 0;
	default: return c >= 0;
	}
}

static int in_ranges(const struct fnode *n, uint64_t v)
{
	size_t i;

	for (i = 0; i < n->nranges; i++)
		if (v >= n->ranges[i].lo && v <= n->ranges[i].hi)
			return 1;
	return 0;
}

static int cmp_u64(const struct fnode *n, uint64_t v)
{
	if (n->op == FO_ANY)
		return (v & n->u) != 0;
	if (n->op == FO_ALL)
		return (v & n->u) == n->u;
	if (n->nranges)
		return in_ranges(n, v) == (n->op == FO_EQ);
	return by_order(n->op, v < n->u ? -1 : v > n->u);
}

static void hit(struct fctx *c, const struct fnode *n, enum ffield field, const char *name, int yes)
{
	struct filter_pattern *p;

	if (n->pattern < 0 || n->pattern >= FILTER_MAX_PATTERNS)
		return;
	p = &c->f->patterns[n->pattern];
	if (atomic_load_explicit(&p->hit, memory_order_relaxed))
		return;
	if (!atomic_load_explicit(&p->tried, memory_order_relaxed))
		atomic_store_explicit(&p->tried, 1, memory_order_relaxed);
	if (yes)
		atomic_store_explicit(&p->hit, 1, memory_order_relaxed);
	else
		etl__filter_saw(c->f, field, name);
}

static int cmp_text(struct fctx *c, const struct fnode *n, const char *t)
{
	int yes;

	if (!t)
		return FM_NO;
	if (n->op == FO_EQ || n->op == FO_NE)
		yes = etl__filter_glob(n->folded, t) == (n->op == FO_EQ);
	else
		yes = by_order(n->op, text_order(n->folded, t));
	hit(c, n, n->field, t, yes && n->op == FO_EQ);
	return yes;
}

/* The text of a text field (NULL: the event has none) into *t: 1, or 0 when it needs the
 * decoding (or, in a row, is not a row's). */
static int text_of(struct fctx *c, enum ffield field, const char **t, char *buf, size_t cap)
{
	const struct etl_process *p;

	*t = NULL;
	if (c->row) {
		*t = c->process;
		return field == FF_PROCESS;
	}
	if (field == FF_PROCESS) {
		p = etl_reader_event_process(c->r, c->ev);
		*t = p ? etl_process_image_name(p) : NULL;
		return 1;
	}
	if (field == FF_NAME) {
		*t = c->decoded && c->d ? etl_decoded_name(c->d) : NULL;
		return c->decoded;
	}
	if (c->decoded) { /* FF_PROVIDER: the decoded name, remembered by GUID */
		*t = c->d ? etl_decoded_provider_name(c->d) : NULL;
		if (*t)
			etl__filter_saw_provider(c->f, etl_event_provider(c->ev), *t);
		return 1;
	}
	if (!etl__filter_provider_of(c->f, etl_event_provider(c->ev), buf, cap))
		return 0;
	*t = buf;
	return 1;
}

static int cmp_provider(struct fctx *c, const struct fnode *n)
{
	const char *t;
	char name[256];

	if (n->is_guid)
		return etl_guid_equal(etl_event_provider(c->ev), &n->guid) == (n->op != FO_NE);
	return text_of(c, FF_PROVIDER, &t, name, sizeof(name)) ? cmp_text(c, n, t) : FM_UNKNOWN;
}

/* "or"ed patterns of one field: a text met before gives what it gave; a new one is matched
 * against each pattern (which notes their hits and the names for suggestions). */
static int cmp_any(struct fctx *c, struct fnode *n)
{
	const char *t;
	char buf[256];
	size_t i;
	int yes = 0;

	if (!text_of(c, n->field, &t, buf, sizeof(buf)))
		return FM_UNKNOWN;
	if (!t)
		return FM_NO;
	if (etl__filter_memo_get(c->f, n, t, &yes))
		return yes;
	for (i = 0; i < n->nany; i++) /* (each, so that every pattern's hit is noted) */
		yes |= cmp_text(c, n->any[i], t) == FM_YES;
	etl__filter_memo_put(c->f, n, t, yes);
	return yes;
}

static const struct etl_property *property(struct fctx *c, const struct fnode *n)
{
	if (!c->d || etl_decoded_source(c->d) == ETL_DECODER_NONE)
		return NULL;
	return etl_decoded_property_by_name(c->d, n->prop);
}

/* A payload property: a number when the value is one and the property has one, else its text. */
static int cmp_property(struct fctx *c, const struct fnode *n)
{
	const struct etl_property *p;
	uint64_t u;
	int64_t i;
	double x;

	if (!c->decoded)
		return FM_UNKNOWN;
	if (!(p = property(c, n)))
		return FM_NO;
	switch (etl_property_value_kind(p)) {
	case ETL_VALUE_UNSIGNED: case ETL_VALUE_HEX: case ETL_VALUE_BOOLEAN:
		if (etl_property_as_u64(p, &u) == ETL_OK && n->nranges)
			return cmp_u64(n, u);
		if (etl_property_as_u64(p, &u) == ETL_OK && n->numeric)
			return by_order(n->op, (double)u < n->num ? -1 : (double)u > n->num);
		break;
	case ETL_VALUE_SIGNED:
		if (n->numeric && etl_property_as_i64(p, &i) == ETL_OK)
			return by_order(n->op, (double)i < n->num ? -1 : (double)i > n->num);
		break;
	case ETL_VALUE_REAL:
		if (n->numeric && etl_property_as_double(p, &x) == ETL_OK)
			return by_order(n->op, x < n->num ? -1 : x > n->num);
		break;
	default:
		break;
	}
	return cmp_text(c, n, etl_property_format(p));
}

static int cmp_time(struct fctx *c, const struct fnode *n)
{
	int64_t ft = (int64_t)etl_event_filetime(c->ev), bound = n->time;

	if (n->time_rel) {
		int64_t start = etl__filter_trace_start(c->r, etl_event_trace_index(c->ev));
		bound = start > INT64_MAX - n->time ? INT64_MAX : start + n->time;
	}
	return by_order(n->op, ft < bound ? -1 : ft > bound);
}

static int cmp_process(struct fctx *c, const struct fnode *n)
{
	const char *t;

	(void)text_of(c, FF_PROCESS, &t, NULL, 0);
	return cmp_text(c, n, t);
}

static int cmp_header(struct fctx *c, const struct fnode *n)
{
	const struct etl_event *ev = c->ev;
	uint64_t v;

	switch (n->field) {
	case FF_ID: v = etl_event_id(ev); break;
	case FF_OPCODE: v = etl_event_opcode(ev); break;
	case FF_LEVEL: v = etl_event_level(ev); break;
	case FF_KEYWORDS: v = etl_event_keywords(ev); break;
	case FF_VERSION: v = etl_event_version(ev); break;
	case FF_CPU: v = etl_event_cpu(ev); break;
	case FF_TID:
		if ((v = etl_event_tid(ev)) == ETL_ID_NONE)
			return FM_NO;
		break;
	default: /* FF_PID: the process the event is about (its header's, else its payload's) */
		if ((v = etl_reader_event_pid(c->r, ev)) == ETL_ID_NONE)
			return FM_NO;
		break;
	}
	return cmp_u64(n, v);
}

static int compare(const struct fnode *n, struct fctx *c)
{
	if (c->row) { /* an analysis row: its pid and process only */
		if (n->field == FF_PID)
			return c->pid == ETL_ID_NONE ? FM_NO : cmp_u64(n, c->pid);
		return n->field == FF_PROCESS ? cmp_process(c, n) : FM_UNKNOWN;
	}
	switch (n->field) {
	case FF_PROVIDER: return cmp_provider(c, n);
	case FF_NAME:
		if (!c->decoded)
			return FM_UNKNOWN;
		return cmp_text(c, n, c->d ? etl_decoded_name(c->d) : NULL);
	case FF_PROCESS: return cmp_process(c, n);
	case FF_TIME: return cmp_time(c, n);
	case FF_PROPERTY: return cmp_property(c, n);
	default: return cmp_header(c, n);
	}
}

int etl__filter_eval(const struct fnode *n, struct fctx *c)
{
	int a, b;

	switch (n->kind) {
	case FN_AND:
		if ((a = etl__filter_eval(n->a, c)) == FM_NO || (b = etl__filter_eval(n->b, c)) == FM_NO)
			return FM_NO;
		return a == FM_YES && b == FM_YES ? FM_YES : FM_UNKNOWN;
	case FN_OR:
		if ((a = etl__filter_eval(n->a, c)) == FM_YES || (b = etl__filter_eval(n->b, c)) == FM_YES)
			return FM_YES;
		return a == FM_NO && b == FM_NO ? FM_NO : FM_UNKNOWN;
	case FN_NOT:
		a = etl__filter_eval(n->a, c);
		return a == FM_UNKNOWN ? a : !a;
	case FN_ANY:
		return c->row && n->field != FF_PROCESS ? FM_UNKNOWN : cmp_any(c, (struct fnode *)n);
	default:
		return compare(n, c);
	}
}

/*
 * select.c - the filter API (etl.h): a filter made from text, matched per
 * event, and what the analyses and the reader take from it.  An analysis
 * applies the terms a filter "and"s at its top: the @time comparisons give
 * each input's time window, and the terms about @pid and @process alone
 * select rows by their process; other terms select events for the event
 * outputs only (etl_filter_parts says whether a filter has them).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <string.h>

#include "filter/filter.h"
#include "reader/access.h"

static unsigned parts_of(const struct fnode *root);

int etl_filter_new(const char *text, struct etl_filter **out, char *err, size_t errlen)
{
	struct etl_filter *f;
	char dummy[8];
	const char *s = text;

	if (!err || !errlen) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	*err = 0;
	if (!out || !text)
		return ETL_E_MISUSE;
	*out = NULL;
	if (!(f = etl__calloc(1, sizeof(*f))) || !(f->text = etl__strdup(text))) {
		etl__free(f);
		snprintf(err, errlen, "filter: out of memory");
		return ETL_E_NOMEM;
	}
	etl__filter_names_init(f);
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	if (*s && !(f->root = etl__filter_fold(etl__filter_parse(f, text, err, errlen)))) {
		int nomem = strstr(err, "out of memory") != NULL;
		etl_filter_free(f);
		return nomem ? ETL_E_NOMEM : ETL_E_FORMAT;
	}
	f->parts = parts_of(f->root); /* (analyses ask for every row) */
	*out = f;
	return ETL_OK;
}

void etl_filter_free(struct etl_filter *f)
{
	if (!f)
		return;
	etl__fnode_free(f->root);
	etl__filter_names_free(f);
	etl__free(f->text);
	etl__free(f);
}

const char *etl_filter_text(const struct etl_filter *f)
{
	return f ? f->text : NULL;
}

/* The tree's answer for ev (decoded: with its decoding d). */
static int evaluate(struct etl_filter *f, const struct etl_reader *r, const struct etl_event *ev,
		    const struct etl_decoded *d, int decoded)
{
	struct fctx c;

	memset(&c, 0, sizeof(c));
	c.f = f;
	c.r = r;
	c.ev = ev;
	c.d = d;
	c.decoded = decoded;
	return etl__filter_eval(f->root, &c);
}

int etl_filter_match(struct etl_filter *f, const struct etl_reader *r, const struct etl_event *ev)
{
	int v;

	if (!f || !ev)
		return ETL_E_MISUSE;
	if (!f->root)
		return 1;
	v = evaluate(f, r, ev, NULL, 0);
	return v == FM_UNKNOWN ? ETL_FILTER_NEEDS_DECODING : v;
}

int etl_filter_match_decoded(struct etl_filter *f, const struct etl_reader *r, const struct etl_event *ev,
			     const struct etl_decoded *d)
{
	if (!f || !ev)
		return ETL_E_MISUSE;
	return !f->root || evaluate(f, r, ev, d, 1) == FM_YES;
}

/* ---- the terms at the top ---- */

typedef void (*conjunct_fn)(const struct fnode *n, void *ctx);

static void each_conjunct(const struct fnode *n, conjunct_fn fn, void *ctx)
{
	if (n && n->kind == FN_AND) {
		each_conjunct(n->a, fn, ctx);
		each_conjunct(n->b, fn, ctx);
	} else if (n) {
		fn(n, ctx);
	}
}

/* Whether every comparison under n is about the process (@pid, @process). */
static int about_process(const struct fnode *n)
{
	if (n->kind == FN_CMP || n->kind == FN_ANY)
		return n->field == FF_PID || n->field == FF_PROCESS;
	return about_process(n->a) && (!n->b || about_process(n->b));
}

static void part_of(const struct fnode *n, void *ctx)
{
	unsigned *parts = ctx;

	if (n->kind == FN_CMP && n->field == FF_TIME)
		*parts |= ETL_FILTER_TIME;
	else if (about_process(n))
		*parts |= ETL_FILTER_PROCESS;
	else
		*parts |= ETL_FILTER_OTHER;
}

static unsigned parts_of(const struct fnode *root)
{
	unsigned parts = 0;

	each_conjunct(root, part_of, &parts);
	return parts;
}

unsigned etl_filter_parts(const struct etl_filter *f)
{
	return f ? f->parts : 0;
}

struct window {
	int64_t start, from, to; /* inclusive */
};

static void narrow(const struct fnode *n, void *ctx)
{
	struct window *w = ctx;
	int64_t b;

	if (n->kind != FN_CMP || n->field != FF_TIME)
		return;
	b = n->time_rel ? (w->start > INT64_MAX - n->time ? INT64_MAX : w->start + n->time) : n->time;
	if (n->op == FO_GT && b < INT64_MAX)
		b++;
	if (n->op == FO_LT && b > INT64_MIN)
		b--;
	if ((n->op == FO_GT || n->op == FO_GE) && b > w->from)
		w->from = b;
	if ((n->op == FO_LT || n->op == FO_LE) && b < w->to)
		w->to = b;
}

int etl_filter_window(const struct etl_filter *f, const struct etl_reader *r, int trace, uint64_t *from,
		      uint64_t *to)
{
	struct window w = { 0, 0, INT64_MAX };

	if (!f || !from || !to)
		return ETL_E_MISUSE;
	w.start = etl__filter_trace_start(r, trace);
	each_conjunct(f->root, narrow, &w);
	*from = w.from > 0 ? (uint64_t)w.from : 0;
	*to = w.to == INT64_MAX ? UINT64_MAX : w.to >= 0 ? (uint64_t)w.to : 0;
	return w.from <= w.to ? ETL_OK : ETL_END;
}

struct rowsel {
	struct fctx c;
	int yes;
};

static void row_term(const struct fnode *n, void *ctx)
{
	struct rowsel *s = ctx;

	if (s->yes && !(n->kind == FN_CMP && n->field == FF_TIME) && about_process(n))
		s->yes = etl__filter_eval(n, &s->c) == FM_YES;
}

int etl_filter_process_selected(struct etl_filter *f, uint32_t pid, const char *process)
{
	struct rowsel s;

	if (!f)
		return 1;
	memset(&s, 0, sizeof(s));
	s.c.f = f;
	s.c.row = 1;
	s.c.pid = pid;
	s.c.process = process;
	s.yes = 1;
	each_conjunct(f->root, row_term, &s);
	return s.yes;
}

/* ---- what the reader skips ---- */

static int keep(void *ctx, const struct etl_reader *r, const struct etl_event *ev)
{
	return etl_filter_match(ctx, r, ev) != 0;
}

int etl_reader_set_filter(struct etl_reader *r, struct etl_filter *f)
{
	uint64_t from = UINT64_MAX, to = 0, a, b;
	int i, n, st;

	if (!r)
		return ETL_E_MISUSE;
	if (!f || !etl__reader_fresh(r))
		return etl__reader_misuse(r, "etl_reader_set_filter: a filter, before the first event");
	n = etl_reader_trace_count(r);
	if ((etl_filter_parts(f) & ETL_FILTER_TIME) && n > 0) {
		for (i = 0; i < n; i++) {
			if (etl_filter_window(f, r, i, &a, &b) != ETL_OK)
				a = UINT64_MAX, b = 0; /* (an empty window: nothing of this input) */
			from = a < from ? a : from;
			to = b > to ? b : to;
		}
		if (from > to)
			from = to = 1; /* no input has any of it: a window of nothing */
		st = etl_reader_set_time_window(r, from, to >= UINT64_MAX - 1 ? 0 : to + 1);
		if (st != ETL_OK)
			return st;
	}
	return etl__reader_set_keep(r, keep, f);
}

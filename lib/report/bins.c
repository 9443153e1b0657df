/*
 * bins.c - time series over bins that every chart shares, and sums by key.
 *
 * The clock starts at the trace's start with RB_BINS bins over its logged
 * duration (10 ms each when the header has none).  An event past the last
 * bin makes every series of every timeline merge its bins in pairs and the
 * width double, so memory stays RB_BINS values per series however long the
 * trace runs, and the charts of one report share one time axis.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "report/report.h"

static uint64_t key_hash(const char *s)
{
	return etl__hash_bytes(s, strlen(s));
}

void etl__report_clock_init(struct rb_clock *c, uint64_t t0, uint64_t t1)
{
	memset(c, 0, sizeof(*c));
	etl__report_clock_span(c, t0, t1);
}

void etl__report_clock_span(struct rb_clock *c, uint64_t t0, uint64_t t1)
{
	c->t0 = t0;
	/* (10 ms when the header gives no start or no end: the bins widen as the events come) */
	c->width = t0 && t1 > t0 ? (t1 - t0) / RB_BINS + 1 : 100000;
}

static void line_free(struct rb_line *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		etl__free(l->s[i]->name);
		etl__free(l->s[i]);
	}
	etl__free(l->s);
	etl__htab_free(&l->ix);
	etl__free(l);
}

void etl__report_clock_free(struct rb_clock *c)
{
	size_t i;

	for (i = 0; i < c->nlines; i++)
		line_free(c->lines[i]);
	etl__free(c->lines);
	memset(c, 0, sizeof(*c));
}

struct rb_line *etl__report_line_new(struct rb_clock *c)
{
	struct rb_line *l;

	if (etl__grow(&c->lines, &c->cap, c->nlines + 1, sizeof(*c->lines), 8) != 0 ||
	    !(l = etl__calloc(1, sizeof(*l))))
		return NULL;
	l->clock = c;
	etl__htab_init(&l->ix, sizeof(size_t));
	c->lines[c->nlines++] = l;
	return l;
}

/* Every series' bins merged in pairs; the width doubles. */
static void widen(struct rb_clock *c)
{
	size_t i, j, b;

	for (i = 0; i < c->nlines; i++)
		for (j = 0; j < c->lines[i]->n; j++) {
			double *v = c->lines[i]->s[j]->bin;
			for (b = 0; b < RB_BINS / 2; b++)
				v[b] = v[2 * b] + v[2 * b + 1];
			memset(v + RB_BINS / 2, 0, RB_BINS / 2 * sizeof(*v));
		}
	c->width *= 2;
	c->used = (c->used + 1) / 2;
}

size_t etl__report_clock_bin(struct rb_clock *c, uint64_t ft)
{
	uint64_t d = ft > c->t0 ? ft - c->t0 : 0;

	while (d / c->width >= RB_BINS && c->width < UINT64_MAX / 4)
		widen(c);
	d /= c->width;
	d = d < RB_BINS ? d : RB_BINS - 1;
	if ((size_t)d + 1 > c->used)
		c->used = (size_t)d + 1;
	return (size_t)d;
}

static int series_eq(const void *entry, const void *key)
{
	const struct rb_line *l = ((const void *const *)key)[0];
	const char *name = ((const void *const *)key)[1];

	return strcmp(l->s[*(const size_t *)entry]->name, name) == 0;
}

struct rb_series *etl__report_line_series(struct rb_line *l, const char *key, uint32_t pid)
{
	const void *k[2] = { l, key };
	uint64_t h = key_hash(key);
	size_t *e = etl__htab_find(&l->ix, h, series_eq, k);
	struct rb_series *s;

	if (e)
		return l->s[*e];
	if (l->n >= RB_MAX_SERIES && strcmp(key, "other") != 0) {
		l->dropped++;
		return etl__report_line_series(l, "other", ETL_ID_NONE);
	}
	if (etl__grow(&l->s, &l->cap, l->n + 1, sizeof(*l->s), 16) != 0 || !(s = etl__calloc(1, sizeof(*s))))
		return NULL;
	if (!(s->name = etl__strdup(key)) || !(e = etl__htab_insert(&l->ix, h))) {
		etl__free(s->name);
		etl__free(s);
		return NULL;
	}
	*e = l->n;
	s->pid = pid;
	l->s[l->n++] = s;
	return s;
}

void etl__report_series_add(struct rb_line *l, struct rb_series *s, uint64_t ft, double v)
{
	size_t b = etl__report_clock_bin(l->clock, ft);

	if (!s)
		return;
	s->bin[b] += v;
	s->total += v;
}

void etl__report_series_add_span(struct rb_line *l, struct rb_series *s, uint64_t from, uint64_t to, double v)
{
	size_t b0, b1, b;
	uint64_t w;

	if (!s)
		return;
	if (to <= from) {
		etl__report_series_add(l, s, to, v);
		return;
	}
	etl__report_clock_bin(l->clock, to); /* (widens first: the bins below are final for this call) */
	b0 = etl__report_clock_bin(l->clock, from);
	b1 = etl__report_clock_bin(l->clock, to);
	w = l->clock->width;
	for (b = b0; b <= b1; b++) { /* each bin its share of [from, to) */
		uint64_t lo = l->clock->t0 + w * b, hi = lo + w;
		uint64_t a = from > lo ? from : lo, z = to < hi ? to : hi;
		if (b == b1 && b1 == RB_BINS - 1)
			z = to; /* (the last bin takes what lies past it) */
		if (z > a)
			s->bin[b] += v * (double)(z - a) / (double)(to - from);
	}
	s->total += v;
}

void etl__report_line_add_span(struct rb_line *l, uint64_t from, uint64_t to, const char *key, uint32_t pid, double v)
{
	etl__report_series_add_span(l, etl__report_line_series(l, key, pid), from, to, v);
}

void etl__report_line_add(struct rb_line *l, uint64_t ft, const char *key, uint32_t pid, double v)
{
	etl__report_series_add(l, etl__report_line_series(l, key, pid), ft, v);
}

static int by_total(const void *a, const void *b)
{
	const struct rb_series *x = *(const struct rb_series *const *)a, *y = *(const struct rb_series *const *)b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->name, y->name);
}

struct rb_series **etl__report_line_sorted(const struct rb_line *l, size_t *n)
{
	struct rb_series **v = l->n ? etl__malloc(l->n * sizeof(*v)) : NULL;

	*n = 0;
	if (!v)
		return NULL;
	memcpy(v, l->s, l->n * sizeof(*v));
	qsort(v, l->n, sizeof(*v), by_total);
	*n = l->n;
	return v;
}

/* ---- sums by key ---- */

void etl__report_sums_init(struct rb_sums *t)
{
	memset(t, 0, sizeof(*t));
	etl__htab_init(&t->ix, sizeof(size_t));
	t->other.key = (char *)"other";
	t->other.pid = ETL_ID_NONE;
}

void etl__report_sums_free(struct rb_sums *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		etl__free(t->s[i]->key);
		etl__free(t->s[i]);
	}
	etl__free(t->s);
	etl__htab_free(&t->ix);
}

static int sum_eq(const void *entry, const void *key)
{
	const struct rb_sums *t = ((const void *const *)key)[0];
	const char *name = ((const void *const *)key)[1];

	return strcmp(t->s[*(const size_t *)entry]->key, name) == 0;
}

const struct rb_sum *etl__report_sums_find(const struct rb_sums *t, const char *key)
{
	const void *k[2] = { t, key };
	const size_t *e = etl__htab_find(&t->ix, key_hash(key), sum_eq, k);

	return e ? t->s[*e] : NULL;
}

struct rb_sum *etl__report_sums_get(struct rb_sums *t, const char *key, uint32_t pid)
{
	const void *k[2] = { t, key };
	uint64_t h = key_hash(key);
	size_t *e = etl__htab_find(&t->ix, h, sum_eq, k);
	struct rb_sum *s;

	if (e)
		return t->s[*e];
	if (t->n >= RB_MAX_KEYS)
		return &t->other;
	if (etl__grow(&t->s, &t->cap, t->n + 1, sizeof(*t->s), 16) != 0 || !(s = etl__calloc(1, sizeof(*s))))
		return NULL;
	if (!(s->key = etl__strdup(key)) || !(e = etl__htab_insert(&t->ix, h))) {
		etl__free(s->key);
		etl__free(s);
		return NULL;
	}
	*e = t->n;
	s->pid = pid;
	t->s[t->n++] = s;
	return s;
}

static int by_value(const void *a, const void *b, int k)
{
	const struct rb_sum *x = *(const struct rb_sum *const *)a, *y = *(const struct rb_sum *const *)b;
	double vx = k < 0 ? (double)x->n : x->v[k], vy = k < 0 ? (double)y->n : y->v[k];

	if (vx != vy)
		return vx > vy ? -1 : 1;
	return strcmp(x->key, y->key);
}

static int by_n(const void *a, const void *b) { return by_value(a, b, -1); }
static int by_v0(const void *a, const void *b) { return by_value(a, b, 0); }
static int by_v1(const void *a, const void *b) { return by_value(a, b, 1); }
static int by_v2(const void *a, const void *b) { return by_value(a, b, 2); }
static int by_v3(const void *a, const void *b) { return by_value(a, b, 3); }

struct rb_sum **etl__report_sums_sorted(const struct rb_sums *t, int k, size_t *n)
{
	size_t m = t->n + (t->other.n ? 1 : 0);
	struct rb_sum **v = m ? etl__malloc(m * sizeof(*v)) : NULL;

	*n = 0;
	if (!v)
		return NULL;
	memcpy(v, t->s, t->n * sizeof(*v));
	if (t->other.n)
		v[t->n] = (struct rb_sum *)&t->other;
	qsort(v, m, sizeof(*v), k < 0 ? by_n : k == 0 ? by_v0 : k == 1 ? by_v1 : k == 2 ? by_v2 : by_v3);
	*n = m;
	return v;
}

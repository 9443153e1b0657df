/*
 * windiff.c - see windiff.h.  Events are known by where they lie (input,
 * buffer, offset in the buffer) and their time: two readings of one input
 * deliver the same event with the same four values.
 *
 * SPDX-License-Identifier: MIT
 */
#include "windiff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <etl.h>

struct seen {
	uint64_t file_offset, filetime;
	uint32_t buffer_offset;
};

struct reading {
	struct seen *ev;
	size_t n, cap;
	int failed; /* could not open or read: fatal */
	int said_late;
};

static int cmp_seen(const void *a, const void *b)
{
	const struct seen *x = a, *y = b;

	if (x->file_offset != y->file_offset)
		return x->file_offset < y->file_offset ? -1 : 1;
	if (x->buffer_offset != y->buffer_offset)
		return x->buffer_offset < y->buffer_offset ? -1 : 1;
	return x->filetime < y->filetime ? -1 : x->filetime > y->filetime;
}

static int add(struct reading *g, const struct etl_event *ev)
{
	if (g->n == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 256;
		struct seen *p = realloc(g->ev, cap * sizeof(*p));
		if (!p)
			return -1;
		g->ev = p;
		g->cap = cap;
	}
	g->ev[g->n].file_offset = etl_event_file_offset(ev);
	g->ev[g->n].buffer_offset = etl_event_buffer_offset(ev);
	g->ev[g->n].filetime = etl_event_filetime(ev);
	g->n++;
	return 0;
}

/* Reads the window [from, to) (0, 0: the whole input) into g; counts in *early its events
 * outside the window that come before it said it delivers events of earlier times. */
static void read_window(const uint8_t *d, size_t len, uint64_t from, uint64_t to, struct reading *g,
			size_t *early)
{
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	int st;

	g->failed = !r || etl_reader_set_option(r, ETL_OPTION_STACKS, 0) != ETL_OK ||
		    etl_reader_open_memory(r, d, len, "windiff") != ETL_OK ||
		    ((from || to) && etl_reader_set_time_window(r, from, to) != ETL_OK);
	while (!g->failed && (st = etl_reader_next(r, &ev)) != ETL_END) {
		if (st != ETL_OK) {
			const struct etl_error *e = etl_reader_error(r);
			if (etl_error_is_fatal(e))
				g->failed = 1;
			else if (strstr(etl_error_message(e), "before the time window"))
				g->said_late = 1;
			continue;
		}
		if ((etl_event_filetime(ev) < from || (to && etl_event_filetime(ev) >= to)) && !g->said_late)
			++*early;
		if (add(g, ev) != 0)
			g->failed = 1;
	}
	etl_reader_free(r);
}

static int compare(struct windiff *w, struct reading *whole, struct reading *parts)
{
	size_t i;

	if (whole->n) /* (qsort of no array: NULL is not allowed) */
		qsort(whole->ev, whole->n, sizeof(*whole->ev), cmp_seen);
	if (parts->n)
		qsort(parts->ev, parts->n, sizeof(*parts->ev), cmp_seen);
	for (i = 0; i < whole->n && i < parts->n; i++)
		if (cmp_seen(&whole->ev[i], &parts->ev[i]) != 0)
			break;
	if (i == whole->n && i == parts->n)
		return 0;
	if (i < whole->n && (i == parts->n || cmp_seen(&whole->ev[i], &parts->ev[i]) < 0))
		snprintf(w->why, sizeof(w->why), "the slices lose the event at 0x%llx+0x%x (time %llu)",
			 (unsigned long long)whole->ev[i].file_offset, (unsigned)whole->ev[i].buffer_offset,
			 (unsigned long long)whole->ev[i].filetime);
	else
		snprintf(w->why, sizeof(w->why), "the slices deliver the event at 0x%llx+0x%x (time %llu) %s",
			 (unsigned long long)parts->ev[i].file_offset, (unsigned)parts->ev[i].buffer_offset,
			 (unsigned long long)parts->ev[i].filetime,
			 i + 1 < parts->n && cmp_seen(&parts->ev[i], &parts->ev[i + 1]) == 0 ? "twice"
											 : "that the whole reading does not");
	return -1;
}

int windiff_run(const uint8_t *data, size_t len, size_t n, struct windiff *w)
{
	struct reading whole = { 0 }, parts = { 0 };
	struct etl_reader *r;
	uint64_t bounds[17];
	size_t k = 0, i, early = 0;
	int rc = 0;

	memset(w, 0, sizeof(*w));
	if (n > 16)
		n = 16;
	read_window(data, len, 0, 0, &whole, &early);
	r = etl_reader_new();
	if (r && etl_reader_open_memory(r, data, len, "windiff") == ETL_OK)
		k = etl_reader_time_slices(r, 0, n, bounds);
	etl_reader_free(r);
	for (i = 0; i < k && !parts.failed; i++) {
		parts.said_late = 0;
		read_window(data, len, bounds[i], bounds[i + 1], &parts, &early);
		w->late += (size_t)parts.said_late;
		if (early && !w->why[0])
			snprintf(w->why, sizeof(w->why),
				 "slice %zu [%llu, %llu) delivers an event outside its times without saying so", i,
				 (unsigned long long)bounds[i], (unsigned long long)bounds[i + 1]);
	}
	w->slices = k;
	w->whole = whole.n;
	w->parts = parts.n;
	w->skipped = whole.failed || parts.failed || k == 0;
	if (!w->skipped && (w->why[0] || compare(w, &whole, &parts) != 0))
		rc = -1;
	free(whole.ev);
	free(parts.ev);
	return rc;
}

/* ---- a plan's slices against the time windows ---- */

struct digest {
	uint64_t *h; /* one hash per event or error, in order */
	size_t n, cap;
	int failed;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ULL;
}

static uint64_t mix_str(uint64_t h, const char *s)
{
	while (s && *s)
		h = mix(h, (unsigned char)*s++);
	return mix(h, 0xFF);
}

/* What a reading tells of ev: where it lies, its times, its decoding, its process and stack. */
static uint64_t event_hash(struct etl_reader *r, const struct etl_event *ev)
{
	const struct etl_decoded *d = NULL;
	const struct etl_process *p = etl_reader_event_process(r, ev);
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i, depth;

	h = mix(h, etl_event_file_offset(ev));
	h = mix(h, etl_event_buffer_offset(ev));
	h = mix(h, etl_event_filetime(ev));
	h = mix(h, etl_event_cpu(ev));
	h = mix(h, (uint64_t)etl_reader_decode(r, ev, &d));
	if (d) {
		h = mix_str(h, etl_decoded_event_name(d));
		h = mix(h, etl_decoded_property_count(d));
	}
	h = mix_str(h, p ? etl_process_image_name(p) : "(none)");
	depth = etl_event_stack_depth(ev);
	for (i = 0; i < depth; i++)
		h = mix(h, etl_event_stack_frame(ev, i));
	return h;
}

static void push(struct digest *g, uint64_t h)
{
	if (g->n == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 256;
		uint64_t *p = realloc(g->h, cap * sizeof(*p));
		if (!p) {
			g->failed = 1;
			return;
		}
		g->h = p;
		g->cap = cap;
	}
	g->h[g->n++] = h;
}

/* A slice's state as a reader is given it: bytes (etl_slices_state), or slice i of a plan
 * (etl_reader_set_slice_planned). */
struct given {
	const void *state;
	size_t len;
	const struct etl_slices *plan;
	size_t i;
};

static int give(struct etl_reader *r, const struct given *s)
{
	if (!s)
		return ETL_OK;
	return s->plan ? etl_reader_set_slice_planned(r, s->plan, s->i) : etl_reader_set_slice(r, s->state, s->len);
}

/* What r delivers to its end, appended to g (unless g failed). */
static void deliveries(struct etl_reader *r, struct digest *g)
{
	const struct etl_event *ev;
	int st;

	while (!g->failed && (st = etl_reader_next(r, &ev)) != ETL_END) {
		if (st != ETL_OK) {
			const struct etl_error *e = etl_reader_error(r);
			g->failed = etl_error_is_fatal(e);
			push(g, mix_str(mix(7, etl_error_offset(e)), etl_error_message(e)));
			continue;
		}
		push(g, event_hash(r, ev));
	}
}

/* Reads one slice: with state s, else the window [from, to) (0, 0: none), or both when window
 * (the state's window with its end moved); with a reader that opens the input again from `same`
 * where given (etl_reader_open_same: it shares its stack index), else from memory.  Its
 * deliveries are appended to g (emptied first unless append). */
static void read_slice_of(const uint8_t *d, size_t len, const struct etl_reader *same, uint64_t from, uint64_t to,
			  int window, const struct given *s, int stacks, int append, struct digest *g)
{
	struct etl_reader *r = etl_reader_new();

	if (!append)
		g->n = 0;
	g->failed = !r || etl_reader_set_option(r, ETL_OPTION_STACKS, stacks) != ETL_OK || give(r, s) != ETL_OK ||
		    (same ? etl_reader_open_same(r, same, 0) : etl_reader_open_memory(r, d, len, "windiff")) != ETL_OK ||
		    ((window || from || to) && etl_reader_set_time_window(r, from, to) != ETL_OK);
	deliveries(r, g);
	etl_reader_free(r);
}

static void read_slice(const uint8_t *d, size_t len, uint64_t from, uint64_t to, int stacks, struct digest *g)
{
	read_slice_of(d, len, NULL, from, to, 0, NULL, stacks, 0, g);
}

/* Where digests a and b first differ (a delivery's index), or SIZE_MAX where they do not. */
static size_t differ_at(const struct digest *a, const struct digest *b)
{
	size_t j;

	for (j = 0; j < a->n && j < b->n && a->h[j] == b->h[j]; j++)
		;
	return j < a->n || j < b->n ? j : SIZE_MAX;
}

/* Slices i to end - 1 of plan p read by a reader with their time window (into a) and by one given
 * slice i's state as s says (into b; the window's end moved when end > i + 1).  0 when they
 * deliver the same (or a reading failed: w->skipped), -1 with w->why set. */
static int compare_given(const uint8_t *data, size_t len, struct etl_slices *p, size_t i, size_t end, int stacks,
			 const struct given *s, struct digest *a, struct digest *b, struct windiff *w)
{
	size_t j;

	read_slice_of(data, len, NULL, etl_slices_bound(p, i), etl_slices_bound(p, end), end > i + 1, s, stacks, 0, b);
	if (end == i + 1 && !s->plan)
		w->parts += b->n;
	if (a->failed || b->failed) {
		w->skipped |= a->failed != b->failed;
		return 0;
	}
	if ((j = differ_at(a, b)) == SIZE_MAX)
		return 0;
	snprintf(w->why, sizeof(w->why),
		 "slices %zu to %zu: the reading given the %s differs from the time window at delivery %zu "
		 "(%zu against %zu)", i, end - 1, s->plan ? "plan's slice" : "state", j, b->n, a->n);
	return -1;
}

/* Slices i to end - 1 of plan p read with their time window, against readers given slice i's
 * state as bytes and as the plan's slice (compare_given). */
static int compare_span(const uint8_t *data, size_t len, struct etl_slices *p, size_t i, size_t end, int stacks,
			struct digest *a, struct digest *b, struct windiff *w)
{
	struct given bytes = { NULL, 0, NULL, 0 }, planned = { NULL, 0, p, i };

	read_slice(data, len, etl_slices_bound(p, i), etl_slices_bound(p, end), stacks, a);
	if (end == i + 1)
		w->whole += a->n;
	if (!(bytes.state = etl_slices_state(p, i, &bytes.len))) {
		w->skipped = 1;
		return 0;
	}
	return compare_given(data, len, p, i, end, stacks, &bytes, a, b, w) ||
	       compare_given(data, len, p, i, end, stacks, &planned, a, b, w);
}

int windiff_planned(const uint8_t *data, size_t len, size_t n, int stacks, struct windiff *w)
{
	struct digest a = { 0 }, b = { 0 };
	struct etl_reader *r;
	struct etl_slices *p = NULL;
	size_t i;
	int rc = 0;

	memset(w, 0, sizeof(*w));
	r = etl_reader_new();
	if (r && etl_reader_open_memory(r, data, len, "windiff") == ETL_OK)
		p = etl_reader_plan_slices(r, 0, n > 16 ? 16 : n);
	etl_reader_free(r);
	w->slices = etl_slices_count(p);
	w->skipped = !p;
	for (i = 0; p && i < w->slices && !rc; i++) {
		rc = compare_span(data, len, p, i, i + 1, stacks, &a, &b, w);
		/* slices i and i + 1 as one: slice i's state, the window's end moved */
		if (!rc && i % 2 == 0 && i + 2 <= w->slices)
			rc = compare_span(data, len, p, i, i + 2, stacks, &a, &b, w);
	}
	etl_slices_free(p);
	free(a.h);
	free(b.h);
	return rc;
}

/* A plan of input data with the given helper threads, or NULL (its reader in *r). */
static struct etl_slices *plan_with(const uint8_t *data, size_t len, size_t n, int stacks, int threads,
				    struct etl_reader **r)
{
	*r = etl_reader_new();
	if (!*r || etl_reader_set_option(*r, ETL_OPTION_STACKS, stacks) != ETL_OK ||
	    etl_reader_set_option(*r, ETL_OPTION_THREADS, threads) != ETL_OK ||
	    etl_reader_open_memory(*r, data, len, "windiff") != ETL_OK)
		return NULL;
	return etl_reader_plan_slices(*r, 0, n > 16 ? 16 : n);
}

/* A plan of input data without helpers, or NULL (its reader in *r), into w (cleared): its
 * slices' count, and skipped unless it is in order; where it is, a whole reading into a. */
static struct etl_slices *plan_in_order(const uint8_t *data, size_t len, size_t n, int stacks, struct windiff *w,
					struct etl_reader **r, struct digest *a)
{
	struct etl_slices *p = plan_with(data, len, n, stacks, 0, r);

	memset(w, 0, sizeof(*w));
	w->slices = etl_slices_count(p);
	w->skipped = !etl_slices_in_order(p);
	if (!w->skipped)
		read_slice(data, len, 0, 0, stacks, a);
	return p;
}

int windiff_in_order(const uint8_t *data, size_t len, size_t n, int stacks, struct windiff *w)
{
	struct digest a = { 0 }, b = { 0 };
	struct etl_reader *r;
	struct etl_slices *p = plan_in_order(data, len, n, stacks, w, &r, &a);
	size_t i, j;
	int rc = 1;

	if (!w->skipped) {
		for (i = 0; i < w->slices && !b.failed; i++) {
			/* (each other slice given as the plan's slice: both ways add up to the whole) */
			struct given s = { NULL, 0, i % 2 ? p : NULL, i };
			if (!s.plan && !(s.state = etl_slices_state(p, i, &s.len)))
				b.failed = 1;
			else /* (the planning reader made the stack index: its slices share it) */
				read_slice_of(data, len, r, 0, 0, 0, &s, stacks, 1, &b);
		}
		w->whole = a.n;
		w->parts = b.n;
		w->skipped = a.failed || b.failed;
	}
	if (!w->skipped) {
		rc = 0;
		if ((j = differ_at(&a, &b)) != SIZE_MAX) {
			snprintf(w->why, sizeof(w->why),
				 "a plan in order: its slices one after another differ from a whole reading at delivery "
				 "%zu (%zu against %zu)", j, b.n, a.n);
			rc = -1;
		}
	}
	etl_slices_free(p);
	etl_reader_free(r);
	free(a.h);
	free(b.h);
	return rc;
}

/* Where plans a and b differ (w->why), or 0. */
static int plans_differ(struct etl_slices *a, struct etl_slices *b, struct windiff *w)
{
	size_t i, la, lb;

	if (etl_slices_count(a) != etl_slices_count(b) || etl_slices_in_order(a) != etl_slices_in_order(b)) {
		snprintf(w->why, sizeof(w->why), "with helpers: %zu slices (in order %d) against %zu (%d)",
			 etl_slices_count(b), etl_slices_in_order(b), etl_slices_count(a), etl_slices_in_order(a));
		return 1;
	}
	for (i = 0; i <= etl_slices_count(a); i++)
		if (etl_slices_bound(a, i) != etl_slices_bound(b, i)) {
			snprintf(w->why, sizeof(w->why), "with helpers: bound %zu differs", i);
			return 1;
		}
	for (i = 0; i < etl_slices_count(a); i++) {
		const void *sa = etl_slices_state(a, i, &la);
		void *copy = sa ? malloc(la ? la : 1) : NULL;
		const void *sb;
		int differ;
		if (!copy)
			return 0; /* (no memory: nothing compared) */
		memcpy(copy, sa, la);
		sb = etl_slices_state(b, i, &lb);
		differ = !sb || la != lb || memcmp(copy, sb, la) != 0;
		free(copy);
		if (differ) {
			snprintf(w->why, sizeof(w->why), "with helpers: the state of slice %zu differs (%zu bytes against %zu)",
				 i, lb, la);
			return 1;
		}
	}
	return 0;
}

int windiff_helped(const uint8_t *data, size_t len, size_t n, int stacks, struct windiff *w)
{
	struct etl_reader *ra, *rb;
	struct etl_slices *a, *b;
	int rc = 1;

	memset(w, 0, sizeof(*w));
	a = plan_with(data, len, n, stacks, 0, &ra);
	b = plan_with(data, len, n, stacks, 2, &rb);
	w->skipped = !a || !b;
	if (!w->skipped) {
		w->slices = etl_slices_count(a);
		rc = plans_differ(a, b, w) ? -1 : 0;
	}
	etl_slices_free(a);
	etl_slices_free(b);
	etl_reader_free(ra);
	etl_reader_free(rb);
	return rc;
}

/* The slices of plan p (its planning reader: planner) read by `ways` readers, each taking every
 * ways-th slice in turn and moving on from one to the next (etl_reader_move_to_slice; the first
 * slice's reader cannot, so a new one follows it), slice i's deliveries into g[i]: 0, or -1 with
 * w->why set when a reader that read its slice to the end could not move on. */
static int read_moving(const struct etl_reader *planner, const struct etl_slices *p, size_t ways, int stacks,
		       struct digest *g, struct windiff *w)
{
	size_t v, i, k = etl_slices_count(p);
	int rc = 0;

	for (v = 0; v < ways && !rc; v++) {
		struct etl_reader *r = NULL;
		for (i = v; i < k && !rc; i += ways) {
			if (r && etl_reader_move_to_slice(r, p, i) != ETL_OK) {
				const struct etl_error *e = etl_reader_error(r);
				if (i - ways > 0 && !g[i - ways].failed) {
					snprintf(w->why, sizeof(w->why), "the reader of slice %zu could not move on to slice %zu: %s",
						 i - ways, i, e ? etl_error_message(e) : "?");
					rc = -1;
				}
				etl_reader_free(r);
				r = NULL;
			}
			if (!rc && !r) {
				struct given s = { NULL, 0, p, i };
				r = etl_reader_new();
				g[i].failed = !r || etl_reader_set_option(r, ETL_OPTION_STACKS, stacks) != ETL_OK ||
					      give(r, &s) != ETL_OK || etl_reader_open_same(r, planner, 0) != ETL_OK;
			}
			if (!rc)
				deliveries(r, &g[i]);
		}
		etl_reader_free(r);
	}
	return rc;
}

int windiff_moved(const uint8_t *data, size_t len, size_t n, int stacks, size_t ways, struct windiff *w)
{
	struct digest a = { 0 }, b = { 0 }, *g = NULL;
	struct etl_reader *r;
	struct etl_slices *p = plan_in_order(data, len, n, stacks, w, &r, &a);
	size_t i, j;
	int rc = 1;

	w->skipped = w->skipped || !(g = calloc(w->slices, sizeof(*g)));
	if (!w->skipped) {
		rc = read_moving(r, p, ways ? ways : 1, stacks, g, w);
		for (i = 0; i < w->slices; i++) {
			for (j = 0; j < g[i].n; j++)
				push(&b, g[i].h[j]);
			b.failed |= g[i].failed;
		}
		w->whole = a.n;
		w->parts = b.n;
		w->skipped = !rc && (a.failed || b.failed);
		if (w->skipped)
			rc = 1;
		else if (!rc && (j = differ_at(&a, &b)) != SIZE_MAX) {
			snprintf(w->why, sizeof(w->why),
				 "a plan in order read by %zu readers moving on from slice to slice differs from a whole "
				 "reading at delivery %zu (%zu against %zu)", ways, j, b.n, a.n);
			rc = -1;
		}
	}
	for (i = 0; g && i < w->slices; i++)
		free(g[i].h);
	free(g);
	etl_slices_free(p);
	etl_reader_free(r);
	free(a.h);
	free(b.h);
	return rc;
}

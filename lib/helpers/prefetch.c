/*
 * prefetch.c - the helper threads of ETL_OPTION_THREADS (see prefetch.h).
 * One lock guards the queue and every job's state; a job's loader and
 * parsed records are touched by the helper only while the job runs, and by
 * its stream only when the job is idle or done.
 *
 * SPDX-License-Identifier: MIT
 */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "helpers/prefetch.h"
#include "helpers/classify.h"
#include "record/record.h"
#include "state/state.h"

struct fact_scratch;

struct etl_prefetch {
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	struct etl_pfjob *head, *tail;
	int stop;
	unsigned n;
	pthread_t threads[64];
	struct fact_scratch *waiter; /* the scratch of the thread that runs jobs while it waits */
	double waiter_cpu;           /* and the CPU seconds it spent on them */
};

/* What a helper keeps to read facts (made when a job first asks for them). */
struct fact_scratch {
	struct plan_classes classes; /* which records may be state records; the kernel layouts */
	struct etl_state sys;        /* where etl__state_changes reads a record's fact */
};

/* Keeps the fact of state record ev at pos of j's buffer, if it has one: 0, or 1 when the job's
 * room is spent (the stream reads the rest). */
static int keep_fact(struct etl_pfjob *j, struct fact_scratch *fs, const struct etl_event *ev, size_t pos)
{
	struct etl_prefacts *fx = &j->fx;
	size_t len = 0;

	if (!etl__state_changes(&fs->sys, &fs->classes.dec, ev, &len) || !len)
		return 0;
	if (len > j->fact_max - fx->len || etl__grow(&fx->v, &fx->cap, fx->n + 1, sizeof(*fx->v), 64) != 0 ||
	    etl__grow(&fx->bytes, &fx->bytes_cap, fx->len + len, 1, 4096) != 0)
		return 1;
	fx->v[fx->n].pos = pos;
	fx->v[fx->n].at = fx->len;
	fx->v[fx->n].len = (uint32_t)len;
	memcpy(fx->bytes + fx->len, fs->sys.fact, len);
	fx->len += len;
	fx->n++;
	return 0;
}

/* The time of the last record of j's buffer parsed ahead that has one of its own, in *last:
 * 0 where none has. */
static int parsed_last_time(const struct etl_pfjob *j, uint64_t *last)
{
	size_t i = j->pre.n;

	while (i-- > 0)
		if (!(j->pre.v[i].ev.flags & ETL_EVF_TS_INHERITED)) {
			*last = j->pre.v[i].ev.ts_raw;
			return 1;
		}
	return 0;
}

/* The walk of a buffer's records after those parsed ahead (read_rest). */
struct rest_walk {
	int light, facts;   /* still peeking records into lights; still reading facts */
	int timed;          /* last holds the time of the record before */
	uint64_t last;
};

/* Adds the record at pos, peeked as pk (advance adv), to j's lights, unless the stream must read
 * it closer: its time unknown here, a record swallowed, no room.  Nonzero where the lights go on. */
static int add_light(struct etl_pfjob *j, struct rest_walk *w, size_t pos, size_t adv, const struct etl_peek *pk)
{
	struct etl_prerecs *pre = &j->pre;
	struct etl_prelight *l;
	uint64_t ts = pk->inherited ? w->last : pk->ts_raw;

	if (pre->ln && pk->stack)
		pre->lv[pre->ln - 1].flags |= PL_STACK; /* a stack record may follow the one before */
	if ((pk->inherited && !w->timed) || pre->ln >= j->light_max || pos > UINT32_MAX ||
	    (pre->ln == pre->lcap && etl__grow(&pre->lv, &pre->lcap, pre->ln + 1, sizeof(*pre->lv), 256) != 0) ||
	    etl__record_swallowed(j->ld.data, pos, adv, pk->payload, ts, j->ptr_size))
		return 0;
	l = &pre->lv[pre->ln++];
	l->pos = (uint32_t)pos;
	/* a stack record of its own, else none until the record after it says so (add_light, or
	 * read_rest where it does not peek); none can follow the buffer's last record */
	l->flags = pk->stack ? PL_STACK : 0;
	l->filetime = 0;
	if (!pk->inherited) {
		l->flags |= PL_TIMED;
		l->filetime = etl__clock_filetime(j->clock, pk->ts_raw);
		w->last = pk->ts_raw;
		w->timed = 1;
	}
	return 1;
}

/* The records of the buffer j loaded after those it parsed ahead: into j->pre's lights (to the
 * first the stream must read closer), and the facts of the state records among all of them into
 * j->fx - those it parsed ahead, then those after them found by their headers (etl__record_peek:
 * the sizes the stream follows) and parsed where they may describe something.  None where it could
 * not be loaded or the scratch not made; where a record does not read, the stream reads on. */
static void read_rest(struct etl_pfjob *j, struct fact_scratch **fs)
{
	const uint8_t *buf = j->ld.data;
	size_t fill = j->ld.fill, pos = ETL_BUFFER_HEADER_SIZE, adv, i;
	struct rest_walk w;

	j->fx.n = j->fx.len = 0;
	j->pre.ln = 0;
	if (j->status != ETL_OK || !buf)
		return;
	w.light = j->light_max > 0;
	w.facts = j->fact_max > 0 && (*fs || (*fs = etl__calloc(1, sizeof(**fs))) != NULL);
	w.last = 0;
	w.timed = parsed_last_time(j, &w.last);
	for (i = 0; i < j->pre.n; i++) {
		const struct etl_prerec *x = &j->pre.v[i];
		if (w.facts && x->ev.kind != ETL_HEADER_EVENT && x->ev.kind != ETL_HEADER_MESSAGE &&
		    keep_fact(j, *fs, &x->ev, x->pos))
			w.facts = 0;
		if (x->swallow)
			w.light = 0; /* the stream goes back into it, or may (and then reads on itself) */
		pos = x->pos + x->adv;
	}
	for (; (w.light || w.facts) && pos < fill; pos += adv) {
		struct etl_peek pk;
		struct etl_event ev;
		struct etl_diag ignored;
		if (etl__record_peek(buf, fill, pos, &pk, &adv) != ETL_OK) {
			if (w.light && j->pre.ln)
				j->pre.lv[j->pre.ln - 1].flags |= PL_STACK; /* (what follows it unknown) */
			return;
		}
		if (w.light)
			w.light = add_light(j, &w, pos, adv, &pk);
		if (!w.facts || pk.kind == ETL_HEADER_EVENT || pk.kind == ETL_HEADER_MESSAGE ||
		    !etl__plan_describes(&(*fs)->classes, buf, pos, &pk))
			continue;
		if (etl__record_parse(buf, fill, pos, j->ptr_size, &ev, &adv, &ignored) != ETL_OK || keep_fact(j, *fs, &ev, pos))
			w.facts = 0;
	}
}

static void fact_scratch_free(struct fact_scratch *fs)
{
	if (!fs)
		return;
	etl__decode_state_free(&fs->classes.dec);
	etl__state_free(&fs->sys);
	etl__free(fs);
}

void etl__prefacts_free(struct etl_prefacts *fx)
{
	etl__free(fx->v);
	etl__free(fx->bytes);
	memset(fx, 0, sizeof(*fx));
}

void etl__prerecs_free(struct etl_prerecs *pre)
{
	etl__free(pre->v);
	etl__free(pre->lv);
	memset(pre, 0, sizeof(*pre));
}

/* This thread's CPU seconds, or -1 where they cannot be read. */
static double thread_cpu(void)
{
#ifdef CLOCK_THREAD_CPUTIME_ID
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
		return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
#endif
	return -1;
}

/* Takes the queue's first job and runs it on this thread, the lock held on entry and on return
 * (not inlined: the benchmark tells its instructions on the waiting thread by its name). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void run_first(struct etl_prefetch *p, struct fact_scratch **fs)
{
	struct etl_pfjob *j = p->head;

	p->head = j->next;
	if (!p->head)
		p->tail = NULL;
	j->state = PF_RUNNING;
	pthread_mutex_unlock(&p->mu);
	if (!j->loaded) {
		j->diag.code = ETL_OK;
		j->status = etl__walk_load(&j->ld, &j->ent, &j->diag);
	}
	etl__prefetch_parse(j);
	read_rest(j, fs);
	if (j->stack_part && j->ld.data) /* (as the stack index pass takes what loading gave) */
		etl__stacks_load_buffer(j->stack_part, j->ld.data, j->ld.fill, j->ptr_size, j->stack_bytes);
	if (j->then) /* (with this thread's classes, NULL without memory) */
		j->then(j, j->then_ctx, *fs || (*fs = etl__calloc(1, sizeof(**fs))) != NULL ? &(*fs)->classes : NULL);
	pthread_mutex_lock(&p->mu);
	j->state = PF_DONE;
	if (j->awaited) /* (the reader is not woken for the jobs it does not wait for yet) */
		pthread_cond_broadcast(&p->done);
}

static void *helper(void *arg)
{
	struct etl_prefetch *p = arg;
	struct fact_scratch *fs = NULL;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->stop && !p->head)
			pthread_cond_wait(&p->work, &p->mu);
		if (p->stop)
			break;
		run_first(p, &fs);
	}
	pthread_mutex_unlock(&p->mu);
	fact_scratch_free(fs);
	return NULL;
}

struct etl_prefetch *etl__prefetch_new(unsigned n)
{
	struct etl_prefetch *p;

	if (n == 0)
		return NULL;
	if (n > 64)
		n = 64;
	p = etl__calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	if (pthread_mutex_init(&p->mu, NULL) != 0) {
		etl__free(p);
		return NULL;
	}
	if (pthread_cond_init(&p->work, NULL) != 0 || pthread_cond_init(&p->done, NULL) != 0) {
		pthread_mutex_destroy(&p->mu);
		etl__free(p);
		return NULL;
	}
	for (p->n = 0; p->n < n; p->n++)
		if (pthread_create(&p->threads[p->n], NULL, helper, p) != 0)
			break;
	if (p->n == 0) {
		etl__prefetch_free(p);
		return NULL;
	}
	return p;
}

void etl__prefetch_free(struct etl_prefetch *p)
{
	unsigned i;

	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = 1;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->mu);
	for (i = 0; i < p->n; i++)
		pthread_join(p->threads[i], NULL);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->mu);
	fact_scratch_free(p->waiter);
	etl__free(p);
}

void etl__prefetch_submit(struct etl_prefetch *p, struct etl_pfjob *j)
{
	pthread_mutex_lock(&p->mu);
	j->state = PF_QUEUED;
	j->next = NULL;
	if (p->tail)
		p->tail->next = j;
	else
		p->head = j;
	p->tail = j;
	pthread_cond_signal(&p->work);
	pthread_mutex_unlock(&p->mu);
}

void etl__prefetch_wait_helping(struct etl_prefetch *p, struct etl_pfjob *j)
{
	pthread_mutex_lock(&p->mu);
	while (j->state != PF_DONE) {
		if (p->head) { /* (j itself, when no helper took it yet: it is the queue's first) */
			double t = thread_cpu();
			run_first(p, &p->waiter);
			if (t >= 0)
				p->waiter_cpu += thread_cpu() - t;
			continue;
		}
		j->awaited = 1;
		pthread_cond_wait(&p->done, &p->mu);
	}
	j->awaited = 0;
	j->state = PF_IDLE;
	pthread_mutex_unlock(&p->mu);
}

double etl__prefetch_waiter_cpu(const struct etl_prefetch *p)
{
	return p->waiter_cpu;
}

void etl__prefetch_wait(struct etl_prefetch *p, struct etl_pfjob *j)
{
	pthread_mutex_lock(&p->mu);
	j->awaited = 1;
	while (j->state != PF_DONE)
		pthread_cond_wait(&p->done, &p->mu);
	j->awaited = 0;
	j->state = PF_IDLE;
	pthread_mutex_unlock(&p->mu);
}

size_t etl__prefetch_parse_max(size_t njobs)
{
	size_t n = PF_PARSE_BYTES / (njobs ? njobs : 1) / sizeof(struct etl_prerec);

	return n < PF_PARSE_MIN ? 0 : n > PF_PARSE_MAX ? PF_PARSE_MAX : n;
}

size_t etl__prefetch_light_max(size_t njobs)
{
	size_t n = PF_LIGHT_BYTES / (njobs ? njobs : 1) / sizeof(struct etl_prelight);

	return n < PF_LIGHT_MIN ? 0 : n > PF_LIGHT_MAX ? PF_LIGHT_MAX : n;
}

size_t etl__prefetch_fact_max(size_t njobs)
{
	size_t n = PF_FACT_BYTES / (njobs ? njobs : 1);

	return n < PF_FACT_MIN ? 0 : n > PF_FACT_MAX ? PF_FACT_MAX : n;
}

void etl__prefetch_parse(struct etl_pfjob *j)
{
	struct etl_prerecs *pre = &j->pre;
	const struct etl_bufload *ld = &j->ld;
	size_t pos = ETL_BUFFER_HEADER_SIZE;
	unsigned ptr_size = j->ptr_size;
	uint64_t last = 0;
	int timed = 0;

	pre->n = 0;
	if (j->status != ETL_OK || !ld->data)
		return;
	while (pos < ld->fill && pre->n < j->parse_max) {
		struct etl_prerec *x;
		struct etl_diag ignored;
		int seen;

		if (pre->n == pre->cap && etl__grow(&pre->v, &pre->cap, pre->n + 1, sizeof(*pre->v), 64) != 0)
			return;
		x = &pre->v[pre->n];
		if (etl__record_parse(ld->data, ld->fill, pos, ptr_size, &x->ev, &x->adv, &ignored) != ETL_OK)
			return;
		x->pos = pos;
		if (!(x->ev.flags & ETL_EVF_TS_INHERITED)) {
			x->ev.filetime = etl__clock_filetime(j->clock, x->ev.ts_raw);
			x->ev.unix_ns = etl__filetime_to_unix_ns(x->ev.filetime);
		}
		if (!(x->ev.flags & ETL_EVF_TS_INHERITED)) {
			last = x->ev.ts_raw;
			timed = 1;
		}
		/* the time the stream gives a record that takes it from the one before */
		x->swallow = !timed ? PF_SWALLOW_UNKNOWN
				    : etl__record_swallowed(ld->data, pos, x->adv, (size_t)(x->ev.payload - ld->data),
							    last, ptr_size);
		seen = 0; /* without stacks, the stream attaches none (etl__reader_attach_stacks) */
		x->stack_rec = j->stacks && !etl__stacks_attach(&seen, &x->ev, ld->data, ld->fill, pos + x->adv) &&
			       seen;
		x->stack_seen = seen;
		pre->n++;
		if (x->swallow && x->swallow != PF_SWALLOW_UNKNOWN)
			return; /* the stream goes back into this record next */
		pos += x->adv;
	}
}

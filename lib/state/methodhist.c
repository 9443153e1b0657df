/*
 * methodhist.c - the .NET methods of a trace over time (see methodhist.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "state/methodhist.h"
#include "util/cursor.h"
#include "util/htab.h"

enum { METHOD_LOAD = 1, METHOD_UNLOAD, METHOD_RUNDOWN, MODULE_RECORD };

static const struct etl_guid clr_runtime = { 0xe13c0d23, 0xccbc, 0x4e12,
					     { 0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4 } };
static const struct etl_guid clr_rundown = { 0xa669021c, 0xc450, 0x4609,
					     { 0xa0, 0x35, 0x5a, 0xf5, 0x9a, 0xf4, 0xdf, 0x18 } };

/* What the event is: METHOD_* or MODULE_RECORD, or 0. */
static int kind_of(const struct etl_event *ev)
{
	if (ev->kind != ETL_HEADER_EVENT)
		return 0;
	if (ev->provider.data1 == clr_runtime.data1 && etl_guid_equal(&ev->provider, &clr_runtime)) {
		switch (ev->id) {
		case 143: return METHOD_LOAD;
		case 144: return METHOD_UNLOAD;
		case 139: case 140: return METHOD_RUNDOWN;
		case 149: case 150: case 152: case 153: return MODULE_RECORD;
		default: return 0;
		}
	}
	if (ev->provider.data1 == clr_rundown.data1 && etl_guid_equal(&ev->provider, &clr_rundown)) {
		switch (ev->id) {
		case 143: case 144: return METHOD_RUNDOWN;
		case 153: case 154: return MODULE_RECORD;
		default: return 0;
		}
	}
	return 0;
}

int etl__methodhist_wants(const struct etl_event *ev)
{
	return kind_of(ev) != 0;
}

int etl__methodhist_may_want(uint32_t provider_data1)
{
	return provider_data1 == clr_runtime.data1 || provider_data1 == clr_rundown.data1;
}

/* Room for one more record and n more pool bytes, within max bytes held; 0 or -1. */
static int room(struct etl_methodhist *h, size_t n, uint64_t max)
{
	size_t rc = h->nrec == h->caprec ? (h->caprec ? h->caprec * 2 : 64) : h->caprec, pc = h->pool_cap;

	while (h->pool_len + n > pc)
		pc = pc ? pc * 2 : 4096;
	if ((uint64_t)rc * sizeof(*h->rec) + pc > max)
		return -1;
	if (etl__grow(&h->rec, &h->caprec, h->nrec + 1, sizeof(*h->rec), 64) != 0 ||
	    etl__grow(&h->pool, &h->pool_cap, h->pool_len + n, 1, 4096) != 0)
		return -1;
	return 0;
}

/* The UTF-16 string at the cursor (with its NUL), stepped over: its units before the NUL. */
static const uint8_t *wstr(struct etl_cursor *c, size_t *units)
{
	const uint8_t *p = c->base + c->pos;
	size_t n = etl__utf16_units(p, cur_left(c) / 2);

	if (2 * n + 2 > cur_left(c)) {
		c->failed = 1; /* no terminator: the record is cut */
		return NULL;
	}
	cur_skip(c, 2 * n + 2);
	*units = n;
	return p;
}

/* Appends UTF-16 text (n units) to the pool as UTF-8 with its NUL (room made by the caller). */
static size_t put(struct etl_methodhist *h, const uint8_t *p, size_t n)
{
	size_t at = h->pool_len;

	h->pool_len += etl__utf16_convert(p, n, (uint8_t *)h->pool + at) + 1;
	return at;
}

/* A method record: MethodID, ModuleID, MethodStartAddress, MethodSize, MethodToken, MethodFlags,
 * then namespace, name and signature. */
static void add_method(struct etl_methodhist *h, const struct etl_event *ev, int kind, uint64_t max)
{
	struct etl_cursor c;
	const uint8_t *ns, *name, *sig;
	size_t nns, nname, nsig;
	struct etl_mthrec *r;
	uint64_t module, start;
	uint32_t size;

	cur_init(&c, ev->payload, ev->payload_len);
	(void)cur_u64(&c);
	module = cur_u64(&c);
	start = cur_u64(&c);
	size = cur_u32(&c);
	cur_skip(&c, 8);
	ns = wstr(&c, &nns);
	name = wstr(&c, &nname);
	sig = wstr(&c, &nsig);
	if (!cur_ok(&c) || ev->pid == ETL_ID_NONE || size == 0)
		return; /* a cut record: the reader reports it where it is decoded */
	if (room(h, 3 * (nns + 1 + nname + nsig) + 2, max) != 0) {
		h->dropped++;
		return;
	}
	r = &h->rec[h->nrec++];
	memset(r, 0, sizeof(*r));
	r->ts = ev->ts_raw;
	r->order = h->next_order++;
	r->start = start;
	r->size = size;
	r->module = module;
	r->pid = ev->pid;
	r->op = (uint8_t)kind;
	/* "Namespace.Type.Method": the namespace and the name joined by a dot (the namespace is the
	 * type's full name) */
	r->name = h->pool_len;
	if (nns) {
		h->pool_len += etl__utf16_convert(ns, nns, (uint8_t *)h->pool + h->pool_len);
		h->pool[h->pool_len++] = '.';
	}
	(void)put(h, name, nname);
	r->sig = put(h, sig, nsig);
}

/* A module record: ModuleID, AssemblyID, ModuleFlags, Reserved1, ModuleILPath, ModuleNativePath. */
static void add_module(struct etl_methodhist *h, const struct etl_event *ev, uint64_t max)
{
	struct etl_cursor c;
	const uint8_t *il, *native;
	size_t nil, nnative;
	struct etl_mthrec *r;
	uint64_t id;

	cur_init(&c, ev->payload, ev->payload_len);
	id = cur_u64(&c);
	cur_skip(&c, 16);
	il = wstr(&c, &nil);
	native = wstr(&c, &nnative);
	if (!cur_ok(&c) || ev->pid == ETL_ID_NONE || (!nil && !nnative))
		return;
	if (room(h, 3 * (nil ? nil : nnative) + 1, max) != 0) {
		h->dropped++;
		return;
	}
	r = &h->rec[h->nrec++];
	memset(r, 0, sizeof(*r));
	r->ts = ev->ts_raw;
	r->order = h->next_order++;
	r->module = id;
	r->pid = ev->pid;
	r->op = MODULE_RECORD;
	r->name = nil ? put(h, il, nil) : put(h, native, nnative);
}

void etl__methodhist_add(struct etl_methodhist *h, const struct etl_event *ev, uint64_t max)
{
	int kind = kind_of(ev);

	if (kind == MODULE_RECORD)
		add_module(h, ev, max);
	else if (kind)
		add_method(h, ev, kind, max);
}

void etl__methodhist_append(struct etl_methodhist *h, const struct etl_methodhist *part, uint64_t max)
{
	size_t i;

	for (i = 0; i < part->nrec; i++) {
		const struct etl_mthrec *p = &part->rec[i];
		const char *name = part->pool + p->name, *sig = p->op == MODULE_RECORD ? "" : part->pool + p->sig;
		size_t nn = strlen(name) + 1, ns = p->op == MODULE_RECORD ? 0 : strlen(sig) + 1;
		struct etl_mthrec *r;
		if (room(h, nn + ns, max) != 0) {
			h->dropped += part->nrec - i;
			break;
		}
		r = &h->rec[h->nrec++];
		*r = *p;
		r->order = h->next_order++;
		r->name = h->pool_len;
		memcpy(h->pool + h->pool_len, name, nn);
		h->pool_len += nn;
		if (ns) {
			r->sig = h->pool_len;
			memcpy(h->pool + h->pool_len, sig, ns);
			h->pool_len += ns;
		}
	}
	h->dropped += part->dropped;
}

static int rec_cmp(const void *a, const void *b)
{
	const struct etl_mthrec *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int method_cmp(const void *a, const void *b)
{
	const struct etl_method *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->from < y->from ? -1 : x->from > y->from;
}

static int module_cmp(const void *a, const void *b)
{
	const struct etl_clrmodule *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The methods made so far, by (pid, start): the newest, each chained to the one before it. */
struct start_slot {
	uint32_t pid;
	uint64_t start;
	size_t newest;
};

static uint64_t start_hash(uint32_t pid, uint64_t start)
{
	return etl__hash_mix(start * 0x9E3779B97F4A7C15ull ^ pid);
}

static int start_eq(const void *entry, const void *key)
{
	const struct start_slot *e = entry, *k = key;

	return e->pid == k->pid && e->start == k->start;
}

/* The newest method of (pid, start) still alive at the end (to == UINT64_MAX), or NULL. */
static struct etl_method *open_at(struct etl_methodhist *h, const struct etl_htab *ix, const size_t *prev,
				  uint32_t pid, uint64_t start)
{
	struct start_slot key = { pid, start, 0 };
	const struct start_slot *e = etl__htab_find(ix, start_hash(pid, start), start_eq, &key);
	size_t i;

	for (i = e ? e->newest + 1 : 0; i; i = prev[i - 1])
		if (h->m[i - 1].to == UINT64_MAX)
			return &h->m[i - 1];
	return NULL;
}

/* Replays the method records in time order into h->m; the module records into h->mod. */
static int replay(struct etl_methodhist *h)
{
	struct etl_htab ix;
	size_t *prev = etl__calloc(h->nrec ? h->nrec : 1, sizeof(*prev)), i, nmod = 0;
	int st = 0;

	for (i = 0; i < h->nrec; i++)
		nmod += h->rec[i].op == MODULE_RECORD;
	/* (each the exact room: fresh memory costs more than a count) */
	h->m = etl__calloc(h->nrec - nmod ? h->nrec - nmod : 1, sizeof(*h->m));
	h->mod = etl__calloc(nmod ? nmod : 1, sizeof(*h->mod));
	etl__htab_init(&ix, sizeof(struct start_slot));
	(void)etl__htab_reserve(&ix, h->nrec - nmod); /* (a method a record at most; else it grows) */
	if (!prev || !h->m || !h->mod)
		st = -1;
	for (i = 0; i < h->nrec && st == 0; i++) {
		const struct etl_mthrec *r = &h->rec[i];
		struct etl_method *m;
		struct start_slot key = { r->pid, r->start, 0 }, *slot;
		uint64_t hv;
		if (r->op == MODULE_RECORD) {
			h->mod[h->nmod++] = (struct etl_clrmodule){ r->pid, r->module, r->name,
								      (size_t)(etl__path_file(h->pool + r->name) - h->pool) };
			continue;
		}
		if (r->op == METHOD_UNLOAD && (m = open_at(h, &ix, prev, r->pid, r->start)) != NULL) {
			m->to = r->ts;
			continue;
		}
		if (r->op == METHOD_RUNDOWN && open_at(h, &ix, prev, r->pid, r->start))
			continue; /* a rundown of a method known to be alive */
		m = &h->m[h->nm];
		*m = (struct etl_method){ r->start, r->module, r->op == METHOD_LOAD ? r->ts : 0,
					  r->op == METHOD_UNLOAD ? r->ts : UINT64_MAX, r->size, r->pid, r->name, r->sig };
		if (r->size > h->max_size)
			h->max_size = r->size;
		hv = start_hash(r->pid, r->start);
		slot = etl__htab_find(&ix, hv, start_eq, &key);
		if (!slot && (slot = etl__htab_insert(&ix, hv)) != NULL) {
			*slot = key;
			prev[h->nm] = 0;
		} else if (slot) {
			prev[h->nm] = slot->newest + 1;
		} else {
			st = -1;
			break;
		}
		slot->newest = h->nm++;
	}
	etl__htab_free(&ix);
	etl__free(prev);
	return st;
}

/* Each method's reach: the highest end of its process's methods up to it in (pid, start) order;
 * and the highest end of all. */
static void make_reach(struct etl_methodhist *h)
{
	size_t i;

	for (i = 0; i < h->nm; i++)
		h->top = etl__reach(h->top, h->m[i].start, h->m[i].size);
	if (!h->nm || !(h->reach = etl__malloc(h->nm * sizeof(*h->reach))))
		return;
	for (i = 0; i < h->nm; i++)
		h->reach[i] = etl__reach(i > 0 && h->m[i - 1].pid == h->m[i].pid ? h->reach[i - 1] : 0, h->m[i].start,
					 h->m[i].size);
}

/* The processes' runs of methods, and their index by pid (without memory: none; lookups search). */
static void index_pids(struct etl_methodhist *h)
{
	size_t i, n = 0;

	for (i = 0; i < h->nm; i++)
		n += i == 0 || h->m[i].pid != h->m[i - 1].pid;
	if (!h->reach || !n || !(h->pids = etl__calloc(n, sizeof(*h->pids))))
		return;
	for (i = 0; i < h->nm; i++) {
		struct etl_mpid *p = &h->pids[h->npids - (h->npids && h->pids[h->npids - 1].pid == h->m[i].pid)];
		if (p == &h->pids[h->npids]) /* a new process: its run begins */
			*p = (struct etl_mpid){ h->m[i].pid, i, i, h->m[i].start, 0 }, h->npids++;
		p->end = i + 1;
		p->high = h->reach[i]; /* (the run's reach only grows) */
	}
	if (etl__pidix_init(&h->pid_ix, h->npids) != 0)
		return;
	for (i = 0; i < h->npids; i++)
		etl__pidix_add(&h->pid_ix, h->pids[i].pid, i);
}

void etl__methodhist_finish(struct etl_methodhist *h)
{
	h->built = 1;
	if (!h->nrec)
		return;
	qsort(h->rec, h->nrec, sizeof(*h->rec), rec_cmp);
	if (replay(h) != 0)
		h->dropped++; /* no memory: what was made stays */
	etl__free(h->rec);
	h->rec = NULL;
	h->nrec = h->caprec = 0;
	if (h->nm > 1)
		qsort(h->m, h->nm, sizeof(*h->m), method_cmp);
	make_reach(h);
	index_pids(h);
	if (h->nmod > 1)
		qsort(h->mod, h->nmod, sizeof(*h->mod), module_cmp);
}

const struct etl_method *etl__methodhist_find(const struct etl_methodhist *h, uint32_t pid, uint64_t addr,
					      uint64_t ts)
{
	const struct etl_method *best = NULL;
	size_t lo = 0, hi = h->nm;

	if (!h->built || addr >= h->top)
		return NULL;
	if (h->pid_ix.slot) { /* only pid's run, and none where its methods are not */
		long at = etl__pidix_find(&h->pid_ix, pid);
		if (at < 0 || addr < h->pids[at].low || addr >= h->pids[at].high)
			return NULL;
		lo = h->pids[at].first;
		hi = h->pids[at].end;
	}
	while (lo < hi) { /* the first method of a later pid, or of pid above addr */
		size_t mid = lo + (hi - lo) / 2;
		const struct etl_method *m = &h->m[mid];
		if (m->pid < pid || (m->pid == pid && m->start <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the methods of pid starting at or below addr, back to those too far below to reach it (none
	 * up to one reaches addr, or each starts more than the largest's size below it) */
	while (lo-- > 0 && h->m[lo].pid == pid && addr - h->m[lo].start < h->max_size &&
	       (!h->reach || h->reach[lo] > addr)) {
		const struct etl_method *m = &h->m[lo];
		if (addr - m->start < m->size && m->from <= ts && ts <= m->to && (!best || m->from > best->from))
			best = m;
	}
	return best;
}

const char *etl__methodhist_text(const struct etl_methodhist *h, size_t at)
{
	return h->pool + at;
}

const char *etl__methodhist_module(const struct etl_methodhist *h, uint32_t pid, uint64_t id, const char **file)
{
	size_t lo = 0, hi = h->nmod;

	while (lo < hi) { /* the first module not below (pid, id) */
		size_t mid = lo + (hi - lo) / 2;
		const struct etl_clrmodule *m = &h->mod[mid];
		if (m->pid < pid || (m->pid == pid && m->id < id))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == h->nmod || h->mod[lo].pid != pid || h->mod[lo].id != id)
		return NULL;
	if (file)
		*file = h->pool + h->mod[lo].file;
	return h->pool + h->mod[lo].path;
}

void etl__methodhist_free(struct etl_methodhist *h)
{
	etl__free(h->rec);
	etl__free(h->pool);
	etl__free(h->m);
	etl__free(h->reach);
	etl__free(h->mod);
	etl__free(h->pids);
	etl__pidix_free(&h->pid_ix);
	memset(h, 0, sizeof(*h));
}

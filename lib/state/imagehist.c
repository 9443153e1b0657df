/*
 * imagehist.c - the images of a trace over time (see imagehist.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "decode/decode.h"
#include "util/htab.h"
#include "state/imagehist.h"

#define G_PROCESS 0x03 /* Image/Load of old traces */
#define G_IMAGE 0x14
#define G_IMAGEID 0x40 /* KernelTraceControl ImageID (decode/ktables.h) */
#define OP_RSDS 36

static int wants_group(int g, unsigned opcode)
{
	if (g == G_IMAGE)
		return opcode == 2 || opcode == 3 || opcode == 4 || opcode == 10;
	if (g == G_IMAGEID)
		return opcode == OP_RSDS;
	return g == G_PROCESS && opcode == 10;
}

int etl__imagehist_wants(const struct etl_event *ev)
{
	return wants_group(etl__decode_kernel_group(ev), ev->opcode);
}

int etl__imagehist_wants_hook(unsigned hook)
{
	return wants_group((int)(hook >> 8), hook & 0xFF);
}

int etl__imagehist_wants_class(const struct etl_guid *cls, unsigned opcode)
{
	return wants_group(etl__kernel_group_of_class(cls), opcode);
}

/* Room for one more record (and a PDB entry when dbg), and n more pool bytes, within max bytes
 * held; 0 or -1. */
static int room(struct etl_imagehist *h, size_t n, int dbg, uint64_t max)
{
	size_t rc = h->caprec, pc = h->pool_cap, dc = h->capdbg;

	if (h->nrec == rc)
		rc = rc ? rc * 2 : 64;
	while (h->pool_len + n > pc)
		pc = pc ? pc * 2 : 4096;
	if (dbg && h->ndbg == dc)
		dc = dc ? dc * 2 : 16;
	if ((uint64_t)rc * sizeof(*h->rec) + pc + (uint64_t)dc * sizeof(*h->dbg) > max)
		return -1;
	if (etl__grow(&h->rec, &h->caprec, h->nrec + 1, sizeof(*h->rec), 64) != 0 ||
	    etl__grow(&h->pool, &h->pool_cap, h->pool_len + n, 1, 4096) != 0 ||
	    (dbg && etl__grow(&h->dbg, &h->capdbg, h->ndbg + 1, sizeof(*h->dbg), 16) != 0))
		return -1;
	return 0;
}

/* Adds text (n bytes) and its NUL to the pool (room made): its offset. */
static size_t put(struct etl_imagehist *h, const char *text, size_t n)
{
	size_t at = h->pool_len;

	memcpy(h->pool + at, text, n);
	h->pool[at + n] = 0;
	h->pool_len += n + 1;
	return at;
}

static int int_field(const struct etl_decoded *d, const char *name, uint64_t *v)
{
	const struct etl_property *p = etl_decoded_property_by_name(d, name);

	return p && etl_property_as_u64(p, v) == ETL_OK;
}

/* The text of string property name of d ("" when none). */
static const char *text_field(const struct etl_decoded *d, const char *name, size_t *len)
{
	const struct etl_property *p = etl_decoded_property_by_name(d, name);
	const char *s;

	if (p && etl_property_as_utf8(p, &s, len) == ETL_OK)
		return s;
	*len = 0;
	return "";
}

/* A new record of ev (room made). */
static struct etl_imgrec *new_rec(struct etl_imagehist *h, const struct etl_event *ev, uint64_t base,
				  uint64_t pid)
{
	struct etl_imgrec *r = &h->rec[h->nrec++];

	memset(r, 0, sizeof(*r));
	r->ts = ev->ts_raw;
	r->order = h->next_order++;
	r->base = base;
	r->pid = (uint32_t)pid;
	r->op = ev->opcode;
	return r;
}

/* A DbgID_RSDS record: the image's PDB. */
static void add_rsds(struct etl_imagehist *h, const struct etl_event *ev, const struct etl_decoded *d,
		     uint64_t base, uint64_t pid, uint64_t max)
{
	const struct etl_property *g = etl_decoded_property_by_name(d, "GuidSig");
	struct etl_dbgid *e;
	uint64_t age;
	size_t n;
	const char *name = text_field(d, "PDBFileName", &n);
	struct etl_imgrec *r;

	if (!g || !int_field(d, "Age", &age) || !n)
		return;
	if (room(h, n + 1, 1, max) != 0) {
		h->dropped++;
		return;
	}
	e = &h->dbg[h->ndbg];
	if (etl_property_as_guid(g, &e->guid) != ETL_OK)
		return;
	e->age = (uint32_t)age;
	e->pdb_name = put(h, name, n);
	r = new_rec(h, ev, base, pid);
	r->dbg = h->ndbg++;
}

void etl__imagehist_add(struct etl_imagehist *h, const struct etl_event *ev, uint64_t max)
{
	const struct etl_decoded *d;
	struct etl_diag diag;
	struct etl_imgrec *r;
	uint64_t base, pid, v;
	const char *name;
	size_t name_len;

	if (!h->dec && !(h->dec = etl__calloc(1, sizeof(*h->dec)))) {
		h->dropped++;
		return;
	}
	if (etl__decode_event(h->dec, ev, &d, &diag) != ETL_OK || etl_decoded_status(d) != ETL_DECODE_COMPLETE ||
	    !int_field(d, "ImageBase", &base))
		return; /* not an image the trace can say anything of (the reader reports it) */
	if (!int_field(d, "ProcessID", &pid))
		pid = ev->pid == ETL_ID_NONE ? 0 : ev->pid;
	if (etl__decode_kernel_group(ev) == G_IMAGEID) {
		add_rsds(h, ev, d, base, pid, max);
		return;
	}
	name = text_field(d, "FileName", &name_len);
	if (room(h, name_len + 1, 0, max) != 0) {
		h->dropped++;
		return;
	}
	r = new_rec(h, ev, base, pid);
	if (int_field(d, "ImageSize", &v))
		r->size = v;
	if (int_field(d, "ImageChecksum", &v))
		r->checksum = (uint32_t)v;
	if (int_field(d, "TimeDateStamp", &v))
		r->stamp = (uint32_t)v;
	r->name = put(h, name, name_len);
}

void etl__imagehist_append(struct etl_imagehist *h, const struct etl_imagehist *part, uint64_t max)
{
	size_t i;

	for (i = 0; i < part->nrec; i++) {
		const struct etl_imgrec *p = &part->rec[i];
		int dbg = p->op == OP_RSDS;
		const char *name = part->pool + (dbg ? part->dbg[p->dbg].pdb_name : p->name);
		size_t n = strlen(name);
		struct etl_imgrec *r;
		if (room(h, n + 1, dbg, max) != 0) {
			h->dropped += part->nrec - i;
			break;
		}
		r = &h->rec[h->nrec++];
		*r = *p;
		r->order = h->next_order++;
		if (dbg) {
			h->dbg[h->ndbg] = part->dbg[p->dbg];
			h->dbg[h->ndbg].pdb_name = put(h, name, n);
			r->dbg = h->ndbg++;
		} else {
			r->name = put(h, name, n);
		}
	}
	h->dropped += part->dropped;
}

/* Time order, then file order; but a DbgID_RSDS record after the image records of its time
 * stamp: the merge writes an image's ImageID records just before its Image record, at its time. */
static int rec_cmp(const void *a, const void *b)
{
	const struct etl_imgrec *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if ((x->op == OP_RSDS) != (y->op == OP_RSDS))
		return x->op == OP_RSDS ? 1 : -1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int img_cmp(const void *a, const void *b)
{
	const struct etl_himage *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->base != y->base)
		return x->base < y->base ? -1 : 1;
	return x->from < y->from ? -1 : x->from > y->from;
}

/* The images made so far, by (pid, base): the newest, each chained to the one before it. */
struct base_slot {
	uint32_t pid;
	uint64_t base;
	size_t newest;
};

struct replay {
	struct etl_htab by_base;
	size_t *prev; /* per image: the one before it at its (pid, base), + 1 (0: none) */
};

static uint64_t base_hash(uint32_t pid, uint64_t base)
{
	return etl__hash_mix(base * 0x9E3779B97F4A7C15ull ^ pid);
}

static int base_eq(const void *entry, const void *key)
{
	const struct base_slot *e = entry, *k = key;

	return e->pid == k->pid && e->base == k->base;
}

/* The newest image of pid at base still loaded (to == UINT64_MAX), of that size when size_too;
 * or NULL. */
static struct etl_himage *open_at(struct etl_imagehist *h, const struct replay *x, uint32_t pid, uint64_t base,
				  uint64_t size, int size_too)
{
	struct base_slot key = { pid, base, 0 };
	const struct base_slot *e = etl__htab_find(&x->by_base, base_hash(pid, base), base_eq, &key);
	size_t i = e ? e->newest + 1 : 0;

	for (; i; i = x->prev[i - 1]) {
		struct etl_himage *im = &h->img[i - 1];
		if (im->to == UINT64_MAX && (!size_too || im->size == size))
			return im;
	}
	return NULL;
}

/* The newest image of pid at base, loaded or not, or NULL. */
static struct etl_himage *newest_at(struct etl_imagehist *h, const struct replay *x, uint32_t pid, uint64_t base)
{
	struct base_slot key = { pid, base, 0 };
	const struct base_slot *e = etl__htab_find(&x->by_base, base_hash(pid, base), base_eq, &key);

	return e ? &h->img[e->newest] : NULL;
}

/* Notes image i (just made) as the newest at its (pid, base); -1 without memory. */
static int made(struct etl_imagehist *h, struct replay *x, size_t i)
{
	struct base_slot key = { h->img[i].pid, h->img[i].base, 0 };
	uint64_t hv = base_hash(key.pid, key.base);
	struct base_slot *e = etl__htab_find(&x->by_base, hv, base_eq, &key);

	if (e) {
		x->prev[i] = e->newest + 1;
		e->newest = i;
		return 0;
	}
	if (!(e = etl__htab_insert(&x->by_base, hv)))
		return -1;
	*e = key;
	e->newest = i;
	x->prev[i] = 0;
	return 0;
}

/* Replays the records, in time order, into h->img (as many images as records at most); -1
 * without memory. */
static int replay(struct etl_imagehist *h)
{
	struct replay x;
	size_t i;
	int st = 0;

	etl__htab_init(&x.by_base, sizeof(struct base_slot));
	if (!(x.prev = etl__calloc(h->nrec, sizeof(*x.prev))))
		return -1;
	for (i = 0; i < h->nrec && st == 0; i++) {
		const struct etl_imgrec *r = &h->rec[i];
		struct etl_himage *im;
		if (r->op == OP_RSDS) { /* the image of that base loaded now, else the last one */
			if ((im = open_at(h, &x, r->pid, r->base, 0, 0)) != NULL || (im = newest_at(h, &x, r->pid, r->base)))
				im->dbg = r->dbg + 1;
			continue;
		}
		if (r->op == 2 && (im = open_at(h, &x, r->pid, r->base, 0, 0)) != NULL) {
			im->to = r->ts;
			continue;
		}
		if ((r->op == 3 || r->op == 4) && open_at(h, &x, r->pid, r->base, r->size, 1))
			continue; /* a rundown of an image known to be loaded */
		im = &h->img[h->nimg];
		im->base = r->base;
		im->size = r->size;
		im->pid = r->pid;
		im->checksum = r->checksum;
		im->stamp = r->stamp;
		im->name = r->name;
		im->file = (size_t)(etl__path_file(h->pool + r->name) - h->pool);
		im->dbg = 0;
		im->from = r->op == 10 ? r->ts : 0;
		im->to = r->op == 2 ? r->ts : UINT64_MAX;
		st = made(h, &x, h->nimg++);
	}
	etl__htab_free(&x.by_base);
	etl__free(x.prev);
	return st;
}

/* Every frame asks for its process's images: pids found by hashing, not by a search. */
static void index_pids(struct etl_imagehist *h)
{
	size_t i;

	if (etl__pidix_init(&h->pid_ix, h->npids) == 0)
		for (i = 0; i < h->npids; i++)
			etl__pidix_add(&h->pid_ix, h->pids[i].pid, i);
}

void etl__imagehist_finish(struct etl_imagehist *h)
{
	size_t i;

	if (h->dec) {
		etl__decode_state_free(h->dec);
		etl__free(h->dec);
		h->dec = NULL;
	}
	h->built = 1;
	if (!h->nrec)
		return;
	qsort(h->rec, h->nrec, sizeof(*h->rec), rec_cmp);
	if (!(h->img = etl__calloc(h->nrec, sizeof(*h->img)))) {
		h->dropped += h->nrec;
		return;
	}
	if (replay(h) != 0)
		h->dropped++; /* no memory: the images made so far stay */
	etl__free(h->rec);
	h->rec = NULL;
	h->nrec = h->caprec = 0;
	qsort(h->img, h->nimg, sizeof(*h->img), img_cmp);
	for (i = 0; i < h->nimg; i++) { /* the processes: their run of images, and the largest */
		struct etl_hpid *p = h->npids ? &h->pids[h->npids - 1] : NULL;
		if (!p || p->pid != h->img[i].pid) {
			size_t cap = h->npids;
			if (etl__grow(&h->pids, &cap, h->npids + 1, sizeof(*h->pids), 16) != 0) {
				h->nimg = i; /* no memory: the rest is not found */
				break;
			}
			p = &h->pids[h->npids++];
			p->pid = h->img[i].pid;
			p->first = i;
			p->count = 0;
			p->max_size = 0;
		}
		p->count++;
		if (h->img[i].size > p->max_size)
			p->max_size = h->img[i].size;
	}
	if ((h->reach = etl__malloc((h->nimg ? h->nimg : 1) * sizeof(*h->reach))) != NULL)
		for (i = 0; i < h->nimg; i++) /* (running within each process's images) */
			h->reach[i] = etl__reach(i > 0 && h->img[i - 1].pid == h->img[i].pid ? h->reach[i - 1] : 0,
						 h->img[i].base, h->img[i].size);
	index_pids(h);
}

static const struct etl_hpid *find_pid(const struct etl_imagehist *h, uint32_t pid)
{
	size_t lo = 0, hi = h->npids;
	long at;

	if (h->pid_ix.slot)
		return (at = etl__pidix_find(&h->pid_ix, pid)) < 0 ? NULL : &h->pids[at];

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (h->pids[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < h->npids && h->pids[lo].pid == pid ? &h->pids[lo] : NULL;
}

const struct etl_himage *etl__imagehist_find(const struct etl_imagehist *h, uint32_t pid, uint64_t addr, uint64_t ts)
{
	const struct etl_hpid *p = h->built ? find_pid(h, pid) : NULL;
	const struct etl_himage *img, *best = NULL;
	size_t lo, hi;

	/* (none of its images reaches addr: a kernel frame, most often, looked up in its process) */
	if (!p || (h->reach && h->reach[p->first + p->count - 1] <= addr))
		return NULL;
	img = h->img + p->first;
	lo = 0;
	hi = p->count;
	while (lo < hi) { /* the first image based above addr */
		size_t mid = lo + (hi - lo) / 2;
		if (img[mid].base <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the images based at or below addr, back to those too far below to reach it: none of the
	 * images up to one reaches addr, or each is based more than the largest's size below it */
	while (lo-- > 0 && addr - img[lo].base < p->max_size && (!h->reach || h->reach[p->first + lo] > addr)) {
		const struct etl_himage *im = &img[lo];
		if (addr - im->base < im->size && im->from <= ts && ts <= im->to && (!best || im->from > best->from))
			best = im;
	}
	return best;
}

const char *etl__imagehist_name(const struct etl_imagehist *h, const struct etl_himage *im)
{
	return h->pool + im->name;
}

const char *etl__imagehist_file(const struct etl_imagehist *h, const struct etl_himage *im)
{
	return h->pool + im->file;
}

const struct etl_dbgid *etl__imagehist_dbgid(const struct etl_imagehist *h, const struct etl_himage *im)
{
	return im->dbg && im->dbg <= h->ndbg ? &h->dbg[im->dbg - 1] : NULL;
}

const char *etl__imagehist_text(const struct etl_imagehist *h, size_t at)
{
	return h->pool + at;
}

void etl__imagehist_free(struct etl_imagehist *h)
{
	if (h->dec) {
		etl__decode_state_free(h->dec);
		etl__free(h->dec);
	}
	etl__free(h->rec);
	etl__free(h->pool);
	etl__free(h->img);
	etl__free(h->reach);
	etl__free(h->pids);
	etl__pidix_free(&h->pid_ix);
	etl__free(h->dbg);
	memset(h, 0, sizeof(*h));
}

/*
 * files.c - the file-name index of a trace (files.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "decode/kernel.h"
#include "decode/ktables.h"
#include "record/record.h"
#include "state/files.h"

#define FILEIO_GROUP 0x04

/* Appends n units of UTF-16 at p to the pool as UTF-8 with a NUL; its offset, or SIZE_MAX. */
static size_t pool_add_utf16(struct etl_files *f, const uint8_t *p, size_t n)
{
	size_t need = 3 * n + 1, off = f->pool_len;

	if (f->pool_len + need > ETL_FILES_MAX_BYTES)
		return SIZE_MAX;
	if (etl__grow(&f->pool, &f->pool_cap, f->pool_len + need, 1, 4096) != 0)
		return SIZE_MAX;
	f->pool_len += etl__utf16_convert(p, n, (uint8_t *)f->pool + off) + 1;
	return off;
}

static void add_name(struct etl_files *f, uint64_t key, uint64_t ts, const uint8_t *p, size_t bytes)
{
	size_t n = etl__utf16_units(p, bytes / 2), off;

	if (n == 0)
		return;
	if (f->nnames * sizeof(*f->names) + f->pool_len > ETL_FILES_MAX_BYTES ||
	    etl__grow(&f->names, &f->capnames, f->nnames + 1, sizeof(*f->names), 256) != 0 ||
	    (off = pool_add_utf16(f, p, n)) == SIZE_MAX) {
		f->dropped++;
		return;
	}
	f->names[f->nnames].key = key;
	f->names[f->nnames].ts = ts;
	f->names[f->nnames].off = off;
	f->nnames++;
}

/* SysConfig/VolumeMapping: NtPath, DosPath (UTF-16, each with its NUL) */
static void add_volume(struct etl_files *f, const uint8_t *p, size_t len)
{
	size_t n1 = etl__utf16_units(p, len / 2), n2, nt, dos;

	if (n1 == 0 || 2 * (n1 + 1) >= len)
		return;
	n2 = etl__utf16_units(p + 2 * (n1 + 1), (len - 2 * (n1 + 1)) / 2); /* may be empty: \??\ -> "" */
	if (f->nvols >= ETL_FILES_MAX_VOLUMES || etl__grow(&f->vols, &f->capvols, f->nvols + 1, sizeof(*f->vols), 16) != 0 ||
	    (nt = pool_add_utf16(f, p, n1)) == SIZE_MAX || (dos = pool_add_utf16(f, p + 2 * (n1 + 1), n2)) == SIZE_MAX) {
		f->dropped++;
		return;
	}
	f->vols[f->nvols].nt = nt;
	f->vols[f->nvols].dos = dos;
	f->vols[f->nvols].nt_len = strlen(f->pool + nt);
	f->nvols++;
}

static void load_buffer(struct etl_files *f, const uint8_t *data, size_t fill, unsigned ptr_size)
{
	struct etl_event ev;
	struct etl_diag d;
	uint64_t last = 0;
	size_t pos, adv;

	for (pos = ETL_BUFFER_HEADER_SIZE; pos < fill; pos += adv) {
		if (etl__record_parse(data, fill, pos, ptr_size, &ev, &adv, &d) != ETL_OK || adv == 0)
			break;
		if (ev.flags & ETL_EVF_TS_INHERITED)
			ev.ts_raw = last;
		last = ev.ts_raw;
		if ((ev.kind == ETL_HEADER_SYSTEM || ev.kind == ETL_HEADER_COMPACT || ev.kind == ETL_HEADER_PERFINFO) &&
		    ev.hook_id >> 8 == FILEIO_GROUP &&
		    (ev.opcode == 0 || ev.opcode == 32 || ev.opcode == 35 || ev.opcode == 36) &&
		    ev.payload_len > ev.ptr_size) {
			uint64_t key = ev.ptr_size == 8 ? etl_le64(ev.payload) : etl_le32(ev.payload);
			add_name(f, key, ev.ts_raw, ev.payload + ev.ptr_size, ev.payload_len - ev.ptr_size);
		} else if ((ev.kind == ETL_HEADER_FULL || ev.kind == ETL_HEADER_INSTANCE) && ev.opcode == 35 &&
			   etl__kernel_group_of_class(&ev.provider) == KTC_SYSCONFIG) {
			add_volume(f, ev.payload, ev.payload_len);
		}
	}
}

static int name_cmp(const void *a, const void *b)
{
	const struct etl_filename *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static int vol_cmp(const void *a, const void *b)
{
	const struct etl_volmap *x = a, *y = b;

	return x->nt_len == y->nt_len ? 0 : x->nt_len > y->nt_len ? -1 : 1;
}

/* FNV-1a over ASCII-folded bytes: prefix hashes that grow one byte at a time. */
#define FOLD_SEED 0xcbf29ce484222325ull

static uint64_t fold_step(uint64_t h, unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		c = (unsigned char)(c - 'A' + 'a');
	return (h ^ c) * 0x100000001b3ull;
}

static uint64_t vol_hash(uint64_t prefix_hash, size_t len)
{
	return etl__hash_mix(prefix_hash ^ (uint64_t)len);
}

struct vol_key {
	const struct etl_files *f;
	const char *path;
	size_t len;
};

static int has_prefix(const char *path, const char *prefix, size_t n);

static int vol_eq(const void *entry, const void *key)
{
	const struct vol_key *k = key;
	const struct etl_volmap *v = &k->f->vols[*(const size_t *)entry];

	return v->nt_len == k->len && has_prefix(k->path, k->f->pool + v->nt, k->len);
}

/* The index of the mappings by NT prefix, their distinct lengths, the system root's drive. */
static void index_volumes(struct etl_files *f)
{
	size_t i, k, cap = 0;

	etl__htab_init(&f->volix, sizeof(size_t));
	for (i = 0; i < f->nvols; i++) {
		const struct etl_volmap *v = &f->vols[i];
		const char *nt = f->pool + v->nt;
		struct vol_key key = { f, nt, v->nt_len };
		uint64_t h = FOLD_SEED, hh;
		size_t *e;
		for (k = 0; k < v->nt_len; k++)
			h = fold_step(h, (unsigned char)nt[k]);
		hh = vol_hash(h, v->nt_len);
		if (etl__htab_find(&f->volix, hh, vol_eq, &key))
			continue; /* (the same prefix again: the first, as the scan in order took it) */
		if (!(e = etl__htab_insert(&f->volix, hh)) ||
		    ((!f->nlens || f->lens[f->nlens - 1] != v->nt_len) &&
		     etl__grow(&f->lens, &cap, f->nlens + 1, sizeof(*f->lens), 16) != 0)) {
			f->dropped++;
			continue;
		}
		*e = i;
		if (!f->nlens || f->lens[f->nlens - 1] != v->nt_len) /* (longest first: sorted) */
			f->lens[f->nlens++] = v->nt_len;
		if (!f->system_drive && v->nt_len == 12 && has_prefix(nt, "\\SystemRoot\\", 12)) {
			const char *dos = f->pool + v->dos;
			if (((dos[0] >= 'A' && dos[0] <= 'Z') || (dos[0] >= 'a' && dos[0] <= 'z')) && dos[1] == ':')
				f->system_drive = dos;
		}
	}
}

void etl__files_load(struct etl_files *f, struct etl_bufload *ld, const struct etl_bufindex *ix, unsigned ptr_size)
{
	struct etl_diag d;
	struct etl_bufiter it;
	struct etl_bufent e;

	etl__walk_iter_init(&it, ix);
	while (etl__walk_iter_next(&it, &e)) {
		if (etl__walk_load(ld, &e, &d) != ETL_OK && !ld->data)
			continue;
		load_buffer(f, ld->data, ld->fill, ptr_size);
	}
	if (f->nnames)
		qsort(f->names, f->nnames, sizeof(*f->names), name_cmp);
	if (f->nvols)
		qsort(f->vols, f->nvols, sizeof(*f->vols), vol_cmp);
	index_volumes(f);
	f->loaded = 1;
}

const char *etl__files_name(const struct etl_files *f, uint64_t key, uint64_t ts)
{
	size_t lo = 0, hi = f->nnames;

	/* the first entry of key with a time after ts */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct etl_filename *m = &f->names[mid];
		if (m->key < key || (m->key == key && m->ts <= ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && f->names[lo - 1].key == key)
		return f->pool + f->names[lo - 1].off; /* the latest at or before ts */
	if (lo < f->nnames && f->names[lo].key == key)
		return f->pool + f->names[lo].off; /* else the first after */
	return NULL;
}

/* Whether path starts with prefix, ASCII letters compared without case (NT paths are). */
static int has_prefix(const char *path, const char *prefix, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char a = (unsigned char)path[i], b = (unsigned char)prefix[i];
		if (a >= 'A' && a <= 'Z')
			a = (unsigned char)(a - 'A' + 'a');
		if (b >= 'A' && b <= 'Z')
			b = (unsigned char)(b - 'A' + 'a');
		if (a != b || !a)
			return 0;
	}
	return 1;
}

/* The mapping whose NT prefix is the longest one path starts with (any case), or NULL: one hash
 * of each prefix length, then one lookup per distinct length of the mappings. */
static const struct etl_volmap *volume_of(const struct etl_files *f, const char *path)
{
	uint64_t stack[256], *h = stack;
	size_t n = strlen(path), i, k;
	const struct etl_volmap *found = NULL;

	if (!f->nlens)
		return NULL;
	if (n + 1 > sizeof(stack) / sizeof(stack[0]) && !(h = etl__malloc((n + 1) * sizeof(*h))))
		return NULL;
	h[0] = FOLD_SEED;
	for (k = 0; k < n; k++)
		h[k + 1] = fold_step(h[k], (unsigned char)path[k]);
	for (i = 0; i < f->nlens && !found; i++) {
		struct vol_key key = { f, path, f->lens[i] };
		const size_t *e;
		if (f->lens[i] > n)
			continue;
		e = etl__htab_find(&f->volix, vol_hash(h[f->lens[i]], f->lens[i]), vol_eq, &key);
		found = e ? &f->vols[*e] : NULL;
	}
	if (h != stack)
		etl__free(h);
	return found;
}

int etl__files_dos_path(const struct etl_files *f, const char *path, char *out, size_t cap)
{
	const struct etl_volmap *v = volume_of(f, path);
	const char *drive = f->system_drive;
	size_t rest;

	if (v) {
		const char *dos = f->pool + v->dos;
		size_t dl = strlen(dos);
		rest = strlen(path + v->nt_len);
		if (dl + rest + 1 > cap)
			return 0;
		memcpy(out, dos, dl);
		memcpy(out + dl, path + v->nt_len, rest + 1);
		return 1;
	}
	/* a path with no device (\Windows\System32\x.dll) lies on the system root's drive, as
	 * PerfView takes it; a \Device\ path no mapping names stays as it is */
	if (path[0] != '\\' || !((path[1] >= 'A' && path[1] <= 'Z') || (path[1] >= 'a' && path[1] <= 'z') ||
				  (path[1] >= '0' && path[1] <= '9')) ||
	    has_prefix(path, "\\Device\\", 8) || !drive)
		return 0;
	rest = strlen(path);
	if (2 + rest + 1 > cap)
		return 0;
	memcpy(out, drive, 2);
	memcpy(out + 2, path, rest + 1);
	return 1;
}

void etl__files_free(struct etl_files *f)
{
	etl__free(f->names);
	etl__free(f->vols);
	etl__free(f->lens);
	etl__htab_free(&f->volix);
	etl__free(f->pool);
	memset(f, 0, sizeof(*f));
}

/*
 * modsyms.c - symbol records of a PDB: a module's procedures and its C13
 * line tables, the public symbols of the symbol record stream, and the
 * "/names" string table the line tables name files in.
 *
 * Symbol records: u16 length (of what follows), u16 kind, then the record.
 * Procedures (PROCSYM32: parent, end, next, length, debug start and end,
 * type, offset, u16 section, u8 flags, name) give a function's extent;
 * public symbols (PUBSYM32: flags, offset, u16 section, name) only where a
 * function starts.  C13 subsections: u32 kind, u32 length, the data, padded
 * to 4 bytes; lines (0xF2): offset, u16 section, u16 flags, u32 code size,
 * then blocks (file, count, block size, count x {offset, line and flags},
 * with columns count x 4 bytes more); file checksums (0xF4): u32 name in
 * "/names", u8 checksum size, u8 kind, the checksum, padded to 4.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "pdb/pdb.h"
#include "util/cursor.h"

#define S_PUB32 0x110Eu
#define S_LPROC32 0x110Fu
#define S_GPROC32 0x1110u
#define S_LPROC32_ID 0x1146u
#define S_GPROC32_ID 0x1147u
#define S_GMANPROC 0x112Au
#define S_LMANPROC 0x112Bu
#define PROC_NAME 39u    /* a PROCSYM32's name, from the record's start */
#define PUB_NAME 14u
#define C13_LINES 0xF2u
#define C13_CHECKSUMS 0xF4u
#define C13_IGNORE 0x80000000u
#define NAMES_MAGIC 0xEFFEEFFEu
#define LINE_HIDDEN_1 0xFEEFEEu /* lines the compiler marks as no line */
#define LINE_HIDDEN_2 0xF00F00u

/* Each symbol record of b[from, to): calls fn(ctx, record, its size, kind); records are checked
 * to lie inside; a record that does not ends the walk (-1). */
static int walk_records(const uint8_t *b, uint32_t from, uint32_t to,
			void (*fn)(void *ctx, const uint8_t *rec, uint32_t size, uint16_t kind, uint32_t at), void *ctx)
{
	uint32_t at = from;

	while (at <= to && to - at >= 4) { /* (a module's symbols may be shorter than their signature) */
		uint32_t len = etl_le16(b + at);
		if (len < 2 || len > to - at - 2)
			return -1;
		fn(ctx, b + at, len + 2, etl_le16(b + at + 2), at);
		at += len + 2;
	}
	return 0;
}

/* The NUL-terminated name at off of a record of size bytes, or 0 when it is not terminated. */
static int named(const uint8_t *rec, uint32_t size, uint32_t off)
{
	return off < size && memchr(rec + off, 0, size - off) != NULL;
}

/* Room for one more element in *arrp (n held, *cap of them, size bytes each), the growth charged
 * to p's memory: 0, or -1 past the limit or without memory. */
static int room_for_one(struct etl_pdb *p, void *arrp, size_t *cap, size_t n, size_t size, size_t first)
{
	if (n < *cap)
		return 0;
	if (etl__pdb_charge(p, (uint64_t)(*cap ? *cap : first) * size) != 0)
		return -1;
	return etl__grow(arrp, cap, n + 1, size, first);
}

struct proc_walk {
	struct etl_pdb *p;
	struct etl_pdb_module *m;
	size_t cap;
	int failed;
};

static void add_proc(void *ctx, const uint8_t *rec, uint32_t size, uint16_t kind, uint32_t at)
{
	struct proc_walk *w = ctx;
	struct etl_pdb_module *m = w->m;
	uint32_t rva;

	if (kind == S_GMANPROC || kind == S_LMANPROC)
		m->nmanaged++;
	if (kind != S_GPROC32 && kind != S_LPROC32 && kind != S_GPROC32_ID && kind != S_LPROC32_ID)
		return;
	if (!named(rec, size, PROC_NAME) || w->failed)
		return;
	rva = etl__pdb_rva(w->p, etl_le16(rec + 36), etl_le32(rec + 32));
	if (rva == UINT32_MAX || !etl_le32(rec + 16))
		return;
	if (room_for_one(w->p, &m->procs, &w->cap, m->nprocs, sizeof(*m->procs), 32) != 0) {
		w->failed = 1;
		return;
	}
	m->procs[m->nprocs++] = (struct etl_pdb_proc){ rva, etl_le32(rec + 16), at + PROC_NAME };
}

static int proc_cmp(const void *a, const void *b)
{
	const struct etl_pdb_proc *x = a, *y = b;

	return x->rva < y->rva ? -1 : x->rva > y->rva;
}

/* Reads module m's stream (symbols and line parts) and its procedures, once. */
int etl__pdb_load_module(struct etl_pdb *p, struct etl_pdb_module *m, struct etl_diag *d)
{
	uint64_t need = (uint64_t)m->sym_bytes + m->c11_bytes + m->c13_bytes;
	struct proc_walk w = { p, m, 0, 0 };

	if (m->state)
		return m->state > 0 ? ETL_OK : m->state;
	if (m->stream == 0xFFFF || need < 4 || need > etl__msf_stream_size(&p->msf, m->stream)) {
		m->state = 1; /* no symbols (a module whose stream was stripped): the publics name its code */
		return ETL_OK;
	}
	if (etl__pdb_charge(p, need) != 0) {
		etl__diag_set(d, ETL_E_LIMIT, ETL_OFFSET_NONE, "PDB module stream %u of %llu bytes: past the symbol memory limit",
			      m->stream, (unsigned long long)need);
		return m->state = ETL_E_LIMIT;
	}
	m->held = need;
	if (!(m->syms = etl__malloc((size_t)need))) {
		etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
		return m->state = ETL_E_NOMEM;
	}
	if (etl__msf_read(&p->msf, m->stream, 0, m->syms, (size_t)need, d) != ETL_OK) {
		etl__diag_prefix(d, "PDB module stream: ");
		return m->state = d->code;
	}
	if (walk_records(m->syms, 4, m->sym_bytes, add_proc, &w) != 0) {
		etl__diag_set(d, ETL_E_FORMAT, ETL_OFFSET_NONE, "PDB module stream %u: a symbol record runs past its %u bytes",
			      m->stream, m->sym_bytes);
		return m->state = ETL_E_FORMAT;
	}
	if (w.failed) {
		etl__diag_set(d, ETL_E_LIMIT, ETL_OFFSET_NONE, "PDB module stream %u: too many procedures for the symbol memory limit",
			      m->stream);
		return m->state = ETL_E_LIMIT;
	}
	if (m->nprocs > 1)
		qsort(m->procs, m->nprocs, sizeof(*m->procs), proc_cmp);
	m->state = 1;
	return ETL_OK;
}

/* ---- "/names" ---- */

/* The string table's strings, read once; ETL_OK or the status it failed with. */
static int load_names(struct etl_pdb *p, struct etl_diag *d)
{
	uint8_t head[12];
	uint32_t size = etl__msf_stream_size(&p->msf, p->names_stream), len;

	if (p->names_state)
		return p->names_state > 0 ? ETL_OK : p->names_state;
	if (p->names_stream == UINT32_MAX) { /* lines without file names */
		p->names_state = 1;
		return ETL_OK;
	}
	if (size < 12) {
		etl__diag_set(d, ETL_E_FORMAT, ETL_OFFSET_NONE, "PDB /names stream of %u bytes has no header", size);
		return p->names_state = ETL_E_FORMAT;
	}
	if (etl__msf_read(&p->msf, p->names_stream, 0, head, sizeof(head), d) != ETL_OK)
		return p->names_state = d->code;
	len = etl_le32(head + 8);
	if (etl_le32(head) != NAMES_MAGIC || len > size - 12) {
		etl__diag_set(d, ETL_E_FORMAT, ETL_OFFSET_NONE, "PDB /names stream: no string table (%u bytes claimed in %u)", len,
			      size);
		return p->names_state = ETL_E_FORMAT;
	}
	if (etl__pdb_charge(p, (uint64_t)len + 1) != 0) {
		etl__diag_set(d, ETL_E_LIMIT, ETL_OFFSET_NONE, "PDB /names stream: past the symbol memory limit");
		return p->names_state = ETL_E_LIMIT;
	}
	if (!(p->names = etl__malloc((size_t)len + 1))) {
		etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
		return p->names_state = ETL_E_NOMEM;
	}
	if (etl__msf_read(&p->msf, p->names_stream, 12, p->names, len, d) != ETL_OK)
		return p->names_state = d->code;
	p->names[len] = 0; /* the last string is terminated whatever the file says */
	p->names_len = len;
	p->names_state = 1;
	return ETL_OK;
}

/* ---- lines ---- */

/* The C13 part of module m: [*from, *to) of m->syms. */
static void c13_part(const struct etl_pdb_module *m, uint32_t *from, uint32_t *to)
{
	*from = m->sym_bytes + m->c11_bytes;
	*to = *from + m->c13_bytes;
}

/* Where the subsection after the one at at (len bytes of data) starts: padded to 4, at most to. */
static uint32_t next_subsection(uint32_t at, uint32_t len, uint32_t to)
{
	uint64_t next = (uint64_t)at + 8 + (((uint64_t)len + 3) & ~(uint64_t)3);

	return next < to ? (uint32_t)next : to;
}

/* The file a line block names: its checksum entry's name in "/names", or NULL. */
static const char *file_of(struct etl_pdb *p, const struct etl_pdb_module *m, uint32_t file_id, struct etl_diag *d)
{
	uint32_t from, to, at;

	c13_part(m, &from, &to);
	for (at = from; to - at >= 8;) { /* the checksums subsection */
		uint32_t kind = etl_le32(m->syms + at), len = etl_le32(m->syms + at + 4);
		if (len > to - at - 8)
			return NULL;
		if (kind == C13_CHECKSUMS && len >= 6 && file_id <= len - 6) {
			uint32_t name = etl_le32(m->syms + at + 8 + file_id);
			if (load_names(p, d) != ETL_OK || !p->names || name >= p->names_len)
				return NULL;
			return (const char *)p->names + name;
		}
		at = next_subsection(at, len, to);
	}
	return NULL;
}

/* In one lines subsection (data [at, at + len) of m->syms) holding rva: the last line entry at
 * or below it. */
static void lines_in(const struct etl_pdb_module *m, uint32_t at, uint32_t len, uint32_t want, uint32_t *best_off,
		     uint32_t *best_line, uint32_t *best_file, int *found)
{
	struct etl_cursor c;
	uint16_t flags;

	cur_init(&c, m->syms + at, len);
	cur_skip(&c, 6);
	flags = cur_u16(&c);
	cur_skip(&c, 4);
	while (cur_ok(&c) && cur_left(&c) >= 12) {
		uint32_t file = cur_u32(&c), n = cur_u32(&c), size = cur_u32(&c), i;
		size_t entries = (size_t)n * 8, cols = (flags & 1) ? (size_t)n * 4 : 0;
		if (n > cur_left(&c) / 8 || entries + cols > cur_left(&c) || size < 12)
			return;
		for (i = 0; i < n; i++) {
			uint32_t off = cur_u32(&c), ln = cur_u32(&c) & 0xFFFFFFu;
			if (off <= want && (!*found || off >= *best_off) && ln != LINE_HIDDEN_1 && ln != LINE_HIDDEN_2) {
				*best_off = off;
				*best_line = ln;
				*best_file = file;
				*found = 1;
			}
		}
		cur_skip(&c, cols);
	}
}

int etl__pdb_module_line(struct etl_pdb *p, const struct etl_pdb_module *m, uint32_t rva, const char **file,
			 uint32_t *line, struct etl_diag *d)
{
	uint32_t from, to, at, best_off = 0, best_line = 0, best_file = 0;
	int found = 0;

	*file = NULL;
	*line = 0;
	if (m->state != 1 || !m->syms)
		return ETL_OK;
	c13_part(m, &from, &to);
	for (at = from; to - at >= 8 && !found;) {
		uint32_t kind = etl_le32(m->syms + at), len = etl_le32(m->syms + at + 4), start;
		if (len > to - at - 8)
			break;
		if (kind == C13_LINES && len >= 12) {
			start = etl__pdb_rva(p, etl_le16(m->syms + at + 12), etl_le32(m->syms + at + 8));
			if (start != UINT32_MAX && rva >= start && rva - start < etl_le32(m->syms + at + 16))
				lines_in(m, at + 8, len, rva - start, &best_off, &best_line, &best_file, &found);
		}
		at = next_subsection(at, len, to);
	}
	if (found) {
		*line = best_line;
		*file = file_of(p, m, best_file, d);
	}
	return ETL_OK;
}

/* ---- public symbols ---- */

struct pub_walk {
	struct etl_pdb *p;
	size_t cap;
	int failed;
};

static void add_public(void *ctx, const uint8_t *rec, uint32_t size, uint16_t kind, uint32_t at)
{
	struct pub_walk *w = ctx;
	struct etl_pdb *p = w->p;
	uint32_t rva;

	if (kind != S_PUB32 || w->failed || !named(rec, size, PUB_NAME))
		return;
	p->npub_records++;
	rva = etl__pdb_rva(p, etl_le16(rec + 12), etl_le32(rec + 8));
	if (rva == UINT32_MAX)
		return;
	if (room_for_one(p, &p->pub, &w->cap, p->npub, sizeof(*p->pub), 256) != 0) {
		w->failed = 1;
		return;
	}
	p->pub[p->npub++] = (struct etl_pdb_public){ rva, at + PUB_NAME };
}

static int pub_cmp(const void *a, const void *b)
{
	const struct etl_pdb_public *x = a, *y = b;

	if (x->rva != y->rva)
		return x->rva < y->rva ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name; /* the first record of an address */
}

int etl__pdb_read_publics(struct etl_pdb *p, struct etl_diag *d)
{
	uint32_t size = etl__msf_stream_size(&p->msf, p->symrec_stream), len;
	struct pub_walk w = { p, 0, 0 };

	if (p->publics_state)
		return p->publics_state > 0 ? ETL_OK : p->publics_state;
	if (p->symrec_stream == 0xFFFF || !size) {
		p->publics_state = 1;
		return ETL_OK;
	}
	if (etl__pdb_charge(p, size) != 0) {
		etl__diag_set(d, ETL_E_LIMIT, ETL_OFFSET_NONE, "PDB symbol records (%u bytes): past the symbol memory limit", size);
		return p->publics_state = ETL_E_LIMIT;
	}
	if (etl__msf_load(&p->msf, p->symrec_stream, size, &p->symrec, &len, d) != ETL_OK) {
		etl__diag_prefix(d, "PDB symbol records: ");
		return p->publics_state = d->code;
	}
	if (walk_records(p->symrec, 0, len, add_public, &w) != 0) {
		etl__diag_set(d, ETL_E_FORMAT, ETL_OFFSET_NONE, "PDB symbol records: a record runs past the stream's %u bytes", len);
		return p->publics_state = ETL_E_FORMAT;
	}
	if (w.failed) {
		etl__diag_set(d, ETL_E_LIMIT, ETL_OFFSET_NONE, "PDB symbol records: too many for the symbol memory limit");
		return p->publics_state = ETL_E_LIMIT;
	}
	if (p->npub > 1)
		qsort(p->pub, p->npub, sizeof(*p->pub), pub_cmp);
	p->publics_state = 1;
	return ETL_OK;
}

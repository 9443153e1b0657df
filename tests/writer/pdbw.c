/*
 * pdbw.c - PDB files for the tests (see pdbw.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "pdbw.h"

/* A growing byte buffer; a failed allocation makes it fail for good. */
struct bb {
	uint8_t *b;
	size_t n, cap;
	int failed;
};

static void bb_put(struct bb *x, const void *p, size_t n)
{
	if (x->failed)
		return;
	if (x->n + n > x->cap) {
		size_t cap = x->cap ? x->cap : 256;
		uint8_t *nb;
		while (cap < x->n + n)
			cap *= 2;
		if (!(nb = realloc(x->b, cap))) {
			x->failed = 1;
			return;
		}
		x->b = nb;
		x->cap = cap;
	}
	if (n)
		memcpy(x->b + x->n, p, n);
	x->n += n;
}

static void bb_u8(struct bb *x, unsigned v)
{
	uint8_t b = (uint8_t)v;
	bb_put(x, &b, 1);
}

static void bb_u16(struct bb *x, unsigned v)
{
	bb_u8(x, v & 0xFF);
	bb_u8(x, (v >> 8) & 0xFF);
}

static void bb_u32(struct bb *x, uint32_t v)
{
	bb_u16(x, v & 0xFFFF);
	bb_u16(x, v >> 16);
}

static void bb_str(struct bb *x, const char *s)
{
	bb_put(x, s, strlen(s) + 1);
}

static void bb_align(struct bb *x, size_t a)
{
	while (x->n % a)
		bb_u8(x, 0);
}

static void bb_guid(struct bb *x, const struct etl_guid *g)
{
	bb_u32(x, g->data1);
	bb_u16(x, g->data2);
	bb_u16(x, g->data3);
	bb_put(x, g->data4, 8);
}

static void set32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

int pdbw_msf(const struct pdbw_stream *s, unsigned n, uint32_t bs, uint8_t **out, size_t *len)
{
	static const char magic[32] = "Microsoft C/C++ MSF 7.00\r\n\x1a" "DS\0\0";
	struct bb dir = { 0 }, file = { 0 };
	uint32_t next = 4, i, k, dir_blocks; /* 0 superblock, 1-2 free block maps, 3 the directory's map */

	bb_u32(&dir, n);
	for (i = 0; i < n; i++)
		bb_u32(&dir, s[i].size);
	for (i = 0; i < n; i++) {
		uint32_t size = s[i].size == UINT32_MAX ? 0 : s[i].size;
		for (k = 0; k < (size + bs - 1) / bs; k++)
			bb_u32(&dir, 0); /* numbered below, once the directory's own size is known */
	}
	dir_blocks = (uint32_t)((dir.n + bs - 1) / bs);
	next = 4 + dir_blocks;
	/* number the streams' blocks after the directory's */
	{
		size_t at = 4 + 4 * (size_t)n;
		for (i = 0; i < n; i++) {
			uint32_t size = s[i].size == UINT32_MAX ? 0 : s[i].size;
			for (k = 0; k < (size + bs - 1) / bs; k++, at += 4)
				set32(dir.b + at, next++);
		}
	}
	if (dir.failed || !(file.b = calloc(next, bs))) {
		free(dir.b);
		return -1;
	}
	file.n = file.cap = (size_t)next * bs;
	memcpy(file.b, magic, 32);
	set32(file.b + 32, bs);
	set32(file.b + 36, 1);
	set32(file.b + 40, next);
	set32(file.b + 44, (uint32_t)dir.n);
	set32(file.b + 52, 3);
	for (k = 0; k < dir_blocks; k++)
		set32(file.b + 3 * (size_t)bs + 4 * k, 4 + k);
	memcpy(file.b + 4 * (size_t)bs, dir.b, dir.n);
	next = 4 + dir_blocks;
	for (i = 0; i < n; i++) {
		uint32_t size = s[i].size == UINT32_MAX ? 0 : s[i].size;
		if (size)
			memcpy(file.b + (size_t)next * bs, s[i].data, size);
		next += (size + bs - 1) / bs;
	}
	free(dir.b);
	*out = file.b;
	*len = file.n;
	return 0;
}

static void info_stream(const struct pdbw_spec *sp, struct bb *x)
{
	bb_u32(x, 20000404); /* VC70 */
	bb_u32(x, 0x5EED);
	bb_u32(x, sp->age);
	bb_guid(x, &sp->guid);
	bb_u32(x, 7);        /* the string buffer: "/names" */
	bb_str(x, "/names");
	bb_u32(x, 1);        /* entries */
	bb_u32(x, 2);        /* capacity */
	bb_u32(x, 1);        /* present: one word */
	bb_u32(x, 1);
	bb_u32(x, 0);        /* deleted: none */
	bb_u32(x, 0);        /* "/names" */
	bb_u32(x, PDBW_NAMES);
	bb_u32(x, 0);
	bb_u32(x, 20140508); /* the VC140 feature */
}

static unsigned modules_of(const struct pdbw_spec *sp)
{
	return sp->nmodules > 1 ? sp->nmodules : 1;
}

unsigned pdbw_stream_count(const struct pdbw_spec *sp)
{
	return PDBW_STREAMS + modules_of(sp) - 1;
}

static unsigned module_stream_of(unsigned m)
{
	return m ? PDBW_STREAMS + m - 1 : PDBW_MODULE;
}

/* Module m's stream: signature, its procedures (each closed by S_END), then C13 file checksums
 * and one lines subsection per procedure. */
static void module_stream(const struct pdbw_spec *sp, unsigned m, struct bb *x, uint32_t *sym_bytes)
{
	unsigned i, nm = modules_of(sp);

	bb_u32(x, 4);
	for (i = m; i < sp->nprocs; i += nm) {
		const struct pdbw_proc *p = &sp->procs[i];
		size_t start = x->n;
		bb_u16(x, 0);
		bb_u16(x, p->local ? 0x110F : 0x1110);
		bb_u32(x, 0), bb_u32(x, 0), bb_u32(x, 0);      /* parent, end, next */
		bb_u32(x, p->size);
		bb_u32(x, 0), bb_u32(x, p->size);              /* debug start, end */
		bb_u32(x, 0x1001);                             /* type */
		bb_u32(x, p->offset);
		bb_u16(x, p->section);
		bb_u8(x, 0);
		bb_str(x, p->name);
		bb_align(x, 4);
		if (!x->failed) {
			x->b[start] = (uint8_t)(x->n - start - 2);
			x->b[start + 1] = (uint8_t)((x->n - start - 2) >> 8);
		}
		bb_u16(x, 2);
		bb_u16(x, 0x0006); /* S_END */
	}
	*sym_bytes = (uint32_t)x->n;
	/* file checksums: one file, name 1 in "/names", no checksum */
	bb_u32(x, 0xF4);
	bb_u32(x, 8);
	bb_u32(x, 1);
	bb_u8(x, 0), bb_u8(x, 0);
	bb_align(x, 4);
	for (i = m; i < sp->nprocs; i += nm) {
		const struct pdbw_proc *p = &sp->procs[i];
		uint32_t k, nlines = p->line ? (p->size + 3) / 4 : 0;
		if (!nlines)
			continue;
		bb_u32(x, 0xF2);
		bb_u32(x, 12 + 12 + 8 * nlines);
		bb_u32(x, p->offset);
		bb_u16(x, p->section);
		bb_u16(x, 0);
		bb_u32(x, p->size);
		bb_u32(x, 0); /* the checksum entry of the file */
		bb_u32(x, nlines);
		bb_u32(x, 12 + 8 * nlines);
		for (k = 0; k < nlines; k++) {
			bb_u32(x, 4 * k);
			bb_u32(x, (p->line + k) | 0x80000000u);
		}
	}
}

static void symrec_stream(const struct pdbw_spec *sp, struct bb *x)
{
	unsigned i;

	for (i = 0; i < sp->npublics; i++) {
		size_t start = x->n;
		bb_u16(x, 0);
		bb_u16(x, 0x110E);
		bb_u32(x, 2); /* function */
		bb_u32(x, sp->publics[i].offset);
		bb_u16(x, sp->publics[i].section);
		bb_str(x, sp->publics[i].name);
		bb_align(x, 4);
		if (!x->failed) {
			x->b[start] = (uint8_t)(x->n - start - 2);
			x->b[start + 1] = (uint8_t)((x->n - start - 2) >> 8);
		}
	}
}

static void dbi_stream(const struct pdbw_spec *sp, struct bb *x, const uint32_t *sym_bytes,
		       const uint32_t *c13_bytes)
{
	struct bb mod = { 0 }, sc = { 0 }, map = { 0 }, dbg = { 0 };
	unsigned i, m, nm = modules_of(sp);

	for (m = 0; m < nm; m++) {
		bb_u32(&mod, 0);
		bb_u16(&mod, 1), bb_u16(&mod, 0), bb_u32(&mod, 0), bb_u32(&mod, 0), bb_u32(&mod, 0);
		bb_u16(&mod, (unsigned)m), bb_u16(&mod, 0), bb_u32(&mod, 0), bb_u32(&mod, 0); /* its first contribution */
		bb_u16(&mod, 0);
		bb_u16(&mod, module_stream_of(m));
		bb_u32(&mod, sym_bytes[m]);
		bb_u32(&mod, 0);
		bb_u32(&mod, c13_bytes[m]);
		bb_u16(&mod, 1), bb_u16(&mod, 0), bb_u32(&mod, 0), bb_u32(&mod, 0), bb_u32(&mod, 0);
		bb_str(&mod, "C:\\build\\obj\\module.obj");
		bb_str(&mod, "C:\\build\\obj\\module.obj");
		bb_align(&mod, 4);
	}
	/* contributions: one per procedure */
	bb_u32(&sc, 0xF12EBA2Du);
	for (i = 0; i < sp->nprocs; i++) {
		bb_u16(&sc, sp->procs[i].section), bb_u16(&sc, 0);
		bb_u32(&sc, sp->procs[i].offset), bb_u32(&sc, sp->procs[i].size);
		bb_u32(&sc, 0x60000020), bb_u16(&sc, i % nm), bb_u16(&sc, 0), bb_u32(&sc, 0), bb_u32(&sc, 0);
	}
	/* the section map, and an absolute pseudo-section at its end */
	bb_u16(&map, sp->nsections + 1), bb_u16(&map, sp->nsections + 1);
	for (i = 0; i <= sp->nsections; i++) {
		bb_u16(&map, i < sp->nsections ? 0x10D : 0x208);
		bb_u16(&map, 0), bb_u16(&map, 0), bb_u16(&map, i + 1), bb_u16(&map, 0xFFFF), bb_u16(&map, 0xFFFF);
		bb_u32(&map, 0);
		bb_u32(&map, i < sp->nsections ? sp->sections[i].size : UINT32_MAX);
	}
	for (i = 0; i < 11; i++)
		bb_u16(&dbg, i == 5 && !sp->no_section_headers ? PDBW_SECTIONS : 0xFFFF);
	bb_u32(x, UINT32_MAX);
	bb_u32(x, 19990903);
	bb_u32(x, sp->age);
	bb_u16(x, 0xFFFF), bb_u16(x, 0x8E00), bb_u16(x, 0xFFFF), bb_u16(x, 0);
	bb_u16(x, PDBW_SYMREC), bb_u16(x, 0);
	bb_u32(x, (uint32_t)mod.n), bb_u32(x, (uint32_t)sc.n), bb_u32(x, (uint32_t)map.n);
	bb_u32(x, 0), bb_u32(x, 0), bb_u32(x, 0);
	bb_u32(x, (uint32_t)dbg.n), bb_u32(x, 0);
	bb_u16(x, 0), bb_u16(x, 0x8664), bb_u32(x, 0);
	bb_put(x, mod.b, mod.n);
	bb_put(x, sc.b, sc.n);
	bb_put(x, map.b, map.n);
	bb_put(x, dbg.b, dbg.n);
	x->failed |= mod.failed | sc.failed | map.failed | dbg.failed;
	free(mod.b), free(sc.b), free(map.b), free(dbg.b);
}

static void sections_stream(const struct pdbw_spec *sp, struct bb *x)
{
	unsigned i;

	for (i = 0; i < sp->nsections; i++) {
		char name[8] = { 0 };
		size_t k = strlen(sp->sections[i].name);
		memcpy(name, sp->sections[i].name, k < sizeof(name) ? k : sizeof(name));
		bb_put(x, name, 8);
		bb_u32(x, sp->sections[i].size);
		bb_u32(x, sp->sections[i].rva);
		bb_u32(x, (sp->sections[i].size + 511) & ~511u);
		bb_u32(x, 0x400), bb_u32(x, 0), bb_u32(x, 0), bb_u16(x, 0), bb_u16(x, 0);
		bb_u32(x, 0x60000020);
	}
}

static void names_stream(const struct pdbw_spec *sp, struct bb *x)
{
	const char *src = sp->source ? sp->source : "x.c";

	bb_u32(x, 0xEFFEEFFEu);
	bb_u32(x, 1);
	bb_u32(x, (uint32_t)strlen(src) + 2);
	bb_u8(x, 0); /* offset 0: the empty string */
	bb_str(x, src);
	bb_u32(x, 1), bb_u32(x, 1), bb_u32(x, 1); /* a hash table of one bucket, one name */
}

int pdbw_streams(const struct pdbw_spec *sp, struct pdbw_stream *st)
{
	unsigned i, m, nm = modules_of(sp), n = pdbw_stream_count(sp);
	struct bb *b = calloc(n, sizeof(*b));
	uint32_t *sym_bytes = calloc(nm, sizeof(*sym_bytes)), *c13 = calloc(nm, sizeof(*c13));
	int failed = !b || !sym_bytes || !c13;

	if (failed) {
		free(b), free(sym_bytes), free(c13);
		return -1;
	}
	info_stream(sp, &b[PDBW_INFO]);
	for (m = 0; m < nm; m++) {
		struct bb *x = &b[module_stream_of(m)];
		module_stream(sp, m, x, &sym_bytes[m]);
		c13[m] = (uint32_t)(x->n - sym_bytes[m]);
	}
	dbi_stream(sp, &b[PDBW_DBI], sym_bytes, c13);
	symrec_stream(sp, &b[PDBW_SYMREC]);
	if (!sp->no_section_headers)
		sections_stream(sp, &b[PDBW_SECTIONS]);
	names_stream(sp, &b[PDBW_NAMES]);
	if (sp->filler_bytes && !(b[2].b = calloc(1, sp->filler_bytes)))
		failed = 1;
	else if (sp->filler_bytes)
		b[2].n = sp->filler_bytes;
	for (i = 0; i < n; i++) {
		failed |= b[i].failed;
		st[i].data = b[i].b;
		st[i].size = (uint32_t)b[i].n;
	}
	if (!sp->filler_bytes)
		st[2].size = UINT32_MAX; /* no types */
	st[4].size = UINT32_MAX;
	free(b), free(sym_bytes), free(c13);
	if (failed)
		pdbw_streams_free(st, n);
	return failed ? -1 : 0;
}

void pdbw_streams_free(struct pdbw_stream *st, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		free((void *)st[i].data);
		st[i].data = NULL;
	}
}

int pdbw_build(const struct pdbw_spec *sp, uint8_t **out, size_t *len)
{
	unsigned n = pdbw_stream_count(sp);
	struct pdbw_stream *st = calloc(n, sizeof(*st));
	int rc;

	if (!st || pdbw_streams(sp, st) != 0) {
		free(st);
		return -1;
	}
	rc = pdbw_msf(st, n, sp->block_size ? sp->block_size : 512, out, len);
	pdbw_streams_free(st, n);
	free(st);
	return rc;
}

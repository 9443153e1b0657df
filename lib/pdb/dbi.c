/*
 * dbi.c - the parts of a PDB's DBI stream (stream 3) that place code: its
 * module list, section contributions, section map and the optional debug
 * header's section headers and OMAP tables.
 *
 * The stream is a 64-byte header, then substreams in this order, each of
 * the size the header gives: module info, section contributions, section
 * map, source files, type server map, EC names, optional debug header.
 * Only the substreams used are read (the source file list can be most of
 * the stream).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "pdb/pdb.h"
#include "util/cursor.h"

#define STREAM_DBI 3u
#define DBI_HEADER 64u
#define SC_V60 0xF12EBA2Du   /* 0xEFFE0000 + 19970605 */
#define SC_V2 0xF13151E4u    /* 0xEFFE0000 + 20140516: entries carry a COFF section index */
#define MODINFO_FIXED 64u
#define NGEN_FIRST_RVA 0x1000u

enum { DBG_OMAP_TO_SRC = 3, DBG_SECTION_HDR = 5, DBG_SECTION_HDR_ORIG = 10, DBG_STREAMS = 11 };

struct dbi {
	uint32_t part[7];     /* sizes: modinfo, contributions, section map, files, type servers, EC, debug header */
	uint32_t at[7];       /* and offsets in the stream */
	uint16_t dbg[DBG_STREAMS];
};

/* Reads substream i of the DBI stream into *out (malloc'd; NULL when empty). */
static int read_part(struct etl_pdb *p, const struct dbi *x, int i, uint8_t **out, struct etl_diag *d)
{
	*out = NULL;
	if (!x->part[i])
		return ETL_OK;
	if (etl__pdb_charge(p, x->part[i]) != 0) {
		etl__diag_set(d, ETL_E_LIMIT, ETL_OFFSET_NONE, "PDB DBI stream: a part of %u bytes is past the symbol memory limit",
			      x->part[i]);
		return ETL_E_LIMIT;
	}
	p->held -= x->part[i]; /* only while it is read */
	if (!(*out = etl__malloc(x->part[i]))) {
		etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
		return ETL_E_NOMEM;
	}
	if (etl__msf_read(&p->msf, STREAM_DBI, x->at[i], *out, x->part[i], d) != ETL_OK) {
		etl__free(*out);
		*out = NULL;
		etl__diag_prefix(d, "PDB DBI stream: ");
		return d->code;
	}
	return ETL_OK;
}

/* Allocates n elements of size bytes charged to p. */
static void *table(struct etl_pdb *p, size_t n, size_t size, struct etl_diag *d)
{
	void *t;

	if (etl__pdb_charge(p, (uint64_t)(n ? n : 1) * size) != 0) {
		etl__diag_set(d, ETL_E_LIMIT, ETL_OFFSET_NONE, "PDB: a table of %zu entries is past the symbol memory limit", n);
		return NULL;
	}
	if (!(t = etl__calloc(n ? n : 1, size)))
		etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
	return t;
}

static int header(struct etl_pdb *p, struct dbi *x, struct etl_diag *d)
{
	uint8_t h[DBI_HEADER];
	struct etl_cursor c;
	uint64_t at = DBI_HEADER;
	uint32_t size = etl__msf_stream_size(&p->msf, STREAM_DBI);
	int i;

	if (size < DBI_HEADER) {
		etl__diag_set(d, ETL_E_FORMAT, ETL_OFFSET_NONE, "PDB DBI stream of %u bytes has no header", size);
		return ETL_E_FORMAT;
	}
	if (etl__msf_read(&p->msf, STREAM_DBI, 0, h, sizeof(h), d) != ETL_OK)
		return d->code;
	cur_init(&c, h, sizeof(h));
	if (cur_u32(&c) != UINT32_MAX) {
		etl__diag_set(d, ETL_E_UNSUPPORTED, ETL_OFFSET_NONE, "PDB DBI stream of an old format (no -1 signature)");
		return ETL_E_UNSUPPORTED;
	}
	(void)cur_u32(&c); /* version */
	p->dbi_age = cur_u32(&c);
	cur_skip(&c, 8);   /* globals, build, publics, dll version */
	p->symrec_stream = cur_u16(&c);
	(void)cur_u16(&c);
	for (i = 0; i < 5; i++)
		x->part[i] = cur_u32(&c);
	(void)cur_u32(&c);          /* MFC type server */
	x->part[6] = cur_u32(&c);   /* the debug header, which comes after */
	x->part[5] = cur_u32(&c);   /* the EC names */
	for (i = 0; i < 7; i++) {
		if (x->part[i] > size - at) {
			etl__diag_set(d, ETL_E_FORMAT, ETL_OFFSET_NONE,
				      "PDB DBI stream: substream %d of %u bytes at %llu runs past its %u bytes", i, x->part[i],
				      (unsigned long long)at, size);
			return ETL_E_FORMAT;
		}
		x->at[i] = (uint32_t)at;
		at += x->part[i];
	}
	return ETL_OK;
}

/* The optional debug header: stream numbers of the debug data (0xFFFF: none). */
static int debug_header(struct etl_pdb *p, struct dbi *x, struct etl_diag *d)
{
	uint8_t *b;
	size_t i;
	int st = read_part(p, x, 6, &b, d);

	for (i = 0; i < DBG_STREAMS; i++)
		x->dbg[i] = 0xFFFF;
	for (i = 0; st == ETL_OK && i < DBG_STREAMS && 2 * i + 2 <= x->part[6]; i++)
		x->dbg[i] = etl_le16(b + 2 * i);
	etl__free(b);
	return st;
}

/* Section headers (IMAGE_SECTION_HEADER, 40 bytes each) from stream s: each one's RVA and
 * size.  0 when there are none (no such stream). */
static int section_headers(struct etl_pdb *p, uint16_t s, struct etl_diag *d)
{
	uint32_t len, i;
	uint8_t *b;
	int st;

	if (s == 0xFFFF || !etl__msf_stream_size(&p->msf, s))
		return ETL_OK;
	if ((st = etl__msf_load(&p->msf, s, 1u << 20, &b, &len, d)) != ETL_OK) {
		etl__diag_prefix(d, "PDB section headers: ");
		return st;
	}
	p->nsect = len / 40;
	if (!(p->sect = table(p, p->nsect, sizeof(*p->sect), d))) {
		etl__free(b);
		return d->code;
	}
	for (i = 0; i < p->nsect; i++) {
		const uint8_t *h = b + 40 * i;
		uint32_t vsize = etl_le32(h + 8), raw = etl_le32(h + 16);
		p->sect[i].rva = etl_le32(h + 12);
		p->sect[i].size = vsize ? vsize : raw;
	}
	etl__free(b);
	return ETL_OK;
}

/* No section headers (NGEN PDBs): the sections of the section map, in order, the first at RVA
 * 0x1000 and each next one at the first 0x1000 boundary after the one before.  The map's last
 * entry may be an absolute pseudo-section (flag 0x200), which is not placed. */
static int sections_from_map(struct etl_pdb *p, struct dbi *x, struct etl_diag *d)
{
	uint8_t *b;
	struct etl_cursor c;
	uint32_t n, i, rva = NGEN_FIRST_RVA;
	int st = read_part(p, x, 2, &b, d);

	if (st != ETL_OK || !b)
		return st;
	etl__free(p->sect); /* (an empty stream of headers) */
	p->sect = NULL;
	cur_init(&c, b, x->part[2]);
	n = cur_u16(&c);
	(void)cur_u16(&c);
	if (n > cur_left(&c) / 20)
		n = (uint32_t)(cur_left(&c) / 20);
	if (!(p->sect = table(p, n, sizeof(*p->sect), d))) {
		etl__free(b);
		return d->code;
	}
	for (i = 0; i < n; i++) {
		uint16_t flags = cur_u16(&c);
		uint32_t len;
		cur_skip(&c, 14);
		len = cur_u32(&c);
		if (flags & 0x200)
			break; /* absolute: not a section of the image */
		p->sect[i].rva = rva;
		p->sect[i].size = len;
		p->nsect = i + 1;
		if (len > UINT32_MAX - rva - 0x2000u)
			break;
		rva = (rva + len + 0xFFFu) & ~0xFFFu;
	}
	etl__free(b);
	return ETL_OK;
}

static int omap_cmp(const void *a, const void *b)
{
	const struct etl_pdb_omap *x = a, *y = b;

	return x->from < y->from ? -1 : x->from > y->from;
}

/* The OMAP table from the image's layout to the symbols' (stream s), when there is one. */
static int omap(struct etl_pdb *p, uint16_t s, struct etl_diag *d)
{
	uint32_t len, i;
	uint8_t *b;
	int st;

	if (s == 0xFFFF || !etl__msf_stream_size(&p->msf, s))
		return ETL_OK;
	if (etl__pdb_charge(p, etl__msf_stream_size(&p->msf, s)) != 0) {
		etl__diag_set(d, ETL_E_LIMIT, ETL_OFFSET_NONE, "PDB OMAP table: past the symbol memory limit");
		return ETL_E_LIMIT;
	}
	if ((st = etl__msf_load(&p->msf, s, UINT32_MAX, &b, &len, d)) != ETL_OK) {
		etl__diag_prefix(d, "PDB OMAP table: ");
		return st;
	}
	p->nomap = len / 8;
	if (!(p->omap = etl__calloc(p->nomap ? p->nomap : 1, sizeof(*p->omap)))) {
		etl__free(b);
		etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
		return ETL_E_NOMEM;
	}
	for (i = 0; i < p->nomap; i++) {
		p->omap[i].from = etl_le32(b + 8 * i);
		p->omap[i].to = etl_le32(b + 8 * i + 4);
	}
	etl__free(b);
	if (p->nomap > 1) /* (written sorted; a hostile one is not) */
		qsort(p->omap, p->nomap, sizeof(*p->omap), omap_cmp);
	return ETL_OK;
}

/* The module list: each module's stream and the sizes of its parts. */
static int modules(struct etl_pdb *p, struct dbi *x, struct etl_diag *d)
{
	uint8_t *b;
	struct etl_cursor c;
	size_t n = 0, cap = 0, aligned;
	int st = read_part(p, x, 0, &b, d);

	if (st != ETL_OK || !b)
		return st;
	cur_init(&c, b, x->part[0]);
	while (cur_left(&c) >= MODINFO_FIXED) {
		const uint8_t *e = cur_take(&c, MODINFO_FIXED);
		const uint8_t *names = c.base + c.pos, *end1, *end2;
		struct etl_pdb_module *m;
		if (!(end1 = memchr(names, 0, cur_left(&c))) ||
		    !(end2 = memchr(end1 + 1, 0, cur_left(&c) - (size_t)(end1 + 1 - names)))) {
			etl__diag_set(d, ETL_E_FORMAT, ETL_OFFSET_NONE, "PDB DBI stream: module %zu's names run past its module list",
				      n);
			st = ETL_E_FORMAT;
			break;
		}
		cur_skip(&c, (size_t)(end2 + 1 - names));
		aligned = (c.pos + 3) & ~(size_t)3; /* entries start at multiples of 4 */
		cur_seek(&c, aligned < c.len ? aligned : c.len);
		if (etl__pdb_charge(p, sizeof(*m)) != 0 || etl__grow(&p->mod, &cap, n + 1, sizeof(*m), 64) != 0) {
			etl__diag_set(d, ETL_E_LIMIT, ETL_OFFSET_NONE, "PDB DBI stream: too many modules for the symbol memory limit");
			st = ETL_E_LIMIT;
			break;
		}
		m = &p->mod[n++];
		memset(m, 0, sizeof(*m));
		m->stream = etl_le16(e + 34);
		m->sym_bytes = etl_le32(e + 36);
		m->c11_bytes = etl_le32(e + 40);
		m->c13_bytes = etl_le32(e + 44);
		p->nmod = n;
	}
	etl__free(b);
	return st;
}

static int contrib_cmp(const void *a, const void *b)
{
	const struct etl_pdb_contrib *x = a, *y = b;

	return x->rva < y->rva ? -1 : x->rva > y->rva;
}

/* The section contributions: which module's code (or data) is where. */
static int contributions(struct etl_pdb *p, struct dbi *x, struct etl_diag *d)
{
	uint8_t *b;
	struct etl_cursor c;
	uint32_t version;
	size_t size, n, i;
	int st = read_part(p, x, 1, &b, d);

	if (st != ETL_OK || !b)
		return st;
	cur_init(&c, b, x->part[1]);
	version = cur_u32(&c);
	size = version == SC_V2 ? 32 : 28;
	if (version != SC_V60 && version != SC_V2) {
		etl__free(b);
		return ETL_OK; /* an unknown form: lookups fall back to the public symbols */
	}
	n = cur_left(&c) / size;
	if (!(p->contrib = table(p, n, sizeof(*p->contrib), d))) {
		etl__free(b);
		return d->code;
	}
	for (i = 0; i < n; i++) {
		const uint8_t *e = cur_take(&c, size);
		uint32_t rva = etl__pdb_rva(p, etl_le16(e), etl_le32(e + 4)), len = etl_le32(e + 8);
		uint16_t module = etl_le16(e + 16);
		if (rva == UINT32_MAX || !len || module >= p->nmod)
			continue;
		p->contrib[p->ncontrib++] = (struct etl_pdb_contrib){ rva, len, module };
	}
	etl__free(b);
	if (p->ncontrib > 1)
		qsort(p->contrib, p->ncontrib, sizeof(*p->contrib), contrib_cmp);
	etl__pdb_index_pages(p);
	return ETL_OK;
}

int etl__pdb_read_dbi(struct etl_pdb *p, struct etl_diag *d)
{
	struct dbi x;
	int st;

	memset(&x, 0, sizeof(x));
	if (STREAM_DBI >= p->msf.nstreams || !etl__msf_stream_size(&p->msf, STREAM_DBI)) {
		etl__diag_set(d, ETL_E_FORMAT, ETL_OFFSET_NONE, "PDB has no DBI stream");
		return ETL_E_FORMAT;
	}
	if ((st = header(p, &x, d)) != ETL_OK || (st = debug_header(p, &x, d)) != ETL_OK)
		return st;
	if (x.dbg[DBG_OMAP_TO_SRC] != 0xFFFF && x.dbg[DBG_SECTION_HDR_ORIG] != 0xFFFF)
		st = section_headers(p, x.dbg[DBG_SECTION_HDR_ORIG], d); /* the symbols' own layout */
	else
		st = section_headers(p, x.dbg[DBG_SECTION_HDR], d);
	if (st == ETL_OK && !p->nsect)
		st = sections_from_map(p, &x, d);
	if (st == ETL_OK)
		st = omap(p, x.dbg[DBG_OMAP_TO_SRC], d);
	if (st == ETL_OK)
		st = modules(p, &x, d);
	if (st == ETL_OK)
		st = contributions(p, &x, d);
	return st;
}

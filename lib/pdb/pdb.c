/*
 * pdb.c - the PDB reader's entry points: opening a PDB (the info stream),
 * looking addresses up, reading it all, closing (see pdb.h).  The DBI stream is
 * read in dbi.c, module streams and public symbols in modsyms.c; what those
 * parts call back (the address space and the byte budget) is space.c.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "pdb/pdb.h"
#include "util/cursor.h"

#define STREAM_INFO 1u
#define INFO_MAX (1u << 20)  /* the info stream: a header and a few named streams */
#define VC70 20000404u       /* the oldest info stream version of MSF 7.00 files */

/* Skips a bit vector of the named stream map (a word count, then the words). */
static void skip_bits(struct etl_cursor *c)
{
	uint32_t words = cur_u32(c);

	cur_skip(c, words > cur_left(c) / 4 ? cur_left(c) + 1 : (size_t)words * 4);
}

/* The named stream map after the info stream's header: a string buffer, then a hash table of
 * (string offset, stream) pairs, of which only the present ones are written.  Finds "/names". */
static int named_streams(struct etl_pdb *p, struct etl_cursor *c, struct etl_diag *d)
{
	uint32_t strings = cur_u32(c), size, i;
	const uint8_t *str = cur_take(c, strings);

	size = cur_u32(c);
	(void)cur_u32(c); /* capacity */
	skip_bits(c);     /* present */
	skip_bits(c);     /* deleted */
	if (!cur_ok(c) || size > cur_left(c) / 8) {
		etl__diag_set(d, ETL_E_FORMAT, ETL_OFFSET_NONE,
			      "PDB info stream: its named stream table (%u entries) does not fit its %zu bytes", size, c->len);
		return ETL_E_FORMAT;
	}
	for (i = 0; i < size; i++) {
		uint32_t key = cur_u32(c), value = cur_u32(c);
		if (key < strings && memchr(str + key, 0, strings - key) && strcmp((const char *)str + key, "/names") == 0)
			p->names_stream = value;
	}
	return ETL_OK;
}

static int read_info(struct etl_pdb *p, struct etl_diag *d)
{
	uint8_t *info;
	uint32_t len, version;
	struct etl_cursor c;
	int st = etl__msf_load(&p->msf, STREAM_INFO, INFO_MAX, &info, &len, d);

	if (st != ETL_OK) {
		etl__diag_prefix(d, "PDB info stream: ");
		return st;
	}
	cur_init(&c, info, len);
	version = cur_u32(&c);
	(void)cur_u32(&c); /* signature: a time stamp */
	p->age = cur_u32(&c);
	cur_guid(&c, &p->guid);
	if (!cur_ok(&c)) {
		etl__diag_set(d, ETL_E_FORMAT, ETL_OFFSET_NONE, "PDB info stream of %u bytes is too short", len);
		st = ETL_E_FORMAT;
	} else if (version < VC70) {
		etl__diag_set(d, ETL_E_UNSUPPORTED, ETL_OFFSET_NONE,
			      "PDB info stream version %u (before VC 7.0) has no GUID", version);
		st = ETL_E_UNSUPPORTED;
	} else if (named_streams(p, &c, d) != ETL_OK) {
		p->names_stream = UINT32_MAX; /* the functions are still there; only file names are lost */
	}
	etl__free(info);
	return st;
}

int etl__pdb_open(struct etl_pdb *p, struct etl_source *src, uint64_t max_bytes, struct etl_diag *d)
{
	int st;

	memset(p, 0, sizeof(*p));
	p->max_bytes = max_bytes;
	p->names_stream = UINT32_MAX;
	p->symrec_stream = 0xFFFF;
	st = etl__msf_open(&p->msf, src, d);
	if (st != ETL_OK)
		return st;
	st = read_info(p, d);
	if (st == ETL_OK)
		st = etl__pdb_read_dbi(p, d);
	if (st != ETL_OK)
		etl__pdb_close(p);
	return st;
}

/* The module whose contribution holds rva, or NULL. */
static struct etl_pdb_module *module_at(struct etl_pdb *p, uint32_t rva)
{
	size_t lo = 0, hi = p->ncontrib;

	if (p->page_first && rva >= p->page_base) { /* the contributions the page's range can hold */
		uint32_t pg = (rva - p->page_base) >> p->page_shift;
		if (pg + 1 < p->npages) {
			lo = p->page_first[pg] ? p->page_first[pg] - 1 : 0;
			hi = p->page_first[pg + 1] + 1 < p->ncontrib ? p->page_first[pg + 1] + 1 : p->ncontrib;
		}
	}

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->contrib[mid].rva <= rva)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || rva - p->contrib[lo - 1].rva >= p->contrib[lo - 1].size || p->contrib[lo - 1].module >= p->nmod)
		return NULL;
	return &p->mod[p->contrib[lo - 1].module];
}

/* The procedure of m holding rva, or NULL. */
static const struct etl_pdb_proc *proc_at(const struct etl_pdb_module *m, uint32_t rva)
{
	size_t lo = 0, hi = m->nprocs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->procs[mid].rva <= rva)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* procedures do not overlap: the last one starting at or below rva, if long enough */
	if (!lo || rva - m->procs[lo - 1].rva >= m->procs[lo - 1].size)
		return NULL;
	return &m->procs[lo - 1];
}

/* The public symbol at or below rva, or NULL. */
static const struct etl_pdb_public *public_at(const struct etl_pdb *p, uint32_t rva)
{
	size_t lo = 0, hi = p->npub;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->pub[mid].rva <= rva)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &p->pub[lo - 1] : NULL;
}

int etl__pdb_lookup(struct etl_pdb *p, uint32_t image_rva, int lines, struct etl_pdb_hit *hit, struct etl_diag *d)
{
	uint32_t rva = etl__pdb_source_rva(p, image_rva);
	struct etl_pdb_module *m;
	const struct etl_pdb_proc *pr = NULL;
	const struct etl_pdb_public *pub;
	int st = ETL_OK;

	memset(hit, 0, sizeof(*hit));
	if (rva == UINT32_MAX)
		return ETL_OK;
	if ((m = module_at(p, rva)) != NULL) {
		st = etl__pdb_load_module(p, m, d);
		if (st == ETL_OK && (pr = proc_at(m, rva)) != NULL) {
			hit->function = (const char *)m->syms + pr->name;
			hit->offset = rva - pr->rva;
			if (lines)
				st = etl__pdb_module_line(p, m, rva, &hit->file, &hit->line, d);
			return st;
		}
	}
	if (etl__pdb_read_publics(p, d) != ETL_OK)
		return st != ETL_OK ? st : p->publics_state;
	if ((pub = public_at(p, rva)) != NULL && etl__pdb_section_of(p, rva) && etl__pdb_section_of(p, pub->rva) == etl__pdb_section_of(p, rva)) {
		/* a public symbol names where a function starts, not where it ends: trusted within its
		 * section */
		hit->function = (const char *)p->symrec + pub->name;
		hit->offset = rva - pub->rva;
		hit->from_public = 1;
		if (lines && m && st == ETL_OK)
			st = etl__pdb_module_line(p, m, rva, &hit->file, &hit->line, d);
	}
	return st;
}

int etl__pdb_load_all(struct etl_pdb *p, struct etl_diag *d)
{
	size_t i;
	int st = etl__pdb_read_publics(p, d);

	for (i = 0; st == ETL_OK && i < p->nmod; i++)
		if (p->mod[i].stream != 0xFFFF)
			st = etl__pdb_load_module(p, &p->mod[i], d);
	return st;
}

void etl__pdb_close(struct etl_pdb *p)
{
	size_t i;

	for (i = 0; i < p->nmod; i++) {
		etl__free(p->mod[i].syms);
		etl__free(p->mod[i].procs);
	}
	etl__free(p->mod);
	etl__free(p->sect);
	etl__free(p->omap);
	etl__free(p->contrib);
	etl__free(p->page_first);
	etl__free(p->symrec);
	etl__free(p->pub);
	etl__free(p->names);
	etl__msf_close(&p->msf);
	memset(p, 0, sizeof(*p));
}

/*
 * pdb.c - opening a PDB (the info stream) and looking addresses up (see
 * pdb.h).  The DBI stream is read in dbi.c, module streams and public
 * symbols in modsyms.c.
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

int etl__pdb_charge(struct etl_pdb *p, uint64_t n)
{
	if (n > p->max_bytes || p->held > p->max_bytes - n)
		return -1;
	p->held += n;
	return 0;
}

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

uint32_t etl__pdb_rva(const struct etl_pdb *p, uint16_t section, uint32_t offset)
{
	const struct etl_pdb_section *s;

	if (section == 0 || section > p->nsect)
		return UINT32_MAX;
	s = &p->sect[section - 1];
	return offset < UINT32_MAX - s->rva ? s->rva + offset : UINT32_MAX;
}

/* An image RVA in the layout the symbols were made in (through OMAP, when the image has it);
 * UINT32_MAX when the OMAP table maps it nowhere. */
static uint32_t source_rva(const struct etl_pdb *p, uint32_t rva)
{
	size_t lo = 0, hi = p->nomap;

	if (!p->omap)
		return rva;
	while (lo < hi) { /* the first entry above rva */
		size_t mid = lo + (hi - lo) / 2;
		if (p->omap[mid].from <= rva)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || !p->omap[lo - 1].to)
		return UINT32_MAX;
	return p->omap[lo - 1].to + (rva - p->omap[lo - 1].from);
}

/* The section holding rva (from 1), or 0. */
static uint32_t section_of(const struct etl_pdb *p, uint32_t rva)
{
	uint32_t i;

	for (i = 0; i < p->nsect; i++)
		if (rva - p->sect[i].rva < p->sect[i].size)
			return i + 1;
	return 0;
}

#define MIN_PAGE_SHIFT 8
#define MAX_PAGES (1u << 18) /* 1 MiB of index at most: pages grow with the code */

void etl__pdb_index_pages(struct etl_pdb *p)
{
	uint64_t end = 0;
	size_t i, k = 0;
	uint32_t pg;

	for (i = 0; i < p->ncontrib; i++)
		if ((uint64_t)p->contrib[i].rva + p->contrib[i].size > end)
			end = (uint64_t)p->contrib[i].rva + p->contrib[i].size;
	if (p->ncontrib < 64)
		return; /* a binary search is as quick */
	p->page_shift = MIN_PAGE_SHIFT;
	while ((end - p->contrib[0].rva) >> p->page_shift >= MAX_PAGES)
		p->page_shift++;
	p->page_base = p->contrib[0].rva >> p->page_shift << p->page_shift;
	p->npages = (uint32_t)((end - p->page_base + (1u << p->page_shift) - 1) >> p->page_shift) + 1;
	if (etl__pdb_charge(p, (uint64_t)p->npages * 4) != 0 ||
	    !(p->page_first = etl__malloc((size_t)p->npages * 4))) {
		p->npages = 0;
		return; /* no index: every lookup searches all */
	}
	for (pg = 0; pg < p->npages; pg++) { /* (contributions do not overlap: their ends rise too) */
		uint64_t start = (uint64_t)p->page_base + ((uint64_t)pg << p->page_shift);
		while (k < p->ncontrib && (uint64_t)p->contrib[k].rva + p->contrib[k].size <= start)
			k++;
		p->page_first[pg] = (uint32_t)k;
	}
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
	uint32_t rva = source_rva(p, image_rva);
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
	if ((pub = public_at(p, rva)) != NULL && section_of(p, rva) && section_of(p, pub->rva) == section_of(p, rva)) {
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

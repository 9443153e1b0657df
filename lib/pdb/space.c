/*
 * space.c - what the PDB reader's parts (dbi.c, modsyms.c) and its entry points (pdb.c) share:
 * the image's address space (sections, OMAP, the page index of the contributions) and the
 * budget of bytes a PDB may hold.
 *
 * SPDX-License-Identifier: MIT
 */
#include "pdb/pdb.h"

int etl__pdb_charge(struct etl_pdb *p, uint64_t n)
{
	if (n > p->max_bytes || p->held > p->max_bytes - n)
		return -1;
	p->held += n;
	return 0;
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
uint32_t etl__pdb_source_rva(const struct etl_pdb *p, uint32_t rva)
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
uint32_t etl__pdb_section_of(const struct etl_pdb *p, uint32_t rva)
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

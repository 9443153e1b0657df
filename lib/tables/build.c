/*
 * build.c - the tables' entry points and their pass over a reader's events
 * (see tables.h); what the parts call back is common.c.
 *
 * Each event goes to the parts that want it (parts.c), by its kernel
 * group (kernel headers and MOF classes alike) or its provider; a part
 * decodes only the events it reads fields of.  At the end, what only the
 * whole trace can say: the processes, threads and images, the pairs still
 * open (counted in the tables' notes), the slices still running.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "tables/tables.h"

/* The parts' wants into T's lookups: a mask of parts by kernel group, and the providers. */
static void route(struct etl_tables *T)
{
	size_t i, j;
	unsigned g;

	for (i = 0; i < etl__tables_nparts && i < 8; i++) {
		const struct tables_part *p = etl__tables_parts[i];
		for (g = 0; g < 32; g++)
			if (p->groups & GROUP_BIT(g))
				T->group_parts[g] |= (uint8_t)(1u << i);
		for (j = 0; j < sizeof(p->providers) / sizeof(p->providers[0]) && p->providers[j].provider &&
			    T->nroutes < TABLES_ROUTES; j++)
			T->routes[T->nroutes++] = (struct tables_route){ p->providers[j].provider, (unsigned)i,
									p->providers[j].arg };
	}
}

/* One event to the parts that want it (etl__tables_parts): every part that takes its kernel
 * group, in order, or the one that takes its provider; -1 without memory. */
static int dispatch(struct etl_tables *T, const struct etl_event *ev)
{
	int g = etl__decode_kernel_group(ev);
	const struct etl_guid *pg;
	unsigned m;
	size_t i;

	if (g >= 0) {
		for (i = 0, m = g < 32 ? T->group_parts[g] : 0; m; i++, m >>= 1)
			if ((m & 1) && etl__tables_parts[i]->event(T, ev, g) != 0)
				return -1;
		return 0;
	}
	if (etl_event_header_kind(ev) != ETL_HEADER_EVENT)
		return 0;
	pg = etl_event_provider(ev);
	for (i = 0; i < T->nroutes; i++)
		if (T->routes[i].provider->data1 == pg->data1 && etl_guid_equal(pg, T->routes[i].provider))
			return etl__tables_parts[T->routes[i].part]->event(T, ev, T->routes[i].arg);
	return 0;
}

/* The kinds asked for into T->tab; -1 for an unknown name. */
static int select_tables(struct etl_tables *T, const char *const *names, size_t n)
{
	size_t i, k;

	for (i = 0; i < (n ? n : TK_COUNT); i++) {
		for (k = 0; k < TK_COUNT && n && strcmp(names[i], etl__table_defs[k].name) != 0; k++)
			;
		if (n == 0)
			k = i;
		if (k == TK_COUNT)
			return -1;
		if (T->tab[k])
			continue;
		if (!(T->tab[k] = etl__calloc(1, sizeof(*T->tab[k]))))
			return -2;
		etl__table_init(T->tab[k], &etl__table_defs[k]);
	}
	return 0;
}

int etl_tables_new(struct etl_reader *r, const char *const *names, size_t n, unsigned flags,
		   etl_table_row_fn row_fn, void *ctx, struct etl_tables **out)
{
	struct etl_tables *T;
	int st;

	if (!out)
		return ETL_E_MISUSE;
	*out = NULL;
	if (!r || (n && !names))
		return ETL_E_MISUSE;
	if (!etl__reader_fresh(r))
		return etl__reader_misuse(r, "tables are built from a reader that has read no event yet");
	if (!(T = etl__calloc(1, sizeof(*T))))
		return etl__reader_nomem(r);
	T->r = r;
	T->flags = flags;
	T->row_fn = row_fn;
	T->ctx = ctx;
	route(T);
	if ((st = select_tables(T, names, n)) != 0) {
		etl_tables_free(T);
		return st == -1 ? etl__reader_misuse(r, "no such table") : etl__reader_nomem(r);
	}
	(void)etl_reader_set_option(r, ETL_OPTION_DERIVE, 1);
	*out = T;
	return ETL_OK;
}

int etl_tables_add(struct etl_tables *T, const struct etl_event *ev)
{
	if (!T || !ev)
		return ETL_E_MISUSE;
	return dispatch(T, ev) == 0 ? ETL_OK : ETL_E_NOMEM;
}

int etl_tables_finish(struct etl_tables *T)
{
	size_t i;

	if (!T)
		return ETL_E_MISUSE;
	for (i = 0; i < etl__tables_nparts; i++)
		if (etl__tables_parts[i]->finish)
			etl__tables_parts[i]->finish(T);
	return ETL_OK;
}

int etl_tables_build(struct etl_reader *r, const char *const *names, size_t n, unsigned flags,
		     etl_table_row_fn row_fn, void *ctx, struct etl_tables **out)
{
	struct etl_tables *T;
	const struct etl_event *ev;
	int st = etl_tables_new(r, names, n, flags, row_fn, ctx, &T);

	if (st != ETL_OK)
		return st;
	for (;;) {
		st = etl_reader_next(r, &ev);
		if (st == ETL_END) {
			st = ETL_OK;
			break;
		}
		if (st != ETL_OK) {
			T->damage++;
			if (etl_error_is_fatal(etl_reader_error(r)))
				break;
			st = ETL_OK;
			continue;
		}
		if ((st = etl_tables_add(T, ev)) != ETL_OK)
			break;
	}
	if (st != ETL_OK) {
		etl_tables_free(T);
		return st == ETL_E_NOMEM ? etl__reader_nomem(r) : st;
	}
	etl_tables_finish(T);
	*out = T;
	return ETL_OK;
}

void etl_tables_free(struct etl_tables *T)
{
	unsigned k;
	size_t i;

	if (!T)
		return;
	for (i = 0; i < etl__tables_nparts; i++)
		if (etl__tables_parts[i]->free)
			etl__tables_parts[i]->free(T);
	for (k = 0; k < TK_COUNT; k++) {
		if (T->tab[k]) {
			etl__table_free(T->tab[k]);
			etl__free(T->tab[k]);
		}
	}
	etl__free(T);
}

uint64_t etl_tables_damage(const struct etl_tables *T)
{
	return T ? T->damage : 0;
}

const struct etl_table *etl_tables_get(const struct etl_tables *T, const char *name)
{
	unsigned k;

	for (k = 0; T && name && k < TK_COUNT; k++)
		if (T->tab[k] && strcmp(name, etl__table_defs[k].name) == 0)
			return T->tab[k];
	return NULL;
}

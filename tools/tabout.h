/*
 * tabout.h - etldump's analysis tables (tabout.c) and one-page report
 * (overview.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETLDUMP_TABOUT_H
#define ETLDUMP_TABOUT_H

#include <etl.h>

struct options;

/* --table=NAME: reads r's events into the table and writes its rows in o's format; the exit
 * status. */
int tables_run(struct etl_reader *r, const struct options *o);
/* --tables: the tables there are, with their columns. */
void tables_list(const struct options *o);
/* --report: a one-page summary of the trace from every table; the exit status. */
int overview_run(struct etl_reader *r, const struct options *o);
/* Gives every event of r to add (ETL_OK, or a status that stops the reading: out of memory),
 * damage reported as it comes and progress on a terminal; the exit status. */
int tabout_read(struct etl_reader *r, const struct options *o, int (*add)(void *ctx, const struct etl_event *ev),
		void *ctx);
/* tabout_read's add for tables (ctx: struct etl_tables *). */
int tabout_add_to_tables(void *ctx, const struct etl_event *ev);
/* --report=html: the library's HTML report of the inputs, to the output. */
int overview_html_run(struct etl_reader *r, const struct options *o);

#endif

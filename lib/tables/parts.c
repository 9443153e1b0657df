/*
 * parts.c - the tables' parts, in the order they take an event and finish (tables.h): adding
 * one is a file that defines its struct tables_part and a line here (docs/HACKING.md).
 *
 * SPDX-License-Identifier: MIT
 */
#include "tables/tables.h"

const struct tables_part *const etl__tables_parts[] = {
	&etl__tables_part_kproc, &etl__tables_part_sys, &etl__tables_part_cpu,
	&etl__tables_part_io,    &etl__tables_part_net, &etl__tables_part_clr,  &etl__tables_part_mem,
};
const size_t etl__tables_nparts = sizeof(etl__tables_parts) / sizeof(etl__tables_parts[0]);
/* (the dispatch keeps a byte of parts per kernel group: build.c, route) */
_Static_assert(sizeof(etl__tables_parts) / sizeof(etl__tables_parts[0]) <= 8, "at most 8 parts");

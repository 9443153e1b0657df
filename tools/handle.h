/*
 * handle.h - one event through the filters, the decoder and the writer (handle.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETLDUMP_HANDLE_H
#define ETLDUMP_HANDLE_H

#include <etl.h>

struct options;
struct summary;

/* Filters, decodes and writes one event (the writer's state ws), or adds it to the summary; 1 if
 * it was selected. */
int handle_event(struct etl_reader *r, const struct etl_event *ev, const struct options *o, struct summary *sm,
		 void *ws);

#endif

/*
 * where.h - etldump's --where expressions over an event's fields (where.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETLDUMP_WHERE_H
#define ETLDUMP_WHERE_H

#include <stddef.h>

#include <etl.h>

struct where;

/* Parses an expression; NULL with a message in err (naming the character) when it is not one. */
struct where *where_parse(const char *text, char *err, size_t errlen);
/* Whether the event (decoded as d, which may be NULL) matches. */
int where_match(const struct where *w, const struct etl_event *ev, const struct etl_decoded *d);
void where_free(struct where *w);

#endif

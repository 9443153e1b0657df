/*
 * selection.h - etldump's filter options as one library filter (etl_filter,
 * docs/FILTERS.md): each option a term, values of one option or'ed, options
 * and'ed.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETLDUMP_SELECTION_H
#define ETLDUMP_SELECTION_H

#include <stddef.h>

#include <etl.h>

enum sel_kind {
	SEL_PROVIDER, SEL_EVENT, SEL_PROCESS, SEL_ID, SEL_OPCODE, SEL_PID, SEL_TID, SEL_CPU, SEL_LEVEL,
	SEL_KEYWORDS_ANY, SEL_KEYWORDS_ALL, SEL_SINCE, SEL_UNTIL, SEL_FILTER, SEL_COUNT
};

struct selection {
	char *terms[SEL_COUNT];    /* per option: its values' terms, or'ed (SEL_FILTER: and'ed) */
	struct etl_filter *filter; /* all of them (selection_compile), or NULL: every event */
};

/* The option's value as a term; 0, or -1 with a message in err naming what is wrong. */
int selection_add(struct selection *s, enum sel_kind k, const char *value, char *err, size_t errlen);
/* The filter of every term given: 0, or -1 with a message (out of memory). */
int selection_compile(struct selection *s, char *err, size_t errlen);
void selection_free(struct selection *s);

#endif

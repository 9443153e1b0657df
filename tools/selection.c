/*
 * selection.c - etldump's filter options (-p, -e, --process, --id, --opcode,
 * --pid, --tid, --cpu, --level, --keywords-any, --keywords-all, --since,
 * --until, --filter/--where) as the terms of one library filter.  Each value
 * is checked as a filter of its own, so that a message names the option.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selection.h"

static const struct {
	const char *option, *term; /* the term: "FIELD OP", the value after it */
	int any;                   /* values of the option are or'ed (else and'ed) */
} kinds[SEL_COUNT] = {
	[SEL_PROVIDER] = { "--provider", "@provider =", 1 }, [SEL_EVENT] = { "--event", "@name =", 1 },
	[SEL_PROCESS] = { "--process", "@process =", 1 },    [SEL_ID] = { "--id", "@id =", 1 },
	[SEL_OPCODE] = { "--opcode", "@opcode =", 1 },       [SEL_PID] = { "--pid", "@pid =", 1 },
	[SEL_TID] = { "--tid", "@tid =", 1 },                [SEL_CPU] = { "--cpu", "@cpu =", 1 },
	[SEL_LEVEL] = { "--level", "@level <=", 0 },         [SEL_KEYWORDS_ANY] = { "--keywords-any", "@keywords &", 0 },
	[SEL_KEYWORDS_ALL] = { "--keywords-all", "@keywords &=", 0 },
	[SEL_SINCE] = { "--since", "@time >=", 0 },          [SEL_UNTIL] = { "--until", "@time <", 0 },
	[SEL_FILTER] = { "--filter", NULL, 0 },
};

/* "FIELD OP "value"" with the value's quotes and backslashes escaped; NULL without memory. */
static char *term_of(enum sel_kind k, const char *value)
{
	size_t n = strlen(value), i;
	char *t, *p;

	if (!kinds[k].term) { /* an expression of its own, in parentheses */
		if ((t = malloc(n + 3)) != NULL)
			snprintf(t, n + 3, "(%s)", value);
		return t;
	}
	if (!(t = malloc(strlen(kinds[k].term) + 2 * n + 4)))
		return NULL;
	p = t + sprintf(t, "%s \"", kinds[k].term);
	for (i = 0; i < n; i++) {
		if (value[i] == '"' || value[i] == '\\')
			*p++ = '\\';
		*p++ = value[i];
	}
	strcpy(p, "\"");
	return t;
}

/* a, joined with b by " or " / " and "; frees both; NULL without memory. */
static char *join(char *a, const char *op, char *b)
{
	char *t;

	if (!a || !b) {
		free(a);
		free(b);
		return NULL;
	}
	if ((t = malloc(strlen(a) + strlen(op) + strlen(b) + 1)) != NULL)
		sprintf(t, "%s%s%s", a, op, b);
	free(a);
	free(b);
	return t;
}

int selection_add(struct selection *s, enum sel_kind k, const char *value, char *err, size_t errlen)
{
	char msg[200];
	struct etl_filter *f = NULL;
	char *t = term_of(k, value);
	int st;

	if (!t) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	st = etl_filter_new(t, &f, msg, sizeof(msg));
	etl_filter_free(f);
	if (st != ETL_OK || !*value) {
		/* (the message's "at character N" counts in the term, not in the value: left out) */
		char *at = strstr(msg, " at character");
		if (at)
			*at = 0;
		snprintf(err, errlen, "%s '%s': %s", kinds[k].option, value,
			 !*value ? "an empty value" : strncmp(msg, "filter: ", 8) == 0 ? msg + 8 : msg);
		free(t);
		return -1;
	}
	s->terms[k] = s->terms[k] ? join(s->terms[k], kinds[k].any ? " or " : " and ", t) : t;
	if (!s->terms[k]) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

int selection_compile(struct selection *s, char *err, size_t errlen)
{
	char *text = NULL;
	int k;

	for (k = 0; k < SEL_COUNT; k++) {
		char *t;
		size_t n;
		if (!s->terms[k])
			continue;
		n = strlen(s->terms[k]) + 3;
		if (!(t = malloc(n)))
			return snprintf(err, errlen, "out of memory"), free(text), -1;
		snprintf(t, n, "(%s)", s->terms[k]);
		text = text ? join(text, " and ", t) : t;
		if (!text)
			return snprintf(err, errlen, "out of memory"), -1;
	}
	if (!text)
		return 0;
	if (etl_filter_new(text, &s->filter, err, errlen) != ETL_OK) {
		free(text);
		return -1;
	}
	free(text);
	return 0;
}

void selection_free(struct selection *s)
{
	int k;

	for (k = 0; k < SEL_COUNT; k++)
		free(s->terms[k]);
	etl_filter_free(s->filter);
	memset(s, 0, sizeof(*s));
}

/*
 * where.c - etldump's --where expressions (where.h): comparisons of an
 * event's decoded fields (or its header, as @pid, @tid, @cpu, @id, @opcode,
 * @level, @name, @provider) with values, joined by and, or, not and
 * parentheses.
 *
 *   expr   := term { "or" term }
 *   term   := factor { "and" factor }
 *   factor := "not" factor | "(" expr ")" | FIELD OP VALUE
 *   OP     := = | != | < | > | <= | >=
 *   VALUE  := a number (decimal, 0x hex, negative, with a fraction) or text,
 *             bare or in double quotes; = and != match text as a glob
 *   FIELD  := a property name, bare or in double quotes, or @pid, @tid, ...
 *
 * A comparison is numeric when the value is a number and the field has one,
 * else it compares the field's text.  A field the event does not have makes
 * the comparison false (and its "not" true).
 *
 * SPDX-License-Identifier: MIT
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "where.h"

enum kind { W_CMP, W_AND, W_OR, W_NOT };
enum op { OP_EQ, OP_NE, OP_LT, OP_GT, OP_LE, OP_GE };

struct where {
	enum kind kind;
	struct where *a, *b; /* operands (W_NOT: a) */
	char *field, *value; /* W_CMP */
	enum op op;
	int numeric;         /* the value is a number */
	double num;
};

struct parser {
	const char *s, *start;
	char *err;
	size_t errlen;
	int depth;
};

static void fail(struct parser *p, const char *what)
{
	if (!*p->err)
		snprintf(p->err, p->errlen, "--where: %s at character %d", what, (int)(p->s - p->start) + 1);
}

static void skip(struct parser *p)
{
	while (isspace((unsigned char)*p->s))
		p->s++;
}

/* A keyword (and, or, not) as a whole word. */
static int keyword(struct parser *p, const char *kw)
{
	size_t n = strlen(kw);

	skip(p);
	if (strncmp(p->s, kw, n) == 0 && !isalnum((unsigned char)p->s[n]) && p->s[n] != '_') {
		p->s += n;
		return 1;
	}
	return 0;
}

static char *token(struct parser *p, int value)
{
	const char *b;
	char *t;
	size_t n = 0;

	skip(p);
	if (*p->s == '"') { /* a quoted field name ("Raw Script") or value */
		t = malloc(strlen(p->s) + 1);
		if (!t)
			return NULL;
		for (p->s++; *p->s && *p->s != '"'; p->s++) {
			if (*p->s == '\\' && p->s[1])
				p->s++;
			t[n++] = *p->s;
		}
		if (*p->s != '"') {
			free(t);
			fail(p, "a quote is not closed");
			return NULL;
		}
		p->s++;
		t[n] = 0;
		return t;
	}
	for (b = p->s; *p->s && !isspace((unsigned char)*p->s) && *p->s != ')' && *p->s != '(' &&
		       (value || !strchr("=!<>", *p->s));
	     p->s++)
		;
	if (p->s == b)
		return NULL;
	t = malloc((size_t)(p->s - b) + 1);
	if (t) {
		memcpy(t, b, (size_t)(p->s - b));
		t[p->s - b] = 0;
	}
	return t;
}

static int number(const char *s, double *v)
{
	char *end;

	if (!*s)
		return 0;
	errno = 0;
	if ((s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) || (s[0] == '-' && s[1] == '0' && (s[2] == 'x' || s[2] == 'X')))
		*v = (double)strtoll(s, &end, 16);
	else
		*v = strtod(s, &end);
	return !errno && !*end;
}

static struct where *node(enum kind k, struct where *a, struct where *b)
{
	struct where *w = calloc(1, sizeof(*w));

	if (!w) {
		where_free(a);
		where_free(b);
		return NULL;
	}
	w->kind = k;
	w->a = a;
	w->b = b;
	return w;
}

static struct where *expr(struct parser *p);

static struct where *comparison(struct parser *p)
{
	static const struct { const char *s; enum op op; } ops[] = {
		{ "!=", OP_NE }, { "<=", OP_LE }, { ">=", OP_GE }, { "=", OP_EQ }, { "<", OP_LT }, { ">", OP_GT },
	};
	struct where *w = node(W_CMP, NULL, NULL);
	size_t i;

	if (!w)
		return NULL;
	if (!(w->field = token(p, 0))) {
		fail(p, "a field name is expected");
		where_free(w);
		return NULL;
	}
	skip(p);
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (strncmp(p->s, ops[i].s, strlen(ops[i].s)) == 0)
			break;
	if (i == sizeof(ops) / sizeof(ops[0])) {
		fail(p, "a comparison (=, !=, <, >, <=, >=) is expected");
		where_free(w);
		return NULL;
	}
	w->op = ops[i].op;
	p->s += strlen(ops[i].s);
	if (!(w->value = token(p, 1))) {
		fail(p, "a value is expected");
		where_free(w);
		return NULL;
	}
	w->numeric = number(w->value, &w->num);
	if (w->numeric && w->num != w->num) { /* NaN: no value compares with it; refused */
		fail(p, "not a number (nan) cannot be compared");
		where_free(w);
		return NULL;
	}
	return w;
}

static struct where *factor(struct parser *p)
{
	struct where *w;

	if (++p->depth > 64) {
		fail(p, "nested too deep");
		return NULL;
	}
	if (keyword(p, "not")) {
		w = factor(p);
		w = w ? node(W_NOT, w, NULL) : NULL;
	} else if ((skip(p), *p->s == '(')) {
		p->s++;
		w = expr(p);
		skip(p);
		if (w && *p->s != ')') {
			fail(p, "a ')' is expected");
			where_free(w);
			w = NULL;
		} else if (w) {
			p->s++;
		}
	} else {
		w = comparison(p);
	}
	p->depth--;
	return w;
}

static struct where *term(struct parser *p)
{
	struct where *w = factor(p);

	while (w && keyword(p, "and")) {
		struct where *b = factor(p);
		w = b ? node(W_AND, w, b) : (where_free(w), NULL);
	}
	return w;
}

static struct where *expr(struct parser *p)
{
	struct where *w = term(p);

	while (w && keyword(p, "or")) {
		struct where *b = term(p);
		w = b ? node(W_OR, w, b) : (where_free(w), NULL);
	}
	return w;
}

struct where *where_parse(const char *text, char *err, size_t errlen)
{
	struct parser p = { text, text, err, errlen, 0 };
	struct where *w;

	*err = 0;
	w = expr(&p);
	skip(&p);
	if (w && *p.s) {
		fail(&p, "and, or or the end is expected");
		where_free(w);
		return NULL;
	}
	if (!w && !*err)
		snprintf(err, errlen, "--where: out of memory");
	return w;
}

void where_free(struct where *w)
{
	if (!w)
		return;
	where_free(w->a);
	where_free(w->b);
	free(w->field);
	free(w->value);
	free(w);
}

/* The field's text and, when it has one, its number. */
static int field_of(const struct where *w, const struct etl_event *ev, const struct etl_decoded *d,
		    char *buf, size_t cap, const char **text, double *num, int *has_num)
{
	const struct etl_property *p;
	const char *h = w->field;
	uint64_t u;
	int64_t i;

	*has_num = 0;
	if (h[0] == '@') {
		h++;
		if (strcmp(h, "name") == 0 || strcmp(h, "provider") == 0) {
			*text = !d ? NULL : h[0] == 'n' ? etl_decoded_name(d) : etl_decoded_provider_name(d);
			return *text != NULL;
		}
		if (strcmp(h, "pid") == 0) u = etl_event_pid(ev);
		else if (strcmp(h, "tid") == 0) u = etl_event_tid(ev);
		else if (strcmp(h, "cpu") == 0) u = etl_event_cpu(ev);
		else if (strcmp(h, "id") == 0) u = etl_event_id(ev);
		else if (strcmp(h, "opcode") == 0) u = etl_event_opcode(ev);
		else if (strcmp(h, "level") == 0) u = etl_event_level(ev);
		else return 0;
		if (u == ETL_ID_NONE && (h[0] == 'p' || h[0] == 't'))
			return 0;
		snprintf(buf, cap, "%llu", (unsigned long long)u);
		*text = buf;
		*num = (double)u;
		*has_num = 1;
		return 1;
	}
	if (!d || etl_decoded_source(d) == ETL_DECODER_NONE || !(p = etl_decoded_property_by_name(d, h)))
		return 0;
	*text = render_value_text(p);
	switch (etl_property_value_kind(p)) {
	case ETL_VALUE_SIGNED:
		*has_num = etl_property_as_i64(p, &i) == ETL_OK;
		*num = (double)i;
		break;
	case ETL_VALUE_UNSIGNED: case ETL_VALUE_HEX: case ETL_VALUE_BOOLEAN:
		*has_num = etl_property_as_u64(p, &u) == ETL_OK;
		*num = (double)u;
		break;
	case ETL_VALUE_REAL:
		*has_num = etl_property_as_double(p, num) == ETL_OK;
		break;
	default:
		break;
	}
	return *text != NULL;
}

static int compare(const struct where *w, const struct etl_event *ev, const struct etl_decoded *d)
{
	char buf[32];
	const char *text = NULL;
	double num = 0;
	int has_num, c;

	if (!field_of(w, ev, d, buf, sizeof(buf), &text, &num, &has_num))
		return 0;
	if (w->numeric && has_num) {
		c = num < w->num ? -1 : num > w->num;
	} else if (w->op == OP_EQ || w->op == OP_NE) {
		c = fnmatch(w->value, text, 0) == 0 ? 0 : 1;
	} else {
		c = strcmp(text, w->value);
	}
	switch (w->op) {
	case OP_EQ: return c == 0;
	case OP_NE: return c != 0;
	case OP_LT: return c < 0;
	case OP_GT: return c > 0;
	case OP_LE: return c <= 0;
	default: return c >= 0;
	}
}

int where_match(const struct where *w, const struct etl_event *ev, const struct etl_decoded *d)
{
	switch (w->kind) {
	case W_AND: return where_match(w->a, ev, d) && where_match(w->b, ev, d);
	case W_OR: return where_match(w->a, ev, d) || where_match(w->b, ev, d);
	case W_NOT: return !where_match(w->a, ev, d);
	default: return compare(w, ev, d);
	}
}

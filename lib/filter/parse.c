/*
 * parse.c - filter text into its tree (filter.h, docs/FILTERS.md):
 *
 *   expr   := term { "or" term }
 *   term   := factor { "and" factor }
 *   factor := "not" factor | "(" expr ")" | FIELD OP VALUE
 *   OP     := = | == | != | < | > | <= | >= | & (any of the bits) | &= (all of them)
 *   FIELD  := @provider @name @process @id @opcode @level @keywords @version @pid @tid @cpu
 *             @time, or a payload property's name (bare or in double quotes)
 *   VALUE  := bare or in quotes, double or single (\" and \\ inside): a number, a range list (1,5-9),
 *             a time, a GUID or a glob
 *
 * SPDX-License-Identifier: MIT
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter/filter.h"

struct parser {
	struct etl_filter *f;
	const char *s, *start;
	char *err;
	size_t errlen;
	int depth;
};

static const char *const header_names[FF_COUNT] = {
	[FF_PROVIDER] = "provider", [FF_NAME] = "name", [FF_PROCESS] = "process", [FF_ID] = "id",
	[FF_OPCODE] = "opcode", [FF_LEVEL] = "level", [FF_KEYWORDS] = "keywords", [FF_VERSION] = "version",
	[FF_PID] = "pid", [FF_TID] = "tid", [FF_CPU] = "cpu", [FF_TIME] = "time",
};

static void fail(struct parser *p, const char *what)
{
	if (!*p->err)
		snprintf(p->err, p->errlen, "filter: %s at character %d", what, (int)(p->s - p->start) + 1);
}

static void skip(struct parser *p)
{
	while (isspace((unsigned char)*p->s))
		p->s++;
}

/* A keyword (and, or, not, in any case) as a whole word. */
static int keyword(struct parser *p, const char *kw)
{
	size_t n = strlen(kw), i;

	skip(p);
	for (i = 0; i < n; i++)
		if (tolower((unsigned char)p->s[i]) != kw[i])
			return 0;
	if (isalnum((unsigned char)p->s[n]) || p->s[n] == '_')
		return 0;
	p->s += n;
	return 1;
}

/* Text in double or single quotes, with \" (\') and \\ inside. */
static char *quoted(struct parser *p)
{
	char *t = etl__malloc(strlen(p->s) + 1), q = *p->s;
	size_t n = 0;

	if (!t)
		return NULL;
	for (p->s++; *p->s && *p->s != q; p->s++) {
		if (*p->s == '\\' && p->s[1])
			p->s++;
		t[n++] = *p->s;
	}
	if (*p->s != q) {
		etl__free(t);
		fail(p, "a quote is not closed");
		return NULL;
	}
	p->s++;
	t[n] = 0;
	return t;
}

/* A field (stops at an operator) or a value (stops at white space or a parenthesis). */
static char *token(struct parser *p, int value)
{
	const char *b;
	char *t;

	skip(p);
	if (*p->s == '"' || *p->s == '\'')
		return quoted(p);
	for (b = p->s; *p->s && !isspace((unsigned char)*p->s) && *p->s != ')' && *p->s != '(' &&
		       (value || !strchr("=!<>&", *p->s));
	     p->s++)
		;
	if (p->s == b)
		return NULL;
	if (!(t = etl__malloc((size_t)(p->s - b) + 1)))
		return NULL;
	memcpy(t, b, (size_t)(p->s - b));
	t[p->s - b] = 0;
	return t;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;
	unsigned long long x;

	if (!*s || *s == '-' || *s == '+' || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || *end)
		return -1;
	*v = x;
	return 0;
}

/* "5", "1-10", "5,7,9-12": n ranges, or -1 when the text is not such a list. */
static int ranges(const char *spec, struct frange *r, size_t cap, size_t *n)
{
	char buf[512], *tok, *save = NULL;

	*n = 0;
	if (strlen(spec) >= sizeof(buf) || !isdigit((unsigned char)spec[0]))
		return -1;
	memcpy(buf, spec, strlen(spec) + 1);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(tok + 1, '-');
		uint64_t lo, hi;
		if (dash)
			*dash = 0;
		if (parse_u64(tok, &lo) != 0 || (dash && parse_u64(dash + 1, &hi) != 0) || *n >= cap)
			return -1;
		if (!dash)
			hi = lo;
		if (hi < lo)
			return -1;
		r[*n].lo = lo;
		r[(*n)++].hi = hi;
	}
	return *n ? 0 : -1;
}

static int number(const char *s, double *v)
{
	char *end;

	if (!*s || isspace((unsigned char)*s))
		return 0;
	errno = 0;
	if ((s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) || (s[0] == '-' && s[1] == '0' && (s[2] == 'x' || s[2] == 'X')))
		*v = (double)strtoll(s, &end, 16);
	else
		*v = strtod(s, &end);
	return !errno && !*end && *v == *v; /* (not NaN) */
}

static struct fnode *node(enum fkind k, struct fnode *a, struct fnode *b)
{
	struct fnode *n = etl__calloc(1, sizeof(*n));

	if (!n) {
		etl__fnode_free(a);
		etl__fnode_free(b);
		return NULL;
	}
	n->kind = k;
	n->a = a;
	n->b = b;
	n->pattern = -1;
	return n;
}

static int field_of(struct parser *p, struct fnode *n, char *name)
{
	int i;

	if (name[0] != '@') {
		n->field = FF_PROPERTY;
		n->prop = name;
		return 0;
	}
	for (i = 0; i < FF_PROPERTY; i++)
		if (strcmp(name + 1, header_names[i]) == 0) {
			n->field = (enum ffield)i;
			etl__free(name);
			return 0;
		}
	etl__free(name);
	fail(p, "an unknown @field (@provider, @name, @process, @id, @opcode, @level, @keywords, @version, "
		"@pid, @tid, @cpu, @time)");
	return -1;
}

static int op_of(struct parser *p, struct fnode *n)
{
	static const struct {
		const char *s;
		enum fop op;
	} ops[] = {
		{ "==", FO_EQ }, { "!=", FO_NE }, { "<=", FO_LE }, { ">=", FO_GE }, { "&=", FO_ALL },
		{ "=", FO_EQ },  { "<", FO_LT },  { ">", FO_GT },  { "&", FO_ANY },
	};
	size_t i;

	skip(p);
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (strncmp(p->s, ops[i].s, strlen(ops[i].s)) == 0) {
			n->op = ops[i].op;
			p->s += strlen(ops[i].s);
			return 0;
		}
	fail(p, "a comparison (=, !=, <, >, <=, >=, &, &=) is expected");
	return -1;
}

/* The value as the field wants it; -1 with a message. */
static int value_of(struct parser *p, struct fnode *n)
{
	struct frange r[FILTER_MAX_RANGES];
	size_t i, nr = 0;
	int eq = n->op == FO_EQ || n->op == FO_NE;

	n->numeric = number(n->value, &n->num);
	if (n->numeric && n->num >= 0 && n->num <= 18446744073709551615.0 && parse_u64(n->value, &n->u) != 0)
		n->u = (uint64_t)n->num;
	if ((n->op == FO_ANY || n->op == FO_ALL) && (parse_u64(n->value, &n->u) != 0 || n->field > FF_CPU ||
						     FF_IS_TEXT(n->field))) {
		fail(p, "& and &= take a header number (@keywords) and a mask like 0x10");
		return -1;
	}
	if (n->field == FF_TIME) {
		if (eq || etl__filter_time(n->value, &n->time, &n->time_rel) != 0) {
			fail(p, eq ? "@time takes <, <=, > or >=" : "@time wants a UTC time like 2024-01-02T03:04:05Z or a "
								    "duration from the start like +1.5s");
			return -1;
		}
		return 0;
	}
	if (eq && ranges(n->value, r, FILTER_MAX_RANGES, &nr) == 0 && (nr > 1 || r[0].lo != r[0].hi)) {
		if (!(n->ranges = etl__malloc(nr * sizeof(*r))))
			return -1;
		memcpy(n->ranges, r, nr * sizeof(*r));
		n->nranges = nr;
	}
	if (FF_IS_HEADER_NUMBER(n->field) && !n->nranges && parse_u64(n->value, &n->u) != 0) {
		fail(p, "a header number wants a number, a range like 5-9 or a list like 1,5-9");
		return -1;
	}
	if (n->field == FF_PROVIDER && etl_guid_parse(n->value, &n->guid) == ETL_OK)
		n->is_guid = 1;
	if (!(n->folded = etl__strdup(n->value)))
		return -1;
	for (i = 0; n->folded[i]; i++)
		n->folded[i] = (char)tolower((unsigned char)n->folded[i]);
	return 0;
}

static void keep_pattern(struct etl_filter *f, struct fnode *n)
{
	if (!FF_IS_TEXT(n->field) || n->is_guid || n->op != FO_EQ)
		return;
	if (n->field == FF_PROVIDER)
		f->provider_globs = 1;
	n->pattern = (int)f->npatterns;
	if (f->npatterns < FILTER_MAX_PATTERNS)
		f->patterns[f->npatterns++].node = n;
}

static struct fnode *comparison(struct parser *p)
{
	struct fnode *n = node(FN_CMP, NULL, NULL);
	char *name;

	if (!n)
		return NULL;
	if (!(name = token(p, 0))) {
		fail(p, "a field name is expected");
		etl__fnode_free(n);
		return NULL;
	}
	if (field_of(p, n, name) != 0 || op_of(p, n) != 0) {
		etl__fnode_free(n);
		return NULL;
	}
	if (!(n->value = token(p, 1))) {
		fail(p, "a value is expected");
		etl__fnode_free(n);
		return NULL;
	}
	if (value_of(p, n) != 0) {
		etl__fnode_free(n);
		return NULL;
	}
	keep_pattern(p->f, n);
	return n;
}

static struct fnode *expr(struct parser *p);

static struct fnode *factor(struct parser *p)
{
	struct fnode *n;

	if (++p->depth > 64) {
		fail(p, "nested too deep");
		return NULL;
	}
	if (keyword(p, "not")) {
		n = factor(p);
		n = n ? node(FN_NOT, n, NULL) : NULL;
	} else if ((skip(p), *p->s == '(')) {
		p->s++;
		n = expr(p);
		skip(p);
		if (n && *p->s != ')') {
			fail(p, "a ')' is expected");
			etl__fnode_free(n);
			n = NULL;
		} else if (n) {
			p->s++;
		}
	} else {
		n = comparison(p);
	}
	p->depth--;
	return n;
}

static struct fnode *term(struct parser *p)
{
	struct fnode *n = factor(p);

	while (n && keyword(p, "and")) {
		struct fnode *b = factor(p);
		n = b ? node(FN_AND, n, b) : (etl__fnode_free(n), NULL);
	}
	return n;
}

static struct fnode *expr(struct parser *p)
{
	struct fnode *n = term(p);

	while (n && keyword(p, "or")) {
		struct fnode *b = term(p);
		n = b ? node(FN_OR, n, b) : (etl__fnode_free(n), NULL);
	}
	return n;
}

struct fnode *etl__filter_parse(struct etl_filter *f, const char *text, char *err, size_t errlen)
{
	struct parser p = { f, text, text, err, errlen, 0 };
	struct fnode *n;

	*err = 0;
	n = expr(&p);
	skip(&p);
	if (n && *p.s) {
		fail(&p, "and, or or the end is expected");
		etl__fnode_free(n);
		return NULL;
	}
	if (!n && !*err)
		snprintf(err, errlen, "filter: out of memory");
	return n;
}

/* Whether n is a pattern a FN_ANY may take: text, =, no GUID. */
static int foldable(const struct fnode *n)
{
	return n->kind == FN_CMP && FF_IS_TEXT(n->field) && n->op == FO_EQ && !n->is_guid;
}

/* The patterns under the "or" tree n when every leaf is one of field's (-1 otherwise), put in
 * out[*at...] when out is not NULL; how many. */
static long or_leaves(struct fnode *n, enum ffield field, struct fnode **out, size_t *at)
{
	long a, b;

	if (n->kind == FN_OR) {
		if ((a = or_leaves(n->a, field, out, at)) < 0 || (b = or_leaves(n->b, field, out, at)) < 0)
			return -1;
		return a + b;
	}
	if (!foldable(n) || n->field != field)
		return -1;
	if (out)
		out[(*at)++] = n;
	return 1;
}

/* Frees the "or" nodes of tree n, not its leaves (they move into an FN_ANY). */
static void free_or(struct fnode *n)
{
	if (n->kind != FN_OR)
		return;
	free_or(n->a);
	free_or(n->b);
	etl__free(n);
}

struct fnode *etl__filter_fold(struct fnode *n)
{
	struct fnode *any, *leaf = n;
	size_t at = 0;
	long count;

	if (!n)
		return n;
	if (n->kind != FN_OR) {
		if (n->kind != FN_CMP) {
			n->a = etl__filter_fold(n->a);
			n->b = n->b ? etl__filter_fold(n->b) : NULL;
		}
		return n;
	}
	while (leaf->kind == FN_OR)
		leaf = leaf->a;
	if (!foldable(leaf) || (count = or_leaves(n, leaf->field, NULL, &at)) < 2) {
		n->a = etl__filter_fold(n->a);
		n->b = etl__filter_fold(n->b);
		return n;
	}
	if (!(any = etl__calloc(1, sizeof(*any))) || !(any->any = etl__calloc((size_t)count, sizeof(*any->any)))) {
		etl__free(any);
		return n; /* (no memory: each pattern tried in turn) */
	}
	any->kind = FN_ANY;
	any->field = leaf->field;
	any->pattern = -1;
	any->nany = (size_t)count;
	at = 0;
	(void)or_leaves(n, leaf->field, any->any, &at);
	free_or(n);
	return any;
}

void etl__fnode_free(struct fnode *n)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n->nany; i++)
		etl__fnode_free(n->any[i]);
	etl__free(n->any);
	etl__filter_memo_free(n);
	etl__fnode_free(n->a);
	etl__fnode_free(n->b);
	etl__free(n->prop);
	etl__free(n->value);
	etl__free(n->folded);
	etl__free(n->ranges);
	etl__free(n);
}

/*
 * decoded_text.c - see decoded_text.h.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoded_text.h"

struct text {
	char *p;
	size_t len, cap;
	int failed;
};

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
static void add(struct text *t, const char *fmt, ...);
static void add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || t->failed) {
		t->failed = 1;
		return;
	}
	if (t->len + (size_t)n + 1 > t->cap) {
		size_t cap = 2 * (t->len + (size_t)n + 1);
		char *q = realloc(t->p, cap);
		if (!q) {
			t->failed = 1;
			return;
		}
		t->p = q;
		t->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
	t->len += (size_t)n;
}

static const char *s(const char *v)
{
	return v ? v : "(null)";
}

char *decoded_text(struct etl_reader *r, const struct etl_event *ev)
{
	struct text t = { NULL, 0, 0, 0 };
	const struct etl_decoded *d = NULL;
	int st = etl_reader_decode(r, ev, &d);
	size_t i, n;

	add(&t, "status %d\n", st);
	if (st != ETL_OK) {
		const struct etl_error *e = etl_reader_error(r);
		add(&t, "error %d at %llu: %s\n", etl_error_code(e), (unsigned long long)etl_error_offset(e),
		    s(etl_error_message(e)));
	}
	if (d) {
		add(&t, "name %s\nprovider %s\nsource %d\nstatus %d\nreason %s\nerror %s\nfield %s\ntrailing %zu\n",
		    s(etl_decoded_name(d)), s(etl_decoded_provider_name(d)), (int)etl_decoded_source(d),
		    (int)etl_decoded_status(d), s(etl_decoded_reason(d)), s(etl_decoded_error(d)),
		    s(etl_decoded_error_field(d)), etl_decoded_trailing_bytes(d));
		n = etl_decoded_property_count(d);
		for (i = 0; i < n; i++) {
			const struct etl_property *p = etl_decoded_property_at(d, i);
			add(&t, "%s = %s\n", s(etl_property_name(p)), s(etl_property_format(p)));
		}
	}
	if (t.failed) {
		free(t.p);
		return NULL;
	}
	return t.p;
}

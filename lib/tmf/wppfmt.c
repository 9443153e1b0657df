/*
 * wppfmt.c - renders a WPP message: its TMF format string with the decoded
 * arguments in place of %N!spec! and the TMF's names in place of %!NAME!.
 *
 *   %0 at the start   the message prefix, left empty (with the blank after it)
 *                     as tracefmt does unless asked for one
 *   %N!spec!          argument N (10 and up) in a printf-style spec: d i u x X o
 *                     c with flags, width, precision and size prefixes (I64, l,
 *                     h, ...); s and S the argument's text (strings, list names,
 *                     NTSTATUS / Win32 error / HRESULT as NAME (0xXXXXXXXX));
 *                     p the value as 0x and hex digits of the pointer width;
 *                     e f g for doubles
 *   %1 %2             the module (GUID line) and the message's #typev name;
 *                     %3 to %9 (thread, times, CPU: tracefmt's prefix items) empty
 *   %!FUNC! %!LEVEL! %!FLAGS! %!COMPNAME! %!FILE! %!LINE!
 *                     the TMF's FUNC, LEVEL and FLAGS, the module, the SRC file
 *                     and the line in the #typev name (File_cLINE)
 *   %%                a percent sign
 * Anything else is copied as it is.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <string.h>

#include "tmf/tmf.h"
#include "util/arena.h"

#define MSG_MAX (64u << 10) /* longest rendered message; longer ones end in "..." */

struct out {
	char buf[MSG_MAX + 4];
	size_t n;
	int cut;
};

static void put(struct out *o, const char *s, size_t n)
{
	size_t room = o->n < MSG_MAX ? MSG_MAX - o->n : 0;

	if (n > room) { /* (only ever shortened: what the compiler can see too) */
		n = room;
		o->cut = 1;
	}
	memcpy(o->buf + o->n, s, n);
	o->n += n;
}

static void puts_(struct out *o, const char *s)
{
	if (s)
		put(o, s, strlen(s));
}

/* a printf-style spec, validated */
struct spec {
	char flags[6];
	unsigned width, prec;
	int has_width, has_prec, wide64;
	char conv;
};

static int parse_spec(const char *s, const char *e, struct spec *sp)
{
	size_t nf = 0;

	memset(sp, 0, sizeof(*sp));
	while (s < e && strchr("-+ #0", *s) && nf < 5)
		sp->flags[nf++] = *s++;
	for (; s < e && *s >= '0' && *s <= '9' && sp->width < 1000; s++, sp->has_width = 1)
		sp->width = sp->width * 10 + (unsigned)(*s - '0');
	if (s < e && *s == '.') {
		for (s++, sp->has_prec = 1; s < e && *s >= '0' && *s <= '9' && sp->prec < 1000; s++)
			sp->prec = sp->prec * 10 + (unsigned)(*s - '0');
	}
	if (sp->width >= 1000 || sp->prec >= 1000)
		return -1;
	if (e - s >= 3 && memcmp(s, "I64", 3) == 0) {
		sp->wide64 = 1;
		s += 3;
	} else if (e - s >= 3 && memcmp(s, "I32", 3) == 0) {
		s += 3;
	} else {
		while (s < e && strchr("lhIwLzjtq", *s)) {
			if (*s == 'l' && s + 1 < e && s[1] == 'l')
				sp->wide64 = 1;
			s++;
		}
	}
	if (e - s != 1 || !strchr("diuoxXcsSZpeEfgGaA", *s))
		return -1;
	sp->conv = *s == 'Z' ? 's' : *s;
	return 0;
}

/* "%<flags><width>.<prec><len><conv>" */
static void c_format(const struct spec *sp, const char *len, char conv, char *fmt, size_t size)
{
	char w[8] = "", p[8] = "";

	if (sp->has_width)
		snprintf(w, sizeof(w), "%u", sp->width);
	if (sp->has_prec)
		snprintf(p, sizeof(p), ".%u", sp->prec);
	snprintf(fmt, size, "%%%s%s%s%s%c", sp->flags, w, p, len, conv);
}

static void put_padded(struct out *o, const struct spec *sp, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	unsigned pad = sp->has_width && sp->width > n ? (unsigned)(sp->width - n) : 0;
	int left = strchr(sp->flags, '-') != NULL;

	if (sp->has_prec && n > sp->prec)
		n = sp->prec;
	while (!left && pad--)
		put(o, " ", 1);
	if (s)
		put(o, s, n);
	while (left && pad--)
		put(o, " ", 1);
}

static int is_float(const struct etl_property *p)
{
	return p->in_type == ETL_IN_DOUBLE || p->in_type == ETL_IN_FLOAT;
}

static double node_double(const struct etl_property *p)
{
	double d = 0;

	if (p->len == 8) {
		uint64_t u = etl_le64(p->data);
		memcpy(&d, &u, sizeof(d));
	} else if (p->len == 4) {
		uint32_t u = etl_le32(p->data);
		float f;
		memcpy(&f, &u, sizeof(f));
		d = f;
	}
	return d;
}

/* The text %N!s! shows for an argument. */
static void arg_text(struct out *o, const struct spec *sp, struct etl_property *p, const struct tmf_arg *a)
{
	char buf[96];
	enum etl_status_kind kind;
	const char *name;

	switch (a->item) {
	case TI_CHAR4: { /* four characters, the low byte first; '.' for the unprintable */
		uint32_t v = (uint32_t)etl__schema_node_u64(p);
		unsigned i;
		for (i = 0; i < 4; i++) {
			unsigned c = (v >> (8 * i)) & 0xFF;
			buf[i] = (char)(c >= 0x20 && c < 0x7F ? c : '.');
		}
		buf[4] = 0;
		put_padded(o, sp, buf);
		return;
	}
	case TI_NTSTATUS: kind = ETL_STATUS_NTSTATUS; break;
	case TI_WINERROR: kind = ETL_STATUS_WIN32; break;
	case TI_HRESULT: kind = ETL_STATUS_HRESULT; break;
	default:
		put_padded(o, sp, etl__schema_format(p, 0));
		return;
	}
	name = etl__status_name(kind, (uint32_t)etl__schema_node_u64(p));
	if (name)
		snprintf(buf, sizeof(buf), "%.60s (0x%08X)", name, (unsigned)etl__schema_node_u64(p));
	else
		snprintf(buf, sizeof(buf), "0x%08X", (unsigned)etl__schema_node_u64(p));
	put_padded(o, sp, buf);
}

/* The formats passed to snprintf below are built by c_format from a spec that
 * parse_spec validated (flags from "-+ #0", width and precision below 1000, one
 * conversion that matches the argument's C type). */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#endif
static void arg_value(struct out *o, const struct spec *sp, struct etl_property *p, const struct tmf_arg *a,
		      unsigned ptr_size)
{
	char fmt[32], buf[1100];
	int integer = p->kind == ETL_PROPERTY_VALUE && etl__schema_integer_in(p->in_type);
	uint64_t u;

	if (sp->conv == 's' || sp->conv == 'S' || (!integer && !is_float(p))) {
		arg_text(o, sp, p, a);
		return;
	}
	if (is_float(p)) {
		c_format(sp, "", strchr("eEfgGaA", sp->conv) ? sp->conv : 'g', fmt, sizeof(fmt));
		snprintf(buf, sizeof(buf), fmt, node_double(p));
		puts_(o, buf);
		return;
	}
	u = etl__schema_node_u64(p);
	switch (sp->conv) {
	case 'd': case 'i':
		c_format(sp, "ll", 'd', fmt, sizeof(fmt));
		snprintf(buf, sizeof(buf), fmt, (long long)etl__schema_node_i64(p));
		break;
	case 'p':
		snprintf(buf, sizeof(buf), "0x%0*llX", (int)(2 * (p->len ? p->len : ptr_size)), (unsigned long long)u);
		break;
	case 'c':
		buf[0] = (char)(u >= 0x20 && u < 0x7F ? u : '.');
		buf[1] = 0;
		break;
	default: /* u o x X */
		c_format(sp, "ll", strchr("uoxX", sp->conv) ? sp->conv : 'u', fmt, sizeof(fmt));
		snprintf(buf, sizeof(buf), fmt, (unsigned long long)u);
		break;
	}
	puts_(o, buf);
}

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

/* The line number in a #typev name "File_cLINE", or NULL. */
static const char *ident_line(const char *ident)
{
	const char *c = ident ? strrchr(ident, '_') : NULL;

	if (!c || c[1] != 'c' || c[2] < '0' || c[2] > '9')
		return NULL;
	return c + 2;
}

/* %!NAME!: 1 if known (written), 0 to copy it as it is. */
static int system_insert(struct out *o, const struct tmf_msg *m, const char *name, size_t n)
{
	static const char *const names[] = { "FUNC", "LEVEL", "FLAGS", "COMPNAME", "FILE", "LINE" };
	const char *values[6];
	size_t i;

	values[0] = m->func;
	values[1] = m->level;
	values[2] = m->flags;
	values[3] = m->module;
	values[4] = m->src;
	values[5] = ident_line(m->ident);
	for (i = 0; i < 6; i++) {
		if (strlen(names[i]) == n && memcmp(names[i], name, n) == 0) {
			puts_(o, values[i]);
			return 1;
		}
	}
	return 0;
}

/* %N[!spec!] at s (after the %); returns where the insert ends. */
static const char *numbered(struct out *o, struct etl_decoded *d, const struct tmf_msg *m, const char *s,
			    unsigned ptr_size)
{
	static const char plain_s[] = "s"; /* an argument without a spec, or with one not understood */
	const char *start = s - 1, *spec = NULL, *spec_end = NULL;
	unsigned long n = 0;
	struct spec sp;
	unsigned i;

	while (*s >= '0' && *s <= '9' && n < 100000)
		n = n * 10 + (unsigned)(*s++ - '0');
	if (*s == '!') {
		spec = s + 1;
		spec_end = strchr(spec, '!');
		if (!spec_end || spec_end - spec > 24)
			return s; /* not a spec: the number alone */
		s = spec_end + 1;
	}
	if (n < 10) {
		if (n == 1)
			puts_(o, m->module);
		else if (n == 2)
			puts_(o, m->ident);
		return s;
	}
	for (i = 0; i < m->nargs && i < d->ntop; i++) {
		if (m->args[i].number != n)
			continue;
		if (!spec || parse_spec(spec, spec_end, &sp) != 0)
			parse_spec(plain_s, plain_s + 1, &sp);
		arg_value(o, &sp, &d->nodes[i], &m->args[i], ptr_size);
		return s;
	}
	put(o, start, (size_t)(s - start)); /* no such argument: the insert as written */
	return s;
}

const char *etl__wpp_render(void **scratch, struct etl_decoded *d, const struct tmf_msg *m, unsigned ptr_size)
{
	struct out *o = *scratch ? *scratch : (*scratch = etl__malloc(sizeof(*o))); /* no allocation per message */
	const char *s = m->format, *res;

	if (!o)
		return NULL;
	o->n = 0;
	o->cut = 0;
	if (s[0] == '%' && s[1] == '0' && (s[2] < '0' || s[2] > '9'))
		s += s[2] == ' ' ? 3 : 2;
	while (*s && !o->cut) {
		const char *pct = strchr(s, '%');
		if (!pct) {
			puts_(o, s);
			break;
		}
		put(o, s, (size_t)(pct - s));
		s = pct + 1;
		if (*s == '%') {
			put(o, "%", 1);
			s++;
		} else if (*s == '!') {
			const char *e = strchr(s + 1, '!');
			if (e && system_insert(o, m, s + 1, (size_t)(e - s - 1))) {
				s = e + 1;
			} else {
				put(o, "%", 1);
			}
		} else if (*s >= '0' && *s <= '9') {
			s = numbered(o, d, m, s, ptr_size);
		} else {
			put(o, "%", 1);
		}
	}
	if (o->cut) {
		memcpy(o->buf + o->n, "...", 3); /* buf has room past MSG_MAX */
		o->n += 3;
	}
	res = etl__arena_strndup(&d->arena, o->buf, o->n);
	return res;
}

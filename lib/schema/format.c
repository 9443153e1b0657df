/*
 * format.c - the canonical text of a decoded value (docs/OUTPUT.md): strings
 * as UTF-8, integers by their out-type or map, times in ISO 8601 UTC, GUIDs,
 * SIDs, addresses; structs and arrays in JSON-like brackets.
 *
 * SPDX-License-Identifier: MIT
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema/schema.h"

#define MAX_DEPTH 32

/* Text being built: in the inline bytes while it fits (most values do), on the heap after. */
struct sbuf {
	char *p;
	size_t len, cap;
	int failed;
	char inline_bytes[256];
};

static void sb_init(struct sbuf *b)
{
	b->p = b->inline_bytes;
	b->len = 0;
	b->cap = sizeof(b->inline_bytes);
	b->failed = 0;
}

static void sb_release(struct sbuf *b)
{
	if (b->p != b->inline_bytes)
		etl__free(b->p);
}

/* Room for n more bytes and a NUL; returns where they go, or NULL (b->failed). */
static char *sb_reserve(struct sbuf *b, size_t n)
{
	if (b->failed)
		return NULL;
	if (b->cap - b->len < n + 1) {
		size_t ncap = b->cap;
		char *q;
		while (ncap - b->len < n + 1) {
			if (ncap > SIZE_MAX / 2) {
				b->failed = 1;
				return NULL;
			}
			ncap *= 2;
		}
		if (b->p == b->inline_bytes) {
			q = etl__malloc(ncap);
			if (q)
				memcpy(q, b->p, b->len);
		} else {
			q = etl__realloc(b->p, ncap);
		}
		if (!q) {
			b->failed = 1;
			return NULL;
		}
		b->p = q;
		b->cap = ncap;
	}
	return b->p + b->len;
}

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
	char *o;

	if (n == 0)
		return;
	o = sb_reserve(b, n);
	if (!o)
		return;
	memcpy(o, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

/* the two decimal digits of 0-99 (a byte's two hex digits: etl__hex_byte) */
static const char dec_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* (two digits a step: property text is made for every value of every event) */
static void sb_u64(struct sbuf *b, uint64_t v)
{
	char tmp[20];
	size_t i = sizeof(tmp);

	while (v >= 100) {
		i -= 2;
		memcpy(tmp + i, dec_pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		i -= 2;
		memcpy(tmp + i, dec_pairs + 2 * v, 2);
	} else {
		tmp[--i] = (char)('0' + v);
	}
	sb_add(b, tmp + i, sizeof(tmp) - i);
}

static void sb_i64(struct sbuf *b, int64_t v)
{
	if (v < 0) {
		sb_add(b, "-", 1);
		sb_u64(b, -(uint64_t)v);
	} else {
		sb_u64(b, (uint64_t)v);
	}
}

/* "0x" and lower-case hex digits, at least min_digits of them */
static void sb_hex64(struct sbuf *b, uint64_t v, unsigned min_digits)
{
	char tmp[18];
	size_t i = sizeof(tmp), want = min_digits > 16 ? 16 : min_digits;

	do { /* a byte a step */
		i -= 2;
		etl__hex_byte(tmp + i, (unsigned)(v & 0xFF));
		v >>= 8;
	} while (v || sizeof(tmp) - i < want);
	if (tmp[i] == '0' && sizeof(tmp) - i > want && sizeof(tmp) - i > 1)
		i++; /* the high half of the top byte, when the digits wanted do not need it */
	tmp[--i] = 'x';
	tmp[--i] = '0';
	sb_add(b, tmp + i, sizeof(tmp) - i);
}

static void sb_str(struct sbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

static void sb_fmt(struct sbuf *b, const char *fmt, ...) ETL_PRINTF(2, 3);
static void sb_fmt(struct sbuf *b, const char *fmt, ...)
{
	char tmp[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		sb_add(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

static void sb_hex(struct sbuf *b, const uint8_t *p, size_t n)
{
	char tmp[64];
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		etl__hex_byte(tmp + o, p[i]);
		o += 2;
		if (o == sizeof(tmp)) {
			sb_add(b, tmp, o);
			o = 0;
		}
	}
	sb_add(b, tmp, o);
}

static void sb_utf16(struct sbuf *b, const uint8_t *p, size_t bytes)
{
	size_t n = etl__utf16_units(p, bytes / 2);
	char *o;

	if (n == 0 || n > (SIZE_MAX - 1) / 3)
		return;
	o = sb_reserve(b, 3 * n);
	if (o)
		b->len += etl__utf16_convert(p, n, (uint8_t *)o);
}

/* 8-bit text up to a NUL: kept if valid UTF-8, else read as Latin-1. */
static void sb_ansi(struct sbuf *b, const uint8_t *p, size_t n)
{
	size_t len = 0;
	char *o;

	while (len < n && p[len])
		len++;
	if (etl__utf8_valid(p, len)) { /* the common case: no room reserved for doubling */
		sb_add(b, (const char *)p, len);
		return;
	}
	if (len > (SIZE_MAX - 1) / 2) {
		b->failed = 1;
		return;
	}
	if (!(o = sb_reserve(b, 2 * len)))
		return;
	b->len += etl__text8_to_utf8(p, len, o);
}

/* A FILETIME as ISO 8601 UTC; 0 (no time) as "0". */
static void sb_filetime(struct sbuf *b, uint64_t ft)
{
	char s[ETL_FILETIME_STRING_SIZE];

	if (ft == 0) {
		sb_str(b, "0");
		return;
	}
	sb_add(b, s, etl_filetime_format(ft, s));
}

/* The shortest digits that read back as the same double, written as JavaScript writes numbers:
 * plain decimals when the exponent is from -6 to 20 (10, 0.001, 1234.5), else d.ddde+N. */
static void sb_double(struct sbuf *b, double v)
{
	char tmp[40], digits[20], out[48];
	int prec, exp, nd = 0, n = 0, i;
	const char *p;

	if (isnan(v)) {
		sb_str(b, "NaN");
		return;
	}
	if (isinf(v)) {
		sb_str(b, v < 0 ? "-Infinity" : "Infinity");
		return;
	}
	for (prec = 0; prec <= 16; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*e", prec, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	/* tmp is [-]d[.ddd]e[+-]NN: its digits and exponent */
	p = tmp;
	if (*p == '-')
		out[n++] = *p++;
	for (; *p && *p != 'e'; p++)
		if (*p >= '0' && *p <= '9' && nd < (int)sizeof(digits))
			digits[nd++] = *p;
	exp = *p == 'e' ? atoi(p + 1) : 0;
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	if (v == 0) {
		sb_str(b, signbit(v) ? "-0" : "0");
		return;
	}
	if (exp < -6 || exp > 20) {
		out[n++] = digits[0];
		if (nd > 1)
			out[n++] = '.';
		for (i = 1; i < nd; i++)
			out[n++] = digits[i];
		snprintf(out + n, sizeof(out) - (size_t)n, "e%+d", exp);
		sb_str(b, out);
		return;
	}
	if (exp < 0) {
		out[n++] = '0';
		out[n++] = '.';
		for (i = 0; i < -exp - 1; i++)
			out[n++] = '0';
		for (i = 0; i < nd; i++)
			out[n++] = digits[i];
	} else {
		for (i = 0; i <= exp || i < nd; i++) {
			if (i == exp + 1)
				out[n++] = '.';
			out[n++] = i < nd ? digits[i] : '0';
		}
	}
	out[n] = 0;
	sb_str(b, out);
}

static void sb_sid(struct sbuf *b, const uint8_t *p, size_t n)
{
	uint64_t auth;
	unsigned i, count;

	if (n < 8) {
		sb_hex(b, p, n);
		return;
	}
	count = p[1];
	auth = (uint64_t)p[2] << 40 | (uint64_t)p[3] << 32 | (uint64_t)p[4] << 24 | (uint64_t)p[5] << 16 |
	       (uint64_t)p[6] << 8 | p[7];
	sb_fmt(b, "S-%u-%llu", p[0], (unsigned long long)auth);
	for (i = 0; i < count && 8 + 4 * (size_t)i + 4 <= n; i++)
		sb_fmt(b, "-%u", (unsigned)etl_le32(p + 8 + 4 * i));
}

static void sb_ipv6(struct sbuf *b, const uint8_t *a)
{
	/* RFC 5952: lower case, the longest run of zero groups (2+) as "::" */
	int best = -1, bestlen = 0, i;

	for (i = 0; i < 8;) {
		int j = i;
		while (j < 8 && a[2 * j] == 0 && a[2 * j + 1] == 0)
			j++;
		if (j - i > bestlen && j - i >= 2) {
			best = i;
			bestlen = j - i;
		}
		i = j > i ? j : i + 1;
	}
	for (i = 0; i < 8; i++) {
		if (i == best) {
			sb_str(b, "::");
			i += bestlen - 1;
			continue;
		}
		if (i > 0 && i != best + bestlen)
			sb_str(b, ":");
		sb_fmt(b, "%x", (unsigned)(a[2 * i] << 8 | a[2 * i + 1]));
	}
}

/* Binary in-types: addresses and text by their out-type, else hex. */
static void format_binary(struct sbuf *b, const uint8_t *d, size_t n, uint16_t out)
{
	if (out == ETL_OUT_IPV6 && n == 16) {
		sb_ipv6(b, d);
		return;
	}
	if (out == ETL_OUT_SOCKETADDRESS && n >= 8) {
		unsigned fam = etl_le16(d), port = (unsigned)(d[2] << 8 | d[3]);
		if (fam == 2) {
			sb_fmt(b, "%u.%u.%u.%u:%u", d[4], d[5], d[6], d[7], port);
			return;
		}
		if (fam == 23 && n >= 24) {
			sb_str(b, "[");
			sb_ipv6(b, d + 8);
			sb_fmt(b, "]:%u", port);
			return;
		}
	}
	if (out == ETL_OUT_UTF8 || out == ETL_OUT_STRING || out == ETL_OUT_XML || out == ETL_OUT_JSON) {
		sb_ansi(b, d, n);
		return;
	}
	sb_str(b, "0x");
	sb_hex(b, d, n);
}

/* Values that are not integers: 1 when p was one of them (and is formatted). */
static int format_other(struct sbuf *b, const struct etl_property *p)
{
	const uint8_t *d = p->data;
	size_t n = p->len;

	switch (p->in_type) {
	case ETL_IN_UNICODESTRING: case ETL_IN_COUNTEDSTRING: case ETL_IN_MOF_COUNTEDSTRING:
	case ETL_IN_REVERSEDCOUNTEDSTRING: case ETL_IN_NONNULLTERMINATEDSTRING: case ETL_IN_UNICODECHAR:
		sb_utf16(b, d, n);
		return 1;
	case ETL_IN_ANSISTRING: case ETL_IN_COUNTEDANSISTRING: case ETL_IN_MOF_COUNTEDANSISTRING:
	case ETL_IN_REVERSEDCOUNTEDANSISTRING: case ETL_IN_NONNULLTERMINATEDANSISTRING: case ETL_IN_ANSICHAR:
		sb_ansi(b, d, n);
		return 1;
	case ETL_IN_BINARY: case ETL_IN_COUNTEDBINARY: case ETL_IN_HEXDUMP:
		format_binary(b, d, n, p->out_type);
		return 1;
	case ETL_IN_GUID: {
		struct etl_guid g;
		char s[ETL_GUID_STRING_SIZE];
		etl_guid_from_le(d, &g);
		etl_guid_format(&g, s);
		sb_str(b, s);
		return 1;
	}
	case ETL_IN_FILETIME:
		sb_filetime(b, etl_le64(d));
		return 1;
	case ETL_IN_SYSTEMTIME:
		sb_fmt(b, "%04u-%02u-%02uT%02u:%02u:%02u.%03u", etl_le16(d), etl_le16(d + 2), etl_le16(d + 6),
		       etl_le16(d + 8), etl_le16(d + 10), etl_le16(d + 12), etl_le16(d + 14));
		return 1;
	case ETL_IN_SID: case ETL_IN_WBEMSID:
		sb_sid(b, d, n);
		return 1;
	case ETL_IN_FLOAT: {
		uint32_t u = etl_le32(d);
		float fl;
		memcpy(&fl, &u, sizeof(fl));
		sb_double(b, (double)fl);
		return 1;
	}
	case ETL_IN_DOUBLE: {
		uint64_t u = etl_le64(d);
		double v;
		memcpy(&v, &u, sizeof(v));
		sb_double(b, v);
		return 1;
	}
	case ETL_IN_NULL: /* no value (a derived field that has none): JSON's null */
		sb_str(b, "none");
		return 1;
	default:
		if (etl__schema_integer_in(p->in_type))
			return 0;
		sb_str(b, "0x");
		sb_hex(b, d, n);
		return 1;
	}
}

static const char *map_text(const struct etl_map *m, uint64_t v)
{
	uint32_t i, lo = 0, hi = m->count;

	if (!m->by_value) {
		for (i = 0; i < m->count; i++)
			if (m->entries[i].value == v)
				return m->entries[i].text;
		return NULL;
	}
	while (lo < hi) { /* the first position (in value order) with a value not below v */
		uint32_t mid = lo + (hi - lo) / 2;
		if (m->entries[m->by_value[mid]].value < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->count && m->entries[m->by_value[lo]].value == v ? m->entries[m->by_value[lo]].text : NULL;
}

/* A value or bit map's text for an integer; 0 when a value map names nothing (the number is
 * shown).  A bit map always gives text: the names of the set bits (then a number its sub-map
 * names, then the bits no name covers as 0x...), or 0x... when no bit has a name - so that one
 * field is text in every event. */
static int format_mapped(struct sbuf *b, const struct etl_property *p)
{
	const struct etl_map *m = p->map;
	uint64_t v = etl__schema_node_u64(p), rest = v & ~(uint64_t)m->sub_mask;
	const char *t;
	uint32_t i;
	int any = 0;

	if (!m->bitmap) {
		if (!(t = map_text(m, v)))
			return 0;
		sb_str(b, t);
		return 1;
	}
	for (i = 0; i < m->count && (rest & 0xFFFFFFFFu); i++) { /* (entries have 32 bits) */
		uint32_t bit = m->entries[i].value;
		if (bit && (rest & bit) == bit) {
			if (any++)
				sb_str(b, ", ");
			sb_str(b, m->entries[i].text);
			rest &= ~(uint64_t)bit;
		}
	}
	if (m->sub && (t = map_text(m->sub, (v & m->sub_mask) >> m->sub_shift)) != NULL) {
		if (any++)
			sb_str(b, ", ");
		sb_str(b, m->sub_name);
		sb_add(b, "=", 1);
		sb_str(b, t);
	} else {
		rest |= v & m->sub_mask; /* a number the sub-map does not name stays among the bits */
	}
	if (!any || rest) {
		if (any)
			sb_str(b, ", ");
		sb_hex64(b, rest, 1);
	}
	return 1;
}

/* An integer as its out-type asks (a character, hex, a code, a port, an address, a time), or as
 * a number signed by its out- or in-type. */
static void format_integer(struct sbuf *b, const struct etl_property *p)
{
	const uint8_t *d = p->data;
	size_t n = p->len;
	uint16_t in = p->in_type;
	uint64_t u = etl__schema_node_u64(p);
	int is_signed = in == ETL_IN_INT8 || in == ETL_IN_INT16 || in == ETL_IN_INT32 || in == ETL_IN_INT64;

	switch (p->out_type) {
	case ETL_OUT_BOOLEAN:
		sb_str(b, u ? "true" : "false");
		return;
	case ETL_OUT_STRING: /* a character, or an array of them read as text */
		if (in == ETL_IN_UINT8 || in == ETL_IN_INT8) {
			sb_ansi(b, d, n);
			return;
		}
		if (in == ETL_IN_UINT16 || in == ETL_IN_INT16) {
			sb_utf16(b, d, n);
			return;
		}
		break;
	case ETL_OUT_HEXINT8: case ETL_OUT_HEXINT16: case ETL_OUT_HEXINT32: case ETL_OUT_HEXINT64:
	case ETL_OUT_CODE_POINTER:
		sb_hex64(b, u, 1);
		return;
	case ETL_OUT_ERRORCODE: case ETL_OUT_WIN32ERROR: case ETL_OUT_NTSTATUS: case ETL_OUT_HRESULT:
		sb_hex64(b, u, 8);
		return;
	case ETL_OUT_PORT:
		if (n == 2) {
			sb_u64(b, (unsigned)(d[0] << 8 | d[1]));
			return;
		}
		break;
	case ETL_OUT_IPV4:
		if (n == 4) {
			sb_fmt(b, "%u.%u.%u.%u", d[0], d[1], d[2], d[3]);
			return;
		}
		break;
	case ETL_OUT_DATETIME: case ETL_OUT_DATETIME_UTC:
		if (n == 8) {
			sb_filetime(b, u);
			return;
		}
		break;
	case ETL_OUT_BYTE: case ETL_OUT_SHORT: case ETL_OUT_INT: case ETL_OUT_LONG:
		is_signed = 1;
		break;
	case ETL_OUT_UNSIGNEDBYTE: case ETL_OUT_UNSIGNEDSHORT: case ETL_OUT_UNSIGNEDINT: case ETL_OUT_UNSIGNEDLONG:
		is_signed = 0;
		break;
	default:
		break;
	}
	if (in == ETL_IN_HEXINT32 || in == ETL_IN_HEXINT64 || in == ETL_IN_POINTER || in == ETL_IN_SIZET)
		sb_hex64(b, u, 1);
	else if (in == ETL_IN_BOOLEAN)
		sb_str(b, u ? "true" : "false");
	else if (is_signed)
		sb_i64(b, etl__schema_node_i64(p));
	else
		sb_u64(b, u);
}

/* Whether p holds no value: not decoded (after a fault), where its in-type has one. */
static int undecoded(const struct etl_property *p)
{
	uint16_t in = p->in_type;

	return !p->data && p->len == 0 && in != ETL_IN_NULL && in != ETL_IN_UNICODESTRING &&
	       in != ETL_IN_ANSISTRING && in != ETL_IN_BINARY && in != ETL_IN_COUNTEDSTRING &&
	       in != ETL_IN_COUNTEDANSISTRING && in != ETL_IN_COUNTEDBINARY;
}

static void format_value(struct sbuf *b, const struct etl_property *p, unsigned flags)
{
	if (undecoded(p) || format_other(b, p))
		return;
	if (p->map && p->len <= 8 && !(flags & ETL_FORMAT_NO_MAPS) && format_mapped(b, p))
		return;
	format_integer(b, p);
}

static void format_any(struct sbuf *b, const struct etl_property *p, unsigned flags, unsigned depth)
{
	uint32_t i;

	if (p->kind == ETL_PROPERTY_VALUE) {
		format_value(b, p, flags);
		return;
	}
	if (depth > MAX_DEPTH * 2)
		return;
	sb_str(b, p->kind == ETL_PROPERTY_ARRAY ? "[" : "{");
	for (i = 0; i < p->child_count; i++) {
		const struct etl_property *c = &p->owner->nodes[p->first_child + i];
		if (i)
			sb_str(b, ", ");
		if (p->kind == ETL_PROPERTY_STRUCT) {
			sb_str(b, c->name ? c->name : "?");
			sb_str(b, ": ");
		}
		format_any(b, c, flags, depth + 1);
	}
	sb_str(b, p->kind == ETL_PROPERTY_ARRAY ? "]" : "}");
}

const char *etl__schema_format(struct etl_property *p, unsigned flags)
{
	struct sbuf b;
	const char *s;

	if (p->text && !flags)
		return p->text;
	sb_init(&b);
	b.p[0] = 0;
	format_any(&b, p, flags, 0);
	if (b.failed) {
		sb_release(&b);
		return NULL;
	}
	s = etl__arena_strndup(&p->owner->arena, b.p, b.len);
	sb_release(&b);
	if (!flags)
		p->text = s;
	return s;
}

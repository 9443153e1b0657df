/*
 * diag.c - status names and the diagnostics lower layers hand upward.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

void etl__diag_set(struct etl_diag *d, int code, uint64_t offset, const char *fmt, ...)
{
	va_list ap;

	d->code = code;
	d->offset = offset;
	d->buffer_index = -1;
	d->trace = -1;
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	va_end(ap);
}

const char *etl_status_string(int status)
{
	switch (status) {
	case ETL_OK: return "ok";
	case ETL_END: return "end";
	case ETL_E_FORMAT: return "format";
	case ETL_E_TRUNCATED: return "truncated";
	case ETL_E_UNSUPPORTED: return "unsupported";
	case ETL_E_LIMIT: return "limit";
	case ETL_E_IO: return "io";
	case ETL_E_NOMEM: return "nomem";
	case ETL_E_MISUSE: return "misuse";
	default: return "unknown";
	}
}

void etl__diag_prefix(struct etl_diag *d, const char *prefix)
{
	char tmp[sizeof(d->msg)];

	snprintf(tmp, sizeof(tmp), "%s%s", prefix, d->msg);
	memcpy(d->msg, tmp, sizeof(d->msg));
}

void etl__diag_append(struct etl_diag *d, const char *fmt, ...)
{
	size_t l = strlen(d->msg);
	va_list ap;

	if (l >= sizeof(d->msg) - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(d->msg + l, sizeof(d->msg) - l, fmt, ap);
	va_end(ap);
}

const char *etl__quote(const char *s, char *out, size_t cap)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;

	for (; *s && n + 5 < cap; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 || c == 0x7f || c == '\\' || c == '\'' || c == '"') {
			out[n++] = '\\';
			out[n++] = 'x';
			out[n++] = hex[c >> 4];
			out[n++] = hex[c & 15];
		} else {
			out[n++] = (char)c;
		}
	}
	out[n] = 0;
	return out;
}

/* Length of the well-formed UTF-8 sequence at s that is printable, or 0: not
 * a C1 control (U+0080..U+009F), a line or paragraph separator or a
 * bidirectional override, which could make a message read as another. */
static size_t utf8_printable(const unsigned char *s)
{
	uint32_t cp;
	size_t n, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1fu;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0fu;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07u;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	if (cp < 0xa0 || (n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069))
		return 0;
	return n;
}

size_t etl_text_printable(const char *in)
{
	const unsigned char *s = (const unsigned char *)(in ? in : "");
	size_t n = 0, k;

	for (; s[n]; n += k)
		if (!(k = s[n] >= 0x20 && s[n] < 0x7f ? 1 : utf8_printable(s + n)))
			break;
	return n;
}

const char *etl_text_escape(const char *in, char *out, size_t cap)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)(in ? in : "");
	size_t n = 0, k;

	if (cap == 0)
		return out;
	for (; *s; s += k) {
		int plain = *s >= 0x20 && *s < 0x7f;
		k = plain ? 1 : utf8_printable(s);
		if (n + (k ? k : 4) >= cap)
			break;
		if (k) {
			memcpy(out + n, s, k);
			n += k;
		} else {
			out[n++] = '\\';
			out[n++] = 'x';
			out[n++] = hex[*s >> 4];
			out[n++] = hex[*s & 15];
			k = 1;
		}
	}
	out[n] = 0;
	return out;
}

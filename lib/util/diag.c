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

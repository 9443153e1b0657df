/*
 * html.c - the report's output: writes buffered to the caller's function
 * (the first failure is kept and nothing more is written), text from the
 * trace escaped, numbers that are always finite, colours stable per name.
 *
 * SPDX-License-Identifier: MIT
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "report/report.h"

void etl__report_flush(struct rb_out *o)
{
	if (o->len && !o->failed && o->write(o->ctx, o->buf, o->len) != 0)
		o->failed = 1;
	o->bytes += o->len;
	o->len = 0;
}

void etl__report_raw(struct rb_out *o, const char *s, size_t n)
{
	while (n) {
		size_t k = sizeof(o->buf) - o->len;
		if (!k) {
			etl__report_flush(o);
			continue;
		}
		if (k > n)
			k = n;
		memcpy(o->buf + o->len, s, k);
		o->len += k;
		s += k;
		n -= k;
	}
}

void etl__report_str(struct rb_out *o, const char *s)
{
	etl__report_raw(o, s, strlen(s));
}

void etl__report_printf(struct rb_out *o, const char *fmt, ...)
{
	char b[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	if (n > 0)
		etl__report_raw(o, b, (size_t)n < sizeof(b) ? (size_t)n : sizeof(b) - 1);
}

/* The length of the UTF-8 sequence at s (1-4), or 0 when it is not a valid one. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n = s[0] < 0x80 ? 1 : (s[0] & 0xE0) == 0xC0 ? 2 : (s[0] & 0xF0) == 0xE0 ? 3 : (s[0] & 0xF8) == 0xF0 ? 4 : 0,
	       i;

	if (n == 2 && s[0] < 0xC2)
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xC0) != 0x80)
			return 0;
	return n;
}

void etl__report_text(struct rb_out *o, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	while (*p) {
		size_t n = utf8_len(p);
		switch (*p) {
		case '&': etl__report_str(o, "&amp;"); break;
		case '<': etl__report_str(o, "&lt;"); break;
		case '>': etl__report_str(o, "&gt;"); break;
		case '"': etl__report_str(o, "&quot;"); break;
		case '\'': etl__report_str(o, "&#39;"); break;
		default:
			if (!n || *p < 0x20 || *p == 0x7F) {
				etl__report_str(o, "\xEF\xBF\xBD"); /* U+FFFD */
				n = 1;
			} else {
				etl__report_raw(o, (const char *)p, n);
			}
			p += n;
			continue;
		}
		p++;
	}
}

void etl__report_num(struct rb_out *o, double v)
{
	long t;

	if (!isfinite(v))
		v = 0;
	if (v > 1e9)
		v = 1e9;
	if (v < -1e9)
		v = -1e9;
	t = (long)(v * 10 + (v < 0 ? -0.5 : 0.5)); /* tenths: enough for a 960-unit view */
	if (t % 10 == 0)
		etl__report_printf(o, "%ld", t / 10);
	else
		etl__report_printf(o, "%s%ld.%ld", t < 0 ? "-" : "", labs(t) / 10, labs(t) % 10);
}

void etl__report_colour(struct rb_out *o, const char *name, int warm)
{
	uint64_t h = etl__hash_bytes(name, strlen(name));
	unsigned hue = warm ? (unsigned)(h % 50) : (unsigned)(h % 360);
	unsigned light = 55 + (unsigned)(h >> 20) % 15;

	etl__report_printf(o, "hsl(%u,%u%%,%u%%)", hue, warm ? 80u : 55u, light);
}

const char *etl__report_bytes(double v, char *buf, size_t cap)
{
	static const char *const unit[] = { "B", "KB", "MB", "GB", "TB" };
	unsigned u = 0;

	while (v >= 1000 && u < 4)
		v /= 1000, u++;
	snprintf(buf, cap, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
	return buf;
}

const char *etl__report_ms(double v, char *buf, size_t cap)
{
	if (v >= 10000)
		snprintf(buf, cap, "%.1f s", v / 1000);
	else if (v >= 10)
		snprintf(buf, cap, "%.0f ms", v);
	else
		snprintf(buf, cap, "%.2f ms", v);
	return buf;
}

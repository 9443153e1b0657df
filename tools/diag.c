/*
 * diag.c - diagnostic lines, printed at once or held back for a batch (diag.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "diag.h"

_Thread_local struct diag_log *diag_to;
_Thread_local uint32_t diag_item;

/* Room for need more bytes of text and one more line in k; -1 when it cannot grow. */
static int log_room(struct diag_log *k, size_t need)
{
	if (need > SIZE_MAX - k->len || grow_array(&k->text, &k->cap, k->len + need, 1, 4096) != 0)
		return -1;
	return grow_array(&k->line, &k->ncap, k->n + 1, sizeof(*k->line), 64);
}

static void emit(const char *s, size_t n)
{
	struct diag_log *k = diag_to;

	if (k && log_room(k, n) == 0) {
		memcpy(k->text + k->len, s, n);
		k->len += n;
		k->line[k->n].item = diag_item;
		k->line[k->n++].end = k->len;
		return;
	}
	fwrite(s, 1, n, stderr); /* one call: stdio keeps the line whole among threads */
}

void diag_printf(const char *fmt, ...)
{
	char small[2048], *big = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		emit(small, (size_t)n);
		return;
	}
	if (!(big = malloc((size_t)n + 1))) {
		small[sizeof(small) - 2] = '\n'; /* without memory: the line cut, not lost */
		emit(small, sizeof(small) - 1);
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	emit(big, (size_t)n);
	free(big);
}

/* The text of line i of k. */
static void put_line(const struct diag_log *k, size_t i)
{
	size_t start = i ? k->line[i - 1].end : 0;

	fwrite(k->text + start, 1, k->line[i].end - start, stderr);
}

void diag_log_print(struct diag_log *reading, struct diag_log *decoding)
{
	size_t i = 0, j = 0;

	while (i < reading->n || j < decoding->n) {
		/* reading lines come before the item they name, so before its decoding lines */
		if (j == decoding->n || (i < reading->n && reading->line[i].item <= decoding->line[j].item))
			put_line(reading, i++);
		else
			put_line(decoding, j++);
	}
	reading->len = reading->n = 0;
	decoding->len = decoding->n = 0;
}

void diag_log_free(struct diag_log *log)
{
	free(log->text);
	free(log->line);
	memset(log, 0, sizeof(*log));
}

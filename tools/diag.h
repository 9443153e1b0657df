/*
 * diag.h - etldump's diagnostic lines on stderr, and holding them back.
 *
 * With --threads, the main thread reads a batch of events before a worker
 * decodes it, so damage found while reading would reach stderr before the
 * decoding faults of the events in front of it.  A thread that works on a
 * batch points diag_to at the batch's log; its lines are kept there, each
 * with the batch item it comes before (reading) or belongs to (decoding),
 * and the main thread prints both logs of a batch merged, when it writes the
 * batch: stderr then reads as with one thread, line for line.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETLDUMP_DIAG_H
#define ETLDUMP_DIAG_H

#include <stddef.h>
#include <stdint.h>

/* Lines held back: text[0, len), the k-th line ending at line[k].end. */
struct diag_log {
	char *text;
	size_t len, cap;
	struct diag_line {
		uint32_t item; /* the batch item: reading, the next event; decoding, the event */
		size_t end;
	} *line;
	size_t n, ncap;
};

/* Where this thread's lines go: NULL (the default) straight to stderr. */
extern _Thread_local struct diag_log *diag_to;
/* The item the thread's next line is for. */
extern _Thread_local uint32_t diag_item;

/* Writes one diagnostic line (printf-style, the newline included in fmt) to stderr, whole, or
 * keeps it in diag_to (straight to stderr when it cannot grow: nothing is lost). */
void diag_printf(const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;
/* Prints a batch's lines to stderr, in the order of one thread: for each item, the reading
 * lines before it, then its decoding lines; then empties both logs. */
void diag_log_print(struct diag_log *reading, struct diag_log *decoding);
void diag_log_free(struct diag_log *log);

#endif

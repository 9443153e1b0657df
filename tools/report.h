/*
 * report.h - etldump's diagnostics on stderr (report.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETLDUMP_REPORT_H
#define ETLDUMP_REPORT_H

#include <stdint.h>

#include <etl.h>

struct options;

/* A name (a path, a member) as printed on stderr, escaped by etl_text_escape() so that a crafted
 * name cannot move the cursor, clear a terminal or forge a line.  The text is in buf, cut at
 * REPORT_SHOWN_MAX bytes. */
#define REPORT_SHOWN_MAX 1024
const char *report_shown(const char *name, char buf[REPORT_SHOWN_MAX]);
/* The reader's last error on stderr (unless quiet), as one line. */
void report_error(const struct etl_reader *r, const char *fallback_name, const struct options *o);
/* After etl_reader_next returned st < 0: reports the damage, worsens *exit_code, and says
 * whether the reader can go on (0) or the error is fatal (1). */
int report_damage(const struct etl_reader *r, const struct options *o, int st, int *exit_code);
/* A payload that contradicts its schema (etl_reader_decode failed): reported like damage,
 * counted for this thread. */
void report_decode(const struct etl_reader *r, const struct options *o);
unsigned report_decode_errors(void);
void report_decode_errors_reset(void);
void report_decode_errors_add(unsigned n); /* (what the --threads workers met) */
/* The events read so far, on stderr (a terminal); done: the last report. */
void report_progress(const struct etl_reader *r, uint64_t n, int done);
/* The same, with the input bytes read so far given (the readers that read are others). */
void report_progress_read(const struct etl_reader *r, uint64_t read, uint64_t n, int done);

#endif

/*
 * access.h - what the layers above the reader (tables, report) may ask of a reader beyond the
 * public API, without its structures (reader.h): its errors, whether it is fresh, its inputs'
 * clocks, the images and .NET methods their stack index pass read, and file names.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_READER_ACCESS_H
#define ETL_READER_ACCESS_H

#include "internal.h"
#include "state/imagehist.h"
#include "state/methodhist.h"

struct etl_reader;

/* The error the next call returns: a misuse, or out of memory (errors.c); the status. */
int etl__reader_misuse(struct etl_reader *r, const char *what);
int etl__reader_nomem(struct etl_reader *r);
/* Events keep() says no to are read (for what they tell) but not delivered; keep NULL: all. */
int etl__reader_set_keep(struct etl_reader *r,
			 int (*keep)(void *ctx, const struct etl_reader *r, const struct etl_event *ev), void *ctx);
/* Whether r has read no event and learns only from its own (not etl_reader_observe's). */
int etl__reader_fresh(const struct etl_reader *r);
/* How many inputs r has open; the clock of input k (0 <= k < that). */
int etl__reader_inputs(const struct etl_reader *r);
const struct etl_clockconv *etl__reader_clock(const struct etl_reader *r, int k);
/* The images over time of r's input k (0 <= k < etl__reader_inputs), read by its stack index
 * pass (made on first use). */
const struct etl_imagehist *etl__reader_images(struct etl_reader *r, int k);
/* The .NET methods and modules over time of r's input k, read by its stack index pass (made
 * on first use), or NULL where there is no such input. */
const struct etl_methodhist *etl__reader_methods(struct etl_reader *r, int k);

/* derive.c: */
/* The name of file key (a FileObject or FileKey) at raw time ts of input trace, as a DOS path where
 * the trace maps its volume, into out (cap bytes, cut to fit): 1, or 0 when the trace names none
 * (reads the trace's file names once, as derived fields do). */
int etl__reader_file_name(struct etl_reader *r, int trace, uint64_t key, uint64_t ts_raw, char *out, size_t cap);
/* An NT path with its volume replaced by its drive letter, as the trace's volume-mapping records
 * give it: 1 and the path in out, or 0 (not mapped). */
int etl__reader_dos_path(struct etl_reader *r, int trace, const char *path, char *out, size_t cap);

#endif

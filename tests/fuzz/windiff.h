/*
 * windiff.h - the time-window promise, checked (etl_reader_set_time_window):
 * an input read whole, and read again as the time slices
 * etl_reader_time_slices() cuts it into, one reader per slice.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WINDIFF_H
#define WINDIFF_H

#include <stddef.h>
#include <stdint.h>

struct windiff {
	size_t whole;    /* events of the whole reading */
	size_t parts;    /* events of the slices, together */
	size_t slices;   /* slices read */
	size_t late;     /* slices that said they deliver events of earlier times */
	int skipped;     /* a reading failed as a whole (fatal error, no memory): nothing compared */
	char why[256];   /* when the promise is broken: how */
};

/* Reads data (len bytes) whole and as at most n slices.  0 when the slices deliver, together,
 * exactly the events of the whole reading (each once), and every event a slice delivers outside
 * its own times comes after that slice said it delivers events of earlier times; -1 with w->why
 * set otherwise. */
int windiff_run(const uint8_t *data, size_t len, size_t n, struct windiff *w);

/* Reads each of at most n slices of a plan (etl_reader_plan_slices) three times: by a reader with
 * the slice's time window, by one given the slice's state, and by one given the plan's slice
 * (etl_reader_set_slice_planned).  0 when each slice's readings
 * deliver the same, in the same order: events (where they lie, times, CPU, decoding's name and
 * property count, process name, stack frames with ETL_OPTION_STACKS = stacks) and errors
 * (offsets, messages); and slices 2i and 2i + 1 read as one (slice 2i's state, the window's end
 * moved to slice 2i + 2's start) against that window.  -1 with w->why set otherwise (whole: the
 * windows' deliveries, parts: the states'). */
int windiff_planned(const uint8_t *data, size_t len, size_t n, int stacks, struct windiff *w);

/* A plan of at most n slices that says it is in order (etl_slices_in_order): its slices read one
 * after another, each given its state (every other one as the plan's slice) by a reader opened
 * from the planning reader (which made
 * the stack index while planning, with ETL_OPTION_STACKS = stacks), against a whole reading:
 * 0 when they deliver the same in the same order (as windiff_planned compares them), -1 with
 * w->why set otherwise, 1 when the plan is not in order or a reading failed (w->skipped). */
int windiff_in_order(const uint8_t *data, size_t len, size_t n, int stacks, struct windiff *w);

/* A plan of at most n slices that says it is in order, its slices read by `ways` readers (1: one),
 * each taking every ways-th slice in turn and moving on from one to the next
 * (etl_reader_move_to_slice: it keeps what it learnt, replaying only the plan's records between;
 * the first slice's reader cannot move, a new reader follows it), put back in slice order against a
 * whole reading: 0 when they deliver the same (as windiff_planned compares them), -1 with w->why
 * set otherwise or when a reader could not move on, 1 when the plan is not in order or a reading
 * failed (w->skipped). */
int windiff_moved(const uint8_t *data, size_t len, size_t n, int stacks, size_t ways, struct windiff *w);

/* Plans of at most n slices made twice, on the planning thread alone and with helper threads
 * (ETL_OPTION_THREADS = 2: they load and read the buffers lightly, ETL_OPTION_STACKS = stacks):
 * 0 when the two are the same - slice count, bounds, whether in order, every state's bytes - -1
 * with w->why set otherwise, 1 when either could not be made (w->skipped). */
int windiff_helped(const uint8_t *data, size_t len, size_t n, int stacks, struct windiff *w);

#endif

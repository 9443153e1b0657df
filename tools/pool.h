/*
 * pool.h - --threads: workers that decode and format batches in order (pool.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETLDUMP_POOL_H
#define ETLDUMP_POOL_H

#include <etl.h>

struct options;
struct summary;

/* Decodes and writes the inputs of primary (opened, not read) with n worker threads, each with a
 * reader of its own that opens them again (etl_reader_open_same); with --stats or --providers
 * the workers count the events and sm gets their counts (and the damage).  The exit status. */
int pool_run(struct etl_reader *r, const struct options *o, unsigned n, struct summary *sm);
/* Whether --threads applies to this run. */
int pool_usable(const struct options *o, const struct etl_reader *r, char **files, int nfiles);
/* With several threads, each slice's reader and each chunk of text take memory that others freed
 * just before: glibc's malloc would have given it back to the system, to fault it in again a page
 * at a time (a tenth of the page faults of perfview_net -j 2).  It keeps it (what the process held
 * at its peak, at most), with blocks below 32 MiB taken from its heaps. */
void pool_keep_freed_memory(void);
/* While a plan of time slices is made: its arrays (the kept records, the stack index's parts
 * appended, the .NET methods' history) grow by doubling, and a block of 1 MiB or more is taken
 * from mmap, so that it grows by mremap - its pages moved, not copied into fresh ones (perfview_net
 * -j 2: 500 fewer page faults, the plan 2.5-3 ms shorter).  pool_keep_freed_memory again after. */
void pool_plan_memory(void);

#define POOL_THREADS_MAX 64 /* --threads at most */

/* A reader configured as o asks, no input opened yet (a time slice may be given it first); NULL
 * without memory. */
struct etl_reader *pool_reader_new(const struct options *o);
/* Opens primary's inputs in r as primary has them (sharing what primary read of them): 0, or -1. */
int pool_reader_open(struct etl_reader *r, const struct etl_reader *primary);
/* After the workers: their write of the output failed with errno err - said as the main
 * thread's own failed write would be (out_buf, errno: etldump.c reports it). */
void pool_output_failed(int err);
/* The calling thread's CPU seconds so far (-1: unknown). */
double pool_thread_cpu(void);
/* With ETLDUMP_CPU_REPORT set: the threads' CPU seconds on standard error (the main thread's with
 * what it spent loading a plan's buffers beside the helpers). */
void pool_report_cpu(double main_cpu, const double *workers, unsigned n);
/* The monotonic clock's seconds (-1: none): one clock for every process of the machine, so that a
 * parent (etlbench) can place the times reported below between its fork and its wait. */
double pool_wall_now(void);
/* With ETLDUMP_CPU_REPORT set: when the run's phases began on that clock - the plan of time slices
 * (plan_at, -1: none), the workers' start (start_at) and each worker's end (ends) - on standard
 * error. */
void pool_report_wall(double plan_at, double start_at, const double *ends, unsigned n);

/* Writes the events of primary's one input (opened, not read) with n worker threads that each
 * read time slices of it (slicepool.c) - when a plan of its slices delivers, one after another,
 * a whole reading's events in its order (etl_slices_in_order).  1 when it ran (*exit_code its
 * status), 0 when it does not apply (nothing was written: pool_run then). */
int slicepool_run(struct etl_reader *r, const struct options *o, unsigned n, int *exit_code);

#endif

/*
 * clock.h - the time the tests that bound a cost measure, and how much slower
 * than a normal build the running one is.  The time is the process's CPU time,
 * not the wall clock: other work on the machine (the sanitizer builds' tests
 * beside these, a fuzzer) does not count against the bound, only what the test
 * itself spends.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef TEST_CLOCK_H
#define TEST_CLOCK_H

#include <stdlib.h>
#include <time.h>

/* CPU seconds the process has spent (all its threads). */
static inline double test_cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Check's CK_TIMEOUT_MULTIPLIER, which the sanitizer and cross-architecture runs may set (1 when
 * it is not): the time bounds that say so scale with it. */
static inline double test_slowdown(void)
{
	const char *m = getenv("CK_TIMEOUT_MULTIPLIER");

	return m && atof(m) > 1 ? atof(m) : 1.0;
}

#endif

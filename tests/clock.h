/*
 * clock.h - the time the tests that bound a cost measure, and how much slower
 * than a normal build the running one is.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef TEST_CLOCK_H
#define TEST_CLOCK_H

#include <stdlib.h>
#include <time.h>

/* Seconds on the monotonic clock. */
static inline double test_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
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

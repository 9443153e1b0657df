/*
 * mem.c - the library's allocator entry points, with a failure-injection
 * hook so that tests can prove every allocation failure is handled.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static unsigned long fail_countdown; /* 0 = never fail */

void etl__test_fail_alloc_after(unsigned long n)
{
	fail_countdown = n;
}

static int should_fail(void)
{
	if (fail_countdown == 0)
		return 0;
	if (--fail_countdown == 0)
		return 1;
	return 0;
}

void *etl__malloc(size_t n)
{
	if (should_fail())
		return NULL;
	return malloc(n ? n : 1);
}

void *etl__calloc(size_t n, size_t size)
{
	if (should_fail())
		return NULL;
	return calloc(n ? n : 1, size ? size : 1);
}

void *etl__realloc(void *p, size_t n)
{
	if (should_fail())
		return NULL;
	return realloc(p, n ? n : 1);
}

void etl__free(void *p)
{
	free(p);
}

char *etl__strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = etl__malloc(n);

	if (d)
		memcpy(d, s, n);
	return d;
}

/*
 * grow.c - the one way the library grows an array: geometrically, with
 * every size computation checked for overflow.
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "internal.h"

int etl__grow(void *arrp, size_t *cap, size_t need, size_t size, size_t first)
{
	size_t ncap, bytes;
	void *old, *n;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : (first ? first : 16);
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return -1;
		ncap *= 2;
	}
	if (!etl__mul_size(ncap, size, &bytes))
		return -1;
	/* the array pointer is read and written as bytes: it may point to any object type */
	memcpy(&old, arrp, sizeof(old));
	n = etl__realloc(old, bytes);
	if (!n)
		return -1;
	memcpy(arrp, &n, sizeof(n));
	*cap = ncap;
	return 0;
}

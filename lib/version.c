/*
 * version.c - run-time version information.
 *
 * SPDX-License-Identifier: MIT
 */
#include <zlib.h>
#include <libxml/xmlversion.h>
#ifdef ETL_HAVE_LIBDEFLATE
#include <libdeflate.h>
#define DEFLATE_PART ", libdeflate " LIBDEFLATE_VERSION_STRING
#else
#define DEFLATE_PART ""
#endif

#include "internal.h"

const char *etl_version_string(void)
{
	return ETL_VERSION_STRING;
}

unsigned long etl_version_number(void)
{
	return ETL_VERSION_NUMBER;
}

const char *etl_version_details(void)
{
	/* Versions the library was built against (a constant: thread-safe). */
	return "libetl " ETL_VERSION_STRING " (zlib " ZLIB_VERSION DEFLATE_PART ", libxml2 " LIBXML_DOTTED_VERSION ")";
}

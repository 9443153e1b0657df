/*
 * writer.c - the table of output formats.
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "writers/writer.h"

static const struct writer *const writers[] = {
	&writer_text, &writer_jsonl, &writer_csv, &writer_xml, &writer_chrome, &writer_folded, &writer_pprof,
};

const struct writer *writer_find(const char *name)
{
	size_t i;

	if (strcmp(name, "json") == 0)
		name = "jsonl";
	for (i = 0; i < sizeof(writers) / sizeof(writers[0]); i++)
		if (strcmp(writers[i]->name, name) == 0)
			return writers[i];
	return NULL;
}

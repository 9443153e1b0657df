/*
 * known.c - etldump --providers with no input: the providers it can decode,
 * given (-m, ETLDUMP_MANIFEST_PATH) and built into the library, with where
 * each description comes from.  Given ones are listed first: they win.
 *
 * SPDX-License-Identifier: MIT
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "etldump.h"
#include "out.h"
#include "writers/writer.h"

struct listing {
	int json;
	size_t n;
};

static int print_one(const struct etl_provider_info *p, void *ctx)
{
	struct listing *l = ctx;
	char g[ETL_GUID_STRING_SIZE];
	const char *kind = p->decoder == ETL_DECODER_BUILTIN_MANIFEST ? "built-in" : "given";

	etl_guid_format(&p->guid, g);
	l->n++;
	if (l->json) {
		out_printf("{\"type\":\"known_provider\",\"name\":\"");
		out_json_str(p->name ? p->name : "");
		out_printf("\",\"guid\":\"%s\",\"kind\":\"%s\",\"events\":%zu,\"source\":\"", g, kind, p->events);
		out_json_str(p->source ? p->source : "");
		out_printf("\"");
		if (p->license) {
			out_printf(",\"license\":\"");
			out_json_str(p->license);
			out_printf("\"");
		}
		out_printf("}\n");
		return 0;
	}
	out_printf("%-8s  %6zu  {%s}  %s  (%s%s%s)\n", kind, p->events, g, p->name ? p->name : "?",
		   p->source ? p->source : "?", p->license ? ", " : "", p->license ? p->license : "");
	return 0;
}

int providers_known(const struct options *o)
{
	struct listing l;
	int st = ETL_OK;

	memset(&l, 0, sizeof(l));
	l.json = strcmp(o->writer->name, "jsonl") == 0;
	if (!l.json)
		out_printf("%-8s  %6s  %-38s  %s\n", "kind", "events", "guid", "provider (source)");
	if (o->manifest_set)
		st = etl_manifests_providers(o->manifest_set, print_one, &l);
	if (st == ETL_OK && !o->no_builtin)
		st = etl_builtin_providers(print_one, &l);
	if (st != ETL_OK) {
		fprintf(stderr, "%s: out of memory\n", progname);
		return EXIT_NOMEM;
	}
	return EXIT_OK;
}

/*
 * undecoded.c - what etldump says of the providers whose events stayed raw:
 * the last section of --stats (one line each, with what would decode them:
 * docs/CAPTURE.md) and --providers' hint on stderr.
 *
 * SPDX-License-Identifier: MIT
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "out.h"
#include "report.h"
#include "summary.h"

/* What kind of raw event ev is (RAW_*), for what would decode it. */
unsigned summary_raw_kind(const struct etl_event *ev, const struct etl_decoded *d)
{
	const char *why = d ? etl_decoded_reason(d) : NULL;

	switch (etl_event_header_kind(ev)) {
	case ETL_HEADER_MESSAGE: return RAW_WPP;
	case ETL_HEADER_EVENT: return why && strstr(why, " at version ") ? RAW_VERSION : RAW_MANIFEST;
	case ETL_HEADER_FULL: case ETL_HEADER_INSTANCE:
		return why && strncmp(why, "no schema for event class", 25) == 0 ? RAW_MOF : RAW_KERNEL;
	default: return RAW_KERNEL;
	}
}

/* The providers whose events stayed raw, WPP ones (wpp 1) or the others, on stderr; how many. */
static size_t list_raw(const struct summary *sm, int wpp)
{
	size_t i, n = 0;

	for (i = 0; i < sm->providers.n; i++) {
		const struct tally *t = &sm->providers.t[i];
		char g[ETL_GUID_STRING_SIZE], nb[REPORT_SHOWN_MAX];
		if (t->raw != t->events || !t->wpp != !wpp)
			continue;
		etl_guid_format(&t->guid, g);
		fprintf(stderr, "\n  {%s}  %s  %" PRIu64 " events", g, t->key[0] == '{' ? "" : report_shown(t->key, nb), t->events);
		n++;
	}
	return n;
}

/* On stderr, for --providers: the providers whose events stayed raw, and how to get what decodes
 * them: for manifest providers, on the Windows machine that recorded the trace (tracerpt exports
 * the manifests of the registered providers a trace uses; etldump -m reads them); for WPP ones,
 * the TMF files tracepdb makes from the driver's PDB (etldump --tmf reads them). */
void summary_schema_hint(const struct summary *sm, const struct options *o)
{
	size_t i, n = 0, wpp = 0;

	for (i = 0; i < sm->providers.n; i++) {
		n += sm->providers.t[i].raw == sm->providers.t[i].events;
		wpp += sm->providers.t[i].raw == sm->providers.t[i].events && sm->providers.t[i].wpp;
	}
	if (!n || o->quiet)
		return;
	if (n > wpp) {
		fprintf(stderr, "%s: %zu provider%s without a schema (their events are raw):", progname, n - wpp,
			n - wpp == 1 ? "" : "s");
		list_raw(sm, 0);
		fprintf(stderr, "\n%s: on the Windows machine that recorded the trace, with the providers installed:\n"
				"  PerfView /nogui userCommand DumpRegisteredManifest PROVIDER\n"
				"writes PROVIDER.manifest.xml (tracerpt -l TRACE.etl -export providers.man those of the\n"
				"trace's providers); then: etldump -m FILE TRACE.etl (docs/CAPTURE.md)\n", progname);
	}
	if (wpp) {
		fprintf(stderr, "%s: %zu WPP provider%s without TMF files (their messages are raw):", progname, wpp,
			wpp == 1 ? "" : "s");
		list_raw(sm, 1);
		fprintf(stderr, "\n%s: with the driver's PDB, tracepdb -f DRIVER.pdb -p TMFDIR writes its TMF files;\n"
				"then: etldump --tmf TMFDIR TRACE.etl\n", progname);
	}
}

/* What would decode a provider's raw events (docs/CAPTURE.md), or NULL when nothing known would. */
static const char *how_to_decode(const struct summary *sm, const struct tally *t)
{
	if (t->rawkinds & RAW_WPP)
		return "its TMF files: tracepdb -f DRIVER.pdb -p DIR, then --tmf DIR";
	if (t->rawkinds & RAW_VERSION)
		return "a manifest of the event versions it logs: export it where it was recorded, give it with -m";
	if ((t->rawkinds & RAW_MANIFEST) && sm->merged)
		return "export its manifest where it was recorded, give it with -m (the merge did not describe it)";
	if (t->rawkinds & RAW_MANIFEST)
		return "merge its metadata in at capture (xperf -merge, wpr), or export its manifest there and give it with -m";
	if (t->rawkinds & RAW_MOF)
		return "merge its metadata in at capture (xperf -merge, wpr): a MOF class";
	return NULL;
}

void undecoded_json(const struct summary *sm)
{
	size_t i, k;

	for (i = k = 0; i < sm->providers.n; i++) {
		const struct tally *t = &sm->providers.t[i];
		const char *how = how_to_decode(sm, t);
		char g[ETL_GUID_STRING_SIZE];
		if (!t->raw)
			continue;
		etl_guid_format(&t->guid, g);
		out_printf("%s{\"name\":\"", k++ ? "," : "");
		out_json_str(t->key);
		out_printf("\",\"guid\":\"%s\",\"events\":%" PRIu64 ",\"undecoded\":%" PRIu64 ",\"how\":", g, t->events,
			   t->raw);
		if (how) {
			out_char('"');
			out_json_str(how);
			out_char('"');
		} else {
			out_printf("null");
		}
		out_char('}');
	}
}

void undecoded_text(const struct summary *sm)
{
	size_t i, k;

	for (i = k = 0; i < sm->providers.n; i++) {
		const struct tally *t = &sm->providers.t[i];
		const char *how = how_to_decode(sm, t);
		if (!t->raw)
			continue;
		if (!k++)
			out_printf("\n%10s  %s\n", "undecoded", "provider: what would decode it (docs/CAPTURE.md)");
		out_printf("%10" PRIu64 "  %s: %s\n", t->raw, t->key,
			   how ? how : "kernel records of a kind no public source lays out");
	}
}

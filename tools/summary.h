/*
 * summary.h - etldump's summaries (--stats, --providers, --processes) and
 * --info, as text or JSON.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETLDUMP_SUMMARY_H
#define ETLDUMP_SUMMARY_H

#include <etl.h>

#include "hmap.h"

#include "etldump.h"

struct tally {
	char *key;
	uint64_t events, bytes, partial; /* partial: decodings that stopped at a fault */
	uint64_t raw;                    /* events not decoded (providers) */
	struct etl_guid guid;            /* the provider's GUID (providers) */
	int source;
	int wpp;                         /* its events are WPP messages (providers) */
	unsigned rawkinds;               /* what its raw events are (RAW_*: providers) */
	/* the order (struct summary's now) of its first event, which gave guid, and of the
	 * event that gave source: what summary_merge keeps of two tallies */
	uint64_t first_at, source_at;
};

/* Tallies by name, found through an open-addressing index of the names' hashes. */
struct tallies {
	struct tally *t;
	size_t n, cap;
	struct hmap index; /* of uint32_t, the tally's number, by its key */
};

/* The tallies an event identity (provider, id, version, opcode, task, header kind) last
 * went to: a hit still compares the names, so a name that differs within one identity
 * (TraceLogging events share id 0) falls back to the index of names. */
#define SUMMARY_CACHE_SLOTS 1024
struct summary_slot {
	struct etl_guid provider;
	uint64_t ident;   /* id, version, opcode, task and header kind, packed */
	uint32_t pname, name; /* tally number + 1 in providers and names, 0 for none */
	int pname_guid;   /* pname is the tally of the provider's "{GUID}" (events without a name) */
};

/* What a provider's raw events are, for what would decode them (--stats) */
enum { RAW_WPP = 1, RAW_KERNEL = 2, RAW_MANIFEST = 4, RAW_MOF = 8, RAW_VERSION = 16 };

struct summary {
	struct tallies providers, names;
	uint64_t merged; /* events decoded by the trace's merge-time metadata */
	struct summary_slot *cache; /* SUMMARY_CACHE_SLOTS slots, allocated on first use */
	uint64_t events, decoded, undecoded, decode_errors, damage;
	uint64_t first, last;
	uint64_t now; /* the order of the next event summary_add counts: one more for each, or
			 set by the caller (a worker thread counts events that are not consecutive) */
};

/* Counts one event (st: what decoding it returned). */
void summary_add(struct summary *sm, const struct etl_event *ev, const struct etl_decoded *d, int st);
void summary_free(struct summary *sm);
/* Adds the counts of from to into, as if into had counted from's events too (in the order
 * their now gave them); 0, or -1 without memory. */
int summary_merge(struct summary *into, const struct summary *from);
/* What --stats, --providers and --processes asked for. */
void summary_text(struct summary *sm, struct etl_reader *r, const struct options *o);
void summary_json(struct summary *sm, struct etl_reader *r, const struct options *o);
/* undecoded.c: the kind of a raw event (RAW_*); the providers whose events stayed raw with what
 * would decode them, as --stats' last section (text) or its undecoded_providers array's items
 * (JSON); --providers' hint on stderr */
unsigned summary_raw_kind(const struct etl_event *ev, const struct etl_decoded *d);
void undecoded_text(const struct summary *sm);
void undecoded_json(const struct summary *sm);
void summary_schema_hint(const struct summary *sm, const struct options *o);
/* The trace information of input index. */
void info_text(const struct etl_trace_info *t, int index);
void info_json(const struct etl_trace_info *t, int index);

#endif

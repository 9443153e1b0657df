/*
 * decoders.h - the decoder registry's parts: each source of event
 * descriptions is a decoder with a bid and a decode function, as libarchive's
 * formats are.  For an event, the registry (decode.c) asks each decoder in
 * the table's order what it can do, and the first that is sure, else the
 * first that can, decodes it:
 *
 *   tracelogging    the event's own TraceLogging metadata (extended item)
 *   manifest        the manifests given to the reader
 *   eventsource     EventSource manifests logged in the trace
 *   trace-metadata  merge-time TRACE_EVENT_INFO of the same input, for the
 *                   exact id and version (weak when it describes a non-empty
 *                   payload as empty: a built-in manifest may do better)
 *   builtin-manifest the descriptions built into the library
 *   older-version   the nearest older version of the event in a given or
 *                   built-in manifest, when its template fits the payload
 *   manifest-data   the EventSource manifest records themselves
 *   kernel          built-in layouts of the classic kernel events
 *   wpp             WPP messages with the TMF files given to the reader
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_DECODE_DECODERS_H
#define ETL_DECODE_DECODERS_H

#include "decode/decode.h"

enum bid_strength {
	BID_NONE = 0, /* cannot decode the event */
	BID_WEAK = 1, /* can, but a decoder after it may do better */
	BID_SURE = 2  /* decodes it */
};

/* What a decoder found while bidding: the description it decodes with. */
struct bid {
	const void *what;   /* its description (a schema entry, a manifest event, a TMF message) */
	size_t len;         /* of `what` when it is bytes (TraceLogging metadata) */
	int group;          /* a kernel group; the source (enum etl_decoder) of an older version */
	const char *why_not; /* BID_NONE: why this decoder, which could have, does not (or NULL) */
};

struct decoder {
	const char *name;
	enum bid_strength (*bid)(struct etl_decode_state *st, const struct etl_event *ev, struct bid *b);
	/* Decodes ev into st->out with what the bid found; ETL_OK, or < 0 with d set. */
	int (*decode)(struct etl_decode_state *st, const struct etl_event *ev, const struct bid *b,
		      struct etl_diag *d);
	/* the header kinds it may bid for (KIND_BIT of enum etl_header_kind): the others are not
	 * asked (every event asks every decoder before the one that decodes it) */
	unsigned kinds;
};

#define KIND_BIT(k) (1u << (k))
#define KINDS_EVENT KIND_BIT(ETL_HEADER_EVENT)

/* sources.c and wpp.c */
extern const struct decoder etl__decoder_tlg, etl__decoder_tei, etl__decoder_eventsource,
	etl__decoder_manifest, etl__decoder_builtin, etl__decoder_older, etl__decoder_manifest_data,
	etl__decoder_kernel, etl__decoder_wpp;

/* names.c: a small formatter into d's arena (%s, %u, %04x, %%; cut at 511 bytes), for the names
 * and reasons made for every event */
const char *etl__decode_printf(struct etl_decoded *d, const char *fmt, ...) ETL_PRINTF(2, 3);
/* Provider/Task/Opcode, as PerfView names manifest events, from out's names and ev's id. */
void etl__decode_name_manifest(struct etl_decoded *out, const struct etl_event *ev);
/* The names a manifest gives an event: provider, task, opcode, level, channel, keywords, message. */
void etl__decode_take_names(struct etl_decoded *out, const struct etl_mevent *m);
/* The name and reason of an event no decoder describes, by its header kind. */
void etl__decode_name_undecoded(struct etl_decoded *d, const struct etl_event *ev);

#endif

/*
 * decode.c - the decoder registry: which decoder takes an event (each one
 * bids, as libarchive's formats do: decoders.h), and what an event nothing
 * decodes is called and why.  The decoders are in sources.c and wpp.c, the
 * caches of in-trace metadata in metadata.c, the decoded view in schema/.
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "decode/decoders.h"
#include "decode/metadata.h"
#include "tmf/tmf.h"

void etl__decode_state_free(struct etl_decode_state *st)
{
	etl__meta_free(st);
	etl__manifest_db_free(st->manifests);
	etl__man_free(st);
	etl__tmf_free(st->tmf);
	etl__free(st->wpp_scratch);
	if (st->kernel) {
		etl__kernel_cache_free(st->kernel);
		etl__free(st->kernel);
	}
	etl__free(st->out.nodes);
	etl__free(st->out.field_values);
	etl__arena_free(&st->out.arena);
	memset(st, 0, sizeof(*st));
}

/* A decoding that stopped at a fault: the event says so (etl_decoded_status), and the property that
 * failed is not shown as if it had a value - the ones before it are. */
static void note_error(struct etl_decoded *out, const struct etl_diag *d)
{
	char clean[sizeof(d->msg) * 4];

	etl_text_escape(d->msg, clean, sizeof(clean));
	out->error = etl__decode_printf(out, "%s", clean);
	if (!out->error)
		out->error = "the payload contradicts its schema";
	if (out->source != ETL_DECODER_NONE && out->ntop > 0) {
		out->error_field = out->nodes[out->ntop - 1].name;
		out->ntop--;
	}
}

/* The decoders, in the order they bid (decoders.h). */
static const struct decoder *const registry[] = {
	&etl__decoder_tlg, &etl__decoder_manifest, &etl__decoder_eventsource, &etl__decoder_tei,
	&etl__decoder_builtin, &etl__decoder_older, &etl__decoder_manifest_data, &etl__decoder_kernel,
	&etl__decoder_wpp,
};

/* An event no decoder describes: named by what is known of its provider, with why. */
static void undecoded(struct etl_decode_state *st, const struct etl_event *ev, const char *why_not)
{
	struct etl_decoded *out = &st->out;
	const struct etl_mevent *m;
	const char *pn;

	etl__decode_name_undecoded(out, ev);
	if (why_not)
		out->reason = why_not; /* (TMF files were given, but not this message's) */
	out->trailing = ev->payload_len;
	if (ev->kind != ETL_HEADER_EVENT)
		return;
	if ((m = etl__man_find_named(st, &ev->provider, ev->id, ev->version, 1)) != NULL) {
		etl__decode_take_names(out, m);
		out->message_template = NULL;
		etl__decode_name_manifest(out, ev);
		out->reason = etl__decode_printf(out, "the manifest of %s has event %u at version %u, not %u",
						 out->provider_name, ev->id, m->version, ev->version);
		return;
	}
	/* a provider known by name, an event it does not describe */
	if ((pn = etl__manifest_db_provider_name_by_guid(st->eventsource, &ev->provider)) != NULL ||
	    (pn = etl__man_provider_name(st, &ev->provider)) != NULL ||
	    (pn = etl__man_builtin_provider_name(st, &ev->provider)) != NULL) {
		out->provider_name = pn;
		out->name = etl__decode_printf(out, "%s/EventID(%u)", pn, ev->id);
		out->reason = etl__decode_printf(out, "the manifest of %s has no event %u", pn, ev->id);
	} else if ((pn = etl__man_failure(st, &ev->provider)) != NULL) {
		out->reason = etl__decode_printf(out, "the provider's manifest could not be read: %s", pn);
	} else if ((pn = etl__meta_provider_name(st, &ev->provider)) != NULL) {
		out->provider_name = pn; /* the name the trace gives its other events */
		out->name = etl__decode_printf(out, "%s/EventID(%u)", pn, ev->id);
	}
}

int etl__decode_event(struct etl_decode_state *st, const struct etl_event *ev,
		      const struct etl_decoded **result, struct etl_diag *d)
{
	struct etl_decoded *out = &st->out;
	struct bid bid, best;
	const struct decoder *winner = NULL;
	const char *why_not = NULL;
	size_t i;
	int rc = ETL_OK;

	st->out_event = NULL; /* out is about to hold another decoding */
	etl__schema_reset(out);
	*result = out;
	for (i = 0; i < sizeof(registry) / sizeof(registry[0]); i++) {
		enum bid_strength s;
		if ((unsigned)ev->kind >= 32 || !(registry[i]->kinds & KIND_BIT(ev->kind)))
			continue;
		memset(&bid, 0, sizeof(bid));
		s = registry[i]->bid(st, ev, &bid);
		if (s == BID_NONE) {
			if (bid.why_not && !why_not)
				why_not = bid.why_not;
			continue;
		}
		if (!winner) {
			winner = registry[i];
			best = bid;
		}
		if (s == BID_SURE) {
			winner = registry[i];
			best = bid;
			break;
		}
	}
	if (winner)
		rc = winner->decode(st, ev, &best, d);
	else
		undecoded(st, ev, why_not);
	if (!out->name) {
		etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
		return ETL_E_NOMEM;
	}
	if (rc != ETL_OK && rc != ETL_E_NOMEM && !out->doubtful)
		note_error(out, d); /* (a doubtful layout's reason says it all) */
	return rc;
}

int etl__decode_add_manifest(struct etl_decode_state *st, const char *path, const void *xml, size_t size,
			     const char *name, unsigned *warnings, struct etl_diag *d)
{
	if (!st->manifests) {
		st->manifests = etl__manifest_db_new();
		if (!st->manifests) {
			etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
			return ETL_E_NOMEM;
		}
	}
	if (path)
		return etl__manifest_db_load_path(st->manifests, path, warnings, d);
	return etl__manifest_db_load_memory(st->manifests, xml, size, name, warnings, d);
}

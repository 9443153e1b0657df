/*
 * wpp.c - decodes WPP messages (MESSAGE_TRACE_HEADER records) with the TMF
 * files given to the reader: the arguments through the message's schema,
 * the text through wppfmt.c.  A message whose arguments do not fit its TMF
 * description stays raw, with the reason.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <string.h>

#include "decode/decoders.h"
#include "record/record.h"
#include "tmf/tmf.h"

int etl__decode_add_tmf(struct etl_decode_state *st, const char *path, struct etl_diag *d)
{
	if (!st->tmf && !(st->tmf = etl__tmf_new())) {
		etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
		return ETL_E_NOMEM;
	}
	return etl__tmf_add_path(st->tmf, path, d);
}

unsigned etl__decode_tmf_warnings(const struct etl_decode_state *st)
{
	return etl__tmf_warnings(st->tmf) + etl__tmf_warnings(st->shared_tmf);
}

static const char *dup_text(struct etl_decoded *out, const char *s)
{
	return etl__arena_strndup(&out->arena, s, strlen(s));
}

/* A WPP record's description in the TMF files given; when they were given but none describes it,
 * why not (in the decoded view's arena). */
static enum bid_strength bid_wpp(struct etl_decode_state *st, const struct etl_event *ev, struct bid *b)
{
	const char *why = NULL, *other = NULL;
	char g[ETL_GUID_STRING_SIZE], buf[400];

	if (ev->kind != ETL_HEADER_MESSAGE || (!st->tmf && !st->shared_tmf) || !(ev->msg_flags & ETL_MSG_GUID) ||
	    (ev->msg_flags & ETL_MSG_COMPONENT_ID))
		return BID_NONE;
	/* the reader's own TMF files first, then a shared set's */
	if ((b->what = etl__tmf_find(st->tmf, &ev->provider, ev->id, &why)) != NULL ||
	    (b->what = etl__tmf_find(st->shared_tmf, &ev->provider, ev->id, why ? &other : &why)) != NULL)
		return BID_SURE;
	etl_guid_format(&ev->provider, g);
	if (why)
		snprintf(buf, sizeof(buf), "WPP message %u of {%s}: its TMF file could not be read: %s", ev->id, g, why);
	else
		snprintf(buf, sizeof(buf), "WPP message %u of {%s} is in none of the TMF files given", ev->id, g);
	b->why_not = dup_text(&st->out, buf);
	return BID_NONE;
}

static int decode_wpp(struct etl_decode_state *st, const struct etl_event *ev, const struct bid *b,
		      struct etl_diag *d)
{
	struct etl_decoded *out = &st->out;
	const struct tmf_msg *m = b->what;
	char buf[400];
	int rc;

	out->source = ETL_DECODER_TMF;
	out->provider_name = m->module;
	out->task_name = m->func;
	out->event_name = m->ident;
	out->level_name = m->level;
	out->keywords_name = m->flags;
	if (m->module && m->func)
		snprintf(buf, sizeof(buf), "%.150s/%.200s", m->module, m->func);
	else
		snprintf(buf, sizeof(buf), "%.150s/Message(%u)", m->module ? m->module : "WPP", m->number);
	out->name = dup_text(out, buf);
	out->resolve_map = NULL;
	rc = etl__schema_decode(out, &m->schema, ev->payload, ev->payload_len, ev->ptr_size, d);
	if (rc == ETL_E_NOMEM)
		return rc;
	if (rc != ETL_OK) {
		/* arguments that do not fit the TMF: the record stays raw, with the reason */
		char clean[sizeof(d->msg) * 4];
		etl_text_escape(d->msg, clean, sizeof(clean));
		snprintf(buf, sizeof(buf), "WPP message %u (%.100s line %u): its arguments do not fit the TMF: %.200s",
			 m->number, m->file, m->line, clean);
		out->source = ETL_DECODER_NONE;
		out->nnodes = out->ntop = 0;
		out->trailing = ev->payload_len;
		out->reason = dup_text(out, buf);
		return ETL_OK;
	}
	out->message_template = m->format;
	out->message = etl__wpp_render(&st->wpp_scratch, out, m, ev->ptr_size);
	if (!out->message || !out->name) {
		etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
		return ETL_E_NOMEM;
	}
	return ETL_OK;
}

const struct decoder etl__decoder_wpp = { "wpp", bid_wpp, decode_wpp, KIND_BIT(ETL_HEADER_MESSAGE) };

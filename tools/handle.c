/*
 * handle.c - one event as etldump's options ask: filtered, decoded when
 * something needs it, and written (or added to the summary).
 *
 * SPDX-License-Identifier: MIT
 */
#include "etldump.h"
#include "handle.h"
#include "report.h"
#include "summary.h"
#include "writers/writer.h"

int handle_event(struct etl_reader *r, const struct etl_event *ev, const struct options *o, struct summary *sm,
		 void *ws)
{
	const struct etl_decoded *d = NULL;
	int dst = ETL_OK, m = o->sel.filter ? etl_filter_match(o->sel.filter, r, ev) : 1;

	if (m == 0)
		return 0;
	/* decode for the output, the summaries and the filter's terms that need it; --processes
	 * alone needs only the reader's own tables */
	if (m == ETL_FILTER_NEEDS_DECODING || o->stats || o->providers ||
	    (!o->raw && !o->processes && !o->writer->no_decode)) {
		dst = etl_reader_decode(r, ev, &d);
		if (dst != ETL_OK)
			report_decode(r, o);
	}
	if (m == ETL_FILTER_NEEDS_DECODING && !etl_filter_match_decoded(o->sel.filter, r, ev, d))
		return 0;
	if (o->stats || o->providers)
		summary_add(sm, ev, d, dst);
	else if (o->processes)
		; /* listed after the last event */
	else
		o->writer->event(ws, r, o, ev, o->raw ? NULL : d);
	return 1;
}

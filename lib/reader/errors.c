/*
 * errors.c - how the reader's parts report: the error the next call returns (set_error, and
 * misuse and out of memory made into one), and the diagnostics queued while an input opens,
 * delivered in order later (etl__reader_queue_diag).  Every part of the reader calls these;
 * they call nothing of the reader's.
 *
 * SPDX-License-Identifier: MIT
 */
#include "reader/reader.h"

void etl__reader_queue_diag(void *ctx, const struct etl_diag *d)
{
	struct etl_reader *r = ctx;

	if (r->q_len >= DIAG_QUEUE_MAX) {
		r->q_dropped++;
		return;
	}
	if (!r->queue) {
		r->queue = etl__malloc(DIAG_QUEUE_MAX * sizeof(*r->queue));
		if (!r->queue) {
			r->q_dropped++;
			return;
		}
	}
	r->queue[r->q_len] = *d;
	r->queue[r->q_len].trace = r->ntraces; /* the input being opened */
	r->q_len++;
}

int etl__reader_set_error(struct etl_reader *r, const struct etl_diag *d, int trace, int fatal)
{
	r->err.code = d->code;
	r->err.fatal = fatal;
	r->err.trace = trace;
	r->err.buffer = d->buffer_index;
	r->err.offset = d->offset;
	etl_text_escape(d->msg, r->err.msg, sizeof(r->err.msg)); /* parts of it may come from the input */
	r->has_err = 1;
	if (fatal)
		r->state = ST_FATAL;
	return d->code;
}

int etl__reader_misuse(struct etl_reader *r, const char *what)
{
	struct etl_diag d;

	etl__diag_set(&d, ETL_E_MISUSE, ETL_OFFSET_NONE, "%s", what);
	return etl__reader_set_error(r, &d, -1, 0);
}

int etl__reader_nomem(struct etl_reader *r)
{
	struct etl_diag d;

	etl__diag_set(&d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
	return etl__reader_set_error(r, &d, -1, 0);
}

/*
 * fuzz_filter - a filter's text and a trace: the first two bytes give the text's length, the
 * text follows, the rest is a trace (as fuzz_reader reads it).  The text is parsed; when it is a
 * filter, it is matched against every event (decoding those that need it) with the reader
 * skipping what it rules out, its window and process selection are asked for, and the patterns
 * that matched nothing with their closest names.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void match_all(struct etl_filter *f, const uint8_t *trace, size_t n)
{
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	const char *field, *near[3];
	uint64_t from, to;
	unsigned budget = 20000;
	int st;
	size_t i;

	if (!r)
		return;
	if (etl_reader_open_memory(r, trace, n, "fuzz") == ETL_OK) {
		(void)etl_filter_window(f, r, 0, &from, &to);
		(void)etl_reader_set_filter(r, f);
		while (budget-- && (st = etl_reader_next(r, &ev)) != ETL_END) {
			const struct etl_decoded *d = NULL;
			if (st != ETL_OK) {
				if (etl_error_is_fatal(etl_reader_error(r)))
					break;
				continue;
			}
			if (etl_filter_match(f, r, ev) == ETL_FILTER_NEEDS_DECODING) {
				(void)etl_reader_decode(r, ev, &d);
				(void)etl_filter_match_decoded(f, r, ev, d);
			}
		}
	}
	(void)etl_filter_process_selected(f, 4, "System");
	for (i = 0; etl_filter_unmatched(f, i, &field); i++)
		(void)etl_filter_closest(f, i, near, 3);
	etl_reader_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct etl_filter *f = NULL;
	char err[200], *text;
	size_t len;

	if (size < 2)
		return 0;
	len = (size_t)data[0] | (size_t)data[1] << 8;
	if (len > size - 2)
		len = size - 2;
	if (!(text = malloc(len + 1)))
		return 0;
	memcpy(text, data + 2, len);
	text[len] = 0;
	if (etl_filter_new(text, &f, err, sizeof(err)) == ETL_OK) {
		(void)etl_filter_parts(f);
		match_all(f, data + 2 + len, size - 2 - len);
		etl_filter_free(f);
	}
	free(text);
	return 0;
}

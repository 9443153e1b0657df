/*
 * fuzz_reader - the whole reader over a memory buffer: open, iterate in
 * time order, decode every event and format every property, look up each
 * event's process and stack (copying the events that have one) and walk the
 * process tables; derived fields on half the inputs, helper threads
 * (ETL_OPTION_THREADS) on a quarter; on half, a second reader of the same
 * input decodes copies of the events (etl_event_copy_into, etl_reader_observe)
 * and must decode them as the first one does (names, status, reason, error and
 * every value's text).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <etl.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk(const struct etl_property *p, unsigned depth)
{
	size_t i;

	(void)etl_property_format(p);
	if (depth < 8)
		for (i = 0; i < etl_property_child_count(p); i++)
			walk(etl_property_child_at(p, i), depth + 1);
}

/* Both NULL or the same text. */
static int same_text(const char *a, const char *b)
{
	return !a || !b ? a == b : strcmp(a, b) == 0;
}

/* The second reader's decoding of a copy of ev must be the first reader's decoding d. */
static void same_decoding(struct etl_reader *b, const struct etl_event *ev, int st, const struct etl_decoded *d)
{
	size_t need = etl_event_copy_size(ev, ETL_COPY_STACK_LATER);
	void *mem = malloc(need);
	const struct etl_event *c;
	const struct etl_decoded *d2;
	int st2;

	if (!mem)
		return;
	c = etl_event_copy_into(ev, mem, need, ETL_COPY_STACK_LATER);
	if (!c || etl_reader_observe(b, c) != ETL_OK)
		__builtin_trap();
	/* the copy completes its stack through the first reader, as the event itself does */
	if (etl_event_stack_depth(c) != etl_event_stack_depth(ev) ||
	    etl_event_stack_frame(c, 0) != etl_event_stack_frame(ev, 0))
		__builtin_trap();
	st2 = etl_reader_decode(b, c, &d2);
	if (st != ETL_E_NOMEM && st2 != ETL_E_NOMEM) {
		if (st2 != st || !d != !d2)
			__builtin_trap();
		if (d && (strcmp(etl_decoded_name(d), etl_decoded_name(d2)) != 0 ||
			  etl_decoded_status(d) != etl_decoded_status(d2) ||
			  etl_decoded_property_count(d) != etl_decoded_property_count(d2) ||
			  !same_text(etl_decoded_reason(d), etl_decoded_reason(d2)) ||
			  !same_text(etl_decoded_error(d), etl_decoded_error(d2))))
			__builtin_trap();
		if (d) { /* every value's text: a state record's decoding was made as it was delivered */
			size_t i, n = etl_decoded_property_count(d);
			for (i = 0; i < n; i++) {
				const char *t = etl_property_format(etl_decoded_property_at(d, i));
				const char *t2 = etl_property_format(etl_decoded_property_at(d2, i));
				if (t && t2 && strcmp(t, t2) != 0) /* (NULL: no memory for the text) */
					__builtin_trap();
			}
		}
	}
	free(mem);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct etl_reader *r = etl_reader_new(), *b = NULL;
	const struct etl_event *ev;
	int st, order = size > 0 ? data[size - 1] & 1 : 0;

	if (!r)
		return 0;
	(void)etl_reader_set_order(r, order ? ETL_ORDER_FILE : ETL_ORDER_TIME);
	/* derived fields (the file-name pass) on half the inputs */
	(void)etl_reader_set_option(r, ETL_OPTION_DERIVE, size > 1 && (data[size - 2] & 1));
	/* helper threads decompressing ahead, on a quarter of the inputs */
	(void)etl_reader_set_option(r, ETL_OPTION_THREADS, size > 1 && (data[size - 2] & 6) == 6);
	/* small limits keep each run fast without hiding bugs in the limit checks */
	(void)etl_reader_set_limit(r, ETL_LIMIT_BUFFER_SIZE, 1u << 20);
	(void)etl_reader_set_limit(r, ETL_LIMIT_SPOOL_SIZE, 8u << 20);
	if (etl_reader_open_memory(r, data, size, "fuzz") == ETL_OK) {
		if (size > 1 && (data[size - 2] & 8) && (b = etl_reader_new()) != NULL) {
			(void)etl_reader_set_option(b, ETL_OPTION_DERIVE, etl_reader_get_option(r, ETL_OPTION_DERIVE));
			(void)etl_reader_set_limit(b, ETL_LIMIT_BUFFER_SIZE, 1u << 20);
			(void)etl_reader_set_limit(b, ETL_LIMIT_SPOOL_SIZE, 8u << 20);
			if (etl_reader_open_same(b, r, 0) != ETL_OK) {
				etl_reader_free(b);
				b = NULL;
			}
		}
		while ((st = etl_reader_next(r, &ev)) != ETL_END) {
			const struct etl_decoded *d;
			size_t i;
			if (st != ETL_OK) {
				if (etl_error_is_fatal(etl_reader_error(r)))
					break;
				continue;
			}
			{
				const struct etl_process *p = etl_reader_event_process(r, ev);
				uint64_t off;
				(void)etl_process_image_name(p);
				(void)etl_reader_resolve_address(r, p, etl_event_timestamp_raw(ev), &off);
			}
			/* decoded (and, on half the inputs, a copy decoded by a second reader, which asks the
			 * copy for its stack first) before the stack is asked of the event itself */
			st = etl_reader_decode(r, ev, &d);
			if (b)
				same_decoding(b, ev, st, d);
			{ /* stacks: attached, keyed (a second pass over the input), copied */
				size_t n = etl_event_stack_depth(ev), k;
				uint64_t sum = 0;
				struct etl_event *c = NULL;
				for (k = 0; k <= n && k < 64; k++)
					sum += etl_event_stack_frame(ev, k);
				if (n && etl_event_copy(ev, &c) == ETL_OK) {
					if (etl_event_stack_depth(c) != n || (n && etl_event_stack_frame(c, 0) != etl_event_stack_frame(ev, 0)))
						__builtin_trap();
					etl_event_free(c);
				}
				(void)sum;
			}
			if (st == ETL_E_NOMEM || !d)
				continue;
			(void)etl_decoded_name(d);
			(void)etl_decoded_status(d);
			(void)etl_decoded_error(d);
			for (i = 0; i < etl_decoded_property_count(d); i++)
				walk(etl_decoded_property_at(d, i), 0);
			for (i = 0; i < etl_decoded_derived_count(d); i++)
				walk(etl_decoded_derived_at(d, i), 0);
		}
		for (size_t i = 0; i < etl_reader_process_count(r); i++) {
			const struct etl_process *p = etl_reader_process_at(r, i);
			uint64_t base, sz;
			for (size_t k = 0; k < etl_process_image_count(p); k++)
				(void)etl_process_image_at(p, k, &base, &sz);
			(void)etl_process_command_line(p);
		}
	}
	etl_reader_free(b);
	etl_reader_free(r);
	return 0;
}

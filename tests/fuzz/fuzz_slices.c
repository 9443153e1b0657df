/*
 * fuzz_slices - a time slice's state is untrusted bytes.  The input is a trace and, in its last
 * bytes, a patch: the state of one slice of the trace's plan is patched (n bytes written at an
 * offset, or cut there) and given to a reader of the trace, which must refuse it with an error
 * naming a byte or read the slice without a crash, a hang or a leak (the sanitizers watch).
 *   input: trace | patch bytes (n) | u8 slice | u8 offset low | u8 offset high | u8 n (high bit: cut)
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <etl.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads the slice whose state is s (slen bytes) of the trace, up to a million calls. */
static void read_slice(const uint8_t *trace, size_t len, const uint8_t *s, size_t slen, int stacks)
{
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	unsigned long budget = 1000000;

	if (r && etl_reader_set_option(r, ETL_OPTION_STACKS, stacks) == ETL_OK && etl_reader_set_slice(r, s, slen) == ETL_OK &&
	    etl_reader_open_memory(r, trace, len, "fuzz") == ETL_OK)
		while (budget-- && etl_reader_next(r, &ev) != ETL_END) {
			const struct etl_decoded *d;
			if (ev)
				(void)etl_reader_decode(r, ev, &d);
			else if (etl_error_is_fatal(etl_reader_error(r)))
				break;
		}
	etl_reader_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct etl_reader *r;
	struct etl_slices *p = NULL;
	size_t n, len, slen, at;
	const uint8_t *tail;
	const void *state;
	uint8_t *s;

	if (size < 4)
		return 0;
	tail = data + size - 4;
	n = tail[3] & 0x7F;
	if (size < 4 + n)
		return 0;
	len = size - 4 - n;
	r = etl_reader_new();
	if (r && etl_reader_open_memory(r, data, len, "fuzz") == ETL_OK)
		p = etl_reader_plan_slices(r, 0, 2 + tail[0] % 6);
	etl_reader_free(r);
	state = p ? etl_slices_state(p, tail[0] % etl_slices_count(p), &slen) : NULL;
	if (state && (s = malloc(slen + n + 1)) != NULL) {
		memcpy(s, state, slen);
		at = ((size_t)tail[1] | (size_t)tail[2] << 8) % (slen + 1);
		if (tail[3] & 0x80) {
			slen = at; /* cut */
		} else {
			memcpy(s + at, data + len, n);
			if (at + n > slen)
				slen = at + n;
		}
		read_slice(data, len, s, slen, tail[0] & 1);
		free(s);
	}
	etl_slices_free(p);
	return 0;
}

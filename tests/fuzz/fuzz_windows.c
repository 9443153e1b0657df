/*
 * fuzz_windows - the time-window promise under damage: the input read whole
 * and as 2 to 7 time slices (its last byte chooses how many) must give the
 * same events, each once, and a slice that delivers an event outside its
 * times must have said so first; and each slice of a plan, read with its
 * state, must deliver what its time window delivers (windiff.h; stack records
 * attached when the last byte is odd); and where the plan says it is in order
 * (etl_slices_in_order), its slices one after another must deliver what a
 * whole reading delivers, in its order, and so must they when read by one to
 * three readers that each move on from slice to slice (etl_reader_move_to_slice);
 * and a plan made with helper threads must be the one made without.  Any
 * difference aborts.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "windiff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct windiff w;

	if (size < 2)
		return 0;
	if (windiff_run(data, size - 1, 2 + data[size - 1] % 6, &w) != 0) {
		fprintf(stderr, "fuzz_windows: %zu events whole, %zu in %zu slices: %s\n", w.whole, w.parts, w.slices,
			w.why);
		abort();
	}
	if (windiff_planned(data, size - 1, 2 + data[size - 1] % 6, data[size - 1] & 1, &w) != 0) {
		fprintf(stderr, "fuzz_windows: planned slices: %s\n", w.why);
		abort();
	}
	if (windiff_in_order(data, size - 1, 2 + data[size - 1] % 6, data[size - 1] & 1, &w) < 0) {
		fprintf(stderr, "fuzz_windows: %s\n", w.why);
		abort();
	}
	if (windiff_moved(data, size - 1, 2 + data[size - 1] % 6, data[size - 1] & 1, 1 + data[size - 1] / 64 % 3, &w) <
	    0) {
		fprintf(stderr, "fuzz_windows: %s\n", w.why);
		abort();
	}
	if (windiff_helped(data, size - 1, 2 + data[size - 1] % 6, data[size - 1] & 1, &w) < 0) {
		fprintf(stderr, "fuzz_windows: %s\n", w.why);
		abort();
	}
	return 0;
}

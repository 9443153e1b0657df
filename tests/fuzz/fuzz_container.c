/*
 * fuzz_container - the zip/gzip layer: the input is presented as a zip (or
 * gzip, by the first byte's low bit) and every unpacked trace is read.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include <etl.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf;
	struct etl_reader *r;
	const struct etl_event *ev;
	int st;

	if (size < 1)
		return 0;
	buf = malloc(size + 4);
	if (!buf)
		return 0;
	/* force a container magic so that every input reaches the container code */
	if (data[0] & 1) {
		buf[0] = 0x1f;
		buf[1] = 0x8b;
	} else {
		buf[0] = 'P';
		buf[1] = 'K';
		buf[2] = 3;
		buf[3] = 4;
	}
	memcpy(buf + ((data[0] & 1) ? 2 : 4), data + 1, size - 1);
	r = etl_reader_new();
	if (r) {
		(void)etl_reader_set_limit(r, ETL_LIMIT_SPOOL_SIZE, 4u << 20);
		if (etl_reader_open_memory(r, buf, size - 1 + ((data[0] & 1) ? 2 : 4), "fuzz") == ETL_OK) {
			while ((st = etl_reader_next(r, &ev)) != ETL_END)
				if (st < 0 && etl_error_is_fatal(etl_reader_error(r)))
					break;
		}
		etl_reader_free(r);
	}
	free(buf);
	return 0;
}

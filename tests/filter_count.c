/*
 * filter_count.c - how many events of a trace a filter selects, through the C API alone (the
 * reader skipping what it can, the rest matched per event): the C third of
 * tests/python/test_filters.py, which asks etldump and the Python package the same.
 *
 *   filter_count FILTER TRACE
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>

#include <etl.h>

int main(int argc, char **argv)
{
	struct etl_reader *r = etl_reader_new();
	struct etl_filter *f = NULL;
	const struct etl_event *ev;
	unsigned long long n = 0;
	char err[300];
	int st;

	if (argc != 3 || !r) {
		fprintf(stderr, "usage: filter_count FILTER TRACE\n");
		return 2;
	}
	if (etl_filter_new(argv[1], &f, err, sizeof(err)) != ETL_OK) {
		fprintf(stderr, "filter_count: %s\n", err);
		return 2;
	}
	if (etl_reader_open_path(r, argv[2]) != ETL_OK || etl_reader_set_filter(r, f) != ETL_OK) {
		fprintf(stderr, "filter_count: %s\n", etl_error_message(etl_reader_error(r)));
		return 3;
	}
	while ((st = etl_reader_next(r, &ev)) != ETL_END) {
		int m;
		if (st != ETL_OK) {
			if (etl_error_is_fatal(etl_reader_error(r)))
				break;
			continue;
		}
		m = etl_filter_match(f, r, ev);
		if (m == ETL_FILTER_NEEDS_DECODING) {
			const struct etl_decoded *d = NULL;
			(void)etl_reader_decode(r, ev, &d);
			m = etl_filter_match_decoded(f, r, ev, d);
		}
		n += m == 1;
	}
	printf("%llu\n", n);
	etl_reader_free(r);
	etl_filter_free(f);
	return 0;
}

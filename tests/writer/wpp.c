/*
 * wpp.c - the wpp scenario: WPP messages of fixtures/tmf/ (GUID
 * aabbccdd-0000-1111-2222-333344445555), one of each message, then one whose
 * arguments are cut short, then one of a GUID no TMF file names.
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "scenario.h"

static const struct etl_guid demo = { 0xaabbccdd, 0x0000, 0x1111, { 0x22, 0x22, 0x33, 0x33, 0x44, 0x44, 0x55, 0x55 } };
static const struct etl_guid other = { 0x01020304, 0x0506, 0x0708, { 9, 10, 11, 12, 13, 14, 15, 16 } };

static int message(struct etlw *w, const struct etlw_opts *o, unsigned i, const struct etl_guid *g, uint16_t n,
		   const void *args, size_t len)
{
	struct etlw_message m;

	memset(&m, 0, sizeof(m));
	m.number = n;
	m.options = (uint16_t)(0x0002 | 0x0008 | 0x0020 | (o->ptr_size == 4 ? 0x0040 : 0x0080));
	m.guid = *g;
	m.ts = o->start_ts + 1000 * (i + 1);
	m.tid = 900 + i;
	m.pid = 4;
	return etlw_message(w, i % o->ncpu, &m, args, len);
}

int scen_build_wpp(const struct etlw_opts *o, uint8_t **out, size_t *len)
{
	static const uint8_t open_args[] = {
		'a', 0, '.', 0, 't', 0, 'x', 0, 't', 0, 0, 0, /* name */
		0x00, 0x10, 0x00, 0x00,                       /* size 4096 */
		0x20, 0x21, 0xE0, 0x0B, 0x82, 0x95, 0xFF, 0xFF, /* handle */
	};
	static const uint8_t fail_args[] = { 0x0F, 0x00, 0x00, 0xC0, 0x02 }; /* STATUS_NO_SUCH_FILE, DPC */
	struct etlw *w = etlw_new(o);
	int st = w ? 0 : -1;

	if (st == 0)
		st = message(w, o, 0, &demo, 10, NULL, 0);
	if (st == 0)
		st = message(w, o, 1, &demo, 11, open_args, sizeof(open_args));
	if (st == 0)
		st = message(w, o, 2, &demo, 12, fail_args, sizeof(fail_args));
	if (st == 0)
		st = message(w, o, 3, &demo, 11, open_args, 14); /* cut inside the size */
	if (st == 0)
		st = message(w, o, 4, &other, 1, fail_args, 4);
	if (st == 0)
		st = etlw_finish(w, out, len);
	etlw_free(w);
	return st;
}

/*
 * scenario.c - deterministic synthetic traces (see scenario.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "scenario.h"

const struct etl_guid scen_provider = { 0x11223344, 0x5566, 0x7788, { 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00 } };
const struct etl_guid scen_classic = { 0xa1b2c3d4, 0xe5f6, 0x0718, { 0x29, 0x3a, 0x4b, 0x5c, 0x6d, 0x7e, 0x8f, 0x90 } };
const struct etl_guid scen_related = { 0x01020304, 0x0506, 0x0708, { 9, 10, 11, 12, 13, 14, 15, 16 } };

enum scen_kind scen_kind_of(unsigned i)
{
	return (enum scen_kind)(i % SK_COUNT);
}

unsigned scen_cpu_of(unsigned i, unsigned ncpu)
{
	/* not simply i % ncpu, so that CPUs fill at different rates */
	return (i * 7 + i / 5) % ncpu;
}

uint64_t scen_ts_of(const struct etlw_opts *o, unsigned i, unsigned ncpu)
{
	/* increasing overall, with equal stamps across CPUs now and then */
	return o->start_ts + 100 + (uint64_t)i * 3 - (uint64_t)(i % 2) - scen_cpu_of(i, ncpu) % 2;
}

size_t scen_payload_len(unsigned i)
{
	return (i * 13) % 61;
}

uint8_t scen_payload_byte(unsigned i, size_t k)
{
	return (uint8_t)(i * 31 + k * 7);
}

int scen_write_mixed(struct etlw *w, const struct etlw_opts *o, unsigned n)
{
	uint8_t payload[64];
	unsigned i, ncpu = o->ncpu;

	for (i = 0; i < n; i++) {
		unsigned cpu = scen_cpu_of(i, ncpu);
		uint64_t ts = scen_ts_of(o, i, ncpu);
		size_t len = scen_payload_len(i), k;
		int st = 0;

		for (k = 0; k < len; k++)
			payload[k] = scen_payload_byte(i, k);
		switch (scen_kind_of(i)) {
		case SK_SYSTEM:
			/* version 9: no built-in layout, so these random payloads stay raw */
			st = etlw_system(w, cpu, 0, 9, (uint16_t)(0x0300 | (i % 4 + 1)), 1000 + i, 4, ts, payload, len);
			break;
		case SK_COMPACT:
			st = etlw_system(w, cpu, 1, 9, 0x0524, 2000 + i, 8, ts, payload, len);
			break;
		case SK_PERFINFO: {
			uint64_t pmc[2] = { 0x1111111111111111ULL * (i % 7), i };
			uint64_t pebs = 0xABCD0000u + i;
			st = etlw_perfinfo(w, cpu, 3, 0x0F2E, ts, pmc, i % 3, (i % 2) ? &pebs : NULL, payload, len);
			break;
		}
		case SK_FULL:
		case SK_INSTANCE: {
			struct etlw_classic c;
			memset(&c, 0, sizeof(c));
			c.guid = scen_classic;
			c.type = (uint8_t)(i % 40);
			c.level = 4;
			c.version = 2;
			c.tid = 3000 + i;
			c.pid = 12;
			c.ts = ts;
			c.instance = scen_kind_of(i) == SK_INSTANCE;
			c.instance_id = i;
			c.parent_instance_id = i / 2;
			c.parent_guid = scen_related;
			st = etlw_classic(w, cpu, &c, payload, len);
			break;
		}
		case SK_EVENT: {
			struct etlw_event e;
			struct etlw_ext ext[2];
			uint8_t stack[8 + 3 * 8], related[16];
			unsigned next = 0;
			memset(&e, 0, sizeof(e));
			e.provider = scen_provider;
			e.id = (uint16_t)(i % 100);
			e.version = 1;
			e.channel = 16;
			e.level = 4;
			e.opcode = (uint8_t)(i % 10);
			e.task = (uint16_t)(i % 20);
			e.keywords = 0x8000000000000000ULL | i;
			e.tid = 4000 + i;
			e.pid = 16;
			e.ts = ts;
			e.activity.data1 = i;
			if (i % 3 == 0) {
				ext[next].type = 1;
				etlw_put_guid(related, &scen_related); /* as the file holds it, whatever the host's order */
				ext[next].data = related;
				ext[next].len = 16;
				next++;
			}
			if (i % 2 == 0) {
				memset(stack, 0, sizeof(stack));
				stack[0] = (uint8_t)i;
				stack[8] = 0x10;
				ext[next].type = 6;
				ext[next].data = stack;
				ext[next].len = sizeof(stack);
				next++;
			}
			st = etlw_event(w, cpu, &e, next ? ext : NULL, next, payload, len);
			break;
		}
		case SK_MESSAGE: {
			struct etlw_message m;
			memset(&m, 0, sizeof(m));
			m.number = (uint16_t)(i % 50);
			/* every other message lacks a timestamp: it inherits its stream's */
			m.options = (uint16_t)(0x0001 | 0x0002 | 0x0020 | ((i / 7) % 2 ? 0 : 0x0008) | 0x0080);
			m.sequence = i;
			m.guid = scen_classic;
			m.ts = ts;
			m.tid = 5000 + i;
			m.pid = 20;
			st = etlw_message(w, cpu, &m, payload, len);
			break;
		}
		default:
			break;
		}
		if (st)
			return -1;
	}
	return 0;
}

int scen_build_mixed(const struct etlw_opts *o, unsigned n, uint8_t **out, size_t *len)
{
	struct etlw *w = etlw_new(o);
	int st;

	if (!w)
		return -1;
	st = scen_write_mixed(w, o, n);
	if (st == 0)
		st = etlw_finish(w, out, len);
	etlw_free(w);
	return st;
}

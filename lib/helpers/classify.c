/*
 * classify.c - which records may describe something, from their headers alone (the light
 * readings of reader/plan.c, and the helpers that read the facts of state records ahead of the
 * merge, prefetch.c).
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "helpers/classify.h"

/* etl__state_may_change of a kernel hook and version, remembered (a trace repeats a few). */
static int kernel_may_change(struct plan_classes *k, uint16_t hook, uint8_t version)
{
	uint32_t key = (uint32_t)hook << 8 | version, *slot = &k->kernel_seen[(hook ^ hook >> 7 ^ version) % 256];

	if ((*slot >> 1) != key + 1) /* (0: empty) */
		*slot = (key + 1) << 1 | (uint32_t)etl__state_may_change(&k->dec, hook >> 8, hook & 0xFF, version);
	return *slot & 1;
}

/* Whether the record peek describes would update what the reader keeps, asked of
 * etl_event_updates_state with the fields it reads set as etl__record_parse sets them (a class
 * GUID's answers kept for its 256 opcodes); a kernel record without a layout changes nothing.
 * The answers depend on the record alone: k holds what was asked (one per thread). */
int etl__plan_describes(struct plan_classes *k, const uint8_t *data, size_t pos, const struct etl_peek *pk)
{
	struct plan_classify *c = k->cls;
	unsigned op;

	switch (pk->kind) {
	case ETL_HEADER_MESSAGE:
		return 0;
	case ETL_HEADER_FULL: case ETL_HEADER_INSTANCE:
		c += pk->kind == ETL_HEADER_INSTANCE;
		if (!c->have || memcmp(c->guid, data + pk->guid_at, 16) != 0) {
			memcpy(c->guid, data + pk->guid_at, 16);
			c->have = 1;
			etl_guid_from_le(c->guid, &c->cls.provider);
			c->cls.kind = pk->kind;
			for (op = 0; op < 256; op++) {
				c->cls.opcode = (uint8_t)op;
				c->by_opcode[op / 8] = (uint8_t)((c->by_opcode[op / 8] & ~(1u << op % 8)) |
								 (unsigned)etl_event_updates_state(&c->cls) << op % 8);
			}
		}
		return (c->by_opcode[pk->opcode / 8] >> pk->opcode % 8) & 1;
	case ETL_HEADER_EVENT:
		if (pk->id != 0xFFFE)
			return 0; /* (only EventSource manifest chunks; check_slices asks every kind) */
		c->cls.kind = ETL_HEADER_EVENT;
		c->cls.id = pk->id;
		c->cls.opcode = pk->opcode;
		return etl_event_updates_state(&c->cls);
	default: /* a kernel header: a kind the tables keep, with a layout (else it decodes to nothing) */
		return kernel_may_change(k, pk->hook, data[pos]);
	}
}

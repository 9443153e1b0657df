/*
 * classify.h - which records describe something (etl_event_updates_state), by their header alone:
 * what the light readings of a slice plan and of the helper threads ask (classify.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_HELPERS_CLASSIFY_H
#define ETL_HELPERS_CLASSIFY_H

#include "decode/decode.h"
#include "record/record.h"
#include "state/state.h"

/* Which records describe something (classify.c): the last class GUID's answers, by opcode (one for
 * full headers, one for instance headers) */
struct plan_classify {
	struct etl_event cls;
	int have;
	uint8_t guid[16];
	uint8_t by_opcode[32];
};

/* What a light reading asked of the record kinds it met, and the answers (etl__plan_describes):
 * the planning thread's and each helper's own. */
struct plan_classes {
	struct plan_classify cls[2];
	uint32_t kernel_seen[256]; /* kernel hooks and versions asked, and the answers */
	struct etl_decode_state dec; /* scratch for the kernel kinds */
};

/* Whether the record peek pk describes (at pos of data) would update what the reader keeps
 * (etl_event_updates_state), by its header alone; k remembers the answers (classify.c). */
int etl__plan_describes(struct plan_classes *k, const uint8_t *data, size_t pos, const struct etl_peek *pk);

#endif

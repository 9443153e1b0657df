/*
 * scenario.h - deterministic synthetic traces for tests and the benchmark.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETLW_SCENARIO_H
#define ETLW_SCENARIO_H

#include "etlw.h"

/* Record kinds the mixed scenario cycles through, in this order. */
enum scen_kind { SK_SYSTEM, SK_COMPACT, SK_PERFINFO, SK_FULL, SK_INSTANCE, SK_EVENT, SK_MESSAGE, SK_COUNT };

extern const struct etl_guid scen_provider;  /* EVENT_HEADER provider */
extern const struct etl_guid scen_classic;   /* FULL/INSTANCE class */
extern const struct etl_guid scen_related;   /* related activity id on every 3rd EVENT record */

/* What record i of the mixed scenario is. */
enum scen_kind scen_kind_of(unsigned i);
unsigned scen_cpu_of(unsigned i, unsigned ncpu);
uint64_t scen_ts_of(const struct etlw_opts *o, unsigned i, unsigned ncpu);
size_t scen_payload_len(unsigned i);
uint8_t scen_payload_byte(unsigned i, size_t k);

/* Writes n records of the mixed scenario.  Returns 0 or -1. */
int scen_write_mixed(struct etlw *w, const struct etlw_opts *o, unsigned n);
/* Builds a whole file (malloc'd). */
int scen_build_mixed(const struct etlw_opts *o, unsigned n, uint8_t **out, size_t *len);

#endif

/*
 * tlg.h - TraceLogging metadata and provider traits.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_DECODE_TLG_H
#define ETL_DECODE_TLG_H

#include "schema/schema.h"

/* Builds a schema from an EVENT_SCHEMA_TL item (one allocation, free with etl__schema_free). */
int etl__tlg_schema(const uint8_t *meta, size_t len, struct etl_schema *out, struct etl_diag *d);
/* The provider name inside a PROV_TRAITS item: points into the item, not NUL-terminated by contract. */
int etl__tlg_provider_name(const uint8_t *traits, size_t len, const char **name, size_t *name_len);

/* The provider group GUID of a PROV_TRAITS item: 1 and *group, or 0. */
int etl__tlg_provider_group(const uint8_t *traits, size_t len, struct etl_guid *group);

#endif

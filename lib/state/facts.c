/*
 * facts.c - the fields of a Process, Thread or Image record that the state
 * tables take, read once into a flat blob (see facts.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "internal.h"
#include "state/facts.h"

/* The fields by their layout names (the same literals as the kernel layouts: the lookup by
 * name compares addresses first). */
static const char *const int_names[FI_COUNT] = { "ProcessID", "ParentID", "SessionID", "ExitStatus",
						  "ThreadID", "ImageBase", "ImageSize" };
static const char *const text_names[FT_COUNT] = { "ImageFileName", "CommandLine", "ThreadName", "FileName" };

/* Room for n more bytes at *len of *buf; 0 without memory. */
static int room(uint8_t **buf, size_t *cap, size_t len, size_t n)
{
	return etl__grow(buf, cap, len + n, 1, 256) == 0;
}

size_t etl__fact_build(uint8_t **buf, size_t *cap, const struct etl_decoded *d, uint32_t int_mask,
		       uint32_t text_mask)
{
	struct etl_fact f;
	size_t len = sizeof(f);
	unsigned k;

	memset(&f, 0, sizeof(f));
	if (!room(buf, cap, 0, len))
		return 0;
	f.decoded = d != NULL;
	for (k = 0; d && k < FI_COUNT; k++) {
		const struct etl_property *p;
		int64_t s;

		if (!(int_mask >> k & 1) || !(p = etl_decoded_property_by_name(d, int_names[k])))
			continue;
		if (k == FI_EXIT_STATUS ? etl_property_as_i64(p, &s) == ETL_OK
					: etl_property_as_u64(p, &f.v[k]) == ETL_OK) {
			if (k == FI_EXIT_STATUS)
				f.v[k] = (uint64_t)s;
			f.ints |= 1u << k;
		}
	}
	for (k = 0; d && k < FT_COUNT; k++) {
		const struct etl_property *p;
		const char *s;
		size_t n;

		if (!(text_mask >> k & 1) || !(p = etl_decoded_property_by_name(d, text_names[k])))
			continue;
		f.present |= 1u << k;
		if (etl_property_as_utf8(p, &s, &n) != ETL_OK)
			continue;
		if (!room(buf, cap, len, n + 1))
			return 0;
		if (n)
			memcpy(*buf + len, s, n);
		(*buf)[len + n] = 0;
		f.off[k] = (uint32_t)len;
		f.len[k] = (uint32_t)n;
		f.texts |= 1u << k;
		len += n + 1;
	}
	memcpy(*buf, &f, sizeof(f));
	return len;
}

void etl__fact_read(const uint8_t *blob, struct etl_fact *f)
{
	memcpy(f, blob, sizeof(*f));
}

int etl__fact_u64(const struct etl_fact *f, enum etl_fact_int k, uint64_t *v)
{
	if (!(f->ints >> k & 1))
		return 0;
	*v = f->v[k];
	return 1;
}

int etl__fact_present(const struct etl_fact *f, enum etl_fact_text k)
{
	return f->present >> k & 1;
}

const char *etl__fact_text(const struct etl_fact *f, const uint8_t *blob, enum etl_fact_text k, size_t *len)
{
	if (!(f->texts >> k & 1))
		return NULL;
	*len = f->len[k];
	return (const char *)blob + f->off[k];
}

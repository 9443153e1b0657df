/*
 * facts.c - the fields of a Process, Thread or Image record that the state
 * tables take, read once into a flat blob (see facts.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "internal.h"
#include "state/facts.h"
#include "util/cursor.h"

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

#define FACT_HEAD 104u /* the header as bytes: 4 + 7 + 8 fields */
_Static_assert(sizeof(struct etl_fact) == FACT_HEAD, "a fact's header is 104 bytes on every host");

void etl__fact_to_le(const uint8_t *blob, size_t len, uint8_t *out)
{
	struct etl_fact f;
	unsigned k;

	etl__fact_read(blob, &f);
	etl_put_le32(out, f.decoded);
	etl_put_le32(out + 4, f.ints);
	etl_put_le32(out + 8, f.present);
	etl_put_le32(out + 12, f.texts);
	for (k = 0; k < FI_COUNT; k++)
		etl_put_le64(out + 16 + 8 * k, f.v[k]);
	for (k = 0; k < FT_COUNT; k++) {
		etl_put_le32(out + 72 + 4 * k, f.off[k]);
		etl_put_le32(out + 88 + 4 * k, f.len[k]);
	}
	memcpy(out + FACT_HEAD, blob + FACT_HEAD, len - FACT_HEAD);
}

int etl__fact_from_le(const uint8_t *in, size_t n, uint8_t *out)
{
	struct etl_fact f;
	unsigned k;

	if (n < FACT_HEAD)
		return -1;
	f.decoded = etl_le32(in);
	f.ints = etl_le32(in + 4);
	f.present = etl_le32(in + 8);
	f.texts = etl_le32(in + 12);
	if (f.decoded > 1 || f.ints >> FI_COUNT || f.present >> FT_COUNT || (f.texts & ~f.present))
		return -1;
	for (k = 0; k < FI_COUNT; k++)
		f.v[k] = etl_le64(in + 16 + 8 * k);
	for (k = 0; k < FT_COUNT; k++) {
		f.off[k] = etl_le32(in + 72 + 4 * k);
		f.len[k] = etl_le32(in + 88 + 4 * k);
		if ((f.texts >> k & 1) &&
		    (f.off[k] < FACT_HEAD || f.off[k] >= n || f.len[k] >= n - f.off[k] || in[f.off[k] + f.len[k]] != 0))
			return -1;
	}
	memcpy(out, &f, sizeof(f));
	if (out != in)
		memcpy(out + FACT_HEAD, in + FACT_HEAD, n - FACT_HEAD);
	return 0;
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

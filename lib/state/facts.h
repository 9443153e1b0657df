/*
 * facts.h - what one Process, Thread or Image record says about the system,
 * read once from its decoding: the fields the state tables take (state.c),
 * as a flat blob.  The reader that delivers the record keeps the blob with
 * the event and a copy of the event carries it (event.c), so that another
 * reader given the copy (etl_reader_observe) learns from it without decoding
 * the record again.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_STATE_FACTS_H
#define ETL_STATE_FACTS_H

#include "decode/decode.h"

enum etl_fact_int {
	FI_PROCESS_ID, FI_PARENT_ID, FI_SESSION_ID, FI_EXIT_STATUS, FI_THREAD_ID, FI_IMAGE_BASE, FI_IMAGE_SIZE,
	FI_COUNT
};
enum etl_fact_text { FT_IMAGE_FILE_NAME, FT_COMMAND_LINE, FT_THREAD_NAME, FT_FILE_NAME, FT_COUNT };

/* The blob's header; its texts follow it, each ended by a NUL. */
struct etl_fact {
	uint32_t decoded;               /* 0: the record did not decode (nothing to learn) */
	uint32_t ints;                  /* bit k: integer k was read (ExitStatus: as a signed value) */
	uint32_t present, texts;        /* bit k: string property k is there; its text was read */
	uint64_t v[FI_COUNT];
	uint32_t off[FT_COUNT], len[FT_COUNT]; /* of each text, from the blob's start */
};

/* Writes the fact of decoding d (NULL: the record did not decode) into *buf, grown as needed:
 * the integers of int_mask and the texts of text_mask (bits by enum value).  Its length, or 0
 * without memory. */
size_t etl__fact_build(uint8_t **buf, size_t *cap, const struct etl_decoded *d, uint32_t int_mask,
		       uint32_t text_mask);
/* A blob as bytes of the same meaning on every host (little-endian; a time slice's state
 * carries them, reader/slice.c): len bytes into out. */
void etl__fact_to_le(const uint8_t *blob, size_t len, uint8_t *out);
/* The blob of this host from n such bytes, into out (n bytes; out may be in: made in place): 0,
 * or -1 when they are not one (fewer than a header, a bit of no field, a text outside them or
 * without its NUL). */
int etl__fact_from_le(const uint8_t *in, size_t n, uint8_t *out);
/* The header of a blob made by etl__fact_build. */
void etl__fact_read(const uint8_t *blob, struct etl_fact *f);
/* Integer k: 1 with *v, or 0 when the record did not give it. */
int etl__fact_u64(const struct etl_fact *f, enum etl_fact_int k, uint64_t *v);
/* Whether string property k is in the record (read or not). */
int etl__fact_present(const struct etl_fact *f, enum etl_fact_text k);
/* Text k (NUL-terminated, *len bytes before the NUL), or NULL when absent or unreadable. */
const char *etl__fact_text(const struct etl_fact *f, const uint8_t *blob, enum etl_fact_text k, size_t *len);

#endif

/*
 * msf.c - the MSF 7.00 container (see msf.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "pdb/msf.h"
#include "util/cursor.h"

static const char msf_magic[32] = "Microsoft C/C++ MSF 7.00\r\n\x1a" "DS\0\0";
static const char msf2_magic[] = "Microsoft C/C++ program database 2.00\r\n";

#define SUPERBLOCK_SIZE 56u

static int valid_block_size(uint32_t bs)
{
	return bs >= 512 && bs <= 32768 && (bs & (bs - 1)) == 0;
}

/* Reads the superblock; ETL_OK with the directory's size and map block. */
static int superblock(struct etl_msf *m, uint32_t *dir_bytes, uint32_t *dir_map, struct etl_diag *d)
{
	uint8_t b[SUPERBLOCK_SIZE];
	struct etl_cursor c;
	uint64_t blocks_in_file;

	if (m->src.size < SUPERBLOCK_SIZE) {
		etl__diag_set(d, ETL_E_FORMAT, 0, "not a PDB file: %llu bytes, shorter than an MSF superblock",
			      (unsigned long long)m->src.size);
		return ETL_E_FORMAT;
	}
	if (etl__source_read(&m->src, 0, b, sizeof(b), d) != ETL_OK)
		return d->code;
	if (memcmp(b, msf_magic, sizeof(msf_magic)) != 0) {
		int old = memcmp(b, msf2_magic, sizeof(msf2_magic) - 1) == 0;
		etl__diag_set(d, old ? ETL_E_UNSUPPORTED : ETL_E_FORMAT, 0, "%s",
			      old ? "a PDB of the old format (MSF 2.00) is not supported"
				  : "not a PDB file: no MSF 7.00 signature");
		return d->code;
	}
	cur_init(&c, b + 32, sizeof(b) - 32);
	m->block_size = cur_u32(&c);
	(void)cur_u32(&c); /* free block map */
	m->block_count = cur_u32(&c);
	*dir_bytes = cur_u32(&c);
	(void)cur_u32(&c);
	*dir_map = cur_u32(&c);
	if (!valid_block_size(m->block_size)) {
		etl__diag_set(d, ETL_E_FORMAT, 32, "PDB block size %u is not a power of two from 512 to 32768",
			      m->block_size);
		return ETL_E_FORMAT;
	}
	blocks_in_file = (m->src.size + m->block_size - 1) / m->block_size;
	if (m->block_count == 0 || m->block_count > blocks_in_file) {
		etl__diag_set(d, ETL_E_FORMAT, 40, "PDB claims %u blocks of %u bytes, past the file's %llu bytes",
			      m->block_count, m->block_size, (unsigned long long)m->src.size);
		return ETL_E_FORMAT;
	}
	if (*dir_bytes < 4 || *dir_map == 0 || *dir_map >= m->block_count) {
		etl__diag_set(d, ETL_E_FORMAT, 44, "PDB stream directory (%u bytes at map block %u) is not in the file",
			      *dir_bytes, *dir_map);
		return ETL_E_FORMAT;
	}
	return ETL_OK;
}

/* Reads n bytes at off of the blocks listed in blk (checked numbers) into dst. */
static int read_blocks(const struct etl_msf *m, const uint32_t *blk, uint32_t off, uint8_t *dst, size_t n,
		       struct etl_diag *d)
{
	while (n) {
		uint32_t b = blk[off / m->block_size], in = off % m->block_size;
		size_t k = m->block_size - in;
		if (k > n)
			k = n;
		if (etl__source_read(&m->src, (uint64_t)b * m->block_size + in, dst, k, d) != ETL_OK)
			return d->code;
		dst += k;
		off += (uint32_t)k;
		n -= k;
	}
	return ETL_OK;
}

/* Whether every one of n block numbers is a block of the file other than the superblock; else
 * d says which (at where, the directory's offset of the list). */
static int blocks_ok(const struct etl_msf *m, const uint32_t *blk, size_t n, const char *what, struct etl_diag *d)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (blk[i] == 0 || blk[i] >= m->block_count) {
			etl__diag_set(d, ETL_E_FORMAT, (uint64_t)(blk[i] < m->block_count ? 0 : blk[i]) * m->block_size,
				      "PDB %s lists block %u, outside the file's %u blocks", what, blk[i], m->block_count);
			return 0;
		}
	}
	return 1;
}

/* The directory's bytes, read through its map block. */
static int load_directory(struct etl_msf *m, uint32_t dir_bytes, uint32_t dir_map, uint8_t **out,
			  struct etl_diag *d)
{
	uint32_t nblk = (dir_bytes + m->block_size - 1) / m->block_size, i;
	uint32_t *blk;
	uint8_t *raw;
	int st;

	if (nblk > m->block_size / 4 || nblk > m->block_count) {
		etl__diag_set(d, ETL_E_UNSUPPORTED, (uint64_t)dir_map * m->block_size,
			      "PDB stream directory of %u bytes needs %u blocks, more than one map block lists", dir_bytes,
			      nblk);
		return d->code;
	}
	blk = etl__malloc((size_t)nblk * 4);
	raw = etl__malloc((size_t)nblk * 4);
	*out = etl__malloc(dir_bytes);
	if (!blk || !raw || !*out) {
		st = ETL_E_NOMEM;
		etl__diag_set(d, st, ETL_OFFSET_NONE, "out of memory");
		goto done;
	}
	st = etl__source_read(&m->src, (uint64_t)dir_map * m->block_size, raw, (size_t)nblk * 4, d);
	for (i = 0; st == ETL_OK && i < nblk; i++)
		blk[i] = etl_le32(raw + 4 * i);
	if (st == ETL_OK && !blocks_ok(m, blk, nblk, "stream directory", d))
		st = ETL_E_FORMAT;
	if (st == ETL_OK)
		st = read_blocks(m, blk, 0, *out, dir_bytes, d);
done:
	etl__free(blk);
	etl__free(raw);
	if (st != ETL_OK) {
		etl__free(*out);
		*out = NULL;
	}
	return st;
}

/* Parses the directory: sizes and block lists, every number checked. */
static int parse_directory(struct etl_msf *m, const uint8_t *dir, uint32_t dir_bytes, uint64_t at,
			   struct etl_diag *d)
{
	struct etl_cursor c;
	uint64_t total = 0;
	uint32_t i;

	cur_init(&c, dir, dir_bytes);
	m->nstreams = cur_u32(&c);
	if (m->nstreams > MSF_MAX_STREAMS || m->nstreams > cur_left(&c) / 4) {
		etl__diag_set(d, ETL_E_FORMAT, at, "PDB stream directory claims %u streams in %u bytes", m->nstreams,
			      dir_bytes);
		return ETL_E_FORMAT;
	}
	m->size = etl__calloc(m->nstreams + 1, sizeof(*m->size));
	m->first = etl__calloc(m->nstreams + 1, sizeof(*m->first));
	if (!m->size || !m->first)
		goto nomem;
	for (i = 0; i < m->nstreams; i++) {
		uint32_t sz = cur_u32(&c);
		m->size[i] = sz == UINT32_MAX ? 0 : sz;
		m->first[i] = (uint32_t)total;
		total += (m->size[i] + (uint64_t)m->block_size - 1) / m->block_size;
	}
	if (total > m->block_count || total > cur_left(&c) / 4) {
		etl__diag_set(d, ETL_E_FORMAT, at,
			      "PDB streams need %llu blocks: more than the file's %u or the directory's %zu numbers",
			      (unsigned long long)total, m->block_count, cur_left(&c) / 4);
		return ETL_E_FORMAT;
	}
	m->first[m->nstreams] = (uint32_t)total;
	if (!(m->blocks = etl__malloc((size_t)(total ? total : 1) * 4)))
		goto nomem;
	for (i = 0; i < total; i++)
		m->blocks[i] = cur_u32(&c);
	return blocks_ok(m, m->blocks, (size_t)total, "stream directory", d) ? ETL_OK : ETL_E_FORMAT;
nomem:
	etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
	return ETL_E_NOMEM;
}

int etl__msf_open(struct etl_msf *m, struct etl_source *src, struct etl_diag *d)
{
	uint32_t dir_bytes = 0, dir_map = 0;
	uint8_t *dir = NULL;
	int st;

	memset(m, 0, sizeof(*m));
	m->src = *src;
	etl__source_init(src);
	st = superblock(m, &dir_bytes, &dir_map, d);
	if (st == ETL_OK && dir_bytes > (uint64_t)m->block_count * m->block_size) {
		etl__diag_set(d, ETL_E_FORMAT, 44, "PDB stream directory of %u bytes is larger than the file", dir_bytes);
		st = ETL_E_FORMAT;
	}
	if (st == ETL_OK)
		st = load_directory(m, dir_bytes, dir_map, &dir, d);
	if (st == ETL_OK)
		st = parse_directory(m, dir, dir_bytes, (uint64_t)dir_map * m->block_size, d);
	etl__free(dir);
	if (st != ETL_OK)
		etl__msf_close(m);
	return st;
}

uint32_t etl__msf_stream_size(const struct etl_msf *m, uint32_t s)
{
	return s < m->nstreams ? m->size[s] : 0;
}

int etl__msf_read(const struct etl_msf *m, uint32_t s, uint32_t off, void *dst, size_t n, struct etl_diag *d)
{
	uint32_t size = etl__msf_stream_size(m, s);

	if (off > size || n > size - off) {
		etl__diag_set(d, ETL_E_FORMAT, ETL_OFFSET_NONE, "PDB stream %u: %zu bytes at %u, past its %u bytes", s, n,
			      off, size);
		return ETL_E_FORMAT;
	}
	return read_blocks(m, m->blocks + m->first[s], off, dst, n, d);
}

int etl__msf_load(const struct etl_msf *m, uint32_t s, uint32_t max, uint8_t **out, uint32_t *len,
		  struct etl_diag *d)
{
	uint32_t size = etl__msf_stream_size(m, s);
	int st;

	*out = NULL;
	*len = 0;
	if (size > max) {
		etl__diag_set(d, ETL_E_LIMIT, ETL_OFFSET_NONE, "PDB stream %u of %u bytes is larger than %u", s, size, max);
		return ETL_E_LIMIT;
	}
	if (!size)
		return ETL_OK;
	if (!(*out = etl__malloc(size))) {
		etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
		return ETL_E_NOMEM;
	}
	st = etl__msf_read(m, s, 0, *out, size, d);
	if (st != ETL_OK) {
		etl__free(*out);
		*out = NULL;
		return st;
	}
	*len = size;
	return ETL_OK;
}

void etl__msf_close(struct etl_msf *m)
{
	etl__source_close(&m->src);
	etl__free(m->size);
	etl__free(m->first);
	etl__free(m->blocks);
	memset(m, 0, sizeof(*m));
	m->src.fd = -1;
}

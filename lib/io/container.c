/*
 * container.c - gzip streams and zip archives around traces.
 *
 * gzip (RFC 1952): every member of a multi-member stream is inflated, in
 * order, into one temporary file.  zip (PKWARE APPNOTE): the central
 * directory at the end lists the members; where it is missing or damaged
 * (a truncated download), the local file headers are walked from the
 * start instead.  Members are stored (method 0) or deflated (method 8);
 * zip64 sizes and offsets are understood.  Every member is unpacked into
 * an anonymous temporary file (never into memory, never beyond the spool
 * limit), its CRC-32 checked, and its first bytes examined: a member is a
 * trace if it starts with a header buffer, whatever its name.
 *
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <zlib.h>

#include "io/container.h"
#include "util/cursor.h"

#define CHUNK 65536u
#define ZIP_LOCAL 0x04034b50u
#define ZIP_CENTRAL 0x02014b50u
#define ZIP_EOCD 0x06054b50u
#define ZIP64_EOCD 0x06064b50u
#define ZIP64_LOCATOR 0x07064b50u
#define ZIP_MAX_MEMBERS 65536u

enum etl_container etl__container_sniff(const struct etl_source *src)
{
	uint8_t b[4];
	struct etl_diag ignored;

	if (src->size < 4 || etl__source_read(src, 0, b, 4, &ignored) != ETL_OK)
		return ETL_CONTAINER_NONE;
	if (b[0] == 0x1f && b[1] == 0x8b)
		return ETL_CONTAINER_GZIP;
	if (etl_le32(b) == ZIP_LOCAL || etl_le32(b) == ZIP_EOCD)
		return ETL_CONTAINER_ZIP;
	return ETL_CONTAINER_NONE;
}

/* ---- output: an anonymous temporary file ---- */

struct spool {
	FILE *f;
	uint64_t len, limit;
	uint32_t crc;
};

static int spool_open(struct spool *s, uint64_t limit, struct etl_diag *d)
{
	s->f = tmpfile();
	s->len = 0;
	s->limit = limit;
	s->crc = (uint32_t)crc32(0L, Z_NULL, 0);
	if (!s->f) {
		etl__diag_set(d, ETL_E_IO, ETL_OFFSET_NONE, "cannot create a temporary file: %s",
			      strerror(errno));
		return ETL_E_IO;
	}
	return ETL_OK;
}

static int spool_write(struct spool *s, const uint8_t *p, size_t n, uint64_t at, struct etl_diag *d)
{
	if (n > s->limit - s->len) {
		/* keep what fits: the trace up to the limit stays readable */
		size_t fit = (size_t)(s->limit - s->len);
		if (fit && fwrite(p, 1, fit, s->f) == fit)
			s->len += fit;
		etl__diag_set(d, ETL_E_LIMIT, at, "unpacked data exceeds the spool limit of %llu bytes",
			      (unsigned long long)s->limit);
		return ETL_E_LIMIT;
	}
	if (n && fwrite(p, 1, n, s->f) != n) {
		etl__diag_set(d, ETL_E_IO, at, "cannot write a temporary file: %s", strerror(errno));
		return ETL_E_IO;
	}
	s->crc = (uint32_t)crc32(s->crc, p, (uInt)n);
	s->len += n;
	return ETL_OK;
}

/* Hands the spool to a source (it becomes the member's bytes). */
static int spool_finish(struct spool *s, struct etl_source *src, struct etl_diag *d)
{
	if (fflush(s->f) != 0) {
		etl__diag_set(d, ETL_E_IO, ETL_OFFSET_NONE, "cannot write a temporary file: %s", strerror(errno));
		fclose(s->f);
		s->f = NULL;
		return ETL_E_IO;
	}
	etl__source_init(src);
	src->spool = s->f;
	src->fd = fileno(s->f);
	src->size = s->len;
	s->f = NULL;
	return ETL_OK;
}

static void spool_abort(struct spool *s)
{
	if (s->f)
		fclose(s->f);
	s->f = NULL;
}

/* ---- inflate from the source into a spool ---- */

/*
 * Inflates from src at off (at most avail_in bytes).  raw: a raw deflate
 * stream (zip); else a gzip stream, whose later members are inflated too.
 * *used receives the compressed bytes consumed.  Returns ETL_OK at the end
 * of the stream; on damage returns < 0 with d set, keeping what was written.
 */
static int inflate_into(const struct etl_source *src, uint64_t off, uint64_t avail_in, int raw,
			struct spool *out, uint64_t *used, struct etl_diag *d)
{
	uint8_t *in = etl__malloc(CHUNK), *buf = etl__malloc(CHUNK);
	z_stream z;
	uint64_t pos = off, end = off + avail_in;
	int st = ETL_OK, zr = Z_OK;

	memset(&z, 0, sizeof(z));
	if (!in || !buf || inflateInit2(&z, raw ? -15 : 15 + 16) != Z_OK) {
		etl__free(in);
		etl__free(buf);
		etl__diag_set(d, ETL_E_NOMEM, off, "out of memory for inflate");
		return ETL_E_NOMEM;
	}
	for (;;) {
		if (z.avail_in == 0) {
			size_t n = end - pos > CHUNK ? CHUNK : (size_t)(end - pos);
			if (n == 0) {
				etl__diag_set(d, ETL_E_TRUNCATED, pos,
					      "%s stream ends early after %llu compressed bytes",
					      raw ? "deflate" : "gzip", (unsigned long long)(pos - off));
				st = ETL_E_TRUNCATED;
				break;
			}
			st = etl__source_read(src, pos, in, n, d);
			if (st != ETL_OK)
				break;
			pos += n;
			z.next_in = in;
			z.avail_in = (uInt)n;
		}
		z.next_out = buf;
		z.avail_out = CHUNK;
		zr = inflate(&z, Z_NO_FLUSH);
		/* keep what this call produced, even when it then failed */
		st = spool_write(out, buf, CHUNK - z.avail_out, pos - z.avail_in, d);
		if (st != ETL_OK)
			break;
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) {
			etl__diag_set(d, zr == Z_MEM_ERROR ? ETL_E_NOMEM : ETL_E_FORMAT,
				      pos - z.avail_in, "%s data is corrupt: %s", raw ? "deflate" : "gzip",
				      z.msg ? z.msg : "inflate failed");
			st = zr == Z_MEM_ERROR ? ETL_E_NOMEM : ETL_E_FORMAT;
			break;
		}
		if (zr == Z_STREAM_END) {
			uint64_t here = pos - z.avail_in;
			uint8_t magic[2];

			/* gzip: another member may follow (as `cat a.gz b.gz` makes). */
			if (!raw && end - here >= 2 && etl__source_read(src, here, magic, 2, d) == ETL_OK &&
			    magic[0] == 0x1f && magic[1] == 0x8b) {
				inflateReset(&z);
				continue;
			}
			*used = here - off;
			break;
		}
		if (zr == Z_BUF_ERROR && z.avail_in != 0) { /* no progress possible */
			etl__diag_set(d, ETL_E_FORMAT, pos - z.avail_in, "%s data is corrupt",
				      raw ? "deflate" : "gzip");
			st = ETL_E_FORMAT;
			break;
		}
	}
	inflateEnd(&z);
	etl__free(in);
	etl__free(buf);
	return st;
}

static int copy_into(const struct etl_source *src, uint64_t off, uint64_t n, struct spool *out,
		     struct etl_diag *d)
{
	uint8_t *buf = etl__malloc(CHUNK);
	int st = ETL_OK;

	if (!buf) {
		etl__diag_set(d, ETL_E_NOMEM, off, "out of memory");
		return ETL_E_NOMEM;
	}
	while (n > 0) {
		size_t k = n > CHUNK ? CHUNK : (size_t)n;
		if (off > src->size || k > src->size - off) {
			k = off < src->size ? (size_t)(src->size - off) : 0;
			if (k == 0) {
				etl__diag_set(d, ETL_E_TRUNCATED, off, "stored member ends early: %llu bytes missing",
					      (unsigned long long)n);
				st = ETL_E_TRUNCATED;
				break;
			}
		}
		st = etl__source_read(src, off, buf, k, d);
		if (st == ETL_OK)
			st = spool_write(out, buf, k, off, d);
		if (st != ETL_OK)
			break;
		off += k;
		n -= k;
	}
	etl__free(buf);
	return st;
}

/* ---- members ---- */

static int add_member(struct etl_members *ms, const char *name, size_t name_len, struct etl_diag *d)
{
	struct etl_member *n;
	char *s;

	if (ms->count >= ZIP_MAX_MEMBERS) {
		etl__diag_set(d, ETL_E_LIMIT, ETL_OFFSET_NONE, "archive has more than %u members",
			      ZIP_MAX_MEMBERS);
		return ETL_E_LIMIT;
	}
	s = etl__malloc(name_len + 1);
	if (!s || etl__grow(&ms->m, &ms->cap, ms->count + 1, sizeof(*ms->m), 4) != 0) {
		etl__free(s);
		etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
		return ETL_E_NOMEM;
	}
	n = ms->m;
	memcpy(s, name, name_len);
	s[name_len] = 0;
	memset(&n[ms->count], 0, sizeof(n[0]));
	n[ms->count].name = s;
	etl__source_init(&n[ms->count].src);
	ms->count++;
	return ETL_OK;
}

void etl__members_free(struct etl_members *ms)
{
	size_t i;

	for (i = 0; i < ms->count; i++) {
		etl__free(ms->m[i].name);
		etl__source_close(&ms->m[i].src);
	}
	etl__free(ms->m);
	ms->m = NULL;
	ms->count = ms->cap = 0;
}

/* Unpacks one member's data; damage is recorded in the member. */
static int unpack_member(const struct etl_source *src, struct etl_member *m, unsigned method,
			 uint64_t data_off, uint64_t csize, uint64_t usize, int sizes_known,
			 uint32_t crc, uint64_t limit, uint64_t *used, struct etl_diag *fatal)
{
	struct spool out;
	int st;

	*used = 0;
	if (method != 0 && method != 8) {
		m->damaged = 1;
		etl__diag_set(&m->diag, ETL_E_UNSUPPORTED, data_off,
			      "zip member '%s': compression method %u is not supported (stored, deflate)",
			      m->name, method);
		return ETL_OK;
	}
	if (spool_open(&out, limit, fatal) != ETL_OK)
		return ETL_E_IO;
	if (method == 0) {
		if (!sizes_known) {
			spool_abort(&out);
			m->damaged = 1;
			etl__diag_set(&m->diag, ETL_E_UNSUPPORTED, data_off,
				      "zip member '%s': stored without sizes in its local header", m->name);
			return ETL_OK;
		}
		st = copy_into(src, data_off, csize, &out, &m->diag);
		*used = csize;
	} else {
		uint64_t avail = src->size > data_off ? src->size - data_off : 0;
		if (sizes_known && csize < avail)
			avail = csize;
		st = inflate_into(src, data_off, avail, 1, &out, used, &m->diag);
	}
	if (st == ETL_E_NOMEM || st == ETL_E_IO) {
		spool_abort(&out);
		*fatal = m->diag;
		return st;
	}
	if (st != ETL_OK) {
		m->damaged = 1;
		etl__diag_append(&m->diag, " (zip member '%s', %llu bytes recovered)", m->name,
				 (unsigned long long)out.len);
	} else if (sizes_known && (out.len != usize || out.crc != crc)) {
		m->damaged = 1;
		etl__diag_set(&m->diag, ETL_E_FORMAT, data_off,
			      "zip member '%s': %s (%llu bytes, CRC-32 %08x; the directory says %llu, %08x)",
			      m->name, out.len != usize ? "size mismatch" : "CRC-32 mismatch",
			      (unsigned long long)out.len, (unsigned)out.crc, (unsigned long long)usize,
			      (unsigned)crc);
	}
	if (spool_finish(&out, &m->src, fatal) != ETL_OK)
		return ETL_E_IO;
	m->unpacked = 1;
	return ETL_OK;
}

/* ---- zip: central directory ---- */

struct zip_entry {
	unsigned method, flags;
	uint32_t crc;
	uint64_t csize, usize, local_off;
};

/* Applies a zip64 extra field to the values that were 0xFFFFFFFF. */
static void zip64_extra(const uint8_t *x, size_t n, struct zip_entry *e, int have_usize, int have_csize,
			int have_off)
{
	struct etl_cursor c;

	cur_init(&c, x, n);
	while (cur_left(&c) >= 4) {
		uint16_t id = cur_u16(&c), len = cur_u16(&c);
		struct etl_cursor f;
		const uint8_t *p = cur_take(&c, len);

		if (!p)
			return;
		if (id != 0x0001)
			continue;
		cur_init(&f, p, len);
		if (!have_usize)
			e->usize = cur_u64(&f);
		if (!have_csize)
			e->csize = cur_u64(&f);
		if (!have_off)
			e->local_off = cur_u64(&f);
		return;
	}
}

static int find_eocd(const struct etl_source *src, uint64_t *cd_off, uint64_t *cd_size,
		     uint64_t *entries, struct etl_diag *d)
{
	uint64_t tail = src->size < 65557 ? src->size : 65557, i;
	uint8_t *b;
	int found = 0;

	if (src->size < 22)
		return ETL_E_FORMAT;
	b = etl__malloc((size_t)tail);
	if (!b) {
		etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
		return ETL_E_NOMEM;
	}
	if (etl__source_read(src, src->size - tail, b, (size_t)tail, d) != ETL_OK) {
		etl__free(b);
		return d->code;
	}
	for (i = tail - 22 + 1; i-- > 0;) {
		if (etl_le32(b + i) != ZIP_EOCD)
			continue;
		*entries = etl_le16(b + i + 10);
		*cd_size = etl_le32(b + i + 12);
		*cd_off = etl_le32(b + i + 16);
		found = 1;
		/* zip64: the locator sits right before the EOCD record */
		if (i >= 20 && etl_le32(b + i - 20) == ZIP64_LOCATOR) {
			uint64_t z64 = etl_le64(b + i - 20 + 8);
			uint8_t r[56];
			if (z64 < src->size && src->size - z64 >= sizeof(r) &&
			    etl__source_read(src, z64, r, sizeof(r), d) == ETL_OK && etl_le32(r) == ZIP64_EOCD) {
				*entries = etl_le64(r + 32);
				*cd_size = etl_le64(r + 40);
				*cd_off = etl_le64(r + 48);
			}
		}
		break;
	}
	etl__free(b);
	if (!found || *cd_off > src->size || *cd_size > src->size - *cd_off)
		return ETL_E_FORMAT;
	return ETL_OK;
}

static int unpack_central(const struct etl_source *src, uint64_t cd_off, uint64_t cd_size,
			  uint64_t limit, struct etl_members *ms, struct etl_diag *d)
{
	uint8_t *cd = NULL;
	struct etl_cursor c;
	int st = ETL_OK;

	if (cd_size > 64u << 20) {
		etl__diag_set(d, ETL_E_LIMIT, cd_off, "zip central directory of %llu bytes is too large",
			      (unsigned long long)cd_size);
		return ETL_E_LIMIT;
	}
	cd = etl__malloc((size_t)cd_size);
	if (!cd) {
		etl__diag_set(d, ETL_E_NOMEM, cd_off, "out of memory for the zip directory");
		return ETL_E_NOMEM;
	}
	st = etl__source_read(src, cd_off, cd, (size_t)cd_size, d);
	cur_init(&c, cd, (size_t)cd_size);
	while (st == ETL_OK && cur_left(&c) >= 46) {
		size_t at = c.pos;
		struct zip_entry e;
		uint16_t nlen, xlen, clen;
		const uint8_t *name, *extra;
		uint8_t lh[30];
		uint64_t data_off, used;
		struct etl_member *m;

		if (cur_u32(&c) != ZIP_CENTRAL)
			break;
		cur_skip(&c, 4);
		e.flags = cur_u16(&c);
		e.method = cur_u16(&c);
		cur_skip(&c, 4);
		e.crc = cur_u32(&c);
		e.csize = cur_u32(&c);
		e.usize = cur_u32(&c);
		nlen = cur_u16(&c);
		xlen = cur_u16(&c);
		clen = cur_u16(&c);
		cur_skip(&c, 8);
		e.local_off = cur_u32(&c);
		name = cur_take(&c, nlen);
		extra = cur_take(&c, xlen);
		cur_skip(&c, clen);
		if (!cur_ok(&c)) {
			etl__diag_set(d, ETL_E_TRUNCATED, cd_off + at, "zip directory entry runs past the directory");
			st = ETL_E_FORMAT;
			break;
		}
		zip64_extra(extra, xlen, &e, e.usize != 0xFFFFFFFFu, e.csize != 0xFFFFFFFFu,
			    e.local_off != 0xFFFFFFFFu);
		if (nlen > 0 && name[nlen - 1] == '/')
			continue; /* a directory */
		st = add_member(ms, (const char *)name, nlen, d);
		if (st != ETL_OK)
			break;
		m = &ms->m[ms->count - 1];
		if (e.flags & 1) {
			m->damaged = 1;
			etl__diag_set(&m->diag, ETL_E_UNSUPPORTED, e.local_off, "zip member '%s' is encrypted",
				      m->name);
			continue;
		}
		if (e.local_off > src->size || src->size - e.local_off < 30 ||
		    etl__source_read(src, e.local_off, lh, 30, d) != ETL_OK || etl_le32(lh) != ZIP_LOCAL) {
			m->damaged = 1;
			etl__diag_set(&m->diag, ETL_E_FORMAT, e.local_off,
				      "zip member '%s': no local header at its offset", m->name);
			continue;
		}
		data_off = e.local_off + 30 + etl_le16(lh + 26) + etl_le16(lh + 28);
		st = unpack_member(src, m, e.method, data_off, e.csize, e.usize, 1, e.crc, limit, &used, d);
	}
	etl__free(cd);
	return st;
}

/* ---- zip: walking local headers (no usable central directory) ---- */

static int unpack_local(const struct etl_source *src, uint64_t limit, struct etl_members *ms,
			struct etl_diag *d)
{
	uint64_t off = 0;
	int st = ETL_OK;

	while (st == ETL_OK && off < src->size && src->size - off >= 30) {
		uint8_t lh[30];
		struct zip_entry e;
		uint16_t nlen, xlen;
		uint8_t *name;
		uint64_t data_off, used = 0;
		struct etl_member *m;

		st = etl__source_read(src, off, lh, sizeof(lh), d);
		if (st != ETL_OK || etl_le32(lh) != ZIP_LOCAL)
			break;
		e.flags = etl_le16(lh + 6);
		e.method = etl_le16(lh + 8);
		e.crc = etl_le32(lh + 14);
		e.csize = etl_le32(lh + 18);
		e.usize = etl_le32(lh + 22);
		nlen = etl_le16(lh + 26);
		xlen = etl_le16(lh + 28);
		data_off = off + 30 + nlen + xlen;
		if (data_off > src->size)
			break;
		name = etl__malloc(nlen + (size_t)xlen + 1);
		if (!name) {
			etl__diag_set(d, ETL_E_NOMEM, off, "out of memory");
			return ETL_E_NOMEM;
		}
		st = etl__source_read(src, off + 30, name, nlen + (size_t)xlen, d);
		if (st == ETL_OK) {
			zip64_extra(name + nlen, xlen, &e, e.usize != 0xFFFFFFFFu, e.csize != 0xFFFFFFFFu, 1);
			st = add_member(ms, (const char *)name, nlen, d);
		}
		etl__free(name);
		if (st != ETL_OK)
			break;
		m = &ms->m[ms->count - 1];
		if (e.flags & 1) {
			m->damaged = 1;
			etl__diag_set(&m->diag, ETL_E_UNSUPPORTED, off, "zip member '%s' is encrypted", m->name);
			break; /* its size is unknown without decrypting: stop */
		}
		/* bit 3: sizes and CRC follow the data; deflate finds its own end */
		st = unpack_member(src, m, e.method, data_off, e.csize, e.usize, !(e.flags & 8), e.crc,
				   limit, &used, d);
		if (st != ETL_OK || m->damaged)
			break;
		off = data_off + used;
		if (e.flags & 8) { /* skip the data descriptor (optional signature, zip64 sizes ignored) */
			uint8_t dd[4];
			if (src->size - off >= 4 && etl__source_read(src, off, dd, 4, d) == ETL_OK &&
			    etl_le32(dd) == 0x08074b50u)
				off += 4;
			off += 12;
		}
		if (nlen > 0 && m->name[nlen - 1] == '/') {
			etl__source_close(&m->src);
			etl__free(m->name);
			ms->count--;
		}
	}
	return st;
}

int etl__container_unpack(const struct etl_source *src, enum etl_container kind, uint64_t limit,
			  struct etl_members *out, struct etl_diag *d)
{
	int st;

	memset(out, 0, sizeof(*out));
	if (kind == ETL_CONTAINER_GZIP) {
		struct spool sp;
		struct etl_member *m;
		uint64_t used = 0;

		st = add_member(out, "", 0, d);
		if (st != ETL_OK)
			return st;
		m = &out->m[0];
		st = spool_open(&sp, limit, d);
		if (st != ETL_OK)
			goto fail;
		st = inflate_into(src, 0, src->size, 0, &sp, &used, &m->diag);
		if (st == ETL_E_NOMEM || st == ETL_E_IO) {
			*d = m->diag;
			spool_abort(&sp);
			goto fail;
		}
		if (st != ETL_OK) {
			m->damaged = 1;
			etl__diag_append(&m->diag, " (%llu bytes recovered)", (unsigned long long)sp.len);
		}
		st = spool_finish(&sp, &m->src, d);
		if (st != ETL_OK)
			goto fail;
		m->unpacked = 1;
		return ETL_OK;
	}
	{
		uint64_t cd_off = 0, cd_size = 0, entries = 0;
		struct etl_diag ignored;

		st = find_eocd(src, &cd_off, &cd_size, &entries, &ignored);
		if (st == ETL_E_NOMEM) {
			*d = ignored;
			return st;
		}
		if (st == ETL_OK)
			st = unpack_central(src, cd_off, cd_size, limit, out, d);
		if (st == ETL_E_NOMEM || st == ETL_E_IO || st == ETL_E_LIMIT)
			goto fail;
		if (st != ETL_OK || out->count == 0) {
			/* no usable directory: walk the local headers from the start */
			etl__members_free(out);
			st = unpack_local(src, limit, out, d);
			if (st == ETL_E_NOMEM || st == ETL_E_IO)
				goto fail;
			if (out->count == 0) {
				etl__diag_set(d, ETL_E_FORMAT, 0, "zip archive with no readable member");
				return ETL_E_FORMAT;
			}
			/* tell the caller the directory was unusable */
			if (!out->m[out->count - 1].damaged) {
				struct etl_member *last = &out->m[out->count - 1];
				last->damaged = 1;
				etl__diag_set(&last->diag, ETL_E_TRUNCATED, src->size,
					      "zip central directory missing or damaged: members read from their local headers");
			}
		}
		return ETL_OK;
	}
fail:
	etl__members_free(out);
	return st;
}

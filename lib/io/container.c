/*
 * container.c - gzip streams and zip archives around traces.
 *
 * gzip (RFC 1952): every member of a multi-member stream is inflated, in
 * order, into one temporary file.  zip (PKWARE APPNOTE): the central
 * directory at the end lists the members; where it is missing or damaged
 * (a truncated download), the local file headers are walked from the
 * start instead.  Members are stored (method 0) or deflated (method 8);
 * zip64 sizes and offsets are understood.
 *
 * Archives are untrusted too: a member's first bytes are unpacked and shown
 * to the caller's test, and only the members that start like a trace are
 * unpacked further - all of them into one anonymous temporary file (one
 * descriptor whatever the number of members), each read back as a window of
 * it.  What is unpacked in all is bounded by the spool limit and by
 * ETL_SPOOL_RATIO times the archive's size; members whose data overlap an
 * earlier member's are refused (one stream listed eight times is not eight
 * traces); at most ZIP_MAX_MEMBERS members are looked at.  Member names are
 * escaped before they go into a message.
 *
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "io/container.h"
#include "io/inflate.h"
#include "util/cursor.h"

#define ZIP_LOCAL 0x04034b50u
#define ZIP_CENTRAL 0x02014b50u
#define ZIP_EOCD 0x06054b50u
#define ZIP64_EOCD 0x06064b50u
#define ZIP64_LOCATOR 0x07064b50u

static int sniff_gzip(const uint8_t *b, size_t n)
{
	return n >= 2 && b[0] == 0x1f && b[1] == 0x8b;
}

static int sniff_zip(const uint8_t *b, size_t n)
{
	return n >= 4 && (etl_le32(b) == ZIP_LOCAL || etl_le32(b) == ZIP_EOCD);
}

/* ---- members ---- */

/* What unpacking an archive keeps: the source, the spool, the caller's test of first bytes, and
 * where the members' data lie (to refuse overlaps). */
struct etl_unpack {
	const struct etl_source *src;
	struct spool sp;
	etl_member_test want;
	struct etl_members *ms;
	struct range { uint64_t from, to; } *ranges;
	size_t nranges, cap_ranges;
};

static int add_member(struct etl_members *ms, const char *name, size_t name_len, struct etl_diag *d)
{
	struct etl_member *n;
	char *s;

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
	etl__quote(s, n[ms->count].shown, sizeof(n[ms->count].shown));
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
	memset(ms, 0, sizeof(*ms));
}

/* Whether [from, to) overlaps the data of a member listed before; notes it if not. */
static int overlaps(struct etl_unpack *u, uint64_t from, uint64_t to)
{
	size_t i;

	for (i = 0; i < u->nranges; i++)
		if (from < u->ranges[i].to && u->ranges[i].from < to)
			return 1;
	if (etl__grow(&u->ranges, &u->cap_ranges, u->nranges + 1, sizeof(*u->ranges), 16) == 0) {
		u->ranges[u->nranges].from = from;
		u->ranges[u->nranges].to = to;
		u->nranges++;
	}
	return 0;
}

/* The member's first bytes (ETL_CONTAINER_HEAD at most) into k; damage is recorded in m. */
static int peek_member(struct etl_unpack *u, struct etl_member *m, unsigned method, uint64_t data_off, uint64_t csize,
		       int sizes_known, struct etl_peek_head *k, struct etl_diag *fatal)
{
	uint64_t used, avail = u->src->size > data_off ? u->src->size - data_off : 0;
	int st;

	k->n = 0;
	if (sizes_known && csize < avail)
		avail = csize;
	st = method == 0 ? etl__copy_into(u->src, data_off, avail < sizeof(k->b) ? avail : sizeof(k->b), etl__sink_peek, k, &m->diag)
			 : etl__inflate_into(u->src, data_off, avail, 1, etl__sink_peek, k, &used, &m->diag);
	if (st == ETL_E_NOMEM || st == ETL_E_IO) {
		*fatal = m->diag;
		return st;
	}
	if (st != ETL_OK && k->n < sizeof(k->b)) {
		m->damaged = 1;
		etl__diag_append(&m->diag, " (zip member '%s')", m->shown);
	}
	return ETL_OK;
}

/* Unpacks a wanted member's data into the spool; damage is recorded in the member. */
static int spool_member(struct etl_unpack *u, struct etl_member *m, unsigned method, uint64_t data_off, uint64_t csize,
			uint64_t usize, int sizes_known, uint32_t crc, uint64_t *used, struct etl_diag *fatal)
{
	uint64_t avail = u->src->size > data_off ? u->src->size - data_off : 0;
	int st = etl__spool_begin(&u->sp, 1, fatal);

	if (st != ETL_OK)
		return st;
	if (method == 0) {
		st = etl__copy_into(u->src, data_off, csize, etl__sink_spool, &u->sp, &m->diag);
		*used = csize;
	} else {
		if (sizes_known && csize < avail)
			avail = csize;
		if (!sizes_known || etl__inflate_whole_raw(u->src, data_off, csize, usize, &u->sp, used) != ETL_OK)
			st = etl__inflate_into(u->src, data_off, avail, 1, etl__sink_spool, &u->sp, used, &m->diag);
	}
	if (st == ETL_E_NOMEM || st == ETL_E_IO) {
		*fatal = m->diag;
		return st;
	}
	if (st != ETL_OK) {
		m->damaged = 1;
		etl__diag_append(&m->diag, " (zip member '%s', %llu bytes recovered)", m->shown,
				 (unsigned long long)etl__spool_len(&u->sp));
	} else if (sizes_known && (etl__spool_len(&u->sp) != usize || u->sp.crc != crc)) {
		m->damaged = 1;
		etl__diag_set(&m->diag, ETL_E_FORMAT, data_off,
			      "zip member '%s': %s (%llu bytes, CRC-32 %08x; the directory says %llu, %08x)", m->shown,
			      etl__spool_len(&u->sp) != usize ? "size mismatch" : "CRC-32 mismatch",
			      (unsigned long long)etl__spool_len(&u->sp), (unsigned)u->sp.crc, (unsigned long long)usize,
			      (unsigned)crc);
	}
	etl__spool_finish(&u->sp, &m->src);
	m->unpacked = 1;
	return ETL_OK;
}

/* One member: its name and first bytes tell whether the caller wants it; only then is it
 * unpacked. */
static int unpack_member(struct etl_unpack *u, struct etl_member *m, unsigned method, uint64_t data_off,
			 uint64_t csize, uint64_t usize, int sizes_known, uint32_t crc, uint64_t *used,
			 struct etl_diag *fatal)
{
	enum etl_member_use use;
	struct etl_peek_head k;
	int st;

	*used = 0;
	if (method != 0 && method != 8) {
		m->damaged = 1;
		etl__diag_set(&m->diag, ETL_E_UNSUPPORTED, data_off,
			      "zip member '%s': compression method %u is not supported (stored, deflate)", m->shown, method);
		return ETL_OK;
	}
	if (method == 0 && !sizes_known) {
		m->damaged = 1;
		etl__diag_set(&m->diag, ETL_E_UNSUPPORTED, data_off, "zip member '%s': stored without sizes in its local header",
			      m->shown);
		return ETL_OK;
	}
	st = peek_member(u, m, method, data_off, csize, sizes_known, &k, fatal);
	if (st != ETL_OK || m->damaged)
		return st;
	use = u->want(m->name, k.b, k.n);
	if (use == ETL_MEMBER_SKIP) {
		/* not a trace: not unpacked; the size of a deflated one is found by reading it through */
		if (!sizes_known) {
			struct etl_peek_head skip;
			skip.n = 0;
			st = etl__inflate_into(u->src, data_off, u->src->size - data_off, 1, etl__sink_count, &skip, used, &m->diag);
			if (st == ETL_E_NOMEM || st == ETL_E_IO) {
				*fatal = m->diag;
				return st;
			}
			if (st != ETL_OK)
				m->damaged = 1;
		} else {
			*used = csize;
		}
		return ETL_OK;
	}
	m->is_trace = use == ETL_MEMBER_TRACE;
	m->kept = use == ETL_MEMBER_KEEP;
	return spool_member(u, m, method, data_off, csize, usize, sizes_known, crc, used, fatal);
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

/* Notes, once, that the archive has more members than are looked at. */
static void too_many(struct etl_unpack *u, uint64_t at)
{
	if (!u->ms->noted) {
		etl__diag_set(&u->ms->note, ETL_E_LIMIT, at, "the archive has more than %u members: the rest are not read",
			      ZIP_MAX_MEMBERS);
		u->ms->noted = 1;
	}
}

/* A central-directory entry: its member, unless it is a directory. */
static int central_member(struct etl_unpack *u, const struct zip_entry *e, const uint8_t *name, uint16_t nlen,
			  struct etl_diag *d)
{
	const struct etl_source *src = u->src;
	struct etl_member *m;
	uint64_t data_off, used;
	uint8_t lh[30];
	int st;

	if (nlen > 0 && name[nlen - 1] == '/')
		return ETL_OK; /* a directory */
	if (u->ms->count >= ZIP_MAX_MEMBERS) {
		too_many(u, e->local_off);
		return ETL_END;
	}
	if ((st = add_member(u->ms, (const char *)name, nlen, d)) != ETL_OK)
		return st;
	m = &u->ms->m[u->ms->count - 1];
	if (e->flags & 1) {
		m->damaged = 1;
		etl__diag_set(&m->diag, ETL_E_UNSUPPORTED, e->local_off, "zip member '%s' is encrypted", m->shown);
		return ETL_OK;
	}
	if (e->local_off > src->size || src->size - e->local_off < 30 ||
	    etl__source_read(src, e->local_off, lh, 30, d) != ETL_OK || etl_le32(lh) != ZIP_LOCAL) {
		m->damaged = 1;
		etl__diag_set(&m->diag, ETL_E_FORMAT, e->local_off, "zip member '%s': no local header at its offset",
			      m->shown);
		return ETL_OK;
	}
	data_off = e->local_off + 30 + etl_le16(lh + 26) + etl_le16(lh + 28);
	if (overlaps(u, e->local_off, data_off + e->csize)) {
		m->damaged = 1;
		etl__diag_set(&m->diag, ETL_E_FORMAT, e->local_off,
			      "zip member '%s': its data overlap another member's (refused)", m->shown);
		return ETL_OK;
	}
	return unpack_member(u, m, e->method, data_off, e->csize, e->usize, 1, e->crc, &used, d);
}

static int unpack_central(struct etl_unpack *u, uint64_t cd_off, uint64_t cd_size, struct etl_diag *d)
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
	st = etl__source_read(u->src, cd_off, cd, (size_t)cd_size, d);
	cur_init(&c, cd, (size_t)cd_size);
	while (st == ETL_OK && cur_left(&c) >= 46) {
		size_t at = c.pos;
		struct zip_entry e;
		uint16_t nlen, xlen, clen;
		const uint8_t *name, *extra;

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
		zip64_extra(extra, xlen, &e, e.usize != 0xFFFFFFFFu, e.csize != 0xFFFFFFFFu, e.local_off != 0xFFFFFFFFu);
		st = central_member(u, &e, name, nlen, d);
	}
	etl__free(cd);
	return st == ETL_END ? ETL_OK : st;
}

/* ---- zip: walking local headers (no usable central directory) ---- */

/* After a member with a data descriptor (bit 3): its optional signature, CRC and sizes. */
static uint64_t skip_descriptor(const struct etl_source *src, uint64_t off, struct etl_diag *d)
{
	uint8_t dd[4];

	if (src->size - off >= 4 && etl__source_read(src, off, dd, 4, d) == ETL_OK && etl_le32(dd) == 0x08074b50u)
		off += 4;
	return off + 12; /* (zip64 sizes ignored) */
}

static int unpack_local(struct etl_unpack *u, struct etl_diag *d)
{
	const struct etl_source *src = u->src;
	uint64_t off = 0;
	int st = ETL_OK;

	while (st == ETL_OK && off < src->size && src->size - off >= 30) {
		uint8_t lh[30], *name;
		struct zip_entry e;
		uint16_t nlen, xlen;
		uint64_t data_off, used = 0;
		struct etl_member *m;

		st = etl__source_read(src, off, lh, sizeof(lh), d);
		if (st != ETL_OK || etl_le32(lh) != ZIP_LOCAL)
			break;
		if (u->ms->count >= ZIP_MAX_MEMBERS) {
			too_many(u, off);
			break;
		}
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
			st = add_member(u->ms, (const char *)name, nlen, d);
		}
		etl__free(name);
		if (st != ETL_OK)
			break;
		m = &u->ms->m[u->ms->count - 1];
		if (e.flags & 1) {
			m->damaged = 1;
			etl__diag_set(&m->diag, ETL_E_UNSUPPORTED, off, "zip member '%s' is encrypted", m->shown);
			break; /* its size is unknown without decrypting: stop */
		}
		/* bit 3: sizes and CRC follow the data; deflate finds its own end */
		st = unpack_member(u, m, e.method, data_off, e.csize, e.usize, !(e.flags & 8), e.crc, &used, d);
		if (st != ETL_OK || m->damaged)
			break;
		off = data_off + used;
		if (e.flags & 8)
			off = skip_descriptor(src, off, d);
		if (nlen > 0 && m->name[nlen - 1] == '/') {
			etl__source_close(&m->src);
			etl__free(m->name);
			u->ms->count--;
		}
	}
	return st;
}

/* ---- the archive ---- */

static int unpack_gzip(struct etl_unpack *u, struct etl_diag *d)
{
	struct etl_member *m;
	uint64_t used = 0;
	int st = add_member(u->ms, "", 0, d);

	if (st != ETL_OK)
		return st;
	m = &u->ms->m[0];
	/* etl__inflate_into checks each gzip member's CRC-32 and length against its trailer */
	if ((st = etl__spool_begin(&u->sp, 0, d)) != ETL_OK)
		return st;
	if ((st = etl__inflate_whole_gzip(u->src, &u->sp, &used)) != ETL_OK)
		st = etl__inflate_into(u->src, 0, u->src->size, 0, etl__sink_spool, &u->sp, &used, &m->diag);
	if (st == ETL_E_NOMEM || st == ETL_E_IO) {
		*d = m->diag;
		return st;
	}
	if (st != ETL_OK) {
		m->damaged = 1;
		etl__diag_append(&m->diag, " (%llu bytes recovered)", (unsigned long long)etl__spool_len(&u->sp));
	}
	etl__spool_finish(&u->sp, &m->src);
	m->unpacked = 1;
	m->is_trace = 1; /* one stream: the caller tells whether it holds a trace */
	return ETL_OK;
}

static int unpack_zip(struct etl_unpack *u, struct etl_diag *d)
{
	uint64_t cd_off = 0, cd_size = 0, entries = 0;
	struct etl_diag ignored;
	int st = find_eocd(u->src, &cd_off, &cd_size, &entries, &ignored);

	if (st == ETL_E_NOMEM) {
		*d = ignored;
		return st;
	}
	if (st == ETL_OK)
		st = unpack_central(u, cd_off, cd_size, d);
	if (st == ETL_E_NOMEM || st == ETL_E_IO || st == ETL_E_LIMIT)
		return st;
	if (st == ETL_OK && u->ms->count > 0)
		return ETL_OK;
	/* no usable directory: walk the local headers from the start */
	etl__members_free(u->ms);
	u->nranges = 0;
	st = unpack_local(u, d);
	if (st == ETL_E_NOMEM || st == ETL_E_IO)
		return st;
	if (u->ms->count == 0) {
		etl__diag_set(d, ETL_E_FORMAT, 0, "zip archive with no readable member");
		return ETL_E_FORMAT;
	}
	/* tell the caller the directory was unusable */
	if (!u->ms->m[u->ms->count - 1].damaged) {
		struct etl_member *last = &u->ms->m[u->ms->count - 1];
		last->damaged = 1;
		etl__diag_set(&last->diag, ETL_E_TRUNCATED, u->src->size,
			      "zip central directory missing or damaged: members read from their local headers");
	}
	return ETL_OK;
}

int etl__container_unpack(const struct etl_source *src, const struct etl_container *kind, uint64_t limit,
			  etl_member_test want, struct etl_members *out, struct etl_diag *d)
{
	struct etl_unpack u;
	int st;

	memset(out, 0, sizeof(*out));
	memset(&u, 0, sizeof(u));
	u.src = src;
	u.ms = out;
	u.want = want;
	u.sp.limit = src->size > limit / ETL_SPOOL_RATIO ? limit : src->size * ETL_SPOOL_RATIO;
	st = kind->unpack(&u, d);
	etl__free(u.ranges);
	etl__tempfile_release(u.sp.file); /* the members' windows hold their own references */
	if (st != ETL_OK)
		etl__members_free(out);
	return st;
}

static const struct etl_container containers[] = {
	{ "gzip", 0, sniff_gzip, unpack_gzip },
	{ "zip", 1, sniff_zip, unpack_zip },
};

const struct etl_container *etl__container_sniff(const struct etl_source *src)
{
	uint8_t b[4];
	struct etl_diag ignored;
	size_t i;

	if (src->size < 4 || etl__source_read(src, 0, b, 4, &ignored) != ETL_OK)
		return NULL;
	for (i = 0; i < sizeof(containers) / sizeof(containers[0]); i++)
		if (containers[i].sniff(b, sizeof(b)))
			return &containers[i];
	return NULL;
}

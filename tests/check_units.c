/*
 * check_units.c - unit tests of the small modules: cursor, UTF-16, GUIDs,
 * clock conversion and the XPRESS decompressor (round trips with the
 * writer's encoder, plus malformed streams).
 *
 * SPDX-License-Identifier: MIT
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "codec/lznt1.h"
#include "schema/schema.h"
#include "codec/xpress.h"
#include "util/crc32.h"
#include "util/cursor.h"
#include "util/htab.h"
#include "state/images.h"
#include "state/state.h"
#include "walk/buffer.h"
#include "walk/keep.h"
#include "etlw.h"

/* ---- buffer padding ---- */

/* The padding walked a word at a time ends where the byte walk ends: padding of zeros, of 0xFF,
 * of both in runs of 8 bytes and mixed byte by byte, with one byte of anything else (each bit
 * alone, and 0x7F, 0xFE, 0x81, 0x3C) at every place, from every start and to every end. */
START_TEST(padding_start_is_the_bytewise_one)
{
	static const uint8_t odd[] = { 0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x7F, 0xFE, 0x81, 0x3C };
	uint8_t b[80];
	size_t from, end, at, k, pat, checked = 0;

	for (pat = 0; pat < 4; pat++) {
		for (k = 0; k < sizeof(b); k++)
			b[k] = pat == 0 ? 0x00 : pat == 1 ? 0xFF : pat == 2 ? ((k / 8) % 2 ? 0xFF : 0x00)
									: ((k * 7 + k / 3) % 3 == 0 ? 0xFF : 0x00);
		ck_assert_uint_eq(etl__walk_padding_start(b, 0, sizeof(b)), 0); /* all padding */
		for (at = 0; at < sizeof(b); at++) {
			for (k = 0; k < sizeof(odd); k++) {
				uint8_t keep = b[at];
				b[at] = odd[k];
				for (from = 0; from < 12; from++)
					for (end = 0; end <= sizeof(b); end++) {
						size_t want = end;
						while (want > from && (b[want - 1] == 0xFF || b[want - 1] == 0))
							want--;
						ck_assert_uint_eq(etl__walk_padding_start(b, from, end), want);
						checked++;
					}
				b[at] = keep;
			}
		}
	}
	ck_assert_uint_eq(etl__walk_padding_start(b, 30, 20), 20); /* from past end */
	ck_assert_uint_gt(checked, 100000);
}
END_TEST

/* ---- cursor ---- */


/* A loader as etl__walk_load leaves it after decompressing buffer `tag` (fill bytes of tag). */
static void fake_loaded(struct etl_bufload *ld, uint8_t *mem, size_t fill, uint8_t tag)
{
	memset(ld, 0, sizeof(*ld));
	memset(mem, tag, fill);
	ld->dmem = mem;
	ld->dmem_cap = fill;
	ld->data = mem;
	ld->fill = fill;
	ld->compressed = 1;
}

static struct etl_bufent kept_ent(uint64_t off)
{
	struct etl_bufent e;

	memset(&e, 0, sizeof(e));
	e.off = off;
	e.avail = 100;
	e.flags = ETL_BUF_COMPRESSED;
	return e;
}

/* walk/keep.c: what is kept is given once, for its own entry only (offset, size and flags), in
 * place; the budget bounds it; entries go in file order; slices of one region are appended in
 * order; clear forgets them; a loader aimed at the keep decompresses into its free space. */
START_TEST(kept_buffers_are_given_once_to_their_entry)
{
	struct etl_bufkeep k, parts[2];
	struct etl_bufload ld, out;
	struct etl_bufent e;
	uint8_t mem[600];
	unsigned i;

	etl__walk_keep_init(&k, 1000);
	ck_assert_int_eq(etl__walk_keep_reserve(&k, 1 << 20), 0); /* the budget, not the need */
	ck_assert_uint_eq(k.size, 1000);
	for (i = 0; i < 3; i++) { /* 3 x 300 bytes (320 with the alignment) fit */
		e = kept_ent(1000 * (i + 1));
		fake_loaded(&ld, mem, 300, (uint8_t)(i + 1));
		ck_assert_int_eq(etl__walk_keep_take(&k, &ld, &e), 1);
	}
	e = kept_ent(9000);
	fake_loaded(&ld, mem, 300, 9);
	ck_assert_int_eq(etl__walk_keep_take(&k, &ld, &e), 0); /* over the budget */
	e = kept_ent(500);
	fake_loaded(&ld, mem, 10, 5);
	ck_assert_int_eq(etl__walk_keep_take(&k, &ld, &e), 0); /* before the last: not in file order */
	ld.compressed = 0;
	e = kept_ent(8000);
	ck_assert_int_eq(etl__walk_keep_take(&k, &ld, &e), 0); /* not a decompressed buffer */
	ck_assert_uint_eq(k.n, 3);

	memset(&out, 0, sizeof(out));
	e = kept_ent(2000);
	e.avail = 99;
	ck_assert_int_eq(etl__walk_keep_give(&k, &out, &e), 0); /* another size at that offset */
	e = kept_ent(2000);
	e.flags |= 1;
	ck_assert_int_eq(etl__walk_keep_give(&k, &out, &e), 0); /* other flags */
	e = kept_ent(2500);
	ck_assert_int_eq(etl__walk_keep_give(&k, &out, &e), 0); /* nothing kept there */
	ck_assert_ptr_null(out.data);
	e = kept_ent(2000);
	ck_assert_int_eq(etl__walk_keep_give(&k, &out, &e), 1);
	ck_assert_ptr_nonnull(out.data);
	ck_assert_uint_eq(out.fill, 300);
	ck_assert_int_eq(out.compressed, 1);
	ck_assert_uint_eq(out.data[0], 2);
	ck_assert_uint_eq(out.data[299], 2);
	ck_assert_ptr_null(out.dmem); /* read in place: the loader's own buffer untouched */
	ck_assert_int_eq(etl__walk_keep_give(&k, &out, &e), 0); /* once */
	e = kept_ent(3000);
	ck_assert_int_eq(etl__walk_keep_give(&k, &out, &e), 1);
	ck_assert_uint_eq(out.data[0], 3);
	ck_assert_uint_eq(k.given, 2);

	/* two slices of one region, filled apart, appended in order */
	etl__walk_keep_clear(&k);
	ck_assert_uint_eq(k.n, 0);
	etl__walk_keep_slice(&k, 0, 2, &parts[0]);
	etl__walk_keep_slice(&k, 1, 2, &parts[1]);
	ck_assert_uint_eq(parts[0].size, 500);
	ck_assert_ptr_eq(parts[1].base, parts[0].base + 500);
	fake_loaded(&ld, mem, 200, 7);
	e = kept_ent(100);
	ck_assert_int_eq(etl__walk_keep_take(&parts[0], &ld, &e), 1);
	fake_loaded(&ld, mem, 200, 8);
	e = kept_ent(5000);
	ck_assert_int_eq(etl__walk_keep_take(&parts[1], &ld, &e), 1);
	fake_loaded(&ld, mem, 400, 9);
	e = kept_ent(6000);
	ck_assert_int_eq(etl__walk_keep_take(&parts[1], &ld, &e), 0); /* past its slice */
	etl__walk_keep_append(&k, &parts[0]);
	etl__walk_keep_append(&k, &parts[1]);
	ck_assert_uint_eq(k.n, 2);
	ck_assert_uint_eq(parts[1].n, 0);
	etl__walk_keep_free(&parts[0]);
	etl__walk_keep_free(&parts[1]);
	e = kept_ent(5000);
	ck_assert_int_eq(etl__walk_keep_give(&k, &out, &e), 1);
	ck_assert_uint_eq(out.data[199], 8);
	e = kept_ent(100);
	ck_assert_int_eq(etl__walk_keep_give(&k, &out, &e), 1);
	ck_assert_uint_eq(out.data[0], 7);

	/* aimed: decompressed into the free space, kept there without a copy; a full keep aims
	 * nowhere */
	etl__walk_keep_clear(&k);
	memset(&ld, 0, sizeof(ld));
	etl__walk_keep_aim(&k, &ld);
	ck_assert_ptr_eq(ld.into, k.base);
	ck_assert_uint_eq(ld.into_cap, 1000);
	memset(ld.into, 4, 600); /* as etl__walk_load leaves it */
	ld.data = ld.into;
	ld.fill = 600;
	ld.compressed = 1;
	e = kept_ent(100);
	ck_assert_int_eq(etl__walk_keep_take(&k, &ld, &e), 1);
	etl__walk_keep_aim(&k, &ld);
	ck_assert_ptr_eq(ld.into, k.base + 640); /* after the first, on its own cache line */
	ck_assert_uint_eq(ld.into_cap, 360);
	fake_loaded(&ld, mem, 360, 6); /* decompressed elsewhere: copied */
	e = kept_ent(200);
	ck_assert_int_eq(etl__walk_keep_take(&k, &ld, &e), 1);
	etl__walk_keep_aim(&k, &ld);
	ck_assert_ptr_null(ld.into);
	ck_assert_uint_eq(ld.into_cap, 0);
	e = kept_ent(100);
	ck_assert_int_eq(etl__walk_keep_give(&k, &out, &e), 1);
	ck_assert_ptr_eq(out.data, k.base);
	ck_assert_uint_eq(out.data[599], 4);
	e = kept_ent(200);
	ck_assert_int_eq(etl__walk_keep_give(&k, &out, &e), 1);
	ck_assert_uint_eq(out.data[0], 6);
	ck_assert_uint_eq(out.data[359], 6);
	etl__walk_keep_free(&k);
	ck_assert_ptr_null(k.region);

	/* aimed ahead (a plan's helpers decompress several buffers at once): each gets space of its
	 * own and is kept there, in file order, without a copy; lent as often as asked */
	etl__walk_keep_init(&k, 1000);
	ck_assert_int_eq(etl__walk_keep_reserve(&k, 1000), 0);
	etl__walk_keep_aim_ahead(&k, &ld, 300);
	ck_assert_ptr_eq(ld.into, k.base);
	ck_assert_uint_eq(ld.into_cap, 300);
	etl__walk_keep_aim_ahead(&k, &out, 300);
	ck_assert_ptr_eq(out.into, k.base + 320); /* on a cache line of its own */
	etl__walk_keep_aim_ahead(&k, &out, 400);
	ck_assert_ptr_null(out.into); /* 640 + 400 is over the budget */
	ck_assert_uint_eq(out.into_cap, 0);
	memset(ld.into, 3, 300);
	ld.data = ld.into;
	ld.fill = 290;
	ld.compressed = 1;
	e = kept_ent(100);
	ck_assert_int_eq(etl__walk_keep_take(&k, &ld, &e), 1);
	ck_assert_ptr_eq(k.e[0].data, k.base); /* in place */
	ck_assert_uint_eq(k.used, 640);            /* the reservations, not the fill */
	fake_loaded(&ld, mem, 200, 8);              /* decompressed elsewhere: copied after them */
	e = kept_ent(300);
	ck_assert_int_eq(etl__walk_keep_take(&k, &ld, &e), 1);
	ck_assert_ptr_eq(k.e[1].data, k.base + 640);
	memset(&out, 0, sizeof(out));
	e = kept_ent(100);
	ck_assert_int_eq(etl__walk_keep_lend(&k, &out, &e), 1);
	ck_assert_int_eq(etl__walk_keep_lend(&k, &out, &e), 1); /* again: lent, not given */
	ck_assert_ptr_eq(out.data, k.base);
	ck_assert_uint_eq(out.fill, 290);
	ck_assert_int_eq(out.compressed, 1);
	ck_assert_uint_eq(out.data[289], 3);
	e = kept_ent(300);
	ck_assert_int_eq(etl__walk_keep_lend(&k, &out, &e), 1);
	ck_assert_uint_eq(out.data[199], 8);
	e.avail = 99;
	ck_assert_int_eq(etl__walk_keep_lend(&k, &out, &e), 0); /* another size at that offset */
	e = kept_ent(200);
	ck_assert_int_eq(etl__walk_keep_lend(&k, &out, &e), 0); /* nothing kept there */
	ck_assert_uint_eq(k.given, 0);
	etl__walk_keep_free(&k);

	/* a budget of 0 keeps nothing */
	etl__walk_keep_init(&k, 0);
	ck_assert_int_eq(etl__walk_keep_reserve(&k, 1000), -1);
	e = kept_ent(100);
	ck_assert_int_eq(etl__walk_keep_take(&k, &ld, &e), 0);
	etl__walk_keep_free(&k);
}
END_TEST

/* The image index (state/images.c) against the plain searches it replaced, over images made
 * to overlap, reuse bases, be empty or run past 2^64, added between lookups: the newest
 * image covering an address, the span around it where that holds, the newest not unloaded
 * at a base, and whether a base and size were seen.  _i: the seed. */
static uint64_t rnd_state;
static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static size_t cover_plain(const struct etl_image_rec *im, size_t n, uint64_t addr)
{
	size_t i;

	for (i = n; i-- > 0;)
		if (addr >= im[i].base && addr - im[i].base < im[i].size)
			return i + 1;
	return 0;
}

static uint64_t some_address(const struct etl_image_rec *im, size_t n)
{
	uint64_t r = rnd();

	if (n && r % 4 != 0) { /* near an image's ends */
		const struct etl_image_rec *x = &im[rnd() % n];
		uint64_t at = r % 2 ? x->base : x->base + x->size;
		return at + (rnd() % 5) - 2;
	}
	return r % 3 ? 0x10000 + rnd() % 0x200000 : rnd();
}

START_TEST(image_index_matches_plain_search)
{
	struct etl_image_rec im[600];
	struct etl_image_index x;
	size_t n = 0, q, i;

	memset(&x, 0, sizeof(x));
	memset(im, 0, sizeof(im));
	rnd_state = 0x9E3779B97F4A7C15ull * (uint64_t)(_i + 1);
	while (n < 600) {
		uint64_t r = rnd(), lo, hi;
		size_t want, got;
		if (r % 3 == 0) { /* a load */
			im[n].base = r % 7 == 0 ? UINT64_MAX - rnd() % 0x3000 : 0x10000 + (rnd() % 64) * 0x8000;
			im[n].size = r % 11 == 0 ? 0 : r % 4 == 0 ? (1 + rnd() % 32) * 0x8000 : (1 + rnd() % 8) * 0x1000;
			ck_assert_int_eq(etl__images_added(&x, im, n), 0);
			n++;
		} else if (r % 3 == 1 && n) { /* an unload at the base of some image */
			uint64_t base = im[rnd() % n].base;
			size_t live, plain = 0;
			for (i = n; i-- > 0;)
				if (im[i].base == base && !im[i].unload_time) {
					plain = i + 1;
					break;
				}
			live = etl__images_unload(&x, base, 1);
			ck_assert_uint_eq(live, plain);
			if (live)
				im[live - 1].unload_time = 1 + rnd() % 2; /* never 0 here */
		}
		for (q = 0; q < 20; q++) {
			uint64_t addr = some_address(im, n);
			want = cover_plain(im, n, addr);
			got = etl__images_cover(&x, im, n, addr, &lo, &hi);
			ck_assert_uint_eq(got, want);
			ck_assert(lo <= addr && addr <= hi);
			ck_assert_uint_eq(cover_plain(im, n, lo), want); /* the span's ends have the answer */
			ck_assert_uint_eq(cover_plain(im, n, hi), want);
		}
		if (n) {
			const struct etl_image_rec *y = &im[rnd() % n];
			int seen = 0;
			ck_assert(etl__images_seen(&x, y->base, y->size));
			for (i = 0; i < n; i++)
				seen |= im[i].base == y->base && im[i].size == y->size + 0x1000;
			ck_assert_int_eq(etl__images_seen(&x, y->base, y->size + 0x1000), seen);
		}
	}
	/* an index made late (a process reaching the size that makes one) over images some of which
	 * are unloaded already: the same answers */
	etl__images_free(&x);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(etl__images_added(&x, im, i), 0);
	for (q = 0; q < n; q++) {
		uint64_t base = im[q].base, lo, hi, addr = some_address(im, n);
		size_t plain = 0;
		for (i = n; i-- > 0;)
			if (im[i].base == base && !im[i].unload_time) {
				plain = i + 1;
				break;
			}
		ck_assert_uint_eq(etl__images_unload(&x, base, 0), plain);
		ck_assert_uint_eq(etl__images_cover(&x, im, n, addr, &lo, &hi), cover_plain(im, n, addr));
	}
	etl__images_free(&x);
}
END_TEST

START_TEST(cursor_reads_little_endian)
{
	static const uint8_t b[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
	struct etl_cursor c;

	cur_init(&c, b, sizeof(b));
	ck_assert_uint_eq(cur_u8(&c), 1);
	ck_assert_uint_eq(cur_u16(&c), 0x0302);
	ck_assert_uint_eq(cur_u32(&c), 0x07060504);
	ck_assert_uint_eq(cur_u64(&c), 0x0f0e0d0c0b0a0908ULL);
	ck_assert(cur_ok(&c));
	ck_assert_uint_eq(cur_left(&c), 0);
}
END_TEST

START_TEST(cursor_short_read_is_sticky)
{
	static const uint8_t b[] = { 1, 2, 3 };
	struct etl_cursor c;

	cur_init(&c, b, sizeof(b));
	ck_assert_uint_eq(cur_u32(&c), 0);
	ck_assert(!cur_ok(&c));
	/* a later read that would fit still fails: the error is sticky */
	ck_assert_uint_eq(cur_u8(&c), 0);
	ck_assert_uint_eq(c.pos, 0);
	cur_init(&c, b, sizeof(b));
	ck_assert(cur_skip(&c, 2));
	ck_assert(cur_take(&c, SIZE_MAX) == NULL); /* no overflow in the check */
	ck_assert(!cur_ok(&c));
}
END_TEST

START_TEST(cursor_pointer_sizes)
{
	static const uint8_t b[] = { 0xef, 0xbe, 0xad, 0xde, 0x78, 0x56, 0x34, 0x12 };
	struct etl_cursor c;

	cur_init(&c, b, sizeof(b));
	ck_assert_uint_eq(cur_ptr(&c, 4), 0xdeadbeefu);
	cur_init(&c, b, sizeof(b));
	ck_assert_uint_eq(cur_ptr(&c, 8), 0x12345678deadbeefULL);
}
END_TEST

/* ---- UTF-16 ---- */

START_TEST(utf16_decodes_bmp_pairs_and_lone_surrogates)
{
	/* "A", U+00E9, U+20AC, U+1F600 (pair), lone high surrogate, NUL, "Z" */
	static const uint8_t s[] = { 'A', 0, 0xE9, 0, 0xAC, 0x20, 0x3D, 0xD8, 0x00, 0xDE,
				     0x00, 0xD8, 0, 0, 'Z', 0 };
	size_t used;
	char *u = etl__utf16_to_utf8(s, sizeof(s) / 2, &used);

	ck_assert_ptr_nonnull(u);
	ck_assert_str_eq(u, "A\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xef\xbf\xbd");
	ck_assert_uint_eq(used, 7); /* six units and the NUL */
	free(u);
	u = etl__utf16_to_utf8(s, 1, &used); /* no NUL within the limit */
	ck_assert_str_eq(u, "A");
	ck_assert_uint_eq(used, 1);
	free(u);
}
END_TEST

/* Four units at a time where they are ASCII, one at a time elsewhere: every split of ASCII and
 * not, and the NUL at every position of a long string. */
START_TEST(utf16_words_of_ascii_and_not)
{
	/* "abcd" U+00E9 "efghijk" U+1F600 (pair) "lmnopqr" */
	static const uint8_t s[] = { 'a', 0, 'b', 0, 'c', 0, 'd', 0, 0xE9, 0, 'e', 0, 'f', 0, 'g', 0,
				     'h', 0, 'i', 0, 'j', 0, 'k', 0, 0x3D, 0xD8, 0x00, 0xDE, 'l', 0, 'm', 0,
				     'n', 0, 'o', 0, 'p', 0, 'q', 0, 'r', 0 };
	const char *want = "abcd\xc3\xa9" "efghijk\xf0\x9f\x98\x80lmnopqr";
	uint8_t buf[64];
	size_t used, k, n = sizeof(s) / 2;
	char *u = etl__utf16_to_utf8(s, n, &used);

	ck_assert_str_eq(u, want);
	ck_assert_uint_eq(used, n);
	free(u);
	for (k = 0; k < n; k++) { /* a NUL at unit k ends the string there */
		memcpy(buf, s, sizeof(s));
		buf[2 * k] = buf[2 * k + 1] = 0;
		ck_assert_uint_eq(etl__utf16_units(buf, n), k);
		ck_assert_uint_eq(etl__utf16_units(buf, k), k);
	}
	/* a unit with only its low byte zero, or only its high byte, is not a NUL */
	memcpy(buf, s, sizeof(s));
	buf[8] = 0;
	buf[9] = 0x01; /* U+0100 */
	ck_assert_uint_eq(etl__utf16_units(buf, n), n);
	buf[4] = 0x80; /* 'c' becomes U+0080: not ASCII, in the first word */
	u = etl__utf16_to_utf8(buf, n, &used);
	ck_assert_str_eq(u, "ab\xc2\x80" "d\xc4\x80" "efghijk\xf0\x9f\x98\x80lmnopqr");
	free(u);
}
END_TEST

/* UTF-8 of one code point, one unit (or pair) at a time: the reference for the test below */
static size_t ref_put(char *o, uint32_t cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xC0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xE0 | cp >> 12);
		o[1] = (char)(0x80 | (cp >> 6 & 0x3F));
		o[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	o[0] = (char)(0xF0 | cp >> 18);
	o[1] = (char)(0x80 | (cp >> 12 & 0x3F));
	o[2] = (char)(0x80 | (cp >> 6 & 0x3F));
	o[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

static size_t ref_utf16(const uint16_t *u, size_t max, char *o, size_t *units)
{
	size_t i, n = 0, len = 0;

	while (n < max && u[n])
		n++;
	*units = n;
	for (i = 0; i < n; i++) {
		uint32_t c = u[i];
		if (c >= 0xD800 && c <= 0xDBFF && i + 1 < n && u[i + 1] >= 0xDC00 && u[i + 1] <= 0xDFFF) {
			len += ref_put(o + len, 0x10000 + ((c - 0xD800) << 10) + (u[i + 1] - 0xDC00));
			i++;
			continue;
		}
		len += ref_put(o + len, c >= 0xD800 && c <= 0xDFFF ? 0xFFFD : c);
	}
	o[len] = 0;
	return len;
}

/* Strings of every length to 70 units, mostly ASCII (so that whole words and 16-byte blocks
 * of it occur at every alignment), with now and then a unit of another kind or a NUL: the same
 * text as a plain unit-by-unit conversion. */
START_TEST(utf16_matches_a_plain_conversion)
{
	static const uint16_t odd[] = { 0, 0x7F, 0x80, 0xFF, 0x100, 0x7FF, 0x800, 0xFF80, 0xD83D, 0xDE00, 0xDBFF, 0xDC00 };
	uint16_t u[72];
	uint8_t b[144];
	char want[72 * 3 + 1];
	uint32_t x = 77;
	size_t len, i, k, used;
	int round;

	for (round = 0; round < 40; round++) {
		for (len = 0; len <= 70; len++) {
			for (i = 0; i < len; i++) {
				x = x * 1664525u + 1013904223u;
				u[i] = (uint16_t)((x >> 24) % 29 == 0 ? odd[(x >> 8) % (sizeof(odd) / sizeof(odd[0]))]
									: 0x20 + (x >> 16) % 95);
				if ((x >> 24) % 29 == 1 && i + 1 < len) { /* a pair */
					u[i++] = 0xD83D;
					u[i] = 0xDE00;
				}
			}
			for (i = 0; i < len; i++) { /* little-endian bytes, whatever the host */
				b[2 * i] = (uint8_t)u[i];
				b[2 * i + 1] = (uint8_t)(u[i] >> 8);
			}
			ref_utf16(u, len, want, &k);
			{
				/* exactly the string's bytes, so that a sanitizer sees a read past them */
				uint8_t *e = malloc(2 * len + 1);
				char *got;
				ck_assert_ptr_nonnull(e);
				memcpy(e, b, 2 * len);
				ck_assert_uint_eq(etl__utf16_units(e, len), k);
				got = etl__utf16_to_utf8(e, len, &used);
				ck_assert_ptr_nonnull(got);
				ck_assert_str_eq(got, want);
				ck_assert_uint_eq(used, k < len ? k + 1 : k);
				free(got);
				free(e);
			}
		}
	}
}
END_TEST

/* ---- GUIDs ---- */

START_TEST(guid_format_and_parse)
{
	struct etl_guid g, h;
	char s[ETL_GUID_STRING_SIZE];

	ck_assert_int_eq(etl_guid_parse("{3D6FA8D0-FE05-11D0-9DDA-00C04FD7BA7C}", &g), ETL_OK);
	ck_assert_uint_eq(g.data1, 0x3d6fa8d0);
	ck_assert_uint_eq(g.data2, 0xfe05);
	ck_assert_uint_eq(g.data4[7], 0x7c);
	etl_guid_format(&g, s);
	ck_assert_str_eq(s, "3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c");
	ck_assert_int_eq(etl_guid_parse(s, &h), ETL_OK);
	ck_assert(etl_guid_equal(&g, &h));
	ck_assert(etl_guid_equal(&g, etl_kernel_group_guid(3)));
	ck_assert_str_eq(etl_kernel_group_name(3), "Process");
	ck_assert_ptr_null(etl_kernel_group_guid(0x40));
	ck_assert_int_eq(etl_guid_parse("3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7", &h), ETL_E_FORMAT);
	ck_assert_int_eq(etl_guid_parse("3d6fa8d0+fe05-11d0-9dda-00c04fd7ba7c", &h), ETL_E_FORMAT);
	ck_assert_int_eq(etl_guid_parse("3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7g", &h), ETL_E_FORMAT);
}
END_TEST

/* ---- clock ---- */

START_TEST(clock_qpc_system_cycles)
{
	struct etl_clockconv c;

	/* QPC at 10 MHz: one tick is one FILETIME unit */
	etl__clock_init(&c, ETL_CLOCK_QPC, 5000, 130000000000000000ULL, 10000000, 0);
	ck_assert_uint_eq(etl__clock_filetime(&c, 5000), 130000000000000000ULL);
	ck_assert_uint_eq(etl__clock_filetime(&c, 6000), 130000000000001000ULL);
	ck_assert_uint_eq(etl__clock_filetime(&c, 4000), 129999999999999000ULL);
	/* QPC at 3 GHz: 3 ticks are 1 ns; 300 ticks are one FILETIME unit */
	etl__clock_init(&c, ETL_CLOCK_QPC, 0, 1000, 3000000000ULL, 0);
	ck_assert_uint_eq(etl__clock_filetime(&c, 3000000000ULL * 3600), 1000 + 36000000000ULL);
	ck_assert_uint_eq(etl__clock_filetime(&c, 299), 1000);
	/* system time: raw values are FILETIMEs */
	etl__clock_init(&c, ETL_CLOCK_SYSTEM_TIME, 130000000000000000ULL, 130000000000000000ULL, 0, 0);
	ck_assert_uint_eq(etl__clock_filetime(&c, 130000000000012345ULL), 130000000000012345ULL);
	/* CPU cycles at 2000 MHz: 200 cycles per FILETIME unit */
	etl__clock_init(&c, ETL_CLOCK_CPU_CYCLES, 0, 0, 0, 2000);
	ck_assert_uint_eq(etl__clock_filetime(&c, 2000000), 10000);
	/* a zero frequency does not divide by zero */
	etl__clock_init(&c, ETL_CLOCK_QPC, 0, 7, 0, 0);
	ck_assert_uint_eq(etl__clock_filetime(&c, 3), 10);
	/* saturation instead of wrap-around */
	etl__clock_init(&c, ETL_CLOCK_QPC, 0, 100, 1, 0);
	ck_assert_uint_eq(etl__clock_filetime(&c, UINT64_MAX), UINT64_MAX);
	etl__clock_init(&c, ETL_CLOCK_QPC, UINT64_MAX, 100, 10000000, 0);
	ck_assert_uint_eq(etl__clock_filetime(&c, 0), 0);
}
END_TEST

START_TEST(clock_unix_ns)
{
	ck_assert_int_eq(etl__filetime_to_unix_ns(116444736000000000ULL), 0);
	ck_assert_int_eq(etl__filetime_to_unix_ns(116444736000000001ULL), 100);
	ck_assert_int_eq(etl__filetime_to_unix_ns(116444735999999999ULL), -100);
	ck_assert_int_eq(etl__filetime_to_unix_ns(0), INT64_MIN);
	ck_assert_int_eq(etl__filetime_to_unix_ns(UINT64_MAX), INT64_MAX);
}
END_TEST

/* ---- 8-bit text ---- */

START_TEST(utf8_validity_and_latin1)
{
	static const struct { const char *s; int valid; } cases[] = {
		{ "plain", 1 }, { "caf\xc3\xa9", 1 }, { "\xe2\x82\xac", 1 }, { "\xf0\x9f\x98\x80", 1 },
		{ "\xed\x9f\xbf", 1 }, { "\xf4\x8f\xbf\xbf", 1 }, { "\xef\xbf\xbf", 1 },
		{ "\xc0\x80", 0 }, { "\xc1\xbf", 0 }, { "\xe0\x80\x80", 0 }, { "\xe0\x9f\xbf", 0 },
		{ "\xed\xa0\x80", 0 }, { "\xf0\x8f\xbf\xbf", 0 }, { "\xf4\x90\x80\x80", 0 }, { "\xf5\x80\x80\x80", 0 },
		{ "\xff", 0 }, { "\x80", 0 }, { "\xc3", 0 }, { "\xe2\x82", 0 }, { "\xe2\x28\xa1", 0 },
	};
	char out[32];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_msg(etl__utf8_valid((const uint8_t *)cases[i].s, strlen(cases[i].s)) == cases[i].valid,
			      "case %zu", i);
	ck_assert_uint_eq(etl__text8_to_utf8((const uint8_t *)"caf\xc3\xa9", 5, out), 5);
	ck_assert_str_eq(out, "caf\xc3\xa9");
	ck_assert_uint_eq(etl__text8_to_utf8((const uint8_t *)"a\xe9\xff", 3, out), 5);
	ck_assert_str_eq(out, "a\xc3\xa9\xc3\xbf");
	ck_assert_uint_eq(etl__text8_to_utf8((const uint8_t *)"", 0, out), 0);
	ck_assert_str_eq(out, "");
}
END_TEST

/* ---- XPRESS ---- */

static void roundtrip(const uint8_t *in, size_t n)
{
	size_t cap = n * 2 + 64, clen, produced, err_at;
	const char *why;
	uint8_t *c = malloc(cap), *d = malloc(n + 1);

	ck_assert_ptr_nonnull(c);
	clen = etlw_xpress_compress(in, n, c, cap);
	ck_assert_uint_gt(clen, 0);
	ck_assert_int_eq(etl__xpress_decompress(c, clen, d, n, &produced, &err_at, &why), 0);
	ck_assert_uint_eq(produced, n);
	ck_assert(memcmp(in, d, n) == 0);
	/* asking for one byte more than the stream holds is an error, not an overrun */
	if (n > 0)
		ck_assert_int_eq(etl__xpress_decompress(c, clen, d, n + 1, &produced, &err_at, &why), -1);
	free(c);
	free(d);
}

/* LZNT1: hand-made chunks (MS-XCA 2.5) and damage */
START_TEST(lznt1_chunks)
{
	static const uint8_t rep[] = { 0x05, 0xB0, 0x08, 'a', 'b', 'c', 0x06, 0x20 };
	static const uint8_t stored_then_end[] = { 0x04, 0x30, 'h', 'e', 'l', 'l', 'o', 0x00, 0x00, 0xFF };
	/* 17 literals, then a token at position 17: 11 length bits, back 17, length 3 */
	static const uint8_t split[] = { 0x15, 0xB0, 0x00, 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 0x00, 'i', 'j',
					 'k', 'l', 'm', 'n', 'o', 'p', 0x02, 'q', 0x00, 0x80 };
	static const uint8_t before_start[] = { 0x02, 0xB0, 0x01, 0x00, 0x00 };
	static const uint8_t cut[] = { 0x10, 0xB0, 0x00, 'a' };
	uint8_t out[64], in[300], big[5000];
	size_t produced, err_at, i;
	const char *why = NULL;
	uint32_t x = 7;
	int round;

	ck_assert_int_eq(etl__lznt1_decompress(rep, sizeof(rep), out, sizeof(out), &produced, &err_at, &why), 0);
	ck_assert_uint_eq(produced, 12);
	ck_assert(memcmp(out, "abcabcabcabc", 12) == 0);
	ck_assert_int_eq(etl__lznt1_decompress(stored_then_end, sizeof(stored_then_end), out, sizeof(out), &produced,
						&err_at, &why), 0);
	ck_assert_uint_eq(produced, 5);
	ck_assert(memcmp(out, "hello", 5) == 0);
	ck_assert_int_eq(etl__lznt1_decompress(split, sizeof(split), out, sizeof(out), &produced, &err_at, &why), 0);
	ck_assert_uint_eq(produced, 20);
	ck_assert(memcmp(out, "abcdefghijklmnopqabc", 20) == 0);
	/* the output must hold it all */
	ck_assert_int_eq(etl__lznt1_decompress(rep, sizeof(rep), out, 11, &produced, &err_at, &why), -1);
	ck_assert_uint_eq(produced, 3);
	ck_assert_int_eq(etl__lznt1_decompress(before_start, sizeof(before_start), out, sizeof(out), &produced, &err_at,
						&why), -1);
	ck_assert_uint_eq(err_at, 3);
	ck_assert_str_eq(why, "copy token reaches before the chunk");
	ck_assert_int_eq(etl__lznt1_decompress(cut, sizeof(cut), out, sizeof(out), &produced, &err_at, &why), -1);
	ck_assert_uint_eq(err_at, 0);
	/* garbage never writes past the output */
	for (round = 0; round < 20000; round++) {
		size_t n = x % sizeof(in), cap = (x >> 8) % sizeof(big);
		for (i = 0; i < n; i++) {
			x = x * 1664525u + 1013904223u;
			in[i] = (uint8_t)(x >> 24);
		}
		(void)etl__lznt1_decompress(in, n, big, cap, &produced, &err_at, &why);
		ck_assert_uint_le(produced, cap);
		x = x * 1664525u + 1013904223u;
	}
}
END_TEST

START_TEST(xpress_roundtrips)
{
	enum { N = 70000 };
	uint8_t *b = malloc(N);
	size_t i;
	uint32_t x = 12345;

	for (i = 0; i < N; i++) { /* random: mostly literals */
		x = x * 1103515245u + 12345u;
		b[i] = (uint8_t)(x >> 16);
	}
	roundtrip(b, N);
	memset(b, 'a', N); /* one long run: 16- and 32-bit length extensions */
	roundtrip(b, N);
	for (i = 0; i < N; i++) /* short periodic runs: the shared nibble */
		b[i] = (uint8_t)("abcdefghij"[i % 10] + (i / 5000));
	roundtrip(b, N);
	for (i = 0; i < N; i++) /* lengths around every extension boundary */
		b[i] = (uint8_t)((i % (3 + i / 700)) ? b[i ? i - 1 : 0] : (uint8_t)i);
	roundtrip(b, N);
	roundtrip(b, 0);
	roundtrip(b, 1);
	roundtrip(b, 33);
	free(b);
}
END_TEST

START_TEST(xpress_rejects_malformed)
{
	uint8_t out[64];
	size_t produced, err_at;
	const char *why;
	/* flags: first item is a match, but there is no history yet */
	static const uint8_t bad_dist[] = { 0, 0, 0, 0x80, 0x08, 0x00 };
	/* literal, then a match whose 16-bit length extension is cut */
	static const uint8_t cut[] = { 0, 0, 0, 0x40, 'x', 0x07, 0x00, 0x0F, 0xFF, 0x01 };
	/* a flag word cut short */
	static const uint8_t short_flags[] = { 0, 0 };

	ck_assert_int_eq(etl__xpress_decompress(bad_dist, sizeof(bad_dist), out, 8, &produced, &err_at, &why), -1);
	ck_assert_uint_eq(produced, 0);
	ck_assert_uint_eq(err_at, 6);
	ck_assert_int_eq(etl__xpress_decompress(cut, sizeof(cut), out, 60, &produced, &err_at, &why), -1);
	ck_assert_uint_eq(produced, 1);
	ck_assert_int_eq(etl__xpress_decompress(short_flags, sizeof(short_flags), out, 8, &produced, &err_at, &why), -1);
	ck_assert_uint_eq(err_at, 0);
}
END_TEST

/* Faults far from both ends of the buffers, where the decompressor takes its fast path, are
 * reported as near them: the same offset, output count and message. */
START_TEST(xpress_faults_in_long_streams)
{
	uint8_t in[200], out[400];
	size_t produced = 0, err_at = 0, i;
	const char *why = NULL;

	memset(in, 0, sizeof(in));
	for (i = 0; i < 32; i++) /* flag word 0: 32 literals */
		in[4 + i] = (uint8_t)('a' + i % 26);
	in[36 + 3] = 0x80; /* next flag word: a match first */
	in[40] = (uint8_t)(99 << 3 & 0xFF); /* 100 back, with 32 bytes written */
	in[41] = (uint8_t)(99 << 3 >> 8);
	ck_assert_int_eq(etl__xpress_decompress(in, sizeof(in), out, sizeof(out), &produced, &err_at, &why), -1);
	ck_assert_uint_eq(produced, 32);
	ck_assert_uint_eq(err_at, 42);
	ck_assert_str_eq(why, "match distance reaches before the start of the output");
	ck_assert(memcmp(out, in + 4, 32) == 0);
	/* 1 back, length 7 + 15 + 200 + 3 with 68 bytes of output left: the nibble and the byte read */
	in[40] = 7;
	in[41] = 0;
	in[42] = 0x0F;
	in[43] = 200;
	ck_assert_int_eq(etl__xpress_decompress(in, sizeof(in), out, 100, &produced, &err_at, &why), -1);
	ck_assert_uint_eq(produced, 32);
	ck_assert_uint_eq(err_at, 44);
	ck_assert_str_eq(why, "match runs past the declared uncompressed size");
	/* with room for it, the same match is a run of the last literal, and the output is whole */
	ck_assert_int_eq(etl__xpress_decompress(in, sizeof(in), out, 32 + 225, &produced, &err_at, &why), 0);
	ck_assert_uint_eq(produced, 32 + 225);
	ck_assert_uint_eq(out[31], 'a' + 31 % 26);
	ck_assert_uint_eq(out[32 + 224], 'a' + 31 % 26);
}
END_TEST

START_TEST(xpress_random_garbage_never_overruns)
{
	uint8_t in[256], out[512];
	uint32_t x = 99;
	int round;

	for (round = 0; round < 20000; round++) {
		size_t i, n = (size_t)(x % 256), produced, err_at;
		const char *why;

		for (i = 0; i < n; i++) {
			x = x * 1664525u + 1013904223u;
			in[i] = (uint8_t)(x >> 24);
		}
		(void)etl__xpress_decompress(in, n, out, (size_t)(x % sizeof(out)), &produced, &err_at, &why);
		ck_assert_uint_le(produced, sizeof(out));
		x = x * 1664525u + 1013904223u;
	}
}
END_TEST


/* Doubles: the shortest digits that read back, plain between 1e-6 and 1e21 (as JavaScript writes
 * numbers), never "1e+01" for ten. */
START_TEST(doubles_read_as_people_write_them)
{
	static const struct { double v; const char *text; } c[] = {
		{ 10, "10" }, { 100, "100" }, { 0.5, "0.5" }, { 1.25, "1.25" }, { -3.14, "-3.14" },
		{ 123456789.125, "123456789.125" }, { 1e20, "100000000000000000000" }, { 1e21, "1e+21" },
		{ 0.000001, "0.000001" }, { 1e-7, "1e-7" }, { 1.5e-7, "1.5e-7" }, { 0.1, "0.1" },
		{ 1.0 / 3.0, "0.3333333333333333" }, { 5e-324, "5e-324" }, { 1.7976931348623157e308, "1.7976931348623157e+308" },
		{ 0.0, "0" }, { -0.0, "-0" }, { 2.5e-5, "0.000025" },
	};
	struct etl_decoded owner;
	size_t i;

	memset(&owner, 0, sizeof(owner));
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct etl_property p;
		uint8_t le[8];
		uint64_t bits;
		int k;
		memcpy(&bits, &c[i].v, 8);
		for (k = 0; k < 8; k++)
			le[k] = (uint8_t)(bits >> (8 * k));
		memset(&p, 0, sizeof(p));
		p.in_type = ETL_IN_DOUBLE;
		p.kind = ETL_PROPERTY_VALUE;
		p.data = le;
		p.len = 8;
		p.owner = &owner;
		ck_assert_str_eq(etl__schema_format(&p, 0), c[i].text);
	}
	etl__arena_free(&owner.arena);
}
END_TEST

/* Every in-type's kind, and each out-type that changes it (with the sizes and data it needs). */
START_TEST(value_kinds_by_in_and_out_type)
{
	enum { NODATA = 1, V4 = 2, V6 = 3, LOOP = 4 }; /* data: none, socket address family 2 or 23 */
	static const struct { uint16_t in, out; uint8_t len, data; enum etl_value_kind kind; } c[] = {
		{ ETL_IN_NULL, 0, 4, 0, ETL_VALUE_NONE },
		{ ETL_IN_UNICODESTRING, 0, 4, NODATA, ETL_VALUE_STRING },
		{ ETL_IN_ANSISTRING, 0, 4, 0, ETL_VALUE_STRING },
		{ ETL_IN_COUNTEDSTRING, 0, 4, 0, ETL_VALUE_STRING },
		{ ETL_IN_NONNULLTERMINATEDANSISTRING, 0, 4, 0, ETL_VALUE_STRING },
		{ ETL_IN_UNICODECHAR, 0, 2, 0, ETL_VALUE_STRING },
		{ ETL_IN_ANSICHAR, 0, 1, NODATA, ETL_VALUE_STRING },
		{ ETL_IN_INT8, 0, 1, 0, ETL_VALUE_SIGNED },
		{ ETL_IN_UINT8, 0, 1, 0, ETL_VALUE_UNSIGNED },
		{ ETL_IN_INT64, 0, 8, 0, ETL_VALUE_SIGNED },
		{ ETL_IN_UINT32, 0, 4, NODATA, ETL_VALUE_NONE },
		{ ETL_IN_UINT32, ETL_OUT_INT, 4, 0, ETL_VALUE_SIGNED },
		{ ETL_IN_INT32, ETL_OUT_UNSIGNEDINT, 4, 0, ETL_VALUE_UNSIGNED },
		{ ETL_IN_UINT32, ETL_OUT_HEXINT32, 4, 0, ETL_VALUE_HEX },
		{ ETL_IN_UINT32, ETL_OUT_HRESULT, 4, 0, ETL_VALUE_HEX },
		{ ETL_IN_UINT64, ETL_OUT_CODE_POINTER, 8, 0, ETL_VALUE_HEX },
		{ ETL_IN_UINT32, ETL_OUT_PID, 4, 0, ETL_VALUE_UNSIGNED },
		{ ETL_IN_UINT8, ETL_OUT_STRING, 1, 0, ETL_VALUE_STRING },
		{ ETL_IN_UINT32, ETL_OUT_STRING, 4, 0, ETL_VALUE_UNSIGNED },
		{ ETL_IN_UINT32, ETL_OUT_BOOLEAN, 4, 0, ETL_VALUE_BOOLEAN },
		{ ETL_IN_UINT16, ETL_OUT_PORT, 2, 0, ETL_VALUE_ADDRESS },
		{ ETL_IN_UINT32, ETL_OUT_PORT, 4, 0, ETL_VALUE_UNSIGNED },
		{ ETL_IN_UINT32, ETL_OUT_IPV4, 4, 0, ETL_VALUE_ADDRESS },
		{ ETL_IN_INT64, ETL_OUT_IPV4, 8, 0, ETL_VALUE_SIGNED },
		{ ETL_IN_UINT64, ETL_OUT_DATETIME, 8, 0, ETL_VALUE_TIME },
		{ ETL_IN_UINT32, ETL_OUT_DATETIME_UTC, 4, 0, ETL_VALUE_UNSIGNED },
		{ ETL_IN_BOOLEAN, 0, 4, 0, ETL_VALUE_BOOLEAN },
		{ ETL_IN_BOOLEAN, ETL_OUT_UNSIGNEDINT, 4, 0, ETL_VALUE_UNSIGNED },
		{ ETL_IN_POINTER, 0, 8, 0, ETL_VALUE_HEX },
		{ ETL_IN_POINTER, ETL_OUT_LONG, 8, 0, ETL_VALUE_SIGNED },
		{ ETL_IN_HEXINT32, 0, 4, 0, ETL_VALUE_HEX },
		{ ETL_IN_HEXINT64, ETL_OUT_NULL, 8, 0, ETL_VALUE_HEX },
		{ ETL_IN_SIZET, 0, 8, 0, ETL_VALUE_HEX },
		{ ETL_IN_SIZET, ETL_OUT_UNSIGNEDLONG, 8, 0, ETL_VALUE_UNSIGNED },
		{ ETL_IN_FLOAT, 0, 4, 0, ETL_VALUE_REAL },
		{ ETL_IN_DOUBLE, 0, 8, NODATA, ETL_VALUE_NONE },
		{ ETL_IN_GUID, 0, 16, 0, ETL_VALUE_GUID },
		{ ETL_IN_FILETIME, 0, 8, 0, ETL_VALUE_TIME },
		{ ETL_IN_SYSTEMTIME, 0, 16, 0, ETL_VALUE_TIME },
		{ ETL_IN_SID, 0, 12, 0, ETL_VALUE_SID },
		{ ETL_IN_WBEMSID, 0, 20, 0, ETL_VALUE_SID },
		{ ETL_IN_WBEMSID, 0, 20, NODATA, ETL_VALUE_NONE },
		{ ETL_IN_BINARY, 0, 4, 0, ETL_VALUE_BINARY },
		{ ETL_IN_BINARY, 0, 4, NODATA, ETL_VALUE_BINARY },
		{ ETL_IN_COUNTEDBINARY, 0, 0, NODATA, ETL_VALUE_BINARY },
		{ ETL_IN_HEXDUMP, 0, 4, NODATA, ETL_VALUE_NONE },
		{ ETL_IN_HEXDUMP, ETL_OUT_UTF8, 4, 0, ETL_VALUE_STRING },
		{ ETL_IN_BINARY, ETL_OUT_IPV6, 16, 0, ETL_VALUE_ADDRESS },
		{ ETL_IN_BINARY, ETL_OUT_IPV6, 15, 0, ETL_VALUE_BINARY },
		{ ETL_IN_BINARY, ETL_OUT_SOCKETADDRESS, 16, V4, ETL_VALUE_ADDRESS },
		{ ETL_IN_BINARY, ETL_OUT_SOCKETADDRESS, 28, V6, ETL_VALUE_ADDRESS },
		{ ETL_IN_BINARY, ETL_OUT_SOCKETADDRESS, 16, V6, ETL_VALUE_BINARY },
		{ ETL_IN_BINARY, ETL_OUT_SOCKETADDRESS, 16, LOOP, ETL_VALUE_BINARY },
		{ ETL_IN_COUNTEDBINARY, ETL_OUT_XML, 4, 0, ETL_VALUE_STRING },
		{ ETL_IN_COUNTEDBINARY, ETL_OUT_JSON, 4, 0, ETL_VALUE_STRING },
		{ 24, 0, 4, 0, ETL_VALUE_BINARY }, /* unknown in-types: bytes */
		{ 24, 0, 4, NODATA, ETL_VALUE_NONE },
		{ 299, ETL_OUT_UNSIGNEDINT, 4, 0, ETL_VALUE_BINARY },
		{ 311, 0, 4, 0, ETL_VALUE_BINARY },
		{ 0xFFFF, 0, 4, 0, ETL_VALUE_BINARY },
	};
	uint8_t data[32];
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct etl_property p;
		memset(&p, 0, sizeof(p));
		memset(data, 0, sizeof(data));
		data[0] = c[i].data == V4 ? 2 : c[i].data == V6 ? 23 : c[i].data == LOOP ? 1 : 0;
		p.kind = ETL_PROPERTY_VALUE;
		p.in_type = c[i].in;
		p.out_type = c[i].out;
		p.len = c[i].len;
		p.data = c[i].data == NODATA ? NULL : data;
		ck_assert_msg(etl_property_value_kind(&p) == c[i].kind, "case %zu (in %u out %u): kind %d, not %d",
			      i, c[i].in, c[i].out, (int)etl_property_value_kind(&p), (int)c[i].kind);
		p.kind = ETL_PROPERTY_STRUCT; /* structs and arrays hold no value of their own */
		ck_assert_int_eq(etl_property_value_kind(&p), ETL_VALUE_NONE);
		p.kind = ETL_PROPERTY_ARRAY;
		ck_assert_int_eq(etl_property_value_kind(&p), ETL_VALUE_NONE);
	}
}
END_TEST

START_TEST(text_escape_keeps_text_and_defuses_controls)
{
	char out[64], small[6];

	ck_assert_str_eq(etl_text_escape("plain name.etl", out, sizeof(out)), "plain name.etl");
	ck_assert_str_eq(etl_text_escape("a\x1b[2J\nb\x7f", out, sizeof(out)), "a\\x1b[2J\\x0ab\\x7f");
	/* UTF-8 text stays; C1 controls, separators, bidi overrides, overlong forms, surrogates and
	 * stray bytes do not */
	ck_assert_str_eq(etl_text_escape("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", out, sizeof(out)),
			 "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	ck_assert_str_eq(etl_text_escape("\xc2\x9b\xe2\x80\xae\xe2\x80\xa8", out, sizeof(out)),
			 "\\xc2\\x9b\\xe2\\x80\\xae\\xe2\\x80\\xa8");
	ck_assert_str_eq(etl_text_escape("\xc0\x80|\xed\xa0\x80|\xff|\xe2\x82", out, sizeof(out)),
			 "\\xc0\\x80|\\xed\\xa0\\x80|\\xff|\\xe2\\x82");
	/* cut at a character, never inside an escape or a UTF-8 sequence */
	ck_assert_str_eq(etl_text_escape("abcdefgh", small, sizeof(small)), "abcde");
	ck_assert_str_eq(etl_text_escape("ab\x01", small, sizeof(small)), "ab");
	ck_assert_str_eq(etl_text_escape("a\x01", small, sizeof(small)), "a\\x01");
	ck_assert_str_eq(etl_text_escape("abcd\xc3\xa9", small, sizeof(small)), "abcd");
	ck_assert_str_eq(etl_text_escape("x", small, 1), "");
	ck_assert_str_eq(etl_text_escape(NULL, out, sizeof(out)), "");
}
END_TEST

/* Removing entries keeps every other one findable: runs of colliding hashes (a few homes for
 * many keys, wrapping at the table's end) with entries removed from their middles. */
struct hkey {
	uint32_t k;
};

static int hkey_eq(const void *e, const void *key)
{
	return ((const struct hkey *)e)->k == *(const uint32_t *)key;
}

static uint64_t hkey_hash(uint32_t k)
{
	return (uint64_t)(k % 7) * 0x9E3779B97F4A7C15ull | (k % 3 == 0 ? 0 : 0xFF); /* 7 homes, some high */
}

START_TEST(htab_remove_keeps_the_others)
{
	struct etl_htab t;
	uint32_t k, round;
	char gone[600];

	etl__htab_init(&t, sizeof(struct hkey));
	memset(gone, 0, sizeof(gone));
	for (k = 1; k < 600; k++) {
		struct hkey *e = etl__htab_insert(&t, hkey_hash(k));
		ck_assert_ptr_nonnull(e);
		e->k = k;
	}
	for (round = 0; round < 3; round++) {
		for (k = 1 + round; k < 600; k += 3 + round) {
			void *e = etl__htab_find(&t, hkey_hash(k), hkey_eq, &k);
			if (gone[k]) {
				ck_assert_ptr_null(e);
				continue;
			}
			ck_assert_ptr_nonnull(e);
			etl__htab_remove(&t, e);
			gone[k] = 1;
		}
		for (k = 1; k < 600; k++) {
			struct hkey *e = etl__htab_find(&t, hkey_hash(k), hkey_eq, &k);
			if (gone[k])
				ck_assert_ptr_null(e);
			else
				ck_assert_msg(e && e->k == k, "key %u lost after removals (round %u)", k, round);
		}
	}
	k = 0;
	for (round = 1; round < 600; round++)
		k += !gone[round];
	ck_assert_uint_eq(t.count, k);
	etl__htab_free(&t);
}
END_TEST

/* A reserve makes the room for n entries at once - n inserted then move no more - keeps what the
 * table holds when made later, never shrinks it, and refuses a count whose room cannot be had. */
START_TEST(htab_reserve_makes_room_once)
{
	struct etl_htab t;
	uint32_t k;
	size_t cap;

	etl__htab_init(&t, sizeof(struct hkey));
	ck_assert_int_eq(etl__htab_reserve(&t, 300), 0);
	cap = t.cap;
	ck_assert_uint_eq(cap, 1024); /* (half load at most: 301 entries need 602 slots) */
	for (k = 1; k <= 300; k++) {
		struct hkey *e = etl__htab_insert(&t, hkey_hash(k));
		ck_assert_ptr_nonnull(e);
		e->k = k;
	}
	ck_assert_uint_eq(t.cap, cap);
	ck_assert_int_eq(etl__htab_reserve(&t, 10), 0);
	ck_assert_uint_eq(t.cap, cap);
	ck_assert_int_eq(etl__htab_reserve(&t, 2000), 0); /* (with 300 held: they move along) */
	ck_assert_uint_eq(t.cap, 4096);
	for (k = 1; k <= 300; k++) {
		struct hkey *e = etl__htab_find(&t, hkey_hash(k), hkey_eq, &k);
		ck_assert_msg(e && e->k == k, "key %u lost by the reserve", k);
	}
	ck_assert_uint_eq(t.count, 300);
	ck_assert_int_eq(etl__htab_reserve(&t, SIZE_MAX / 2), -1);
	ck_assert_uint_eq(t.cap, 4096);
	etl__htab_free(&t);
}
END_TEST

/* The CRC-32 of gzip and zip, folded by carry-less multiplication where the processor has it,
 * equals zlib's at every length, alignment and split, and the check value of the standard. */
START_TEST(crc32_equals_zlib)
{
	static const uint8_t check[] = "123456789";
	size_t cap = (1u << 20) + 64, n, off, cut;
	uint8_t *b = malloc(cap);
	uint64_t s = 0x9E3779B97F4A7C15ULL;

	ck_assert_ptr_nonnull(b);
	for (n = 0; n < cap; n++) {
		s = s * 6364136223846793005ULL + 1442695040888963407ULL;
		b[n] = (uint8_t)(s >> 56);
	}
	ck_assert_uint_eq(etl__crc32(0, check, 9), 0xCBF43926u);
	for (n = 0; n <= 600; n++)
		for (off = 0; off < 16; off++)
			ck_assert_uint_eq(etl__crc32(0x12345678u, b + off, n), etl__crc32_portable(0x12345678u, b + off, n));
	for (cut = 0; cut <= 300; cut += 7) /* continued from any point */
		ck_assert_uint_eq(etl__crc32(etl__crc32(0, b, cut), b + cut, 4096 - cut), etl__crc32_portable(0, b, 4096));
	ck_assert_uint_eq(etl__crc32(0, b + 3, cap - 64), etl__crc32_portable(0, b + 3, cap - 64));
	memset(b, 0xFF, 4096); /* all ones, all zeros */
	ck_assert_uint_eq(etl__crc32(0, b, 4096), etl__crc32_portable(0, b, 4096));
	memset(b, 0, 4096);
	ck_assert_uint_eq(etl__crc32(~0u, b, 4096), etl__crc32_portable(~0u, b, 4096));
	free(b);
}
END_TEST

static Suite *units_suite(void)
{
	Suite *s = suite_create("units");
	TCase *t = tcase_create("core");

	tcase_add_test(t, padding_start_is_the_bytewise_one);
	tcase_add_test(t, cursor_reads_little_endian);
	tcase_add_test(t, htab_remove_keeps_the_others);
	tcase_add_test(t, htab_reserve_makes_room_once);
	tcase_add_test(t, cursor_short_read_is_sticky);
	tcase_add_test(t, cursor_pointer_sizes);
	tcase_add_test(t, utf16_decodes_bmp_pairs_and_lone_surrogates);
	tcase_add_test(t, utf16_words_of_ascii_and_not);
	tcase_add_test(t, utf16_matches_a_plain_conversion);
	tcase_add_test(t, utf8_validity_and_latin1);
	tcase_add_test(t, guid_format_and_parse);
	tcase_add_test(t, text_escape_keeps_text_and_defuses_controls);
	tcase_add_test(t, doubles_read_as_people_write_them);
	tcase_add_test(t, value_kinds_by_in_and_out_type);
	tcase_add_test(t, clock_qpc_system_cycles);
	tcase_add_test(t, clock_unix_ns);
	tcase_add_test(t, crc32_equals_zlib);
	tcase_add_test(t, xpress_roundtrips);
	tcase_add_test(t, lznt1_chunks);
	tcase_add_test(t, xpress_rejects_malformed);
	tcase_add_test(t, xpress_faults_in_long_streams);
	tcase_add_test(t, xpress_random_garbage_never_overruns);
	tcase_add_loop_test(t, image_index_matches_plain_search, 0, 8);
	tcase_add_test(t, kept_buffers_are_given_once_to_their_entry);
	tcase_set_timeout(t, 60);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(units_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

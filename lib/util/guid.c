/*
 * guid.c - GUID text form.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* the two hex digits of every byte value */
const char etl__hex_pairs[513] =
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
	"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
	"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
	"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
	"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

void etl_guid_format(const struct etl_guid *g, char out[ETL_GUID_STRING_SIZE])
{
	unsigned i;

	etl__hex_byte(out, g->data1 >> 24);
	etl__hex_byte(out + 2, g->data1 >> 16);
	etl__hex_byte(out + 4, g->data1 >> 8);
	etl__hex_byte(out + 6, g->data1);
	out[8] = '-';
	etl__hex_byte(out + 9, g->data2 >> 8u);
	etl__hex_byte(out + 11, g->data2);
	out[13] = '-';
	etl__hex_byte(out + 14, g->data3 >> 8u);
	etl__hex_byte(out + 16, g->data3);
	out[18] = '-';
	etl__hex_byte(out + 19, g->data4[0]);
	etl__hex_byte(out + 21, g->data4[1]);
	out[23] = '-';
	for (i = 0; i < 6; i++)
		etl__hex_byte(out + 24 + 2 * i, g->data4[2 + i]);
	out[36] = 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int etl_guid_parse(const char *s, struct etl_guid *out)
{
	/* Positions of the 16 bytes, as hex-digit pairs, in "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx". */
	static const unsigned char pos[16] = { 0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34 };
	uint8_t b[16];
	size_t len, i;
	int braced;

	if (!s || !out)
		return ETL_E_MISUSE;
	len = strlen(s);
	braced = len == 38 && s[0] == '{' && s[37] == '}';
	if (braced)
		s++;
	else if (len != 36)
		return ETL_E_FORMAT;
	if (s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-')
		return ETL_E_FORMAT;
	for (i = 0; i < 16; i++) {
		int hi = hexval(s[pos[i]]), lo = hexval(s[pos[i] + 1]);

		if (hi < 0 || lo < 0)
			return ETL_E_FORMAT;
		b[i] = (uint8_t)(hi << 4 | lo);
	}
	out->data1 = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
	out->data2 = (uint16_t)(b[4] << 8 | b[5]);
	out->data3 = (uint16_t)(b[6] << 8 | b[7]);
	memcpy(out->data4, b + 8, 8);
	return ETL_OK;
}

int etl_guid_equal(const struct etl_guid *a, const struct etl_guid *b)
{
	return a->data1 == b->data1 && a->data2 == b->data2 && a->data3 == b->data3 &&
	       memcmp(a->data4, b->data4, 8) == 0;
}

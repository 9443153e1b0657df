/*
 * sniff.c - what an input that is not a trace looks like, for the message
 * that refuses it ("not a trace: an ELF executable"): a few magic numbers
 * and a test for text.  Only a hint: nothing else depends on it.
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "io/source.h"

/* Whether p[0..n) reads as text: UTF-8 (or ASCII) without control bytes but tab and line ends. */
static int is_text(const uint8_t *p, size_t n)
{
	size_t i = 0, k;

	while (i < n) {
		uint8_t c = p[i];
		if (c == '\t' || c == '\n' || c == '\r' || (c >= 0x20 && c < 0x7f)) {
			i++;
			continue;
		}
		k = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
		if (!k)
			return 0;
		if (i + k > n)
			return i > 0; /* a sequence cut by the end of what was read */
		for (; k > 1; k--)
			if ((p[i + k - 1] & 0xc0) != 0x80)
				return 0;
		i += (size_t)(c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2);
	}
	return 1;
}

const char *etl__bytes_describe(const uint8_t *p, size_t n, uint64_t size)
{
	static const struct {
		const char *magic;
		size_t len;
		const char *what;
	} magic[] = {
		{ "\x7f" "ELF", 4, "an ELF executable or library" },
		{ "MZ", 2, "a Windows executable (MZ)" },
		{ "%PDF-", 5, "a PDF document" },
		{ "\x89PNG", 4, "a PNG image" },
		{ "\xff\xd8\xff", 3, "a JPEG image" },
		{ "7z\xbc\xaf", 4, "a 7-Zip archive" },
		{ "\xfd" "7zXZ", 5, "an xz stream" },
		{ "BZh", 3, "a bzip2 stream" },
		{ "\x28\xb5\x2f\xfd", 4, "a zstd stream" },
		{ "\xd4\xc3\xb2\xa1", 4, "a pcap capture" },
		{ "\x0a\x0d\x0d\x0a", 4, "a pcapng capture" },
		{ "\xff\xfe", 2, "UTF-16 text" },
		{ "\xfe\xff", 2, "UTF-16 text" },
	};
	size_t i;

	if (size == 0)
		return "an empty file";
	for (i = 0; i < sizeof(magic) / sizeof(magic[0]); i++)
		if (n >= magic[i].len && memcmp(p, magic[i].magic, magic[i].len) == 0)
			return magic[i].what;
	if (n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		return "UTF-8 text";
	if (is_text(p, n))
		return n >= 1 && p[0] == '<' ? "XML or HTML text" : "text";
	return NULL;
}

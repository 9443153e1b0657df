/*
 * images.c - the "images32" scenario: image records whose layouts the reader must tell from
 * their bytes (FORMAT-NOTES section 10), for the tool and Python tests.
 *
 *   1. Image/DCStart v2, SYSTEM32: a rundown logged by the collector (header pid 1876) of an
 *      image of process 384: decoded.
 *   2. Image/Load v1, MOF class, 4-byte header: {u64 base; u32 size; u32 pid; name} with the
 *      logger's own pid (a 32-bit program's struct): decoded.
 *   3. The same with another process's pid: no layout accounts for it; raw, and reported.
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "scenario.h"

static size_t put_name(uint8_t *p, const char *s)
{
	size_t n = 0;

	do
		etlw_put16(p + 2 * n, (uint8_t)s[n]);
	while (s[n++]);
	return 2 * n;
}

int scen_build_images32(const struct etlw_opts *o, uint8_t **out, size_t *len)
{
	struct etlw *w = etlw_new(o);
	struct etlw_classic c;
	uint8_t p[256];
	size_t n;
	int rc = 0;

	if (!w)
		return -1;
	/* 1: DCStart v2 (base, size, pid, checksum, stamp, reserved, default base, reserved x4, name) */
	memset(p, 0, sizeof(p));
	etlw_put32(p, 0x77000000u), etlw_put32(p + 4, 0x1000), etlw_put32(p + 8, 384);
	n = 44 + put_name(p + 44, "\\SystemRoot\\System32\\smss.exe");
	rc |= etlw_system(w, 0, 0, 2, 0x1403, 1900, 1876, o->start_ts + 100, p, n);
	/* 2 and 3: MOF-class Image/Load v1 written by a 32-bit program */
	memset(&c, 0, sizeof(c));
	c.guid = (struct etl_guid){ 0x2cb15d1d, 0x5fc1, 0x11d2, { 0xab, 0xe1, 0x00, 0xa0, 0xc9, 0x11, 0xf5, 0x18 } };
	c.type = 10;
	c.version = 1;
	c.pid = 4192;
	c.tid = 6452;
	for (unsigned k = 0; k < 2; k++) {
		memset(p, 0, sizeof(p));
		etlw_put64(p, 0x1160000), etlw_put32(p + 8, 0x19e000), etlw_put32(p + 12, k ? 4200 : 4192);
		n = 16 + put_name(p + 16, "C:\\code\\test_program.exe");
		c.ts = o->start_ts + 200 + 100 * k;
		rc |= etlw_classic(w, 0, &c, p, n);
	}
	if (rc == 0)
		rc = etlw_finish(w, out, len);
	etlw_free(w);
	return rc;
}

/*
 * fuzz_pdb - the PDB reader over a file in memory: open it, look up every
 * section's first bytes and addresses the input's last bytes choose (with
 * lines), then read all its modules and public symbols.  Memory is capped at
 * 16 MiB, as a reader's symbol limit would cap it.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "pdb/pdb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct etl_source src;
	struct etl_pdb p;
	struct etl_pdb_hit h;
	struct etl_diag d;
	uint32_t i;

	etl__source_init(&src);
	etl__source_open_memory(&src, data, size);
	if (etl__pdb_open(&p, &src, 16u << 20, &d) != ETL_OK)
		return 0;
	for (i = 0; i < p.nsect && i < 16; i++) {
		(void)etl__pdb_lookup(&p, p.sect[i].rva, 1, &h, &d);
		(void)etl__pdb_lookup(&p, p.sect[i].rva + p.sect[i].size / 2, 1, &h, &d);
	}
	for (i = 0; i + 4 <= size && i < 64; i += 4) {
		uint32_t rva = (uint32_t)data[size - 1 - i] | (uint32_t)data[size - 2 - i] << 8 |
			       (uint32_t)data[size - 3 - i] << 16;
		if (etl__pdb_lookup(&p, rva, 1, &h, &d) == ETL_OK && h.function)
			(void)strlen(h.function); /* (the name is terminated) */
		if (h.file)
			(void)strlen(h.file);
	}
	(void)etl__pdb_load_all(&p, &d);
	etl__pdb_close(&p);
	return 0;
}

/*
 * files.h - what a trace says about file names, for derived fields
 * (ETL_OPTION_DERIVE): the name of each file key (FileIo Name, FileCreate,
 * FileDelete and FileRundown records: the FileObject field of DiskIo and
 * HardFault records is that key) and the volume mapping of KernelTraceControl's
 * SysConfig/VolumeMapping records (\Device\HarddiskVolume3\ -> C:\).
 *
 * Both mostly come at the end of a trace (rundowns), so the index is read
 * in one pass over the trace, the first time a derived field needs it, like
 * the stack index.  A key may name different files over time: a lookup at
 * time t takes the latest name given at or before t, else the first after.
 * Memory is bounded (ETL_FILES_MAX_BYTES); what does not fit is not kept.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_STATE_FILES_H
#define ETL_STATE_FILES_H

#include <stddef.h>
#include <stdint.h>

#include "util/htab.h"

#include "internal.h"
#include "walk/load.h"

#define ETL_FILES_MAX_BYTES ((size_t)64 << 20)

struct etl_filename {
	uint64_t key, ts; /* ts: raw time stamp of the record that named it */
	size_t off;       /* of the UTF-8 name in the pool */
};

struct etl_volmap {
	size_t nt, dos; /* offsets of the NT prefix and the DOS prefix in the pool */
	size_t nt_len;
};

#define ETL_FILES_MAX_VOLUMES 4096u /* volume mappings kept per trace; more are counted in dropped */

struct etl_files {
	int loaded;
	struct etl_filename *names; /* sorted by (key, ts) */
	size_t nnames, capnames;
	struct etl_volmap *vols;    /* longest NT prefix first */
	size_t nvols, capvols;
	struct etl_htab volix;      /* (NT prefix, any case) -> index in vols */
	size_t *lens, nlens;        /* the NT prefixes' distinct lengths, longest first */
	const char *system_drive;   /* the DOS prefix of \SystemRoot\ ("C:..."), or NULL */
	char *pool;
	size_t pool_len, pool_cap;
	uint64_t dropped;
};

/* Reads the trace's file names and volume mapping (one pass over its buffers). */
void etl__files_load(struct etl_files *f, struct etl_bufload *ld, const struct etl_bufindex *ix, unsigned ptr_size);
/* The name of file key at raw time ts (UTF-8, NT path), or NULL. */
const char *etl__files_name(const struct etl_files *f, uint64_t key, uint64_t ts);
/* path with its NT volume prefix replaced by the DOS one (into out, cap bytes); a path with no
 * device (\Windows\...) on the drive of \SystemRoot\'s mapping: 1, or 0 when no mapping applies
 * (out untouched) or it does not fit. */
int etl__files_dos_path(const struct etl_files *f, const char *path, char *out, size_t cap);
void etl__files_free(struct etl_files *f);

#endif

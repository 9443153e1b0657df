/*
 * methodhist.h - the .NET methods of a trace over time: which JIT-compiled
 * (or NGEN) method held an address of a process at a given time, from the
 * CLR's own events, read in the stack index pass like the images
 * (imagehist.h):
 *
 *   Microsoft-Windows-DotNETRuntime {e13c0d23-...}: Method/LoadVerbose (143),
 *     Method/UnloadVerbose (144), the rundown-at-start forms DCStartVerbose and
 *     DCEndVerbose (139, 140); Loader/ModuleLoad (152), ModuleUnload (153),
 *     ModuleDCStart/DCEnd (149, 150);
 *   Microsoft-Windows-DotNETRuntimeRundown {a669021c-...}: Method DCStartVerbose
 *     (143) and DCEndVerbose (144), Loader ModuleDCStart (153), ModuleDCEnd (154).
 *
 * The payloads are the CLR manifest's templates (MethodLoadUnloadVerbose and
 * its rundown twin, versions 0-2: MethodID, ModuleID, MethodStartAddress,
 * MethodSize, MethodToken, MethodFlags, MethodNamespace, MethodName,
 * MethodSignature, ...; ModuleLoadUnload: ModuleID, AssemblyID, ModuleFlags,
 * Reserved1, ModuleILPath, ModuleNativePath, ...), read here with the cursor
 * whether or not the trace carries their metadata or a manifest was given.
 *
 * Lifetimes, per process and start address: a Load opens a method at its
 * time, an Unload closes the newest open one there (or one loaded before the
 * trace), a rundown names one alive at the trace's start or end.  A lookup at
 * time t takes, of the methods whose lifetime holds t and that cover the
 * address, the one loaded last (an address range is reused after an unload or
 * a re-JIT).  Memory is bounded like the image history's.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_STATE_METHODHIST_H
#define ETL_STATE_METHODHIST_H

#include <stddef.h>
#include <stdint.h>

#include "util/pidix.h"

#include "internal.h"

/* A method or module record as the pass read it. */
struct etl_mthrec {
	uint64_t ts, order;     /* raw time stamp, file order */
	uint64_t start;         /* MethodStartAddress (methods) */
	uint64_t module;        /* ModuleID */
	uint32_t size, pid;
	uint8_t op;             /* METHOD_LOAD, _UNLOAD, _RUNDOWN, MODULE_RECORD */
	size_t name, sig;       /* in the pool: "Namespace.Method" (methods) or the module's path; signature */
};

/* A method with its lifetime. */
struct etl_method {
	uint64_t start, module;
	uint64_t from, to;      /* raw time stamps: 0 = before the trace, UINT64_MAX = after it */
	uint32_t size, pid;
	size_t name, sig;
};

/* A module's path, by (pid, ModuleID). */
struct etl_clrmodule {
	uint32_t pid;
	uint64_t id;
	size_t path, file; /* in the pool: the path, and its file name (after its last \ or /) */
};

struct etl_methodhist {
	struct etl_mthrec *rec;
	size_t nrec, caprec;
	char *pool;
	size_t pool_len, pool_cap;
	uint64_t dropped, next_order;
	/* built by etl__methodhist_finish */
	struct etl_method *m;   /* sorted by (pid, start, from) */
	size_t nm;
	uint64_t *reach;        /* by method: the highest end of its process's methods up to it (NULL:
				   not made) - where a lookup stops going down */
	struct etl_clrmodule *mod; /* sorted by (pid, id) */
	size_t nmod;
	/* each process's run of methods: their places [first, end), the lowest start and the highest
	 * end (where none is, no search); found by pid through pid_ix (NULL slots: not made) */
	struct etl_mpid {
		uint32_t pid;
		size_t first, end;
		uint64_t low, high;
	} *pids;
	size_t npids;
	struct etl_pidix pid_ix;
	uint32_t max_size;      /* the largest method, for lookups */
	uint64_t top;           /* the highest end of any method: none holds an address at or above it
				   (a kernel address: no search) */
	int built;
};

/* Whether ev is one of the CLR events above. */
int etl__methodhist_wants(const struct etl_event *ev);
/* Whether an event header whose provider GUID starts with provider_data1 may be one (0: it is
 * not). */
int etl__methodhist_may_want(uint32_t provider_data1);
/* Reads one; kept within max_bytes of memory, else counted. */
void etl__methodhist_add(struct etl_methodhist *h, const struct etl_event *ev, uint64_t max_bytes);
/* Appends what part holds (read from later buffers than h's) to h. */
void etl__methodhist_append(struct etl_methodhist *h, const struct etl_methodhist *part, uint64_t max_bytes);
/* Replays the records in time order into lifetimes (the records are freed then). */
void etl__methodhist_finish(struct etl_methodhist *h);
/* The method of process pid that held addr at raw time ts, or NULL. */
const struct etl_method *etl__methodhist_find(const struct etl_methodhist *h, uint32_t pid, uint64_t addr,
					      uint64_t ts);
/* Text of the pool (a method's name or signature, a module's path). */
const char *etl__methodhist_text(const struct etl_methodhist *h, size_t at);
/* The path of module id of process pid (ModuleILPath, else ModuleNativePath), or NULL; its file
 * name into *file when file is not NULL (found once, when the history is built: frames ask for
 * it for every method frame). */
const char *etl__methodhist_module(const struct etl_methodhist *h, uint32_t pid, uint64_t id, const char **file);
void etl__methodhist_free(struct etl_methodhist *h);

#endif

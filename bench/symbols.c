/*
 * symbols.c - etlbench's symbol rows (issue 33): what a large PDB costs to
 * open and to look addresses up in, and what naming frames costs JSON Lines.
 *
 * The PDB is made by the test writer (tests/writer/pdbw.c) at about 50 MB:
 * 160,000 procedures in 2,000 modules, a line entry per 4 bytes of code, a
 * public symbol per procedure, and a 4 MB type stream (never read).  The
 * traces (etlgen's profile64 scenario) load its image with the DbgID_RSDS
 * record of that PDB and hold 100,000 samples of 8 frames in its functions:
 * a profile's (2,000 distinct stacks, Zipf-distributed), and the worst case
 * (every frame a random address).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "pdb/pdb.h"
#include "bench.h"
#include "pdbw.h"
#include "scenario.h"
#include "symbench.h"

#define NPROCS 160000u
#define NMODULES 2000u
#define PROC_SIZE 0x40u
#define NSAMPLES 100000u
#define BASE 0x180000000ull

static const struct etl_guid big_guid = { 0xb16b00b5, 0x1234, 0x5678, { 9, 8, 7, 6, 5, 4, 3, 2 } };

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint32_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

/* The big PDB at path; 0 or -1. */
static int make_pdb(const char *path)
{
	static const struct pdbw_section text = { ".text", 0x1000, NPROCS * PROC_SIZE };
	struct pdbw_proc *procs = calloc(NPROCS, sizeof(*procs));
	struct pdbw_public *pubs = calloc(NPROCS, sizeof(*pubs));
	char *names = malloc((size_t)NPROCS * 24);
	struct pdbw_spec s;
	uint8_t *b = NULL;
	size_t n = 0, i;
	FILE *f;
	int rc = -1;

	if (!procs || !pubs || !names)
		goto out;
	for (i = 0; i < NPROCS; i++) {
		char *nm = names + 24 * i;
		snprintf(nm, 24, "Module%u::Func%u", (unsigned)(i % NMODULES), (unsigned)i);
		procs[i] = (struct pdbw_proc){ nm, 1, (uint32_t)(i * PROC_SIZE), PROC_SIZE, 100, (int)(i & 1) };
		pubs[i] = (struct pdbw_public){ nm, 1, (uint32_t)(i * PROC_SIZE) };
	}
	memset(&s, 0, sizeof(s));
	s.block_size = 4096;
	s.guid = big_guid;
	s.age = 1;
	s.sections = &text;
	s.nsections = 1;
	s.procs = procs;
	s.nprocs = NPROCS;
	s.publics = pubs;
	s.npublics = NPROCS;
	s.source = "d:\\src\\big\\module.cpp";
	s.nmodules = NMODULES;
	s.filler_bytes = 4u << 20;
	if (pdbw_build(&s, &b, &n) != 0)
		goto out;
	f = fopen(path, "wb");
	if (f && fwrite(b, 1, n, f) == n && fclose(f) == 0)
		rc = 0;
	else if (f)
		fclose(f);
out:
	free(procs);
	free(pubs);
	free(names);
	free(b);
	return rc;
}

/* The trace: an image of the PDB's and NSAMPLES samples of 8 frames in it; uniform: every frame a
 * random address of the code (the worst case: no two frames alike); else the stacks of a profile,
 * 2,000 distinct ones drawn with Zipf's law (the k-th most frequent 1/k as often as the first). */
static int make_trace(const char *dir, const char *path, int uniform)
{
	static uint64_t stacks[2000][8];
	double weights[2000], total = 0;
	char spec[4096];
	struct etlw_opts o;
	uint8_t *data;
	size_t len, i, k;
	FILE *f;
	int rc;

	for (i = 0; i < 2000; i++) {
		for (k = 0; k < 8; k++)
			stacks[i][k] = BASE + 0x1000 + (next_rand() % (NPROCS * PROC_SIZE));
		total += weights[i] = 1.0 / (double)(i + 1);
	}
	snprintf(spec, sizeof(spec), "%s/etlbench-symbols.tsv", dir);
	if (!(f = fopen(spec, "w")))
		return -1;
	fprintf(f, "process\t100\tbig.exe\n");
	fprintf(f, "image\t100\t0x%llx\t0x%x\tC:\\app\\big.dll\t%08x-%04x-%04x-0908-070605040302\t1\tC:\\b\\big.pdb\n",
		BASE, 0x1000 + NPROCS * PROC_SIZE, big_guid.data1, big_guid.data2, big_guid.data3);
	for (i = 0; i < NSAMPLES; i++) {
		double pick = (double)next_rand() / 65536.0 / 65536.0 * total;
		size_t s = 0;
		while (s < 1999 && (pick -= weights[s]) > 0)
			s++;
		fprintf(f, "sample\t100\t7\t%.2f\t", 1 + (double)i / 100); /* 10 us apart */
		for (k = 0; k < 8; k++)
			fprintf(f, "%s0x%llx", k ? "," : "",
				uniform ? BASE + 0x1000 + (next_rand() % (NPROCS * PROC_SIZE)) : (unsigned long long)stacks[s][k]);
		fputc('\n', f);
	}
	if (fclose(f) != 0)
		return -1;
	etlw_default_opts(&o);
	o.ncpu = 1;
	if (scen_build_profile(&o, spec, &data, &len) != 0)
		return -1;
	unlink(spec);
	f = fopen(path, "wb");
	rc = f && fwrite(data, 1, len, f) == len ? 0 : -1;
	if (f && fclose(f) != 0)
		rc = -1;
	free(data);
	return rc;
}

/* Opens the PDB: seconds (best of repeat), and the lookups' rates. */
static void time_pdb(const char *path, int repeat)
{
	double best = 1e9, first = 0, t0, t, all;
	uint64_t held_open;
	struct etl_pdb p;
	struct etl_pdb_hit h;
	struct etl_diag d;
	struct stat st;
	unsigned i, found = 0;
	int r;

	for (r = 0; r < repeat; r++) {
		struct etl_source src;
		if (etl__source_open_regular(&src, path, &d) != ETL_OK)
			return;
		t0 = bench_now();
		if (etl__pdb_open(&p, &src, 1u << 30, &d) != ETL_OK) {
			printf("symbols: %s: %s\n", path, d.msg);
			return;
		}
		t = bench_now() - t0;
		if (t < best)
			best = t;
		if (r + 1 < repeat)
			etl__pdb_close(&p);
	}
	held_open = p.held;
	t0 = bench_now();
	(void)etl__pdb_lookup(&p, 0x1000 + 5 * PROC_SIZE + 3, 1, &h, &d);
	first = bench_now() - t0;
	t0 = bench_now();
	for (i = 0; i < 1000000; i++) { /* modules are read as the lookups meet them */
		if (etl__pdb_lookup(&p, 0x1000 + next_rand() % (NPROCS * PROC_SIZE), 1, &h, &d) == ETL_OK && h.function)
			found++;
	}
	all = bench_now() - t0;
	stat(path, &st);
	printf("\nSymbols: a PDB of %.1f MB (%u procedures in %u modules, %u public symbols, 4 MB of types):\n"
	       "opened in %.1f ms (best of %d: the directory, info and DBI streams; %.1f MiB kept), its first\n"
	       "lookup %.2f ms (a module stream, its lines); 1,000,000 lookups with lines in %.2f s\n"
	       "(%.2f M/s; %u found; every module read on the way: %.1f MiB kept).\n",
	       (double)st.st_size / 1e6, NPROCS, NMODULES, NPROCS, best * 1e3, repeat,
	       (double)held_open / 1048576.0, first * 1e3, all, 1.0 / all, found,
	       (double)p.held / 1048576.0);
	etl__pdb_close(&p);
}

/* The best of repeat runs of each of two shell commands, run alternately, into best[2]; 0, or -1
 * when one failed. */
static int best_pair(const char *a, const char *b, int repeat, double best[2])
{
	int r, k;

	best[0] = best[1] = 1e9;
	for (r = 0; r < repeat; r++)
		for (k = 0; k < 2; k++) {
			double t0 = bench_now(), t;
			if (system(k ? b : a) != 0)
				return -1;
			t = bench_now() - t0;
			if (t < best[k])
				best[k] = t;
		}
	return 0;
}

/* etldump -f jsonl over the trace with the PDB, and with --no-symbols. */
static void time_jsonl(const char *etldump, const char *trace, const char *dir, int repeat, const char *what)
{
	char with[16384], without[16384];
	double best[2];

	snprintf(with, sizeof(with), "%s -f jsonl --symbols %s %s > /dev/null", etldump, dir, trace);
	snprintf(without, sizeof(without), "%s -f jsonl --no-symbols %s > /dev/null", etldump, trace);
	if (best_pair(with, without, repeat, best) != 0)
		return;
	printf("JSON Lines of %u samples of 8 frames (%s): %.3f s with the PDB (opened,\n"
	       "every frame named), %.3f s with --no-symbols: %.0f %% of the --no-symbols speed (best of %d,\n"
	       "alternately).\n",
	       NSAMPLES, what, best[0], best[1], 100.0 * best[1] / best[0], repeat);
}

void bench_symbols_corpus(const char *corpus, const char *etldump, int repeat)
{
	char trace[4096], with[8400], without[8400];
	double best[2];

	snprintf(trace, sizeof(trace), "%s/etl/perfview_net.4.5.2.x86.etl", corpus);
	if (access(trace, R_OK) != 0)
		return;
	snprintf(with, sizeof(with), "%s -f jsonl %s > /dev/null", etldump, trace);
	snprintf(without, sizeof(without), "%s -f jsonl --no-symbols %s > /dev/null", etldump, trace);
	if (best_pair(with, without, repeat, best) != 0)
		return;
	printf("JSON Lines of perfview_net.4.5.2.x86.etl (343,465 frames, 38,785 of them .NET methods named\n"
	       "from its CLR events): %.3f s, %.3f s with --no-symbols: %.0f %% of its speed.\n",
	       best[0], best[1], 100.0 * best[1] / best[0]);
}

void bench_symbols(const char *dir, const char *etldump, int repeat, int keep)
{
	char sub[4096], pdb[4200], trace[4096];

	snprintf(sub, sizeof(sub), "%s/etlbench-symbols", dir);
	snprintf(pdb, sizeof(pdb), "%s/big.pdb", sub);
	snprintf(trace, sizeof(trace), "%s/etlbench-symbols.etl", dir);
	mkdir(sub, 0755);
	if (make_pdb(pdb) != 0 || make_trace(dir, trace, 0) != 0) {
		printf("\nSymbols: cannot write %s or %s\n", pdb, trace);
		return;
	}
	time_pdb(pdb, repeat);
	time_jsonl(etldump, trace, sub, repeat, "2,000 distinct stacks drawn with Zipf's law");
	snprintf(trace, sizeof(trace), "%s/etlbench-symbols-uniform.etl", dir);
	if (make_trace(dir, trace, 1) == 0)
		time_jsonl(etldump, trace, sub, repeat, "every frame a random address: the worst case");
	if (!keep)
		unlink(trace);
	snprintf(trace, sizeof(trace), "%s/etlbench-symbols.etl", dir);
	if (!keep) {
		unlink(pdb);
		rmdir(sub);
		unlink(trace);
	}
}

/*
 * check_pdb.c - the PDB reader (lib/pdb/): the corpus's real PDB files
 * against what llvm-pdbutil reads from them (their README), lookups in PDBs
 * made from a description (tests/writer/pdbw.c: procedures, lines, public
 * symbols, an NGEN-style PDB placed by its section map), and damage: a
 * directory that names the superblock or blocks past the file, streams
 * that need more blocks than there are, records that run past their
 * stream, counts that their bytes cannot hold, the memory limit, and every
 * truncation of a valid file.
 *
 * SPDX-License-Identifier: MIT
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pdb/pdb.h"
#include "pdbw.h"
#include "parts.h"

static const char *corpus_dir = "../shared/corpus";

static const struct etl_guid guid1 = { 0x11223344, 0x5566, 0x7788, { 1, 2, 3, 4, 5, 6, 7, 8 } };
static const struct pdbw_section text_data[] = { { ".text", 0x1000, 0x300 }, { ".data", 0x2000, 0x80 } };
static const struct pdbw_proc procs[] = {
	{ "alpha", 1, 0x000, 0x40, 10, 0 },
	{ "beta", 1, 0x040, 0x20, 20, 1 },
	{ "gamma", 1, 0x100, 0x80, 30, 0 },
};
/* publics: the procedures' starts, and code no procedure covers (at 0x200 of .text) */
static const struct pdbw_public publics[] = {
	{ "alpha", 1, 0x000 }, { "beta", 1, 0x040 }, { "gamma", 1, 0x100 }, { "_stripped_code", 1, 0x200 },
	{ "some_data", 2, 0x10 },
};

static struct pdbw_spec spec(void)
{
	struct pdbw_spec s;

	memset(&s, 0, sizeof(s));
	s.block_size = 512;
	s.guid = guid1;
	s.age = 3;
	s.sections = text_data;
	s.nsections = 2;
	s.procs = procs;
	s.nprocs = 3;
	s.publics = publics;
	s.npublics = 5;
	s.source = "C:\\src\\x.c";
	return s;
}

/* Opens the PDB in b[0, n) (copied: the source borrows memory); the status. */
static int open_mem(struct etl_pdb *p, const uint8_t *b, size_t n, uint64_t max, struct etl_diag *d, uint8_t **keep)
{
	struct etl_source src;

	*keep = malloc(n ? n : 1);
	ck_assert_ptr_nonnull(*keep);
	memcpy(*keep, b, n);
	etl__source_init(&src);
	etl__source_open_memory(&src, *keep, n);
	return etl__pdb_open(p, &src, max, d);
}

START_TEST(lookups_in_a_pdb_of_procedures_lines_and_publics)
{
	struct pdbw_spec s = spec();
	struct etl_pdb p;
	struct etl_pdb_hit h;
	struct etl_diag d;
	uint8_t *b, *keep;
	size_t n;

	ck_assert_int_eq(pdbw_build(&s, &b, &n), 0);
	ck_assert_int_eq(open_mem(&p, b, n, 1u << 20, &d, &keep), ETL_OK);
	ck_assert(etl_guid_equal(&p.guid, &guid1));
	ck_assert_uint_eq(p.age, 3);
	ck_assert_uint_eq(p.dbi_age, 3);
	ck_assert_uint_eq(p.nsect, 2);
	ck_assert_uint_eq(p.ncontrib, 3);
	/* a procedure, its offset and its line (one line entry per 4 bytes: line 20 + 0x1c / 4) */
	ck_assert_int_eq(etl__pdb_lookup(&p, 0x111c, 1, &h, &d), ETL_OK);
	ck_assert_str_eq(h.function, "gamma");
	ck_assert_uint_eq(h.offset, 0x1c);
	ck_assert_int_eq(h.from_public, 0);
	ck_assert_str_eq(h.file, "C:\\src\\x.c");
	ck_assert_uint_eq(h.line, 30 + 7);
	ck_assert_int_eq(etl__pdb_lookup(&p, 0x111f, 0, &h, &d), ETL_OK);
	ck_assert_ptr_null(h.file);
	ck_assert_int_eq(etl__pdb_lookup(&p, 0x1040, 1, &h, &d), ETL_OK); /* a local procedure's start */
	ck_assert_str_eq(h.function, "beta");
	ck_assert_uint_eq(h.offset, 0);
	ck_assert_uint_eq(h.line, 20);
	/* past gamma, inside .text: the public symbol below it */
	ck_assert_int_eq(etl__pdb_lookup(&p, 0x1210, 1, &h, &d), ETL_OK);
	ck_assert_str_eq(h.function, "_stripped_code");
	ck_assert_uint_eq(h.offset, 0x10);
	ck_assert_int_eq(h.from_public, 1);
	/* between beta and gamma (0x60-0x100): the public beta, by its start only */
	ck_assert_int_eq(etl__pdb_lookup(&p, 0x1080, 0, &h, &d), ETL_OK);
	ck_assert_str_eq(h.function, "beta");
	ck_assert_uint_eq(h.offset, 0x40);
	/* outside every section: nothing; and in .data, not a .text public */
	ck_assert_int_eq(etl__pdb_lookup(&p, 0x5000, 0, &h, &d), ETL_OK);
	ck_assert_ptr_null(h.function);
	ck_assert_int_eq(etl__pdb_lookup(&p, 0x1ff0, 0, &h, &d), ETL_OK);
	ck_assert_ptr_null(h.function);
	ck_assert_int_eq(etl__pdb_lookup(&p, 0x2018, 0, &h, &d), ETL_OK);
	ck_assert_str_eq(h.function, "some_data");
	ck_assert_int_eq(etl__pdb_lookup(&p, 0xfff, 0, &h, &d), ETL_OK);
	ck_assert_ptr_null(h.function);
	etl__pdb_close(&p);
	free(keep);
	free(b);
}
END_TEST

START_TEST(ngen_pdb_sections_placed_by_the_section_map)
{
	/* no section headers: .text at 0x1000, the next section at the first 0x1000 boundary after
	 * it (0x1000 + 0x1234 -> 0x3000) */
	static const struct pdbw_section secs[] = { { ".text", 0, 0x1234 }, { ".text2", 0, 0x100 } };
	static const struct pdbw_proc ps[] = { { "Ns.Type.Method", 1, 0x20, 0x30, 0, 0 },
					       { "Ns.Type.Other", 2, 0x10, 0x20, 0, 0 } };
	struct pdbw_spec s = spec();
	struct etl_pdb p;
	struct etl_pdb_hit h;
	struct etl_diag d;
	uint8_t *b, *keep;
	size_t n;

	s.sections = secs;
	s.no_section_headers = 1;
	s.procs = ps;
	s.nprocs = 2;
	s.npublics = 0;
	ck_assert_int_eq(pdbw_build(&s, &b, &n), 0);
	ck_assert_int_eq(open_mem(&p, b, n, 1u << 20, &d, &keep), ETL_OK);
	ck_assert_uint_eq(p.nsect, 2); /* the absolute pseudo-section is not placed */
	ck_assert_uint_eq(p.sect[0].rva, 0x1000);
	ck_assert_uint_eq(p.sect[1].rva, 0x3000);
	ck_assert_int_eq(etl__pdb_lookup(&p, 0x1025, 0, &h, &d), ETL_OK);
	ck_assert_str_eq(h.function, "Ns.Type.Method");
	ck_assert_uint_eq(h.offset, 5);
	ck_assert_int_eq(etl__pdb_lookup(&p, 0x3011, 0, &h, &d), ETL_OK);
	ck_assert_str_eq(h.function, "Ns.Type.Other");
	etl__pdb_close(&p);
	free(keep);
	free(b);
}
END_TEST

/* The streams of the valid spec, for tests that break one of them. */
static void broken_file(struct pdbw_stream *st, uint8_t **b, size_t *n)
{
	ck_assert_int_eq(pdbw_msf(st, PDBW_STREAMS, 512, b, n), 0);
}

START_TEST(damaged_containers_are_refused_with_the_offset)
{
	struct pdbw_spec s = spec();
	struct etl_pdb p;
	struct etl_diag d;
	uint8_t *b, *keep;
	size_t n, k;
	uint32_t nblocks, dir_at;

	ck_assert_int_eq(pdbw_build(&s, &b, &n), 0);
	nblocks = (uint32_t)(n / 512);
	/* every truncation: refused or opened, never a fault (ASan) */
	for (k = 0; k < n; k += 37) {
		int st = open_mem(&p, b, k, 1u << 20, &d, &keep);
		if (st == ETL_OK)
			etl__pdb_close(&p);
		else
			ck_assert(strlen(d.msg) > 0);
		free(keep);
	}
	/* the superblock claims blocks past the file */
	b[40] = 0xFF, b[41] = 0xFF;
	ck_assert_int_eq(open_mem(&p, b, n, 1u << 20, &d, &keep), ETL_E_FORMAT);
	ck_assert_ptr_nonnull(strstr(d.msg, "past the file"));
	ck_assert_uint_eq(d.offset, 40);
	free(keep);
	b[40] = (uint8_t)nblocks, b[41] = (uint8_t)(nblocks >> 8);
	/* the directory's map names the superblock as the directory (a loop back to block 0) */
	b[3 * 512] = 0, b[3 * 512 + 1] = 0;
	ck_assert_int_eq(open_mem(&p, b, n, 1u << 20, &d, &keep), ETL_E_FORMAT);
	ck_assert_ptr_nonnull(strstr(d.msg, "lists block 0"));
	free(keep);
	b[3 * 512] = 4;
	/* a stream's block list names a block past the file */
	dir_at = 4 * 512 + 4 + 4 * PDBW_STREAMS; /* the first stream's first block number */
	b[dir_at] = 0xEE, b[dir_at + 1] = 0xEE;
	ck_assert_int_eq(open_mem(&p, b, n, 1u << 20, &d, &keep), ETL_E_FORMAT);
	ck_assert_ptr_nonnull(strstr(d.msg, "outside the file"));
	free(keep);
	b[dir_at] = 5, b[dir_at + 1] = 0;
	/* a stream size that needs more blocks than the file has */
	b[4 * 512 + 4 + 4 * 3 + 3] = 0x7F;
	ck_assert_int_eq(open_mem(&p, b, n, 1u << 20, &d, &keep), ETL_E_FORMAT);
	ck_assert_ptr_nonnull(strstr(d.msg, "blocks"));
	free(keep);
	b[4 * 512 + 4 + 4 * 3 + 3] = 0;
	/* a huge stream count */
	b[4 * 512 + 3] = 0x40;
	ck_assert_int_eq(open_mem(&p, b, n, 1u << 20, &d, &keep), ETL_E_FORMAT);
	ck_assert_ptr_nonnull(strstr(d.msg, "streams"));
	free(keep);
	b[4 * 512 + 3] = 0;
	/* a block size that is not a power of two */
	b[33] = 3;
	ck_assert_int_eq(open_mem(&p, b, n, 1u << 20, &d, &keep), ETL_E_FORMAT);
	ck_assert_uint_eq(d.offset, 32);
	free(keep);
	b[33] = 2;
	/* not a PDB at all, and the old format */
	memcpy(b, "Microsoft C/C++ program database 2.00\r\n", 39);
	ck_assert_int_eq(open_mem(&p, b, n, 1u << 20, &d, &keep), ETL_E_UNSUPPORTED);
	free(keep);
	free(b);
}
END_TEST

START_TEST(damaged_streams_leave_frames_unresolved_and_say_why)
{
	struct pdbw_spec s = spec();
	struct pdbw_stream st[PDBW_STREAMS];
	struct etl_pdb p;
	struct etl_pdb_hit h;
	struct etl_diag d;
	uint8_t *b, *keep, *mod, *rec, *dbi, mod4, mod5;
	size_t n;

	ck_assert_int_eq(pdbw_streams(&s, st), 0);
	mod = (uint8_t *)st[PDBW_MODULE].data;
	rec = (uint8_t *)st[PDBW_SYMREC].data;
	dbi = (uint8_t *)st[PDBW_DBI].data;
	mod4 = mod[4], mod5 = mod[5];
	/* a procedure record that says it runs past the module's symbols */
	mod[4] = 0xF0, mod[5] = 0x7F;
	broken_file(st, &b, &n);
	ck_assert_int_eq(open_mem(&p, b, n, 1u << 20, &d, &keep), ETL_OK);
	ck_assert_int_eq(etl__pdb_lookup(&p, 0x1005, 0, &h, &d), ETL_E_FORMAT);
	ck_assert_ptr_nonnull(strstr(d.msg, "runs past"));
	/* asked again: the same answer without reading it again; the public symbols still name it */
	ck_assert_int_eq(etl__pdb_lookup(&p, 0x1006, 0, &h, &d), ETL_E_FORMAT);
	ck_assert_str_eq(h.function, "alpha");
	etl__pdb_close(&p);
	free(keep);
	free(b);
	mod[4] = mod4, mod[5] = mod5;
	/* a public symbol record that runs past the symbol record stream */
	mod4 = rec[0], mod5 = rec[1];
	rec[0] = 0xFF, rec[1] = 0xFF;
	broken_file(st, &b, &n);
	ck_assert_int_eq(open_mem(&p, b, n, 1u << 20, &d, &keep), ETL_OK);
	ck_assert_int_eq(etl__pdb_lookup(&p, 0x1210, 0, &h, &d), ETL_E_FORMAT);
	ck_assert_ptr_null(h.function);
	ck_assert_int_eq(etl__pdb_lookup(&p, 0x1005, 0, &h, &d), ETL_OK); /* procedures are not publics */
	ck_assert_str_eq(h.function, "alpha");
	etl__pdb_close(&p);
	free(keep);
	free(b);
	rec[0] = mod4, rec[1] = mod5;
	/* the DBI header claims a module list larger than the stream */
	dbi[24 + 3] = 0x10;
	broken_file(st, &b, &n);
	ck_assert_int_eq(open_mem(&p, b, n, 1u << 20, &d, &keep), ETL_E_FORMAT);
	ck_assert_ptr_nonnull(strstr(d.msg, "runs past"));
	free(keep);
	free(b);
	dbi[24 + 3] = 0;
	/* the memory limit: the file opens, a lookup needing more is refused */
	broken_file(st, &b, &n);
	ck_assert_int_eq(open_mem(&p, b, n, 300, &d, &keep), ETL_OK);
	ck_assert_int_eq(etl__pdb_lookup(&p, 0x1005, 0, &h, &d), ETL_E_LIMIT);
	ck_assert_ptr_nonnull(strstr(d.msg, "limit"));
	etl__pdb_close(&p);
	free(keep);
	free(b);
	pdbw_streams_free(st, PDBW_STREAMS);
}
END_TEST

START_TEST(line_tables_with_huge_counts_are_ignored)
{
	struct pdbw_spec s = spec();
	struct pdbw_stream st[PDBW_STREAMS];
	struct etl_pdb p;
	struct etl_pdb_hit h;
	struct etl_diag d;
	uint8_t *b, *keep, *mod;
	size_t n, at;
	uint32_t sym_bytes;

	ck_assert_int_eq(pdbw_streams(&s, st), 0);
	mod = (uint8_t *)st[PDBW_MODULE].data;
	/* the first lines block (after the symbols and the 16-byte checksums subsection): its count */
	/* C13: file checksums (16 bytes), then per procedure 8 + 12 + 12 bytes and 8 per line (one per
	 * 4 bytes of code) */
	sym_bytes = (uint32_t)(st[PDBW_MODULE].size - (16 + 3 * 32 + 8 * (0x40 + 0x20 + 0x80) / 4));
	at = sym_bytes + 16 + 8 + 12 + 4;
	mod[at + 3] = 0x7F;
	broken_file(st, &b, &n);
	ck_assert_int_eq(open_mem(&p, b, n, 1u << 20, &d, &keep), ETL_OK);
	ck_assert_int_eq(etl__pdb_lookup(&p, 0x1005, 1, &h, &d), ETL_OK);
	ck_assert_str_eq(h.function, "alpha");
	ck_assert_uint_eq(h.line, 0); /* no line rather than a wrong one */
	ck_assert_int_eq(etl__pdb_lookup(&p, 0x1044, 1, &h, &d), ETL_OK);
	ck_assert_uint_eq(h.line, 21);
	etl__pdb_close(&p);
	free(keep);
	free(b);
	pdbw_streams_free(st, PDBW_STREAMS);
}
END_TEST

/* The facts llvm-pdbutil reads from the corpus PDBs (../shared/corpus/pdb/README.md). */
START_TEST(corpus_pdbs_read_as_llvm_pdbutil_reads_them)
{
	static const struct {
		const char *file, *guid;
		uint32_t age;
		size_t publics, procs;
	} want[] = {
		{ "CciExtensions.pdb", "551ab02e-2a17-4b09-8ed1-ff5c25c19a0a", 3, 0, 124 },
		{ "DiagnosticsHub.Packaging.Interop.pdb", "dc75eca2-61f0-4356-820f-48b634cd5e19", 1, 0, 0 },
		{ "Microsoft.Diagnostics.Runtime.pdb", "20fb5509-d6c0-4485-883c-433bda20994e", 1, 0, 1912 },
		{ "Microsoft.DiagnosticsHub.Packaging.InteropEx.pdb", "20e55ab9-c57e-4e5b-9325-065beb93c418", 2, 0, 117 },
		{ "Tutorial.pdb", "4abb129d-8df5-4abd-9983-23b91f4a05a5", 4, 1, 5 },
	};
	char path[1024], g[ETL_GUID_STRING_SIZE];
	size_t i, k;

	snprintf(path, sizeof(path), "%s/pdb", corpus_dir);
	if (access(path, R_OK) != 0)
		return; /* no corpus: nothing to compare */
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct etl_source src;
		struct etl_pdb p;
		struct etl_diag d;
		size_t nprocs = 0;
		snprintf(path, sizeof(path), "%s/pdb/%s", corpus_dir, want[i].file);
		ck_assert_int_eq(etl__source_open_regular(&src, path, &d), ETL_OK);
		ck_assert_msg(etl__pdb_open(&p, &src, 64u << 20, &d) == ETL_OK, "%s: %s", want[i].file, d.msg);
		etl_guid_format(&p.guid, g);
		ck_assert_str_eq(g, want[i].guid);
		ck_assert_uint_eq(p.age, want[i].age);
		ck_assert_msg(etl__pdb_load_all(&p, &d) == ETL_OK, "%s: %s", want[i].file, d.msg);
		for (k = 0; k < p.nmod; k++)
			nprocs += p.mod[k].nprocs + p.mod[k].nmanaged;
		ck_assert_uint_eq(p.npub_records, want[i].publics);
		ck_assert_msg(nprocs == want[i].procs, "%s: %zu procedures", want[i].file, nprocs);
		etl__pdb_close(&p);
	}
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("pdb");
	TCase *t = tcase_create("pdb"), *c = tcase_create("corpus");
	char probe[4096];

	if (argc > 1)
		corpus_dir = argv[1];
	tcase_set_timeout(t, 120);
	tcase_add_test(t, lookups_in_a_pdb_of_procedures_lines_and_publics);
	tcase_add_test(t, ngen_pdb_sections_placed_by_the_section_map);
	tcase_add_test(t, damaged_containers_are_refused_with_the_offset);
	tcase_add_test(t, damaged_streams_leave_frames_unresolved_and_say_why);
	tcase_add_test(t, line_tables_with_huge_counts_are_ignored);
	tcase_set_timeout(c, 120);
	tcase_add_test(c, corpus_pdbs_read_as_llvm_pdbutil_reads_them);
	suite_add_tcase(s, t);
	snprintf(probe, sizeof(probe), "%s/pdb", corpus_dir);
	return run_part(s, c, probe);
}

/*
 * parts.h - a Check program in two parts, each a meson test of its own (tests/meson.build):
 * its cases that read only what the project makes (suite "unit") and its cases that read the
 * corpus (a TCase tagged "corpus"; suite "corpus").  LIBETL_TEST_PART=corpus runs the corpus
 * part, which reports skipped (exit 77) where probe - a file or folder of the corpus it reads -
 * is absent, instead of passing; anything else runs the unit part.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_TEST_PARTS_H
#define ETL_TEST_PARTS_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Runs s's unit part or its corpus part (the cases of the TCase corpus, which it tags); the
 * program's exit status. */
static inline int run_part(Suite *s, TCase *corpus, const char *probe)
{
	const char *part = getenv("LIBETL_TEST_PART");
	int want_corpus = part && strcmp(part, "corpus") == 0, failed;
	SRunner *sr;

	tcase_set_tags(corpus, "corpus");
	suite_add_tcase(s, corpus);
	sr = srunner_create(s);
	if (want_corpus && access(probe, R_OK) != 0) {
		printf("SKIP: the corpus is not there (%s)\n", probe);
		srunner_free(sr);
		return 77;
	}
	srunner_run_tagged(sr, NULL, NULL, want_corpus ? "corpus" : NULL, want_corpus ? NULL : "corpus", CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif

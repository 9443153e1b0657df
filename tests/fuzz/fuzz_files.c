/*
 * fuzz_files.c - the temporary folder of the fuzz targets that run etldump
 * (fuzz_files.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_files.h"

static char root[64];

int fuzz_root_make(const char *tag)
{
	const char *t = getenv("TMPDIR");

	if (root[0])
		return 0;
	if ((size_t)snprintf(root, sizeof(root), "%s/fuzz-%s-XXXXXX", t && strlen(t) < 40 ? t : "/tmp", tag) >=
		    sizeof(root) ||
	    !mkdtemp(root))
		abort();
	return 1;
}

void fuzz_path(char *out, size_t cap, const char *rel)
{
	if ((size_t)snprintf(out, cap, "%s/%s", root, rel) >= cap)
		abort();
}

void fuzz_put(const char *rel, const void *p, size_t n)
{
	char path[256];
	int fd;

	fuzz_path(path, sizeof(path), rel);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || (n && write(fd, p, n) != (ssize_t)n) || close(fd) != 0)
		abort();
}

uint8_t *fuzz_slurp(const char *rel, size_t *n)
{
	char path[256];
	struct stat sb;
	uint8_t *b;
	int fd;

	fuzz_path(path, sizeof(path), rel);
	if (lstat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
		return NULL;
	fd = open(path, O_RDONLY);
	b = malloc((size_t)sb.st_size + 1);
	if (fd < 0 || !b || read(fd, b, (size_t)sb.st_size) != (ssize_t)sb.st_size)
		abort();
	close(fd);
	*n = (size_t)sb.st_size;
	return b;
}

void fuzz_remove(const char *const *rels, size_t n)
{
	char path[256];
	size_t i;

	for (i = 0; i < n; i++) {
		fuzz_path(path, sizeof(path), rels[i]);
		(void)remove(path);
	}
}

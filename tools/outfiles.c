/*
 * outfiles.c - the output files of etldump (see outfiles.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfiles.h"
#include "report.h"
#include "writers/writer.h"

#ifndef O_NOFOLLOW
#  define O_NOFOLLOW 0
#endif
#ifndef O_CLOEXEC
#  define O_CLOEXEC 0
#endif

int inputs_note(struct inputs_seen *in, char **files, int n)
{
	int i;

	memset(in, 0, sizeof(*in));
	in->dev = calloc((size_t)n + 1, sizeof(*in->dev));
	in->ino = calloc((size_t)n + 1, sizeof(*in->ino));
	if (!in->dev || !in->ino)
		return -1;
	for (i = 0; i < n; i++) {
		struct stat sb;
		if (strcmp(files[i], "-") == 0 || stat(files[i], &sb) != 0)
			continue;
		in->dev[in->n] = sb.st_dev;
		in->ino[in->n] = sb.st_ino;
		in->n++;
	}
	return 0;
}

void inputs_free(struct inputs_seen *in)
{
	free(in->dev);
	free(in->ino);
	memset(in, 0, sizeof(*in));
}

static int is_input(const struct inputs_seen *in, const struct stat *sb)
{
	size_t i;

	for (i = 0; i < in->n; i++)
		if (in->dev[i] == sb->st_dev && in->ino[i] == sb->st_ino)
			return 1;
	return 0;
}

static const char *base_name(const char *input)
{
	const char *b = strrchr(input, '/');

	if (strcmp(input, "-") == 0)
		return "stdin";
	return b ? b + 1 : input;
}

int outdir_names(const struct options *o, char **files, int n, char ***paths)
{
	const char *ext = o->info || o->stats || o->providers || o->processes ? o->writer->summary_ext : o->writer->ext;
	char **p = calloc((size_t)n + 1, sizeof(*p));
	int i, j;

	*paths = p;
	if (!p)
		return EXIT_NOMEM;
	for (i = 0; i < n; i++) {
		int k = 1, taken;
		do { /* the first free name of base, base-2, base-3, ... */
			char path[4096];
			int len = k == 1 ? snprintf(path, sizeof(path), "%s/%s.%s", o->outdir, base_name(files[i]), ext)
					 : snprintf(path, sizeof(path), "%s/%s-%d.%s", o->outdir, base_name(files[i]), k, ext);
			if (len < 0 || (size_t)len >= sizeof(path)) {
				char nb[REPORT_SHOWN_MAX];
				fprintf(stderr, "%s: %s: the output name is longer than %zu bytes\n", progname, report_shown(files[i], nb),
					sizeof(path) - 1);
				return EXIT_USAGE;
			}
			for (taken = 0, j = 0; j < i && !taken; j++)
				taken = strcmp(p[j], path) == 0;
			if (!taken && !(p[i] = strdup(path)))
				return EXIT_NOMEM;
			k++;
		} while (taken);
	}
	return 0;
}

void outdir_names_free(char **paths, int n)
{
	int i;

	for (i = 0; paths && i < n; i++)
		free(paths[i]);
	free(paths);
}

int output_open(const char *path, int exclusive, int force, const struct inputs_seen *in)
{
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (exclusive ? O_NOFOLLOW : 0);
	char nb[REPORT_SHOWN_MAX];
	struct stat sb;
	int fd;

	if (exclusive && !force)
		flags |= O_EXCL;
	fd = open(path, flags, 0666);
	if (fd < 0) {
		int err = errno;
		struct stat ls;
		int link = exclusive && lstat(path, &ls) == 0 && S_ISLNK(ls.st_mode);
		fprintf(stderr, "%s: %s: cannot create: %s\n", progname, report_shown(path, nb),
			link ? "a symbolic link (not followed)" : err == EEXIST ? "it exists (--force overwrites it)"
								     : strerror(err));
		return EXIT_IO;
	}
	if (fstat(fd, &sb) != 0 || is_input(in, &sb) || !(S_ISREG(sb.st_mode) || S_ISCHR(sb.st_mode) || S_ISFIFO(sb.st_mode))) {
		fprintf(stderr, "%s: %s: %s: not written\n", progname, report_shown(path, nb),
			is_input(in, &sb) ? "it is one of the inputs" : "not a regular file");
		close(fd);
		return EXIT_IO;
	}
	fflush(stdout);
	if ((S_ISREG(sb.st_mode) && ftruncate(fd, 0) != 0) || dup2(fd, STDOUT_FILENO) < 0) {
		fprintf(stderr, "%s: %s: cannot write: %s\n", progname, report_shown(path, nb), strerror(errno));
		close(fd);
		return EXIT_IO;
	}
	close(fd);
	clearerr(stdout);
	return 0;
}

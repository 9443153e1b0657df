/*
 * replay_main - runs a fuzz target over files and folders of inputs, so
 * every target also builds without libFuzzer and `meson test` replays the
 * committed regression inputs.  A folder that cannot be read or holds no input
 * fails the run: a replay of nothing must not pass.
 *
 * SPDX-License-Identifier: MIT
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	long n;

	if (!f)
		return 1;
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		return 1;
	}
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		fclose(f);
		return 1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int i, files = 0, bad = 0;

	for (i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "replay: %s: not found\n", argv[i]);
			bad++;
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			DIR *d = opendir(argv[i]);
			struct dirent *e;
			int before = files;
			while (d && (e = readdir(d)) != NULL) {
				char path[4096];
				if (e->d_name[0] == '.')
					continue;
				snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
				bad += run_file(path);
				files++;
			}
			if (d)
				closedir(d);
			if (files == before) {
				fprintf(stderr, "replay: %s: no input there\n", argv[i]);
				bad++;
			}
		} else {
			bad += run_file(argv[i]);
			files++;
		}
	}
	printf("replay: %d inputs, %d unreadable\n", files, bad);
	return bad ? 1 : 0;
}

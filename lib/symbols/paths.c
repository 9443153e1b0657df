/*
 * paths.c - where PDB files are looked for (see symbols.h).
 *
 * A symbol path is a list separated by ';'.  An element is a folder, or
 *   srv*STORE*...*URL      (also "symsrv*DLL*STORE*...*URL"): its local
 *                           stores; the URLs are never used
 *   cache*DIR              a local cache
 * A folder holds PDBs flat ("name.pdb") or as a symbol store does
 * ("name.pdb/GUIDAGE/name.pdb": the GUID as 32 hex digits, then the age in
 * hex).  File names are matched as given, then in lower case (stores made
 * on Windows keep the case of the PDB's name; copies may not).
 *
 * SPDX-License-Identifier: MIT
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "symbols/symbols.h"

static int starts_nocase(const char *s, size_t n, const char *prefix)
{
	size_t i, k = strlen(prefix);

	if (n < k)
		return 0;
	for (i = 0; i < k; i++)
		if (tolower((unsigned char)s[i]) != prefix[i])
			return 0;
	return 1;
}

static int add_dir(struct etl_symbols *s, const char *p, size_t n)
{
	size_t i;
	char *dir;

	while (n && (p[n - 1] == '/' || p[n - 1] == ' ') && n > 1)
		n--;
	while (n && *p == ' ') {
		p++;
		n--;
	}
	if (!n)
		return ETL_OK;
	for (i = 0; i < s->ndirs; i++)
		if (strlen(s->dirs[i]) == n && memcmp(s->dirs[i], p, n) == 0)
			return ETL_OK;
	if (etl__grow(&s->dirs, &s->capdirs, s->ndirs + 1, sizeof(*s->dirs), 8) != 0 || !(dir = etl__malloc(n + 1)))
		return ETL_E_NOMEM;
	memcpy(dir, p, n);
	dir[n] = 0;
	s->dirs[s->ndirs++] = dir;
	return ETL_OK;
}

/* One element of a symbol path: p[0, n). */
static int add_element(struct etl_symbols *s, const char *p, size_t n)
{
	const char *end = p + n, *part;
	int st = ETL_OK, skip_dll;

	if (!starts_nocase(p, n, "srv*") && !starts_nocase(p, n, "symsrv*") && !starts_nocase(p, n, "cache*"))
		return add_dir(s, p, n);
	skip_dll = starts_nocase(p, n, "symsrv*");
	part = (const char *)memchr(p, '*', n) + 1;
	while (part <= end && st == ETL_OK) {
		const char *star = memchr(part, '*', (size_t)(end - part));
		size_t len = (size_t)((star ? star : end) - part);
		if (skip_dll)
			skip_dll = 0; /* symsrv*symsrv.dll*...: the DLL */
		else if (!starts_nocase(part, len, "http://") && !starts_nocase(part, len, "https://"))
			st = add_dir(s, part, len);
		if (!star)
			break;
		part = star + 1;
	}
	return st;
}

int etl__symbols_add_path(struct etl_symbols *s, const char *path)
{
	int st = ETL_OK;

	pthread_mutex_lock(&s->mu);
	while (st == ETL_OK && *path) {
		const char *semi = strchr(path, ';');
		size_t n = semi ? (size_t)(semi - path) : strlen(path);
		st = add_element(s, path, n);
		path += n + (semi != NULL);
	}
	pthread_mutex_unlock(&s->mu);
	return st;
}

int etl__symbols_member_wanted(const char *name)
{
	size_t n = strlen(name);

	return n > 12 && starts_nocase(name, n, "symbols") && (name[7] == '/' || name[7] == '\\') &&
	       starts_nocase(name + n - 4, 4, ".pdb");
}

/* Tries dir/base/GUIDAGE/base then dir/base, with base as given and in lower case. */
static int search_dir(const char *dir, const char *base, const char *idage, const char *lidage,
		      int (*try)(void *, const char *, struct etl_symmember *), void *ctx)
{
	size_t n = strlen(dir) + 2 * strlen(base) + strlen(idage) + 4, i, k;
	char *lower = etl__strdup(base), *path = etl__malloc(n);
	const char *names[2], *ids[2];
	int found = 0;

	if (!lower || !path) {
		etl__free(lower);
		etl__free(path);
		return 0;
	}
	for (i = 0; lower[i]; i++)
		lower[i] = (char)tolower((unsigned char)lower[i]);
	names[0] = base;
	names[1] = lower;
	ids[0] = idage;
	ids[1] = lidage;
	for (i = 0; i < 2 && !found; i++) {
		if (i && strcmp(lower, base) == 0)
			break;
		for (k = 0; k < 2 && !found; k++) {
			snprintf(path, n, "%s/%s/%s/%s", dir, names[i], ids[k], names[i]);
			found = try(ctx, path, NULL);
		}
		if (!found) {
			snprintf(path, n, "%s/%s", dir, names[i]);
			found = try(ctx, path, NULL);
		}
	}
	etl__free(lower);
	etl__free(path);
	return found;
}

int etl__symbols_search(struct etl_symbols *s, const char *pdb_name, const struct etl_guid *g, uint32_t age,
			int (*try)(void *ctx, const char *path, struct etl_symmember *member), void *ctx)
{
	const char *base = etl__path_file(pdb_name);
	char idage[48], lidage[48];
	size_t i;

	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return 0;
	snprintf(idage, sizeof(idage), "%08X%04X%04X%02X%02X%02X%02X%02X%02X%02X%02X%X", g->data1, g->data2, g->data3,
		 g->data4[0], g->data4[1], g->data4[2], g->data4[3], g->data4[4], g->data4[5], g->data4[6], g->data4[7],
		 age);
	for (i = 0; i < sizeof(idage) && idage[i]; i++)
		lidage[i] = (char)tolower((unsigned char)idage[i]);
	lidage[i] = 0;
	/* an archive's own PDBs first: the store form, then any of that name */
	for (i = 0; i < s->nmembers; i++) {
		const char *m = s->members[i].name;
		if (strcasecmp(etl__path_file(m), base) == 0 && (strstr(m, idage) || strstr(m, lidage)) &&
		    try(ctx, NULL, &s->members[i]))
			return 1;
	}
	for (i = 0; i < s->nmembers; i++) {
		const char *m = s->members[i].name;
		if (strcasecmp(etl__path_file(m), base) == 0 && !strstr(m, idage) && !strstr(m, lidage) &&
		    try(ctx, NULL, &s->members[i]))
			return 1;
	}
	for (i = 0; i < s->ndirs; i++)
		if (search_dir(s->dirs[i], base, idage, lidage, try, ctx))
			return 1;
	return 0;
}

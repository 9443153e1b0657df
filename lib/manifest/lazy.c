/*
 * lazy.c - folders of manifests, parsed only where a trace needs them.
 *
 * A folder of a system's manifests holds hundreds of files and hundreds of
 * megabytes of XML, of which a trace uses a few providers.  Loading a folder
 * reads each file once and finds the GUIDs of its <provider> tags with a
 * plain text scan (no XML parser, no tree); the file is parsed only when a
 * decoder first asks for one of those providers.  The database of the folder
 * keeps, for each GUID, the files (in name order) that declare it: each of
 * them is parsed for it, the last one's events first (manifest/db.c).  A
 * file whose scan finds no provider is parsed at once, so that a broken or
 * unusual file is still reported when the folder is loaded.
 *
 * The scanned database never changes after loading: a reader parses the
 * files it needs into a database of its own (decode.c), so one folder can be
 * shared by readers on many threads.
 *
 * SPDX-License-Identifier: MIT
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/source.h"
#include "manifest/mxml.h"

static int pending_eq(const void *entry, const void *key)
{
	return etl_guid_equal(&((const struct etl_mdb_pending *)entry)->guid, key);
}

long etl__manifest_db_pending_doc(const struct etl_manifest_db *db, const struct etl_guid *g, size_t i)
{
	const struct etl_mdb_pending *p;
	long at;

	if (!db || !db->pending.count)
		return -1;
	p = etl__htab_find(&db->pending, etl__manifest_db_guid_hash(g), pending_eq, g);
	for (at = p ? p->first : -1; at >= 0 && i > 0; i--)
		at = db->decl[at + 1];
	return at >= 0 ? db->decl[at] : -1;
}

static const char *etl__manifest_db_pending_path(const struct etl_manifest_db *db, long doc)
{
	return db && doc >= 0 && (size_t)doc < db->ndocs ? db->docs[doc] : NULL;
}

/* Notes that file doc declares g (once per file). */
static int declare(struct etl_manifest_db *db, const struct etl_guid *g, long doc)
{
	uint64_t h = etl__manifest_db_guid_hash(g);
	struct etl_mdb_pending *p = etl__htab_find(&db->pending, h, pending_eq, g);
	long at = (long)db->ndecl;

	if (p && db->decl[p->last] == doc)
		return ETL_OK; /* a file that names the provider twice */
	if (etl__grow(&db->decl, &db->cap_decl, db->ndecl + 2, sizeof(*db->decl), 64) != 0)
		return ETL_E_NOMEM;
	if (p) {
		db->decl[p->last + 1] = at;
	} else {
		if (!(p = etl__htab_insert(&db->pending, h)))
			return ETL_E_NOMEM;
		p->guid = *g;
		p->first = at;
	}
	db->decl[db->ndecl++] = doc;
	db->decl[db->ndecl++] = -1;
	p->last = at;
	return ETL_OK;
}

/* ---- the scan ---- */

static int is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static int is_name_end(unsigned char c)
{
	return is_space(c) || c == '>' || c == '/' || c == '=';
}

static const unsigned char *find(const unsigned char *p, const unsigned char *end, const char *what)
{
	size_t n = strlen(what);

	while ((size_t)(end - p) >= n) {
		const unsigned char *q = memchr(p, what[0], (size_t)(end - p - (ptrdiff_t)n + 1));
		if (!q)
			return NULL;
		if (memcmp(q, what, n) == 0)
			return q;
		p = q + 1;
	}
	return NULL;
}

/* The attributes of a tag from p (after its name) to its '>': calls back with guid="..." values. */
static const unsigned char *scan_attributes(const unsigned char *p, const unsigned char *end,
					    struct etl_manifest_db *db, long doc, unsigned *found)
{
	while (p < end && *p != '>') {
		const unsigned char *name, *value;
		size_t nlen;
		unsigned char quote;

		while (p < end && (is_space(*p) || *p == '/'))
			p++;
		name = p;
		while (p < end && !is_name_end(*p))
			p++;
		nlen = (size_t)(p - name);
		while (p < end && is_space(*p))
			p++;
		if (p >= end || *p != '=') {
			if (nlen == 0 && p < end && *p != '>')
				p++; /* a stray character: step over it */
			continue;
		}
		p++;
		while (p < end && is_space(*p))
			p++;
		if (p >= end || (*p != '"' && *p != '\''))
			continue;
		quote = *p++;
		value = p;
		while (p < end && *p != quote)
			p++;
		if (p >= end)
			break;
		if (nlen == 4 && memcmp(name, "guid", 4) == 0 && p - value <= 38) {
			char text[39];
			struct etl_guid g;
			memcpy(text, value, (size_t)(p - value));
			text[p - value] = 0;
			if (etl_guid_parse(text, &g) == ETL_OK) {
				if (declare(db, &g, doc) != ETL_OK)
					return NULL;
				(*found)++;
			}
		}
		p++;
	}
	return p;
}

/* Declares the GUIDs of the <provider> tags of text (ASCII-compatible) outside comments and
 * CDATA; the number found in *found.  ETL_E_NOMEM is the only failure. */
static int scan_text(const unsigned char *p, const unsigned char *end, struct etl_manifest_db *db, long doc,
		     unsigned *found)
{
	while ((p = memchr(p, '<', (size_t)(end - p))) != NULL) {
		const unsigned char *local;

		if (end - p >= 4 && memcmp(p, "<!--", 4) == 0) {
			p = find(p + 4, end, "-->");
		} else if (end - p >= 9 && memcmp(p, "<![CDATA[", 9) == 0) {
			p = find(p + 9, end, "]]>");
		} else {
			local = ++p;
			while (p < end && !is_name_end(*p)) {
				if (*p == ':')
					local = p + 1;
				p++;
			}
			if (p - local == 8 && memcmp(local, "provider", 8) == 0) {
				p = scan_attributes(p, end, db, doc, found);
				if (!p)
					return ETL_E_NOMEM;
			}
		}
		if (!p || p >= end)
			break;
	}
	return ETL_OK;
}

/* UTF-16 text as one byte per code unit (non-ASCII as 0x80): the tags and GUIDs are ASCII. */
static unsigned char *narrow(const uint8_t *b, size_t len, int big_endian, size_t *out_len)
{
	size_t n = len / 2, i;
	unsigned char *t = etl__malloc(n ? n : 1);

	if (!t)
		return NULL;
	for (i = 0; i < n; i++) {
		unsigned u = big_endian ? (unsigned)b[2 * i] << 8 | b[2 * i + 1] : (unsigned)b[2 * i + 1] << 8 | b[2 * i];
		t[i] = u < 0x80 ? (unsigned char)u : 0x80;
	}
	*out_len = n;
	return t;
}

/* The providers a document declares, by its encoding (BOM, or the first '<'). */
int etl__manifest_db_scan(struct etl_manifest_db *db, const uint8_t *b, size_t len, long doc, unsigned *found)
{
	int be = -1, st;

	if (len >= 2 && ((b[0] == 0xFF && b[1] == 0xFE) || (b[0] == '<' && b[1] == 0)))
		be = 0;
	else if (len >= 2 && ((b[0] == 0xFE && b[1] == 0xFF) || (b[0] == 0 && b[1] == '<')))
		be = 1;
	if (be >= 0) {
		size_t n;
		unsigned char *t = narrow(b, len, be, &n);
		if (!t)
			return ETL_E_NOMEM;
		st = scan_text(t, t + n, db, doc, found);
		etl__free(t);
		return st;
	}
	return scan_text(b, b + len, db, doc, found);
}

/* ---- loading a folder ---- */

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int has_suffix(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && strcmp(s + a - b, suf) == 0;
}

/* The manifest files of a folder (*.man, *.xml, *.manifest), sorted by name. */
static int list_folder(const char *path, char ***names, size_t *count, struct etl_diag *d)
{
	DIR *dir = opendir(path);
	struct dirent *e;
	size_t cap = 0;

	*names = NULL;
	*count = 0;
	if (!dir) {
		etl__diag_set(d, ETL_E_IO, ETL_OFFSET_NONE, "manifest directory %s: %s", path, strerror(errno));
		return ETL_E_IO;
	}
	while ((e = readdir(dir)) != NULL) {
		char *copy;
		if (!has_suffix(e->d_name, ".man") && !has_suffix(e->d_name, ".xml") &&
		    !has_suffix(e->d_name, ".manifest"))
			continue;
		if (etl__grow(names, &cap, *count + 1, sizeof(**names), 64) != 0 ||
		    !(copy = etl__strdup(e->d_name))) {
			closedir(dir);
			etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
			return ETL_E_NOMEM;
		}
		(*names)[(*count)++] = copy;
	}
	closedir(dir);
	if (*count)
		qsort(*names, *count, sizeof(**names), name_cmp);
	return ETL_OK;
}

/* One file of a folder: declared for later parsing, or parsed now when the scan finds nothing. */
static int index_file(struct etl_manifest_db *db, const char *full, unsigned *warnings, struct etl_diag *d)
{
	uint8_t *buf;
	size_t len;
	unsigned found = 0;
	int st = etl__read_file(full, MAX_MANIFEST_BYTES, "manifest", &buf, &len, d);
	char *keep;

	if (st != ETL_OK)
		return st;
	if (etl__grow(&db->docs, &db->cap_docs, db->ndocs + 1, sizeof(*db->docs), 16) != 0 ||
	    !(keep = etl__strdup(full))) {
		etl__free(buf);
		etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
		return ETL_E_NOMEM;
	}
	db->docs[db->ndocs] = keep;
	st = etl__manifest_db_scan(db, buf, len, (long)db->ndocs, &found);
	db->ndocs++;
	if (st == ETL_OK && !found)
		st = etl__manifest_db_load_memory(db, buf, len, full, warnings, d);
	else if (st == ETL_E_NOMEM)
		etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
	etl__free(buf);
	return st;
}

int etl__manifest_db_index_folder(struct etl_manifest_db *db, const char *path, unsigned *warnings, struct etl_diag *d)
{
	struct etl_diag one, first;
	char **names;
	size_t count, i;
	int st, bad = 0;

	st = list_folder(path, &names, &count, d);
	for (i = 0; i < count && st == ETL_OK; i++) {
		char full[4096];
		int s;
		if ((size_t)snprintf(full, sizeof(full), "%s/%s", path, names[i]) >= sizeof(full))
			continue; /* cannot be opened by its name anyway */
		one.code = ETL_OK;
		s = index_file(db, full, warnings, &one);
		if (s == ETL_E_NOMEM) {
			*d = one;
			st = s;
		} else if (s != ETL_OK) {
			if (warnings)
				(*warnings)++; /* a bad file in a directory costs itself */
			if (!bad++)
				first = one; /* the first one is the one described */
		} else if (one.code != ETL_OK && !bad++) {
			first = one; /* a file that loaded with problems */
		}
	}
	for (i = 0; i < count; i++)
		etl__free(names[i]);
	etl__free(names);
	if (bad && st == ETL_OK)
		*d = first;
	return st;
}

/* Of the file, only the provider it is parsed for is kept: each provider of a file is parsed when
 * it is needed, in the order of its own files. */
static int keep_declared(const struct etl_guid *g, void *ctx)
{
	return etl_guid_equal(g, ctx);
}

int etl__manifest_db_load_pending(struct etl_manifest_db *into, const struct etl_manifest_db *from, long doc,
			  const struct etl_guid *g, unsigned *warnings, struct etl_diag *d)
{
	const char *path = etl__manifest_db_pending_path(from, doc);
	uint8_t *buf;
	size_t len;
	int st;

	if (!path)
		return ETL_E_MISUSE;
	st = etl__read_file(path, MAX_MANIFEST_BYTES, "manifest", &buf, &len, d);
	if (st != ETL_OK)
		return st;
	st = etl__manifest_db_load_filtered(into, buf, len, path, keep_declared, (void *)(uintptr_t)g, warnings, d);
	etl__free(buf);
	return st;
}

int etl__manifest_db_load_path(struct etl_manifest_db *db, const char *path, unsigned *warnings, struct etl_diag *d)
{
	struct stat sb;
	uint8_t *buf;
	size_t len;
	int st;

	if (stat(path, &sb) != 0) {
		etl__diag_set(d, ETL_E_IO, ETL_OFFSET_NONE, "manifest %s: %s", path, strerror(errno));
		return ETL_E_IO;
	}
	if (S_ISDIR(sb.st_mode))
		return etl__manifest_db_index_folder(db, path, warnings, d);
	st = etl__read_file(path, MAX_MANIFEST_BYTES, "manifest", &buf, &len, d);
	if (st != ETL_OK)
		return st;
	st = etl__manifest_db_load_memory(db, buf, len, path, warnings, d);
	etl__free(buf);
	return st;
}

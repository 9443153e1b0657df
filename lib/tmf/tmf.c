/*
 * tmf.c - parses TMF files into the message database (see tmf.h), and finds
 * a message by (GUID, number), parsing a folder's GUID.tmf on first use.
 *
 * The syntax, as tracepdb writes it:
 *
 *   // PDB:  BthPS3.pdb                                    comments
 *   01e9b841-7d67-315a-7b92-23b2033356de BthPS3 // SRC=L2CAP.c MJ= MN=
 *   #typev L2CAP_c130 14 "%0 [%!FUNC!] failed: %10!s!" //   LEVEL=... FLAGS=... FUNC=...
 *   {
 *   status, ItemNTSTATUS -- 10
 *   }
 *
 * A line that fits none of these drops the message it belongs to (a warning
 * naming the file and line); the rest of the file is still read.
 *
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <stdio.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tmf/tmf.h"
#include "io/source.h"
#include "tmf/items.h"
#include "util/arena.h"
#include "util/htab.h"

struct msg_slot {
	struct etl_guid guid;
	uint16_t number;
	struct tmf_msg *msg;
};

struct tried_slot {
	struct etl_guid guid;
	const char *failure; /* the first problem of its file, or NULL */
};

struct tmf_db {
	struct etl_arena arena;
	struct etl_htab msgs;  /* struct msg_slot */
	struct etl_htab tried; /* struct tried_slot: GUIDs looked for in the folders */
	char *folders[TMF_MAX_FOLDERS];
	unsigned nfolders;
	pthread_mutex_t lock; /* finding a message may read a folder's file: readers on several
				 threads may share a database (etl_manifests_add_tmf_path) */
	size_t count;  /* distinct (GUID, number) */
	size_t parsed; /* #typev messages read whole, definitions again included */
	atomic_uint warnings; /* (read without the lock by readers sharing the database) */
};

/* the parser's state over one file */
struct pctx {
	struct tmf_db *db;
	const char *file;
	unsigned line;
	struct etl_guid guid;
	int have_guid;
	const char *module, *src;
	struct tmf_msg *pending; /* a #typev line read, its block not closed */
	int in_block, bad;       /* bad: the pending message had a bad line */
	struct tmf_arg args[TMF_MAX_ARGS];
	unsigned nargs;
	unsigned problems;      /* in this text: the first is described in diag */
	struct etl_diag *diag;
	const char *why;        /* why the pending message's schema was not built (NULL: memory) */
};

struct tmf_db *etl__tmf_new(void)
{
	struct tmf_db *db = etl__calloc(1, sizeof(*db));

	if (!db)
		return NULL;
	if (pthread_mutex_init(&db->lock, NULL) != 0) {
		etl__free(db);
		return NULL;
	}
	etl__htab_init(&db->msgs, sizeof(struct msg_slot));
	etl__htab_init(&db->tried, sizeof(struct tried_slot));
	return db;
}

void etl__tmf_free(struct tmf_db *db)
{
	unsigned i;

	if (!db)
		return;
	for (i = 0; i < db->nfolders; i++)
		etl__free(db->folders[i]);
	pthread_mutex_destroy(&db->lock);
	etl__htab_free(&db->msgs);
	etl__htab_free(&db->tried);
	etl__arena_free(&db->arena);
	etl__free(db);
}

size_t etl__tmf_count(const struct tmf_db *db)
{
	return db ? db->count : 0;
}

const struct tmf_msg *etl__tmf_slot(const struct tmf_db *db, size_t i)
{
	const struct msg_slot *slot = db ? etl__htab_at(&db->msgs, i) : NULL;
	return slot ? slot->msg : NULL;
}

size_t etl__tmf_slots(const struct tmf_db *db)
{
	return db ? db->msgs.cap : 0;
}

size_t etl__tmf_parsed(const struct tmf_db *db)
{
	return db ? db->parsed : 0;
}

unsigned etl__tmf_warnings(const struct tmf_db *db)
{
	return db ? atomic_load(&db->warnings) : 0;
}

static uint64_t msg_hash(const struct etl_guid *g, uint16_t number)
{
	return etl__hash_mix(etl__hash_bytes(g, sizeof(*g)) ^ number);
}

static int msg_eq(const void *entry, const void *key)
{
	const struct msg_slot *a = entry, *b = key;
	return a->number == b->number && memcmp(&a->guid, &b->guid, sizeof(a->guid)) == 0;
}

static int tried_eq(const void *entry, const void *key)
{
	return memcmp(&((const struct tried_slot *)entry)->guid, key, sizeof(struct etl_guid)) == 0;
}

/* ---- parsing ---- */

static void problem(struct pctx *p, const char *what)
{
	char buf[200];

	snprintf(buf, sizeof(buf), "TMF %s line %u: %s", p->file, p->line, what);
	if (p->diag && p->problems++ == 0)
		etl__diag_set(p->diag, ETL_E_FORMAT, ETL_OFFSET_NONE, "%s", buf);
	p->db->warnings++;
	if (p->pending)
		p->bad = 1;
}

/* A copy of TMF text, as UTF-8 (a file in another 8-bit code page is read as Latin-1). */
static const char *dup_span(struct pctx *p, const char *s, size_t n)
{
	char *o;

	if (etl__utf8_valid((const uint8_t *)s, n))
		return etl__arena_strndup(&p->db->arena, s, n);
	o = etl__arena_alloc(&p->db->arena, 2 * n + 1);
	if (o)
		etl__text8_to_utf8((const uint8_t *)s, n, o);
	return o;
}

static const char *skip_ws(const char *s, const char *e)
{
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

static const char *trim_end(const char *s, const char *e)
{
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	return e;
}

/* The value of KEY= in a comment (up to the next blank), or NULL. */
static const char *comment_value(struct pctx *p, const char *s, const char *e, const char *key)
{
	size_t kl = strlen(key);
	const char *q, *v, *ve;

	for (q = s; q + kl < e; q++) {
		if (memcmp(q, key, kl) != 0 || q[kl] != '=')
			continue;
		if (q > s && q[-1] != ' ' && q[-1] != '\t' && q[-1] != '/')
			continue;
		v = q + kl + 1;
		for (ve = v; ve < e && *ve != ' ' && *ve != '\t'; ve++)
			;
		return ve > v ? dup_span(p, v, (size_t)(ve - v)) : NULL;
	}
	return NULL;
}

/* The first "//" in s[0..e), or NULL. */
static const char *find_comment(const char *s, const char *e)
{
	for (; s + 1 < e; s++)
		if (s[0] == '/' && s[1] == '/')
			return s;
	return NULL;
}

/* "GUID MODULE // SRC=file ..." */
static int guid_line(struct pctx *p, const char *s, const char *e)
{
	char g[37];
	const char *m, *me, *c;

	if (e - s < 36)
		return 0;
	memcpy(g, s, 36);
	g[36] = 0;
	if (etl_guid_parse(g, &p->guid) != ETL_OK)
		return 0;
	s += 36;
	if (s < e && *s != ' ' && *s != '\t')
		return 0;
	m = skip_ws(s, e);
	for (me = m; me < e && *me != ' ' && *me != '\t'; me++)
		;
	p->module = me > m && !(me - m >= 2 && m[0] == '/' && m[1] == '/') ? dup_span(p, m, (size_t)(me - m)) : NULL;
	c = find_comment(m, e);
	p->src = c ? comment_value(p, c, e, "SRC") : NULL;
	p->have_guid = 1;
	return 1;
}

/* Where the format string ends: the last '"' followed only by blanks, or by a // comment. */
static const char *format_end(const char *s, const char *e)
{
	const char *q;

	for (q = e - 1; q > s; q--) {
		const char *t;
		if (*q != '"')
			continue;
		t = skip_ws(q + 1, e);
		if (t == e || (e - t >= 2 && t[0] == '/' && t[1] == '/'))
			return q;
	}
	return NULL;
}

/* "#typev IDENT NUMBER "FORMAT" // LEVEL= FLAGS= FUNC=" */
static void typev_line(struct pctx *p, const char *s, const char *e)
{
	const char *id, *ide, *fq, *fe, *c;
	unsigned long number = 0;
	struct tmf_msg *m;

	s = skip_ws(s + 6, e);
	for (id = s, ide = s; ide < e && *ide != ' ' && *ide != '\t'; ide++)
		;
	s = skip_ws(ide, e);
	if (s == e || *s < '0' || *s > '9') {
		problem(p, "#typev line without a message number");
		return;
	}
	while (s < e && *s >= '0' && *s <= '9' && number <= 0xFFFF)
		number = number * 10 + (unsigned)(*s++ - '0');
	fq = skip_ws(s, e);
	if (number > 0xFFFF || fq == e || *fq != '"' || !(fe = format_end(fq, e))) {
		problem(p, number > 0xFFFF ? "message number above 65535" : "#typev line without a quoted format");
		return;
	}
	if (!p->have_guid) {
		problem(p, "#typev line before any GUID line");
		return;
	}
	m = etl__arena_alloc(&p->db->arena, sizeof(*m));
	if (!m)
		return;
	memset(m, 0, sizeof(*m));
	m->guid = p->guid;
	m->number = (uint16_t)number;
	m->ident = dup_span(p, id, (size_t)(ide - id));
	m->format = dup_span(p, fq + 1, (size_t)(fe - fq - 1));
	c = skip_ws(fe + 1, e);
	if (c < e) {
		m->level = comment_value(p, c, e, "LEVEL");
		m->flags = comment_value(p, c, e, "FLAGS");
		m->func = comment_value(p, c, e, "FUNC");
	}
	m->module = p->module;
	m->src = p->src;
	m->file = p->file;
	m->line = p->line;
	p->pending = m;
	p->nargs = 0;
	p->bad = 0;
}

/* A property name for an argument: its expression when that is a plain path
 * ("a->b.c" as "a.b.c"), else "argN". */
static const char *arg_name(struct pctx *p, const char *s, const char *e, unsigned number)
{
	char buf[128];
	size_t n = 0;
	int plain = s < e && ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_');

	while (plain && s < e && n + 1 < sizeof(buf)) {
		char c = *s;
		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.') {
			buf[n++] = c;
			s++;
		} else if (c == '-' && s + 1 < e && s[1] == '>') {
			buf[n++] = '.';
			s += 2;
		} else {
			plain = 0;
		}
	}
	if (!plain || s != e)
		n = (size_t)snprintf(buf, sizeof(buf), "arg%u", number);
	return dup_span(p, buf, n);
}

/* Adds a list's names ("A,B,C") as a value map (or bit map for a set) to f. */
static int list_map(struct pctx *p, struct etl_field *f, const struct tmf_arg *a, int bits)
{
	struct etl_map_entry ents[TMF_MAX_LIST], *copy;
	struct etl_map *map;
	const char *s = a->list, *e = a->list + strlen(a->list);
	char name[TMF_MAX_LINE + 64];
	uint32_t n = 0;

	while (s < e) {
		const char *c = memchr(s, ',', (size_t)(e - s));
		const char *ie = c ? c : e;
		const char *is = skip_ws(s, ie);
		if (n == TMF_MAX_LIST) {
			p->why = "a list or set of more than 256 names (the limit)";
			return -1;
		}
		ents[n].value = bits ? (n < 32 ? 1u << n : 0) : n;
		ents[n].text = dup_span(p, is, (size_t)(trim_end(is, ie) - is));
		n++;
		s = c ? c + 1 : e;
	}
	map = etl__arena_alloc(&p->db->arena, sizeof(*map));
	if (!map)
		return -1;
	memset(map, 0, sizeof(*map));
	snprintf(name, sizeof(name), "%s(%s)", a->type, a->list); /* ItemListByte(Low,APC,DPC) */
	map->name = dup_span(p, name, strlen(name));
	map->bitmap = bits;
	map->count = n;
	copy = etl__arena_alloc(&p->db->arena, (n ? n : 1) * sizeof(ents[0]));
	if (!copy)
		return -1;
	memcpy(copy, ents, n * sizeof(ents[0]));
	map->entries = copy;
	etl__schema_map_ready(map, copy, etl__schema_map_wants_order(map) ? etl__arena_alloc(&p->db->arena, (size_t)n * sizeof(uint32_t)) : NULL);
	f->map = map;
	return 0;
}

/* "EXPR, ItemType[(list)] -- N" */
static void arg_line(struct pctx *p, const char *s, const char *e)
{
	const char *dash, *t, *te, *ls = NULL, *le = NULL;
	const struct tmf_item_type *it;
	unsigned long number = 0;
	struct tmf_arg *a;
	char what[160];

	e = trim_end(s, e);
	for (dash = e - 1; dash > s && !(dash[0] == '-' && dash[-1] == '-'); dash--)
		;
	if (dash <= s + 1) {
		problem(p, "argument line without '-- N'");
		return;
	}
	for (t = skip_ws(dash + 1, e); t < e && *t >= '0' && *t <= '9' && number <= 0xFFFF; t++)
		number = number * 10 + (unsigned)(*t - '0');
	if (t != e || number == 0 || number > 0xFFFF) {
		problem(p, "argument line with a bad '-- N'");
		return;
	}
	te = trim_end(s, dash - 1);
	if (te > s && te[-1] == ')') { /* ItemListByte(A,B,C) */
		le = te - 1;
		for (ls = le; ls > s && *ls != '('; ls--)
			;
		te = ls++;
	}
	for (t = te; t > s && t[-1] != ' ' && t[-1] != '\t' && t[-1] != ','; t--)
		;
	it = etl__tmf_item_type(t, (size_t)(te - t));
	if (!it) {
		snprintf(what, sizeof(what), "unknown item type '%.*s'", (int)(te - t > 60 ? 60 : te - t), t);
		problem(p, what);
		return;
	}
	if (p->nargs == TMF_MAX_ARGS) {
		problem(p, "more than 64 arguments");
		return;
	}
	a = &p->args[p->nargs++];
	memset(a, 0, sizeof(*a));
	te = trim_end(s, t);
	if (te > s && te[-1] == ',')
		te--;
	a->expr = dup_span(p, s, (size_t)(trim_end(s, te) - s));
	a->number = (uint16_t)number;
	a->item = it->item;
	a->size = it->size;
	a->type = it->name;
	a->in_type = it->in_type;
	a->out_type = it->out_type;
	a->length = it->length;
	if ((it->item == TI_LIST || it->item == TI_SET) && ls)
		a->list = dup_span(p, ls, (size_t)(le - ls));
}

/* Builds the message's schema from its arguments. */
static int build_schema(struct pctx *p, struct tmf_msg *m)
{
	struct etl_field *f;
	uint16_t *top;
	unsigned i;

	m->nargs = (uint16_t)p->nargs;
	m->args = etl__arena_alloc(&p->db->arena, (p->nargs ? p->nargs : 1) * sizeof(*m->args));
	f = etl__arena_alloc(&p->db->arena, (p->nargs ? p->nargs : 1) * sizeof(*f));
	top = etl__arena_alloc(&p->db->arena, (p->nargs ? p->nargs : 1) * sizeof(*top));
	if (!m->args || !f || !top)
		return -1;
	memset(f, 0, (p->nargs ? p->nargs : 1) * sizeof(*f));
	for (i = 0; i < p->nargs; i++) {
		struct tmf_arg *a = &p->args[i];
		m->args[i] = *a;
		f[i].name = arg_name(p, a->expr, a->expr + strlen(a->expr), a->number);
		f[i].in_type = a->in_type;
		f[i].out_type = a->out_type;
		if (a->length) {
			f[i].flags = FF_LEN_CONST;
			f[i].length = a->length;
		}
		if (a->list && list_map(p, &f[i], a, a->item == TI_SET) != 0)
			return -1;
		top[i] = (uint16_t)i;
	}
	m->schema.fields = f;
	m->schema.nfields = (uint16_t)p->nargs;
	m->schema.ntop = (uint16_t)p->nargs;
	m->schema.top = top;
	return 0;
}

static void commit(struct pctx *p)
{
	struct tmf_msg *m = p->pending;
	struct msg_slot key, *slot;

	p->pending = NULL;
	p->in_block = 0;
	if (!m || p->bad)
		return;
	p->why = NULL;
	if (build_schema(p, m) != 0) {
		problem(p, p->why ? p->why : "out of memory");
		return;
	}
	p->db->parsed++;
	key.guid = m->guid;
	key.number = m->number;
	slot = etl__htab_find(&p->db->msgs, msg_hash(&m->guid, m->number), msg_eq, &key);
	if (!slot) {
		slot = etl__htab_insert(&p->db->msgs, msg_hash(&m->guid, m->number));
		if (!slot)
			return;
		p->db->count++;
	}
	slot->guid = m->guid;
	slot->number = m->number;
	slot->msg = m; /* a later definition replaces an earlier one */
}

static void one_line(struct pctx *p, const char *s, const char *e)
{
	s = skip_ws(s, e);
	e = trim_end(s, e);
	if (s == e || (e - s >= 2 && s[0] == '/' && s[1] == '/'))
		return;
	if (e - s >= 6 && memcmp(s, "#typev", 6) == 0) {
		if (p->pending)
			commit(p);
		typev_line(p, s, e);
	} else if (*s == '{' && e - s == 1) {
		if (!p->pending || p->in_block)
			problem(p, "'{' without a #typev line");
		p->in_block = 1;
	} else if (*s == '}' && e - s == 1) {
		if (!p->in_block)
			problem(p, "'}' without '{'");
		commit(p);
	} else if (p->in_block) {
		if (p->pending)
			arg_line(p, s, e);
	} else if (!guid_line(p, s, e)) {
		problem(p, "not a TMF line");
	}
}

/* The memory the database holds: its arena and its tables. */
static uint64_t held(const struct tmf_db *db)
{
	return db->arena.bytes + db->msgs.cap * (db->msgs.size + sizeof(uint64_t)) +
	       db->tried.cap * (db->tried.size + sizeof(uint64_t));
}

int etl__tmf_parse(struct tmf_db *db, const char *text, size_t len, const char *name, struct etl_diag *d)
{
	struct pctx p;
	const char *s = text, *e = text + len;
	uint64_t start;

	memset(&p, 0, sizeof(p));
	p.db = db;
	p.file = etl__arena_strndup(&db->arena, name, strlen(name));
	p.diag = d;
	if (len >= 2 && ((uint8_t)s[0] == 0xFF || (uint8_t)s[0] == 0xFE)) {
		etl__diag_set(d, ETL_E_UNSUPPORTED, ETL_OFFSET_NONE, "TMF %s: UTF-16 text is not supported", name);
		return ETL_E_UNSUPPORTED;
	}
	if (len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
		s += 3;
	start = held(db);
	while (s < e) {
		const char *nl = memchr(s, '\n', (size_t)(e - s));
		const char *le = nl ? nl : e;
		if (held(db) - start > (uint64_t)TMF_COST_RATIO * len + TMF_COST_BASE) {
			problem(&p, "the messages read so far cost more than 8 times the file's size and 16 MiB "
				    "(the TMF memory bound): the rest of the file is not read");
			p.pending = NULL;
			break;
		}
		p.line++;
		if (le - s > TMF_MAX_LINE)
			problem(&p, "line longer than 8192 bytes");
		else if (memchr(s, 0, (size_t)(le - s)))
			problem(&p, "NUL byte in the line");
		else
			one_line(&p, s, le);
		s = nl ? nl + 1 : e;
	}
	if (p.pending) {
		p.line++;
		if (p.in_block)
			problem(&p, "file ends inside a '{' block");
		else
			commit(&p);
	}
	return ETL_OK;
}

/* ---- files and folders ---- */

static int parse_file(struct tmf_db *db, const char *path, struct etl_diag *d)
{
	uint8_t *text;
	size_t len;
	int st = etl__read_file(path, TMF_MAX_FILE_BYTES, "TMF", &text, &len, d);

	if (st != ETL_OK)
		return st;
	st = etl__tmf_parse(db, (const char *)text, len, path, d);
	etl__free(text);
	return st;
}

int etl__tmf_add_path(struct tmf_db *db, const char *path, struct etl_diag *d)
{
	struct stat sb;
	size_t n;

	if (!db || !path)
		return ETL_E_MISUSE;
	if (stat(path, &sb) != 0) {
		etl__diag_set(d, ETL_E_IO, ETL_OFFSET_NONE, "TMF %s: %s", path, strerror(errno));
		return ETL_E_IO;
	}
	if (!S_ISDIR(sb.st_mode))
		return parse_file(db, path, d);
	if (db->nfolders == TMF_MAX_FOLDERS) {
		etl__diag_set(d, ETL_E_LIMIT, ETL_OFFSET_NONE, "TMF %s: more than %u folders", path, TMF_MAX_FOLDERS);
		return ETL_E_LIMIT;
	}
	n = strlen(path);
	if (n > TMF_MAX_FOLDER_PATH) { /* (GUID.tmf is appended to it: never a cut path) */
		etl__diag_set(d, ETL_E_LIMIT, ETL_OFFSET_NONE, "TMF folder path of %zu bytes: at most %u", n,
			      TMF_MAX_FOLDER_PATH);
		return ETL_E_LIMIT;
	}
	if (!(db->folders[db->nfolders] = etl__malloc(n + 1))) {
		etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
		return ETL_E_NOMEM;
	}
	memcpy(db->folders[db->nfolders++], path, n + 1);
	return ETL_OK;
}

/* Looks for g's file in the folders (GUID.tmf, lower case then upper case). */
static void load_guid(struct tmf_db *db, const struct etl_guid *g, struct tried_slot *slot)
{
	char gs[ETL_GUID_STRING_SIZE];
	unsigned i, k;

	etl_guid_format(g, gs);
	for (i = 0; i < db->nfolders; i++) {
		for (k = 0; k < 2; k++) {
			char path[TMF_MAX_FOLDER_PATH + 64];
			struct etl_diag d;
			unsigned before = db->warnings;
			size_t j;
			if (k == 1)
				for (j = 0; gs[j]; j++)
					gs[j] = (char)(gs[j] >= 'a' && gs[j] <= 'f' ? gs[j] - 32 : gs[j]);
			if ((size_t)snprintf(path, sizeof(path), "%s/%s.tmf", db->folders[i], gs) >= sizeof(path))
				continue;
			if (access(path, R_OK) != 0) {
				if (errno != ENOENT && !slot->failure) { /* there, but unreadable: say why */
					char why[TMF_MAX_FOLDER_PATH + 200];
					int n = snprintf(why, sizeof(why), "%s: %s", path, strerror(errno));
					slot->failure = etl__arena_strndup(&db->arena, why, n <= 0 ? 0 : (size_t)n < sizeof(why) ? (size_t)n : sizeof(why) - 1);
				}
				continue;
			}
			d.code = ETL_OK;
			if (parse_file(db, path, &d) != ETL_OK || db->warnings != before)
				slot->failure = etl__arena_strndup(&db->arena, d.msg, strlen(d.msg));
			return;
		}
	}
}

static const struct tmf_msg *find_locked(struct tmf_db *db, const struct etl_guid *g, uint16_t number,
					 const char **why)
{
	struct msg_slot key, *slot;
	struct tried_slot *t;
	uint64_t gh;

	key.guid = *g;
	key.number = number;
	slot = etl__htab_find(&db->msgs, msg_hash(g, number), msg_eq, &key);
	if (slot)
		return slot->msg;
	if (!db->nfolders)
		return NULL;
	gh = etl__hash_bytes(g, sizeof(*g));
	t = etl__htab_find(&db->tried, gh, tried_eq, g);
	if (!t) {
		t = etl__htab_insert(&db->tried, gh);
		if (!t)
			return NULL;
		t->guid = *g;
		t->failure = NULL;
		load_guid(db, g, t);
		slot = etl__htab_find(&db->msgs, msg_hash(g, number), msg_eq, &key);
		if (slot)
			return slot->msg;
	}
	*why = t->failure;
	return NULL;
}

const struct tmf_msg *etl__tmf_find(struct tmf_db *db, const struct etl_guid *g, uint16_t number,
				    const char **why)
{
	const struct tmf_msg *m;

	*why = NULL;
	if (!db)
		return NULL;
	pthread_mutex_lock(&db->lock);
	m = find_locked(db, g, number, why);
	pthread_mutex_unlock(&db->lock);
	return m; /* messages and reasons stay where they are until the database is freed */
}

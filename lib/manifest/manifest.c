/*
 * manifest.c - instrumentation manifests, read with libxml2.
 *
 * Manifests are untrusted input: libxml2 reads them with no network access
 * and no entity substitution or DTD loading; a manifest larger than the
 * size limit is refused, templates are bounded in fields and depth, and
 * every reference (template, map, count/length field, task, opcode) is
 * checked.  A bad template or event costs itself, counted as a warning.
 *
 * Each provider keeps everything it owns (names, schemas, maps, events) in
 * one arena, freed at once.
 *
 * SPDX-License-Identifier: MIT
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "manifest/manifest.h"

#define MAX_MANIFEST_BYTES (64u << 20)
#define MAX_TEMPLATE_FIELDS 4096u
#define MAX_STRUCT_DEPTH 8
#define MAX_EVENTS (1u << 20)

struct named_value {
	const char *name;
	uint64_t value;
	const char *message; /* localized display name, or NULL */
	int task;            /* for opcodes: the task value they belong to, -1 for provider-wide */
};

struct template_ref {
	const char *tid;
	struct etl_schema *schema; /* NULL: rejected */
};

struct etl_mprovider {
	struct etl_guid guid;
	const char *name;
	struct etl_arena arena;
	struct etl_mevent *events;
	size_t nevents;
	struct etl_map **maps;
	size_t nmaps;
};

struct etl_manifest_db {
	struct etl_mprovider **providers;
	size_t nproviders;
	const struct etl_mevent **index; /* open addressing by (guid, id, version) */
	size_t index_cap;
};

/* ------------------------------------------------------------------ */
/* small helpers                                                       */
/* ------------------------------------------------------------------ */

static int is_el(const xmlNode *n, const char *name)
{
	return n && n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

static const xmlNode *child_el(const xmlNode *n, const char *name)
{
	const xmlNode *c;

	for (c = n ? n->children : NULL; c; c = c->next)
		if (is_el(c, name))
			return c;
	return NULL;
}

/* An attribute copied into the arena (NULL if absent or out of memory). */
static const char *attr(struct etl_arena *a, const xmlNode *n, const char *name)
{
	xmlChar *v = xmlGetProp((xmlNode *)(uintptr_t)n, (const xmlChar *)name);
	const char *s;

	if (!v)
		return NULL;
	s = etl__arena_strndup(a, (const char *)v, strlen((const char *)v));
	xmlFree(v);
	return s;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;
	unsigned long long x;

	if (!s || !*s)
		return 0;
	errno = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		x = strtoull(s + 2, &end, 16);
	else
		x = strtoull(s, &end, 10);
	if (errno || *end || s[0] == '-')
		return 0;
	*v = x;
	return 1;
}

/* ---- the string table of the localization section ---- */

struct strtab {
	const char **ids, **values;
	size_t n, cap;
};

static void strtab_collect(struct strtab *t, struct etl_arena *a, const xmlNode *n, int depth)
{
	const xmlNode *c;

	if (depth > 8)
		return;
	for (c = n->children; c; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		if (is_el(c, "string")) {
			const char *id = attr(a, c, "id"), *v = attr(a, c, "value");
			if (!id || !v)
				continue;
			if (t->n == t->cap) {
				size_t ncap = t->cap ? t->cap * 2 : 256;
				const char **ni = etl__realloc((void *)t->ids, ncap * sizeof(*ni));
				const char **nv;
				if (!ni)
					return;
				t->ids = ni;
				nv = etl__realloc((void *)t->values, ncap * sizeof(*nv));
				if (!nv)
					return;
				t->values = nv;
				t->cap = ncap;
			}
			t->ids[t->n] = id;
			t->values[t->n] = v;
			t->n++;
		} else {
			strtab_collect(t, a, c, depth + 1);
		}
	}
}

/* "$(string.X)" -> the string X; other text unchanged. */
static const char *localize(const struct strtab *t, const char *s)
{
	size_t i, l;

	if (!s || strncmp(s, "$(string.", 9) != 0)
		return s;
	l = strlen(s);
	if (l < 11 || s[l - 1] != ')')
		return s;
	for (i = 0; i < t->n; i++)
		if (strlen(t->ids[i]) == l - 10 && strncmp(t->ids[i], s + 9, l - 10) == 0)
			return t->values[i];
	return s;
}

/* ------------------------------------------------------------------ */
/* types                                                               */
/* ------------------------------------------------------------------ */

static const struct { const char *name; uint16_t v; } in_types[] = {
	{ "win:UnicodeString", IN_UNICODESTRING }, { "win:AnsiString", IN_ANSISTRING },
	{ "win:Int8", IN_INT8 }, { "win:UInt8", IN_UINT8 }, { "win:Int16", IN_INT16 },
	{ "win:UInt16", IN_UINT16 }, { "win:Int32", IN_INT32 }, { "win:UInt32", IN_UINT32 },
	{ "win:Int64", IN_INT64 }, { "win:UInt64", IN_UINT64 }, { "win:Float", IN_FLOAT },
	{ "win:Double", IN_DOUBLE }, { "win:Boolean", IN_BOOLEAN }, { "win:Binary", IN_BINARY },
	{ "win:GUID", IN_GUID }, { "win:Pointer", IN_POINTER }, { "win:FILETIME", IN_FILETIME },
	{ "win:SYSTEMTIME", IN_SYSTEMTIME }, { "win:SID", IN_SID }, { "win:HexInt32", IN_HEXINT32 },
	{ "win:HexInt64", IN_HEXINT64 }, { "win:CountedUnicodeString", IN_COUNTEDSTRING },
	{ "win:CountedString", IN_COUNTEDSTRING }, { "win:CountedAnsiString", IN_COUNTEDANSISTRING },
	{ "win:CountedBinary", IN_COUNTEDBINARY },
};

static const struct { const char *name; uint16_t v; } out_types[] = {
	{ "xs:string", OUT_STRING }, { "xs:dateTime", OUT_DATETIME }, { "xs:byte", OUT_BYTE },
	{ "xs:unsignedByte", OUT_UNSIGNEDBYTE }, { "xs:short", OUT_SHORT },
	{ "xs:unsignedShort", OUT_UNSIGNEDSHORT }, { "xs:int", OUT_INT }, { "xs:unsignedInt", OUT_UNSIGNEDINT },
	{ "xs:long", OUT_LONG }, { "xs:unsignedLong", OUT_UNSIGNEDLONG }, { "xs:float", OUT_FLOAT },
	{ "xs:double", OUT_DOUBLE }, { "xs:boolean", OUT_BOOLEAN }, { "xs:GUID", OUT_GUID },
	{ "xs:hexBinary", OUT_HEXBINARY }, { "win:HexInt8", OUT_HEXINT8 }, { "win:HexInt16", OUT_HEXINT16 },
	{ "win:HexInt32", OUT_HEXINT32 }, { "win:HexInt64", OUT_HEXINT64 }, { "win:PID", OUT_PID },
	{ "win:TID", OUT_TID }, { "win:Port", OUT_PORT }, { "win:IPv4", OUT_IPV4 }, { "win:IPv6", OUT_IPV6 },
	{ "win:SocketAddress", OUT_SOCKETADDRESS }, { "win:CIMDateTime", OUT_CIMDATETIME },
	{ "win:ETWTIME", OUT_ETWTIME }, { "win:Xml", OUT_XML }, { "win:ErrorCode", OUT_ERRORCODE },
	{ "win:Win32Error", OUT_WIN32ERROR }, { "win:NTSTATUS", OUT_NTSTATUS }, { "win:HResult", OUT_HRESULT },
	{ "win:DateTimeCultureInsensitive", OUT_CULTURE_INSENSITIVE_DATETIME }, { "win:Json", OUT_JSON },
	{ "win:Utf8", OUT_UTF8 }, { "win:Pkcs7WithTypeInfo", OUT_PKCS7 }, { "win:CodePointer", OUT_CODE_POINTER },
	{ "win:DateTimeUtc", OUT_DATETIME_UTC },
};

static int lookup_type(const char *s, int in, uint16_t *v)
{
	size_t i;

	if (!s)
		return 0;
	if (in) {
		for (i = 0; i < sizeof(in_types) / sizeof(in_types[0]); i++)
			if (strcmp(in_types[i].name, s) == 0) {
				*v = in_types[i].v;
				return 1;
			}
	} else {
		for (i = 0; i < sizeof(out_types) / sizeof(out_types[0]); i++)
			if (strcmp(out_types[i].name, s) == 0) {
				*v = out_types[i].v;
				return 1;
			}
	}
	return 0;
}

/* the standard opcodes, levels and channels of winmeta.xml */
static const struct named_value std_opcodes[] = {
	{ "win:Info", 0, "Info", -1 }, { "win:Start", 1, "Start", -1 }, { "win:Stop", 2, "Stop", -1 },
	{ "win:DC_Start", 3, "DCStart", -1 }, { "win:DC_Stop", 4, "DCStop", -1 },
	{ "win:Extension", 5, "Extension", -1 }, { "win:Reply", 6, "Reply", -1 },
	{ "win:Resume", 7, "Resume", -1 }, { "win:Suspend", 8, "Suspend", -1 }, { "win:Send", 9, "Send", -1 },
	{ "win:Receive", 240, "Receive", -1 },
};
static const struct named_value std_levels[] = {
	{ "win:LogAlways", 0, "LogAlways", -1 }, { "win:Critical", 1, "Critical", -1 },
	{ "win:Error", 2, "Error", -1 }, { "win:Warning", 3, "Warning", -1 },
	{ "win:Informational", 4, "Informational", -1 }, { "win:Verbose", 5, "Verbose", -1 },
};
static const struct named_value std_channels[] = {
	{ "TraceClassic", 0, "TraceClassic", -1 }, { "System", 8, "System", -1 },
	{ "Application", 9, "Application", -1 }, { "Security", 10, "Security", -1 },
	{ "TraceLogging", 11, "TraceLogging", -1 }, { "ProviderMetadata", 12, "ProviderMetadata", -1 },
};

struct ntable {
	struct named_value *v;
	size_t n, cap;
};

static int ntable_add(struct ntable *t, const char *name, uint64_t value, const char *message, int task)
{
	if (t->n == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 32;
		struct named_value *nv = etl__realloc(t->v, ncap * sizeof(*nv));
		if (!nv)
			return 0;
		t->v = nv;
		t->cap = ncap;
	}
	t->v[t->n].name = name;
	t->v[t->n].value = value;
	t->v[t->n].message = message;
	t->v[t->n].task = task;
	t->n++;
	return 1;
}

static const struct named_value *ntable_find(const struct ntable *t, const char *name, int task)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->v[i].task == task && strcmp(t->v[i].name, name) == 0)
			return &t->v[i];
	return NULL;
}

static const struct named_value *std_find(const struct named_value *tab, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(tab[i].name, name) == 0)
			return &tab[i];
	return NULL;
}

static const char *display(const struct named_value *v)
{
	const char *s = v->message ? v->message : v->name;
	return s && strncmp(s, "win:", 4) == 0 ? s + 4 : s;
}

/* ------------------------------------------------------------------ */
/* templates                                                           */
/* ------------------------------------------------------------------ */

struct tbuild {
	struct etl_arena *a;
	struct etl_field *f;
	uint16_t n;
	uint16_t *pool;
	size_t pool_n;
	const char *err;
};

static int find_field(const struct tbuild *b, const char *name, uint16_t *idx)
{
	uint16_t i;

	for (i = b->n; i-- > 0;)
		if (b->f[i].name && strcmp(b->f[i].name, name) == 0 && !(b->f[i].flags & FF_STRUCT)) {
			*idx = i;
			return 1;
		}
	return 0;
}

/* count="N" or count="FieldName" (and the same for length). */
static int count_or_length(struct tbuild *b, struct etl_field *f, const char *v, int is_count)
{
	uint64_t n;
	uint16_t idx;

	if (!v)
		return 1;
	if (parse_u64(v, &n)) {
		if (n > 0xFFFF) {
			b->err = "count or length is larger than 65535";
			return 0;
		}
		if (is_count) {
			if (n != 1) {
				f->flags |= FF_COUNT_CONST;
				f->count = (uint16_t)n;
			}
		} else {
			f->flags |= FF_LEN_CONST;
			f->length = (uint16_t)n;
		}
		return 1;
	}
	if (!find_field(b, v, &idx)) {
		b->err = "count or length names no earlier field";
		return 0;
	}
	if (is_count) {
		f->flags |= FF_COUNT_FIELD;
		f->count = idx;
	} else {
		f->flags |= FF_LEN_FIELD;
		f->length = idx;
	}
	return 1;
}

/* Parses the <data>/<struct> children of n into fields; their indexes go to list. */
static int parse_items(struct tbuild *b, const xmlNode *n, uint16_t *list, uint16_t *count, int depth)
{
	const xmlNode *c;
	uint16_t k = 0;

	if (depth > MAX_STRUCT_DEPTH) {
		b->err = "structs nested too deep";
		return 0;
	}
	for (c = n->children; c; c = c->next) {
		struct etl_field *f;
		uint16_t idx;

		if (!is_el(c, "data") && !is_el(c, "struct"))
			continue;
		if (b->n >= MAX_TEMPLATE_FIELDS) {
			b->err = "more than 4096 fields";
			return 0;
		}
		idx = b->n++;
		f = &b->f[idx];
		memset(f, 0, sizeof(*f));
		f->name = attr(b->a, c, "name");
		if (!f->name) {
			b->err = "a field without a name";
			return 0;
		}
		if (is_el(c, "data")) {
			const char *in = attr(b->a, c, "inType"), *out = attr(b->a, c, "outType");
			if (!lookup_type(in, 1, &f->in_type)) {
				b->err = "unknown inType";
				return 0;
			}
			if (out && !lookup_type(out, 0, &f->out_type))
				f->out_type = OUT_NULL; /* an unknown outType only changes the rendering */
			f->map_name = attr(b->a, c, "map");
		} else {
			uint16_t *members = b->pool + b->pool_n, m = 0;
			f->flags |= FF_STRUCT;
			/* reserve the member list, then parse the members */
			{
				const xmlNode *x;
				uint16_t nm = 0;
				for (x = c->children; x; x = x->next)
					if (is_el(x, "data") || is_el(x, "struct"))
						nm++;
				if (b->pool_n + nm > MAX_TEMPLATE_FIELDS) {
					b->err = "more than 4096 fields";
					return 0;
				}
				b->pool_n += nm;
			}
			if (!parse_items(b, c, members, &m, depth + 1))
				return 0;
			f = &b->f[idx];
			f->members = members;
			f->nmembers = m;
		}
		if (!count_or_length(b, f, attr(b->a, c, "count"), 1) ||
		    !count_or_length(b, f, attr(b->a, c, "length"), 0))
			return 0;
		list[k++] = idx;
	}
	*count = k;
	return 1;
}

static struct etl_schema *parse_template(struct etl_arena *a, const xmlNode *t, const char **err)
{
	struct tbuild b;
	struct etl_schema *s;
	uint16_t *top, ntop = 0;

	memset(&b, 0, sizeof(b));
	b.a = a;
	b.f = etl__malloc(MAX_TEMPLATE_FIELDS * sizeof(*b.f));
	b.pool = etl__malloc(MAX_TEMPLATE_FIELDS * sizeof(*b.pool));
	top = etl__malloc(MAX_TEMPLATE_FIELDS * sizeof(*top));
	s = etl__arena_alloc(a, sizeof(*s));
	if (!b.f || !b.pool || !top || !s) {
		*err = "out of memory";
		goto out_fail;
	}
	if (!parse_items(&b, t, top, &ntop, 0)) {
		*err = b.err;
		goto out_fail;
	}
	memset(s, 0, sizeof(*s));
	/* copy the working arrays into the provider's arena, then point members at the copy */
	s->fields = etl__arena_alloc(a, (size_t)(b.n ? b.n : 1) * sizeof(*s->fields));
	s->top = etl__arena_alloc(a, (size_t)(ntop ? ntop : 1) * sizeof(*s->top));
	{
		uint16_t *pool = etl__arena_alloc(a, (b.pool_n ? b.pool_n : 1) * sizeof(*pool));
		uint16_t i;
		if (!s->fields || !s->top || !pool) {
			*err = "out of memory";
			goto out_fail;
		}
		memcpy(pool, b.pool, b.pool_n * sizeof(*pool));
		memcpy(s->fields, b.f, (size_t)b.n * sizeof(*s->fields));
		for (i = 0; i < b.n; i++)
			if (s->fields[i].flags & FF_STRUCT)
				s->fields[i].members = pool + (s->fields[i].members - b.pool);
	}
	memcpy(s->top, top, (size_t)ntop * sizeof(*top));
	s->nfields = b.n;
	s->ntop = ntop;
	etl__free(b.f);
	etl__free(b.pool);
	etl__free(top);
	return s;
out_fail:
	etl__free(b.f);
	etl__free(b.pool);
	etl__free(top);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* providers                                                           */
/* ------------------------------------------------------------------ */

static struct etl_map *parse_map(struct etl_arena *a, const xmlNode *m, const struct strtab *st)
{
	const xmlNode *c;
	uint32_t n = 0, k = 0;
	struct etl_map *map;

	for (c = m->children; c; c = c->next)
		if (is_el(c, "map"))
			n++;
	map = etl__arena_alloc(a, sizeof(*map) + (size_t)n * sizeof(map->entries[0]));
	if (!map)
		return NULL;
	map->name = attr(a, m, "name");
	map->bitmap = is_el(m, "bitMap");
	for (c = m->children; c; c = c->next) {
		uint64_t v;
		const char *text;
		if (!is_el(c, "map") || !parse_u64(attr(a, c, "value"), &v) || v > 0xFFFFFFFFu)
			continue;
		text = localize(st, attr(a, c, "message"));
		if (!text)
			continue;
		/* map texts often end in a space */
		{
			size_t l = strlen(text);
			while (l > 0 && text[l - 1] == ' ')
				l--;
			text = etl__arena_strndup(a, text, l);
		}
		map->entries[k].value = (uint32_t)v;
		map->entries[k].text = text;
		k++;
	}
	map->count = k;
	return map->name ? map : NULL;
}

struct load_ctx {
	unsigned warnings;
	struct etl_diag *d;
	const char *doc;
};

static void warn(struct load_ctx *x, const char *what, const char *name, const char *why)
{
	if (x->warnings++ == 0)
		etl__diag_set(x->d, ETL_E_FORMAT, ETL_OFFSET_NONE, "manifest %s: %s '%s': %s", x->doc, what,
			      name ? name : "?", why);
}

static struct etl_mprovider *parse_provider(const xmlNode *pn, const struct strtab *st_in,
					     struct load_ctx *x)
{
	struct etl_mprovider *p = etl__calloc(1, sizeof(*p));
	struct ntable tasks = { 0 }, opcodes = { 0 }, levels = { 0 }, keywords = { 0 }, channels = { 0 };
	struct template_ref *tpl = NULL;
	size_t ntpl = 0, nev = 0, i;
	const xmlNode *sec, *c;
	const char *guid_s;
	const struct strtab *st = st_in;

	if (!p)
		return NULL;
	p->name = attr(&p->arena, pn, "name");
	guid_s = attr(&p->arena, pn, "guid");
	if (!p->name || !guid_s || etl_guid_parse(guid_s, &p->guid) != ETL_OK) {
		warn(x, "provider", p->name, "missing or malformed name or guid");
		etl__arena_free(&p->arena);
		etl__free(p);
		return NULL;
	}
	/* tasks, with their own opcodes */
	for (c = (sec = child_el(pn, "tasks")) ? sec->children : NULL; c; c = c->next) {
		uint64_t v;
		const xmlNode *o;
		const char *name;
		if (!is_el(c, "task"))
			continue;
		name = attr(&p->arena, c, "name");
		if (!name || !parse_u64(attr(&p->arena, c, "value"), &v) || v > 0xFFFF) {
			warn(x, "task", name, "missing name or bad value");
			continue;
		}
		ntable_add(&tasks, name, v, localize(st, attr(&p->arena, c, "message")), -1);
		for (o = (o = child_el(c, "opcodes")) ? o->children : NULL; o; o = o->next) {
			uint64_t ov;
			const char *on;
			if (!is_el(o, "opcode"))
				continue;
			on = attr(&p->arena, o, "name");
			if (on && parse_u64(attr(&p->arena, o, "value"), &ov) && ov <= 255)
				ntable_add(&opcodes, on, ov, localize(st, attr(&p->arena, o, "message")), (int)v);
		}
	}
	for (c = (sec = child_el(pn, "opcodes")) ? sec->children : NULL; c; c = c->next) {
		uint64_t v;
		const char *name;
		if (!is_el(c, "opcode"))
			continue;
		name = attr(&p->arena, c, "name");
		if (name && parse_u64(attr(&p->arena, c, "value"), &v) && v <= 255)
			ntable_add(&opcodes, name, v, localize(st, attr(&p->arena, c, "message")), -1);
	}
	for (c = (sec = child_el(pn, "levels")) ? sec->children : NULL; c; c = c->next) {
		uint64_t v;
		const char *name;
		if (!is_el(c, "level"))
			continue;
		name = attr(&p->arena, c, "name");
		if (name && parse_u64(attr(&p->arena, c, "value"), &v) && v <= 255)
			ntable_add(&levels, name, v, localize(st, attr(&p->arena, c, "message")), -1);
	}
	for (c = (sec = child_el(pn, "keywords")) ? sec->children : NULL; c; c = c->next) {
		uint64_t v;
		const char *name;
		if (!is_el(c, "keyword"))
			continue;
		name = attr(&p->arena, c, "name");
		if (name && parse_u64(attr(&p->arena, c, "mask"), &v))
			ntable_add(&keywords, name, v, localize(st, attr(&p->arena, c, "message")), -1);
	}
	for (c = (sec = child_el(pn, "channels")) ? sec->children : NULL; c; c = c->next) {
		uint64_t v = 16 + channels.n;
		const char *name, *cid;
		if (!is_el(c, "channel") && !is_el(c, "importChannel"))
			continue;
		name = attr(&p->arena, c, "name");
		cid = attr(&p->arena, c, "chid");
		parse_u64(attr(&p->arena, c, "value"), &v);
		if (name)
			ntable_add(&channels, name, v, NULL, -1);
		if (cid)
			ntable_add(&channels, cid, v, name, -1);
	}
	/* maps */
	for (c = (sec = child_el(pn, "maps")) ? sec->children : NULL; c; c = c->next) {
		struct etl_map *m, **nm;
		if (!is_el(c, "valueMap") && !is_el(c, "bitMap"))
			continue;
		m = parse_map(&p->arena, c, st);
		if (!m)
			continue;
		nm = etl__realloc(p->maps, (p->nmaps + 1) * sizeof(*nm));
		if (!nm)
			break;
		p->maps = nm;
		p->maps[p->nmaps++] = m;
	}
	/* templates */
	for (c = (sec = child_el(pn, "templates")) ? sec->children : NULL; c; c = c->next) {
		struct template_ref *nt;
		const char *err = NULL;
		if (!is_el(c, "template"))
			continue;
		nt = etl__realloc(tpl, (ntpl + 1) * sizeof(*nt));
		if (!nt)
			break;
		tpl = nt;
		tpl[ntpl].tid = attr(&p->arena, c, "tid");
		tpl[ntpl].schema = parse_template(&p->arena, c, &err);
		if (!tpl[ntpl].schema)
			warn(x, "template", tpl[ntpl].tid, err ? err : "rejected");
		ntpl++;
	}
	/* events */
	sec = child_el(pn, "events");
	for (c = sec ? sec->children : NULL; c; c = c->next)
		if (is_el(c, "event"))
			nev++;
	if (nev > MAX_EVENTS)
		nev = MAX_EVENTS;
	p->events = etl__arena_alloc(&p->arena, (nev ? nev : 1) * sizeof(*p->events));
	for (c = sec ? sec->children : NULL; c && p->events && p->nevents < nev; c = c->next) {
		struct etl_mevent *e = &p->events[p->nevents];
		uint64_t v = 0;
		const char *s;
		const struct named_value *nv;
		int task = 0;

		if (!is_el(c, "event"))
			continue;
		memset(e, 0, sizeof(*e));
		e->provider = p;
		if (!parse_u64(attr(&p->arena, c, "value"), &v) || v > 0xFFFF) {
			warn(x, "event", attr(&p->arena, c, "symbol"), "missing or bad value");
			continue;
		}
		e->id = (uint16_t)v;
		v = 0;
		if ((s = attr(&p->arena, c, "version")) && (!parse_u64(s, &v) || v > 255)) {
			warn(x, "event", s, "bad version");
			continue;
		}
		e->version = (uint8_t)v;
		if ((s = attr(&p->arena, c, "task")) != NULL) {
			nv = ntable_find(&tasks, s, -1);
			if (!nv) {
				warn(x, "event", s, "names an undefined task");
				continue;
			}
			e->task = (uint16_t)nv->value;
			e->task_name = display(nv);
			task = (int)nv->value;
		}
		if ((s = attr(&p->arena, c, "opcode")) != NULL) {
			nv = ntable_find(&opcodes, s, task);
			if (!nv)
				nv = ntable_find(&opcodes, s, -1);
			if (!nv)
				nv = std_find(std_opcodes, sizeof(std_opcodes) / sizeof(std_opcodes[0]), s);
			if (!nv) {
				warn(x, "event", s, "names an undefined opcode");
				continue;
			}
			e->opcode = (uint8_t)nv->value;
			e->opcode_name = display(nv);
		}
		if ((s = attr(&p->arena, c, "level")) != NULL) {
			nv = ntable_find(&levels, s, -1);
			if (!nv)
				nv = std_find(std_levels, sizeof(std_levels) / sizeof(std_levels[0]), s);
			if (nv) {
				e->level = (uint8_t)nv->value;
				e->level_name = display(nv);
			}
		}
		if ((s = attr(&p->arena, c, "channel")) != NULL) {
			nv = ntable_find(&channels, s, -1);
			if (!nv)
				nv = std_find(std_channels, sizeof(std_channels) / sizeof(std_channels[0]), s);
			if (nv) {
				e->channel = (uint8_t)nv->value;
				e->channel_name = nv->message ? nv->message : nv->name;
			}
		}
		if ((s = attr(&p->arena, c, "keywords")) != NULL) {
			/* space-separated keyword names */
			char *w = etl__arena_strndup(&p->arena, s, strlen(s)), *tok, *save = NULL;
			for (tok = w ? strtok_r(w, " ", &save) : NULL; tok; tok = strtok_r(NULL, " ", &save)) {
				nv = ntable_find(&keywords, tok, -1);
				if (nv)
					e->keywords |= nv->value;
			}
			e->keywords_name = s;
		}
		if ((s = attr(&p->arena, c, "template")) != NULL) {
			for (i = 0; i < ntpl; i++)
				if (tpl[i].tid && strcmp(tpl[i].tid, s) == 0)
					break;
			if (i == ntpl || !tpl[i].schema) {
				warn(x, "event", s, i == ntpl ? "names an undefined template" : "uses a rejected template");
				continue;
			}
			e->schema = tpl[i].schema;
		}
		e->message = localize(st, attr(&p->arena, c, "message"));
		p->nevents++;
	}
	etl__free(tasks.v);
	etl__free(opcodes.v);
	etl__free(levels.v);
	etl__free(keywords.v);
	etl__free(channels.v);
	etl__free(tpl);
	return p;
}

static void provider_free(struct etl_mprovider *p)
{
	if (!p)
		return;
	etl__free(p->maps);
	etl__arena_free(&p->arena);
	etl__free(p);
}

/* ------------------------------------------------------------------ */
/* the database                                                        */
/* ------------------------------------------------------------------ */

struct etl_manifest_db *etl__mdb_new(void)
{
	return etl__calloc(1, sizeof(struct etl_manifest_db));
}

void etl__mdb_free(struct etl_manifest_db *db)
{
	size_t i;

	if (!db)
		return;
	for (i = 0; i < db->nproviders; i++)
		provider_free(db->providers[i]);
	etl__free(db->providers);
	etl__free((void *)db->index);
	etl__free(db);
}

static size_t ev_hash(const struct etl_guid *g, uint16_t id, uint8_t version)
{
	uint64_t h = (uint64_t)g->data1 * 0x9E3779B97F4A7C15ULL ^ (uint64_t)id << 20 ^ (uint64_t)version << 40 ^
		     g->data3 ^ (uint64_t)g->data4[7] << 8;
	return (size_t)(h ^ h >> 31);
}

static int rebuild_index(struct etl_manifest_db *db)
{
	size_t total = 0, i, k, cap = 64;
	const struct etl_mevent **ix;

	for (i = 0; i < db->nproviders; i++)
		total += db->providers[i]->nevents;
	while (cap < total * 2)
		cap *= 2;
	ix = etl__calloc(cap, sizeof(*ix));
	if (!ix)
		return ETL_E_NOMEM;
	for (i = 0; i < db->nproviders; i++) {
		const struct etl_mprovider *p = db->providers[i];
		for (k = 0; k < p->nevents; k++) {
			const struct etl_mevent *e = &p->events[k];
			size_t h = ev_hash(&p->guid, e->id, e->version) & (cap - 1);
			while (ix[h] && !(ix[h]->id == e->id && ix[h]->version == e->version &&
					  etl_guid_equal(&ix[h]->provider->guid, &p->guid)))
				h = (h + 1) & (cap - 1);
			ix[h] = e; /* a later duplicate replaces the earlier one */
		}
	}
	etl__free((void *)db->index);
	db->index = ix;
	db->index_cap = cap;
	return ETL_OK;
}

const struct etl_mevent *etl__mdb_find(const struct etl_manifest_db *db, const struct etl_guid *g,
				       uint16_t id, uint8_t version)
{
	size_t h;

	if (!db || !db->index_cap)
		return NULL;
	for (h = ev_hash(g, id, version) & (db->index_cap - 1); db->index[h]; h = (h + 1) & (db->index_cap - 1)) {
		const struct etl_mevent *e = db->index[h];
		if (e->id == id && e->version == version && etl_guid_equal(&e->provider->guid, g))
			return e;
	}
	return NULL;
}

const struct etl_mevent *etl__mdb_find_any_version(const struct etl_manifest_db *db,
						   const struct etl_guid *g, uint16_t id, uint8_t version)
{
	const struct etl_mevent *best = NULL;
	size_t i, k;

	if (!db)
		return NULL;
	for (i = 0; i < db->nproviders; i++) {
		const struct etl_mprovider *p = db->providers[i];
		if (!etl_guid_equal(&p->guid, g))
			continue;
		/* the highest version not above the one asked for, else the lowest above it */
		for (k = 0; k < p->nevents; k++) {
			const struct etl_mevent *e = &p->events[k];
			if (e->id != id)
				continue;
			if (!best || (e->version <= version && (best->version > version || e->version > best->version)) ||
			    (e->version > version && best->version > version && e->version < best->version))
				best = e;
		}
	}
	return best;
}

const char *etl__mdb_provider_name(const struct etl_mprovider *p)
{
	return p->name;
}

const struct etl_map *etl__mdb_map(const struct etl_mprovider *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nmaps; i++)
		if (strcmp(p->maps[i]->name, name) == 0)
			return p->maps[i];
	return NULL;
}

size_t etl__mdb_provider_count(const struct etl_manifest_db *db)
{
	return db ? db->nproviders : 0;
}

static void collect_localization(struct strtab *st, struct etl_arena *sa, const xmlNode *n, int depth)
{
	const xmlNode *c;

	if (depth > 4)
		return;
	for (c = n->children; c; c = c->next) {
		if (is_el(c, "localization"))
			strtab_collect(st, sa, c, 0);
		else if (c->type == XML_ELEMENT_NODE && !is_el(c, "events"))
			collect_localization(st, sa, c, depth + 1);
	}
}

static void find_providers(const xmlNode *n, const xmlNode **out, size_t *count, size_t max, int depth)
{
	const xmlNode *c;

	if (depth > 6)
		return;
	for (c = n->children; c; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		if (is_el(c, "provider")) {
			/* ETW providers live under <events>; others (performance counters) are not ours */
			if (is_el(n, "events") && *count < max)
				out[(*count)++] = c;
		} else if (!is_el(c, "localization") && !is_el(c, "counters")) {
			find_providers(c, out, count, max, depth + 1);
		}
	}
}

int etl__mdb_load_memory(struct etl_manifest_db *db, const uint8_t *xml, size_t len, const char *name,
			 unsigned *warnings, struct etl_diag *d)
{
	xmlDoc *doc;
	const xmlNode *root, *provs[256];
	size_t nprov = 0, i, k;
	struct strtab st = { 0 };
	struct etl_arena sa = { 0 };
	struct load_ctx x;
	int st_code = ETL_OK;

	x.warnings = 0;
	x.d = d;
	x.doc = name ? name : "(memory)";
	if (len > MAX_MANIFEST_BYTES || len > INT32_MAX) {
		etl__diag_set(d, ETL_E_LIMIT, ETL_OFFSET_NONE, "manifest %s: %zu bytes exceed the %u-byte limit",
			      x.doc, len, MAX_MANIFEST_BYTES);
		return ETL_E_LIMIT;
	}
	/* no network, no entity substitution, no DTD loading, quiet */
	doc = xmlReadMemory((const char *)xml, (int)len, x.doc, NULL,
			    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOCDATA);
	if (!doc) {
		const xmlError *e = xmlGetLastError();
		etl__diag_set(d, ETL_E_FORMAT, ETL_OFFSET_NONE, "manifest %s: not well-formed XML%s%s", x.doc,
			      e && e->message ? ": " : "", e && e->message ? e->message : "");
		if (d->msg[0]) {
			size_t l = strlen(d->msg);
			if (l && d->msg[l - 1] == '\n')
				d->msg[l - 1] = 0;
		}
		return ETL_E_FORMAT;
	}
	root = xmlDocGetRootElement(doc);
	/* an instrumentation manifest, or a Windows side-by-side assembly manifest that holds one */
	if (!root || !(is_el(root, "instrumentationManifest") || is_el(root, "assembly"))) {
		etl__diag_set(d, ETL_E_FORMAT, ETL_OFFSET_NONE,
			      "manifest %s: the root is neither <instrumentationManifest> nor <assembly>", x.doc);
		xmlFreeDoc(doc);
		return ETL_E_FORMAT;
	}
	collect_localization(&st, &sa, root, 0);
	find_providers(root, provs, &nprov, sizeof(provs) / sizeof(provs[0]), 0);
	for (i = 0; i < nprov; i++) {
		struct etl_mprovider *p = parse_provider(provs[i], &st, &x), **np;
		if (!p)
			continue;
		/* the localized strings live in sa: copy each event's texts into the provider */
		for (k = 0; k < p->nevents; k++) {
			struct etl_mevent *e = &p->events[k];
			if (e->message)
				e->message = etl__arena_strndup(&p->arena, e->message, strlen(e->message));
			if (e->task_name)
				e->task_name = etl__arena_strndup(&p->arena, e->task_name, strlen(e->task_name));
			if (e->opcode_name)
				e->opcode_name = etl__arena_strndup(&p->arena, e->opcode_name, strlen(e->opcode_name));
			if (e->level_name)
				e->level_name = etl__arena_strndup(&p->arena, e->level_name, strlen(e->level_name));
		}
		/* a provider loaded again replaces the old one */
		for (k = 0; k < db->nproviders; k++) {
			if (etl_guid_equal(&db->providers[k]->guid, &p->guid)) {
				provider_free(db->providers[k]);
				db->providers[k] = p;
				p = NULL;
				break;
			}
		}
		if (!p)
			continue;
		np = etl__realloc(db->providers, (db->nproviders + 1) * sizeof(*np));
		if (!np) {
			provider_free(p);
			st_code = ETL_E_NOMEM;
			break;
		}
		db->providers = np;
		db->providers[db->nproviders++] = p;
	}
	etl__free((void *)st.ids);
	etl__free((void *)st.values);
	etl__arena_free(&sa);
	xmlFreeDoc(doc);
	if (st_code == ETL_OK)
		st_code = rebuild_index(db);
	if (st_code == ETL_E_NOMEM)
		etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
	if (warnings)
		*warnings += x.warnings;
	return st_code;
}

static int load_file(struct etl_manifest_db *db, const char *path, unsigned *warnings, struct etl_diag *d)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;
	int st;

	if (!f) {
		etl__diag_set(d, ETL_E_IO, ETL_OFFSET_NONE, "manifest %s: cannot open: %s", path, strerror(errno));
		return ETL_E_IO;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		etl__diag_set(d, ETL_E_IO, ETL_OFFSET_NONE, "manifest %s: cannot size it", path);
		return ETL_E_IO;
	}
	if ((unsigned long)n > MAX_MANIFEST_BYTES) {
		fclose(f);
		etl__diag_set(d, ETL_E_LIMIT, ETL_OFFSET_NONE, "manifest %s: %ld bytes exceed the %u-byte limit", path,
			      n, MAX_MANIFEST_BYTES);
		return ETL_E_LIMIT;
	}
	buf = etl__malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		etl__free(buf);
		etl__diag_set(d, buf ? ETL_E_IO : ETL_E_NOMEM, ETL_OFFSET_NONE, "manifest %s: cannot read it", path);
		return buf ? ETL_E_IO : ETL_E_NOMEM;
	}
	fclose(f);
	st = etl__mdb_load_memory(db, buf, (size_t)n, path, warnings, d);
	etl__free(buf);
	return st;
}

static int has_suffix(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && strcmp(s + a - b, suf) == 0;
}

int etl__mdb_load_path(struct etl_manifest_db *db, const char *path, unsigned *warnings, struct etl_diag *d)
{
	struct stat sb;
	DIR *dir;
	struct dirent *e;
	int st = ETL_OK;

	if (stat(path, &sb) != 0) {
		etl__diag_set(d, ETL_E_IO, ETL_OFFSET_NONE, "manifest %s: %s", path, strerror(errno));
		return ETL_E_IO;
	}
	if (!S_ISDIR(sb.st_mode))
		return load_file(db, path, warnings, d);
	dir = opendir(path);
	if (!dir) {
		etl__diag_set(d, ETL_E_IO, ETL_OFFSET_NONE, "manifest directory %s: %s", path, strerror(errno));
		return ETL_E_IO;
	}
	while ((e = readdir(dir)) != NULL) {
		char full[4096];
		int s;
		if (!has_suffix(e->d_name, ".man") && !has_suffix(e->d_name, ".xml") &&
		    !has_suffix(e->d_name, ".manifest"))
			continue;
		snprintf(full, sizeof(full), "%s/%s", path, e->d_name);
		s = load_file(db, full, warnings, d);
		if (s == ETL_E_NOMEM) {
			st = s;
			break;
		}
		if (s != ETL_OK && warnings)
			(*warnings)++; /* a bad file in a directory costs itself */
	}
	closedir(dir);
	return st;
}

const struct etl_mevent *etl__mdb_event_at(const struct etl_manifest_db *db, size_t i)
{
	size_t k;

	for (k = 0; db && k < db->nproviders; k++) {
		if (i < db->providers[k]->nevents)
			return &db->providers[k]->events[i];
		i -= db->providers[k]->nevents;
	}
	return NULL;
}

const char *etl__mdb_provider_name_by_guid(const struct etl_manifest_db *db, const struct etl_guid *g)
{
	size_t i;

	for (i = 0; db && i < db->nproviders; i++)
		if (etl_guid_equal(&db->providers[i]->guid, g))
			return db->providers[i]->name;
	return NULL;
}

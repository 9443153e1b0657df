/*
 * mxml.c - small helpers of the manifest reader over the document tree:
 * elements and attributes, numbers, localized strings, TDH type names, the
 * standard winmeta.xml names, and the tables of a provider's named values.
 *
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest/mxml.h"

int etl__manifest_is_el(const struct mnode *n, const char *name)
{
	return n && strcmp(n->name, name) == 0;
}

const struct mnode *etl__manifest_child(const struct mnode *n, const char *name)
{
	const struct mnode *c;

	for (c = n ? n->children : NULL; c; c = c->next)
		if (etl__manifest_is_el(c, name))
			return c;
	return NULL;
}

const char *etl__manifest_attr(const struct mnode *n, const char *name)
{
	return etl__manifest_node_attr(n, name);
}

int etl__manifest_u64(const char *s, uint64_t *v)
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

struct str_entry {
	const char *id, *value;
};

struct str_key {
	const char *id;
	size_t len;
};

static int str_eq(const void *entry, const void *key)
{
	const struct str_entry *e = entry;
	const struct str_key *k = key;

	return strncmp(e->id, k->id, k->len) == 0 && e->id[k->len] == 0;
}

void etl__manifest_strtab_collect(struct strtab *t, const struct mnode *n, int depth)
{
	const struct mnode *c;

	if (depth > 8)
		return;
	if (!t->ix.size)
		etl__htab_init(&t->ix, sizeof(struct str_entry));
	for (c = n->children; c; c = c->next) {
		if (etl__manifest_is_el(c, "string")) {
			const char *id = etl__manifest_attr(c, "id"), *v = etl__manifest_attr(c, "value");
			struct str_key k;
			struct str_entry *e;
			uint64_t h;
			if (!id || !v)
				continue;
			k.id = id;
			k.len = strlen(id);
			h = etl__hash_bytes(id, k.len);
			if (etl__htab_find(&t->ix, h, str_eq, &k))
				continue; /* the first definition wins */
			if (!(e = etl__htab_insert(&t->ix, h)))
				return;
			e->id = id;
			e->value = v;
		} else {
			etl__manifest_strtab_collect(t, c, depth + 1);
		}
	}
}

void etl__manifest_strtab_free(struct strtab *t)
{
	etl__htab_free(&t->ix);
}

const char *etl__manifest_localize(const struct strtab *t, const char *s)
{
	const struct str_entry *e;
	struct str_key k;
	size_t l;

	if (!s || strncmp(s, "$(string.", 9) != 0)
		return s;
	l = strlen(s);
	if (l < 11 || s[l - 1] != ')')
		return s;
	k.id = s + 9;
	k.len = l - 10;
	e = etl__htab_find(&t->ix, etl__hash_bytes(k.id, k.len), str_eq, &k);
	return e ? e->value : s;
}

static const struct { const char *name; uint16_t v; } in_types[] = {
	{ "win:UnicodeString", ETL_IN_UNICODESTRING }, { "win:AnsiString", ETL_IN_ANSISTRING },
	{ "win:Int8", ETL_IN_INT8 }, { "win:UInt8", ETL_IN_UINT8 }, { "win:Int16", ETL_IN_INT16 },
	{ "win:UInt16", ETL_IN_UINT16 }, { "win:Int32", ETL_IN_INT32 }, { "win:UInt32", ETL_IN_UINT32 },
	{ "win:Int64", ETL_IN_INT64 }, { "win:UInt64", ETL_IN_UINT64 }, { "win:Float", ETL_IN_FLOAT },
	{ "win:Double", ETL_IN_DOUBLE }, { "win:Boolean", ETL_IN_BOOLEAN }, { "win:Binary", ETL_IN_BINARY },
	{ "win:GUID", ETL_IN_GUID }, { "win:Pointer", ETL_IN_POINTER }, { "win:FILETIME", ETL_IN_FILETIME },
	{ "win:SYSTEMTIME", ETL_IN_SYSTEMTIME }, { "win:SID", ETL_IN_SID }, { "win:HexInt32", ETL_IN_HEXINT32 },
	{ "win:HexInt64", ETL_IN_HEXINT64 }, { "win:CountedUnicodeString", ETL_IN_COUNTEDSTRING },
	{ "win:CountedString", ETL_IN_COUNTEDSTRING }, { "win:CountedAnsiString", ETL_IN_COUNTEDANSISTRING },
	{ "win:CountedBinary", ETL_IN_COUNTEDBINARY },
};

static const struct { const char *name; uint16_t v; } out_types[] = {
	{ "xs:string", ETL_OUT_STRING }, { "xs:dateTime", ETL_OUT_DATETIME }, { "xs:byte", ETL_OUT_BYTE },
	{ "xs:unsignedByte", ETL_OUT_UNSIGNEDBYTE }, { "xs:short", ETL_OUT_SHORT },
	{ "xs:unsignedShort", ETL_OUT_UNSIGNEDSHORT }, { "xs:int", ETL_OUT_INT }, { "xs:unsignedInt", ETL_OUT_UNSIGNEDINT },
	{ "xs:long", ETL_OUT_LONG }, { "xs:unsignedLong", ETL_OUT_UNSIGNEDLONG }, { "xs:float", ETL_OUT_FLOAT },
	{ "xs:double", ETL_OUT_DOUBLE }, { "xs:boolean", ETL_OUT_BOOLEAN }, { "xs:GUID", ETL_OUT_GUID },
	{ "xs:hexBinary", ETL_OUT_HEXBINARY }, { "win:HexInt8", ETL_OUT_HEXINT8 }, { "win:HexInt16", ETL_OUT_HEXINT16 },
	{ "win:HexInt32", ETL_OUT_HEXINT32 }, { "win:HexInt64", ETL_OUT_HEXINT64 }, { "win:PID", ETL_OUT_PID },
	{ "win:TID", ETL_OUT_TID }, { "win:Port", ETL_OUT_PORT }, { "win:IPv4", ETL_OUT_IPV4 }, { "win:IPv6", ETL_OUT_IPV6 },
	{ "win:SocketAddress", ETL_OUT_SOCKETADDRESS }, { "win:CIMDateTime", ETL_OUT_CIMDATETIME },
	{ "win:ETWTIME", ETL_OUT_ETWTIME }, { "win:Xml", ETL_OUT_XML }, { "win:ErrorCode", ETL_OUT_ERRORCODE },
	{ "win:Win32Error", ETL_OUT_WIN32ERROR }, { "win:NTSTATUS", ETL_OUT_NTSTATUS }, { "win:HResult", ETL_OUT_HRESULT },
	{ "win:DateTimeCultureInsensitive", ETL_OUT_CULTURE_INSENSITIVE_DATETIME }, { "win:Json", ETL_OUT_JSON },
	{ "win:Utf8", ETL_OUT_UTF8 }, { "win:Pkcs7WithTypeInfo", ETL_OUT_PKCS7 }, { "win:CodePointer", ETL_OUT_CODE_POINTER },
	{ "win:DateTimeUtc", ETL_OUT_DATETIME_UTC },
};

int etl__manifest_type(const char *s, int in, uint16_t *v)
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

/* ---- named values ---- */

struct nv_key {
	const char *name;
	size_t len;
	int task;
};

static uint64_t nv_hash(const char *name, size_t len, int task)
{
	return etl__hash_bytes(name, len) ^ etl__hash_mix((uint64_t)(int64_t)task);
}

struct nv_slot {
	const struct ntable *t;
	size_t pos;
};

static int nv_slot_eq(const void *entry, const void *key)
{
	const struct nv_slot *s = entry;
	const struct nv_key *k = key;
	const struct named_value *v = &s->t->v[s->pos];

	return v->task == k->task && strncmp(v->name, k->name, k->len) == 0 && v->name[k->len] == 0;
}

int etl__manifest_ntable_add(struct ntable *t, const char *name, uint64_t value, const char *message, int task)
{
	struct nv_key k = { name, strlen(name), task };
	struct nv_slot *s;
	uint64_t h = nv_hash(name, k.len, task);

	if (etl__grow(&t->v, &t->cap, t->n + 1, sizeof(*t->v), 32) != 0)
		return 0;
	if (!t->ix.size)
		etl__htab_init(&t->ix, sizeof(struct nv_slot));
	if (!etl__htab_find(&t->ix, h, nv_slot_eq, &k)) { /* the first definition is the one found */
		if (!(s = etl__htab_insert(&t->ix, h)))
			return 0;
		s->t = t;
		s->pos = t->n;
	}
	t->v[t->n].name = name;
	t->v[t->n].value = value;
	t->v[t->n].message = message;
	t->v[t->n].task = task;
	t->n++;
	return 1;
}

const struct named_value *etl__manifest_ntable_find_n(const struct ntable *t, const char *name, size_t len, int task)
{
	struct nv_key k = { name, len, task };
	const struct nv_slot *s = etl__htab_find(&t->ix, nv_hash(name, len, task), nv_slot_eq, &k);

	return s ? &t->v[s->pos] : NULL;
}

const struct named_value *etl__manifest_ntable_find(const struct ntable *t, const char *name, int task)
{
	return etl__manifest_ntable_find_n(t, name, strlen(name), task);
}

void etl__manifest_ntable_free(struct ntable *t)
{
	etl__free(t->v);
	etl__htab_free(&t->ix);
	memset(t, 0, sizeof(*t));
}

static const struct named_value *std_find(const struct named_value *tab, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(tab[i].name, name) == 0)
			return &tab[i];
	return NULL;
}

#define STD_FIND(tab, name) std_find(tab, sizeof(tab) / sizeof(tab[0]), name)

const struct named_value *etl__manifest_std_opcode(const char *name) { return STD_FIND(std_opcodes, name); }
const struct named_value *etl__manifest_std_level(const char *name) { return STD_FIND(std_levels, name); }
const struct named_value *etl__manifest_std_channel(const char *name) { return STD_FIND(std_channels, name); }

const char *etl__manifest_display(const struct named_value *v)
{
	const char *s = v->message ? v->message : v->name;
	return s && strncmp(s, "win:", 4) == 0 ? s + 4 : s;
}


void etl__manifest_warn(struct load_ctx *x, const char *what, const char *name, const char *why)
{
	char q[96];

	if (x->warnings++ == 0)
		etl__diag_set(x->d, ETL_E_FORMAT, ETL_OFFSET_NONE, "manifest %s: %s '%s': %s", x->doc, what,
			      etl__quote(name ? name : "?", q, sizeof(q)), why);
}

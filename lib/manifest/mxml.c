/*
 * mxml.c - small helpers of the manifest reader over libxml2's tree: elements
 * and attributes, numbers, localized strings, TDH type names, the standard
 * winmeta.xml names, and the tables of a provider's named values.
 *
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "manifest/mxml.h"

int etl__mx_is_el(const xmlNode *n, const char *name)
{
	return n && n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

const xmlNode *etl__mx_child(const xmlNode *n, const char *name)
{
	const xmlNode *c;

	for (c = n ? n->children : NULL; c; c = c->next)
		if (etl__mx_is_el(c, name))
			return c;
	return NULL;
}

/* An attribute copied into the arena (NULL if absent or out of memory). */
const char *etl__mx_attr(struct etl_arena *a, const xmlNode *n, const char *name)
{
	xmlChar *v = xmlGetProp((xmlNode *)(uintptr_t)n, (const xmlChar *)name);
	const char *s;

	if (!v)
		return NULL;
	s = etl__arena_strndup(a, (const char *)v, strlen((const char *)v));
	xmlFree(v);
	return s;
}

int etl__mx_u64(const char *s, uint64_t *v)
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

void etl__mx_strtab_collect(struct strtab *t, struct etl_arena *a, const xmlNode *n, int depth)
{
	const xmlNode *c;

	if (depth > 8)
		return;
	for (c = n->children; c; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		if (etl__mx_is_el(c, "string")) {
			const char *id = etl__mx_attr(a, c, "id"), *v = etl__mx_attr(a, c, "value");
			if (!id || !v)
				continue;
			if (t->n == t->cap) {
				size_t cap = t->cap;
				if (etl__grow(&t->ids, &cap, t->n + 1, sizeof(*t->ids), 256) != 0 ||
				    etl__grow(&t->values, &t->cap, t->n + 1, sizeof(*t->values), 256) != 0)
					return;
			}
			t->ids[t->n] = id;
			t->values[t->n] = v;
			t->n++;
		} else {
			etl__mx_strtab_collect(t, a, c, depth + 1);
		}
	}
}

/* "$(string.X)" -> the string X; other text unchanged. */
const char *etl__mx_localize(const struct strtab *t, const char *s)
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

int etl__mx_type(const char *s, int in, uint16_t *v)
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

int etl__mx_ntable_add(struct ntable *t, const char *name, uint64_t value, const char *message, int task)
{
	if (etl__grow(&t->v, &t->cap, t->n + 1, sizeof(*t->v), 32) != 0)
		return 0;
	t->v[t->n].name = name;
	t->v[t->n].value = value;
	t->v[t->n].message = message;
	t->v[t->n].task = task;
	t->n++;
	return 1;
}

const struct named_value *etl__mx_ntable_find(const struct ntable *t, const char *name, int task)
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

#define STD_FIND(tab, name) std_find(tab, sizeof(tab) / sizeof(tab[0]), name)

const struct named_value *etl__mx_std_opcode(const char *name) { return STD_FIND(std_opcodes, name); }
const struct named_value *etl__mx_std_level(const char *name) { return STD_FIND(std_levels, name); }
const struct named_value *etl__mx_std_channel(const char *name) { return STD_FIND(std_channels, name); }

const char *etl__mx_display(const struct named_value *v)
{
	const char *s = v->message ? v->message : v->name;
	return s && strncmp(s, "win:", 4) == 0 ? s + 4 : s;
}

void etl__mx_strtab_free(struct strtab *t)
{
	etl__free((void *)t->ids);
	etl__free((void *)t->values);
	memset(t, 0, sizeof(*t));
}

void etl__mx_warn(struct load_ctx *x, const char *what, const char *name, const char *why)
{
	if (x->warnings++ == 0)
		etl__diag_set(x->d, ETL_E_FORMAT, ETL_OFFSET_NONE, "manifest %s: %s '%s': %s", x->doc, what,
			      name ? name : "?", why);
}

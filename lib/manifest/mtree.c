/*
 * mtree.c - a manifest read into a compact tree of elements and attributes,
 * with libxml2's SAX2 parser (no DOM).
 *
 * Manifests are untrusted: the parser gets no network and no external DTD,
 * and a document that declares entities is refused outright (real manifests
 * declare none; a declared entity is how a small file expands into a huge
 * one), so only the predefined entities and character references are ever
 * replaced.  The tree costs its attribute text plus a few pointers per
 * element; what it holds is counted and bounded (max_bytes), as are its
 * depth and every value's length.  Text content is not kept: manifests say
 * everything in attributes.
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include <libxml/parser.h>
#include <libxml/parserInternals.h>

#include "manifest/mtree.h"
#include "util/htab.h"

#define MAX_TREE_DEPTH 64
#define MAX_VALUE_BYTES (1u << 20)

struct name_entry {
	const char *s;
	size_t len;
};

struct build {
	struct mtree *t;
	struct mnode *cur;
	int depth;
	struct etl_htab names; /* element and attribute names, interned in the strings arena */
	xmlParserCtxtPtr ctxt;
};

static int name_eq(const void *entry, const void *key)
{
	const struct name_entry *e = entry, *k = key;

	return e->len == k->len && memcmp(e->s, k->s, k->len) == 0;
}

static const char *intern(struct build *b, const char *s)
{
	struct name_entry key = { s, strlen(s) }, *e;
	uint64_t h = etl__hash_bytes(s, key.len);

	e = etl__htab_find(&b->names, h, name_eq, &key);
	if (e)
		return e->s;
	if (!(e = etl__htab_insert(&b->names, h)))
		return NULL;
	e->s = etl__arena_strndup(&b->t->doc->strings, s, key.len);
	e->len = key.len;
	return e->s;
}

static void refuse(struct build *b, const char *why)
{
	if (!b->t->refused)
		b->t->refused = why;
	xmlStopParser(b->ctxt);
}

static size_t held(const struct mtree *t)
{
	return t->nodes.bytes + t->doc->strings.bytes;
}

/* The attributes of an element: name, value pairs, then NULL. */
static const char **take_attributes(struct build *b, int n, const xmlChar **a)
{
	const char **out = etl__arena_alloc(&b->t->nodes, (size_t)(2 * n + 1) * sizeof(*out));
	int i;

	if (!out)
		return NULL;
	for (i = 0; i < n; i++) {
		size_t len = (size_t)(a[5 * i + 4] - a[5 * i + 3]);
		if (len > MAX_VALUE_BYTES) {
			refuse(b, "an attribute value longer than 1 MiB");
			return NULL;
		}
		out[2 * i] = intern(b, (const char *)a[5 * i]);
		out[2 * i + 1] = etl__arena_strndup(&b->t->doc->strings, (const char *)a[5 * i + 3], len);
		if (!out[2 * i] || !out[2 * i + 1])
			return NULL;
	}
	out[2 * n] = NULL;
	return out;
}

static void on_start(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri, int nns,
		     const xmlChar **ns, int nattr, int ndefaulted, const xmlChar **attr)
{
	struct build *b = ((xmlParserCtxtPtr)ctx)->_private;
	struct mnode *n;

	(void)prefix, (void)uri, (void)nns, (void)ns, (void)ndefaulted;
	if (b->t->refused)
		return;
	if (++b->depth > MAX_TREE_DEPTH) {
		refuse(b, "elements nested deeper than 64");
		return;
	}
	n = etl__arena_alloc(&b->t->nodes, sizeof(*n));
	if (!n || !(n->name = intern(b, (const char *)localname)) || !(n->attr = take_attributes(b, nattr, attr))) {
		if (!b->t->refused)
			refuse(b, "out of memory");
		return;
	}
	if (held(b->t) > b->t->max_bytes) {
		refuse(b, "the document costs more memory than its limit");
		return;
	}
	n->children = n->last = n->next = NULL;
	n->parent = b->cur;
	if (!b->cur)
		b->t->root = n;
	else if (b->cur->last)
		b->cur->last = b->cur->last->next = n;
	else
		b->cur->children = b->cur->last = n;
	b->cur = n;
}

static void on_end(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri)
{
	struct build *b = ((xmlParserCtxtPtr)ctx)->_private;

	(void)localname, (void)prefix, (void)uri;
	if (b->t->refused)
		return;
	b->depth--;
	if (b->cur)
		b->cur = b->cur->parent;
}

static void on_entity_decl(void *ctx, const xmlChar *name, int type, const xmlChar *public_id,
			   const xmlChar *system_id, xmlChar *content)
{
	(void)name, (void)type, (void)public_id, (void)system_id, (void)content;
	refuse(((xmlParserCtxtPtr)ctx)->_private, "it declares DTD entities (a manifest has none)");
}

static void on_error(void *ctx, xmlErrorPtr e)
{
	(void)ctx, (void)e; /* quiet: the first error is read from the context afterwards */
}

static int parse(struct build *b, const uint8_t *xml, size_t len)
{
	xmlSAXHandler sax;
	int ok;

	b->ctxt = xmlCreateMemoryParserCtxt((const char *)xml, (int)len);
	if (!b->ctxt)
		return -1;
	/* no XML_PARSE_NOENT: entities are never substituted (a declaration is refused) */
	xmlCtxtUseOptions(b->ctxt, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOCDATA);
	memset(&sax, 0, sizeof(sax));
	sax.initialized = XML_SAX2_MAGIC;
	sax.startElementNs = on_start;
	sax.endElementNs = on_end;
	sax.entityDecl = on_entity_decl;
	sax.serror = on_error;
	*b->ctxt->sax = sax;
	b->ctxt->_private = b;
	xmlParseDocument(b->ctxt);
	ok = b->ctxt->wellFormed && !b->t->refused;
	return ok ? 0 : -1;
}

int etl__manifest_tree_parse(struct mtree *t, const uint8_t *xml, size_t len, size_t max_bytes, const char *name,
		     struct etl_diag *d)
{
	struct build b;
	int st = ETL_OK;

	memset(t, 0, sizeof(*t));
	memset(&b, 0, sizeof(b));
	t->max_bytes = max_bytes;
	t->doc = etl__calloc(1, sizeof(*t->doc));
	if (!t->doc) {
		etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
		return ETL_E_NOMEM;
	}
	t->doc->refs = 1;
	b.t = t;
	etl__htab_init(&b.names, sizeof(struct name_entry));
	if (parse(&b, xml, len) != 0) {
		const xmlError *e = b.ctxt ? xmlCtxtGetLastError(b.ctxt) : NULL;
		if (t->refused && strcmp(t->refused, "out of memory") == 0)
			etl__diag_set(d, st = ETL_E_NOMEM, ETL_OFFSET_NONE, "manifest %s: out of memory", name);
		else if (t->refused)
			etl__diag_set(d, st = strstr(t->refused, "limit") ? ETL_E_LIMIT : ETL_E_FORMAT, ETL_OFFSET_NONE,
				      "manifest %s: refused: %s", name, t->refused);
		else
			etl__diag_set(d, st = ETL_E_FORMAT, ETL_OFFSET_NONE, "manifest %s: not well-formed XML%s%s", name,
				      e && e->message ? ": " : "", e && e->message ? e->message : "");
		d->msg[strcspn(d->msg, "\n")] = 0; /* libxml2 ends its messages with a newline */
	}
	if (b.ctxt) {
		/* libxml2 may have made a document of its own for a DTD it met (SAX compatibility) */
		if (b.ctxt->myDoc)
			xmlFreeDoc(b.ctxt->myDoc);
		xmlFreeParserCtxt(b.ctxt);
	}
	etl__htab_free(&b.names);
	if (st == ETL_OK && !t->root) {
		etl__diag_set(d, st = ETL_E_FORMAT, ETL_OFFSET_NONE, "manifest %s: no root element", name);
	}
	if (st != ETL_OK)
		etl__manifest_tree_free(t);
	return st;
}

void etl__manifest_tree_free(struct mtree *t)
{
	etl__arena_free(&t->nodes);
	etl__manifest_doc_release(t->doc);
	t->doc = NULL;
	t->root = NULL;
}

void etl__manifest_doc_release(struct mdoc *doc)
{
	if (doc && --doc->refs == 0) {
		etl__arena_free(&doc->strings);
		etl__free(doc);
	}
}

const char *etl__manifest_node_attr(const struct mnode *n, const char *name)
{
	const char **a;

	for (a = n ? n->attr : NULL; a && *a; a += 2)
		if (strcmp(a[0], name) == 0)
			return a[1];
	return NULL;
}

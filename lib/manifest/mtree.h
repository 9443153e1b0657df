/*
 * mtree.h - a manifest document as a compact tree of elements with their
 * attributes (mtree.c reads it with libxml2's SAX2 parser).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_MANIFEST_MTREE_H
#define ETL_MANIFEST_MTREE_H

#include "internal.h"
#include "util/arena.h"

/* The text of a document (names and attribute values), shared by the providers loaded from it:
 * a value referenced many times is held once.  Freed when its last provider is. */
struct mdoc {
	struct etl_arena strings;
	size_t refs;
};

struct mnode {
	const char *name;          /* local name (no namespace prefix) */
	const char **attr;         /* name, value, name, value, ..., NULL */
	struct mnode *parent, *children, *last, *next;
};

struct mtree {
	struct etl_arena nodes;    /* the elements: freed after loading */
	struct mdoc *doc;          /* the text: one reference held by the tree */
	struct mnode *root;
	size_t max_bytes;          /* what nodes and text may hold */
	const char *refused;       /* why the document was refused (static text) */
};

/* Reads a document (UTF-8, or UTF-16 with a BOM).  ETL_OK; ETL_E_FORMAT when it is not
 * well-formed or declares entities; ETL_E_LIMIT past max_bytes; ETL_E_NOMEM. */
int etl__manifest_tree_parse(struct mtree *t, const uint8_t *xml, size_t len, size_t max_bytes, const char *name,
		     struct etl_diag *d);
/* Frees the nodes and the tree's reference to its text. */
void etl__manifest_tree_free(struct mtree *t);
void etl__manifest_doc_release(struct mdoc *doc);
/* An attribute's value (in the document's text), or NULL. */
const char *etl__manifest_node_attr(const struct mnode *n, const char *name);

#endif

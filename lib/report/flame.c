/*
 * flame.c - the sampled stacks as a tree (root, then one node per process,
 * then the frames from the outermost to the leaf), and its flame graph.
 *
 * Nodes are found by (parent, name) in one hash table; past RB_FLAME_NODES
 * a sample's remaining frames count for the deepest node it reached.  The
 * graph holds the nodes of at least 1/RB_FLAME_FRACTION of the samples (then
 * fewer until at most RB_FLAME_OUT remain), each an SVG rectangle with its
 * position as fractions of the whole: the page's script zooms by rescaling them.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "report/report.h"

#define RB_FLAME_NODES (1u << 19)
#define RB_FLAME_FRACTION 5000.0
#define RB_FLAME_OUT 6000u
#define RB_FLAME_DEPTH 256u

struct node {
	size_t parent;
	const char *name;    /* interned by the caller: one address per text */
	size_t child, next;  /* first child, next sibling (+1; 0: none) */
	uint32_t pid;
	double total;
};

struct key {
	const struct rb_flame *f;
	size_t parent;
	const char *name;
};

struct addr_key {
	size_t node;
	uint64_t addr;
	int trace;
	size_t child;
};

struct rb_flame {
	struct node *n;
	size_t count, cap;
	struct etl_htab ix; /* (parent, name's address) -> node index */
	struct etl_htab by_addr; /* (parent, address, trace) -> node index: the frame's name's node */
	uint64_t truncated;
	unsigned depth;     /* of the sample being added */
};

struct rb_flame *etl__report_flame_new(void)
{
	struct rb_flame *f = etl__calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	etl__htab_init(&f->ix, sizeof(size_t));
	etl__htab_init(&f->by_addr, sizeof(struct addr_key));
	if (etl__grow(&f->n, &f->cap, 1, sizeof(*f->n), 1024) != 0) {
		etl__report_flame_free(f);
		return NULL;
	}
	memset(&f->n[0], 0, sizeof(f->n[0]));
	f->n[0].name = "all";
	f->n[0].pid = ETL_ID_NONE;
	f->count = 1;
	return f;
}

void etl__report_flame_free(struct rb_flame *f)
{
	if (!f)
		return;
	etl__free(f->n);
	etl__htab_free(&f->ix);
	etl__htab_free(&f->by_addr);
	etl__free(f);
}

double etl__report_flame_total(const struct rb_flame *f)
{
	return f ? f->n[0].total : 0;
}

static uint64_t node_hash(size_t parent, const char *name)
{
	return etl__hash_mix((uint64_t)(uintptr_t)name ^ etl__hash_mix((uint64_t)parent));
}

static int node_eq(const void *entry, const void *key)
{
	const struct key *k = key;
	const struct node *n = &k->f->n[*(const size_t *)entry];

	return n->parent == k->parent && n->name == k->name;
}

/* The child of parent named name, made when new; (size_t)-1 past the cap or without memory. */
static size_t child(struct rb_flame *f, size_t parent, const char *name, uint32_t pid)
{
	struct key k = { f, parent, name };
	uint64_t h = node_hash(parent, name);
	size_t *e = etl__htab_find(&f->ix, h, node_eq, &k), i;

	if (e)
		return *e;
	if (f->count >= RB_FLAME_NODES || etl__grow(&f->n, &f->cap, f->count + 1, sizeof(*f->n), 1024) != 0 ||
	    !(e = etl__htab_insert(&f->ix, h)))
		return (size_t)-1;
	i = f->count++;
	memset(&f->n[i], 0, sizeof(f->n[i]));
	f->n[i].parent = parent;
	f->n[i].name = name;
	f->n[i].pid = pid;
	f->n[i].next = f->n[parent].child;
	f->n[parent].child = i + 1;
	*e = i;
	return i;
}

size_t etl__report_flame_root(struct rb_flame *f, const char *process, uint32_t pid, double weight)
{
	size_t at;

	if (!f)
		return (size_t)-1;
	f->n[0].total += weight;
	if ((at = child(f, 0, process, pid)) == (size_t)-1) {
		f->truncated++;
		return at;
	}
	f->n[at].total += weight;
	f->depth = 0;
	return at;
}

static int addr_eq(const void *e, const void *k)
{
	const struct addr_key *a = e, *b = k;

	return a->node == b->node && a->addr == b->addr && a->trace == b->trace;
}

static uint64_t addr_hash(size_t node, uint64_t addr, int trace)
{
	return etl__hash_mix(addr ^ etl__hash_mix((uint64_t)node << 8 ^ (uint64_t)(trace & 0xFF)));
}

size_t etl__report_flame_known(struct rb_flame *f, size_t node, uint64_t addr, int trace)
{
	struct addr_key k = { node, addr, trace, 0 };
	const struct addr_key *e = etl__htab_find(&f->by_addr, addr_hash(node, addr, trace), addr_eq, &k);

	return e ? e->child : (size_t)-1;
}

size_t etl__report_flame_learn(struct rb_flame *f, size_t node, uint64_t addr, int trace, const char *name)
{
	size_t c = child(f, node, name, f->n[node].pid);
	uint64_t h = addr_hash(node, addr, trace);
	struct addr_key *e;

	if (c != (size_t)-1 && f->by_addr.count < 2 * RB_FLAME_NODES && (e = etl__htab_insert(&f->by_addr, h)) != NULL) {
		e->node = node;
		e->addr = addr;
		e->trace = trace;
		e->child = c;
	}
	return c;
}

size_t etl__report_flame_step(struct rb_flame *f, size_t node, double weight)
{
	if (node == (size_t)-1 || ++f->depth > RB_FLAME_DEPTH) {
		f->truncated++;
		return (size_t)-1;
	}
	f->n[node].total += weight;
	return node;
}

/* ---- the graph ---- */

struct out_ctx {
	struct rb_out *o;
	const struct rb_flame *f;
	double min;
	size_t written;
};

/* Writes node i at x (fraction of the whole) and depth d, then its children. */
static void write_node(struct out_ctx *c, size_t i, double x, unsigned d)
{
	const struct node *n = &c->f->n[i];
	const char *name = n->name;
	double total = c->f->n[0].total, w = total > 0 ? n->total / total : 0;
	size_t k;

	etl__report_str(c->o, "<g class=\"fn\" data-x=\"");
	etl__report_printf(c->o, "%.6f\" data-w=\"%.6f\" data-d=\"%u\"><title>", x, w, d);
	etl__report_text(c->o, name);
	etl__report_printf(c->o, " (%.0f samples, %.2f%%)</title><rect fill=\"", n->total, 100.0 * w);
	etl__report_colour(c->o, d <= 1 ? name : strchr(name, '!') ? name : "?", d > 1);
	etl__report_str(c->o, "\"/><text></text></g>\n");
	c->written++;
	for (k = n->child; k; k = c->f->n[k - 1].next) {
		const struct node *ch = &c->f->n[k - 1];
		if (ch->total < c->min)
			continue;
		write_node(c, k - 1, x, d + 1);
		x += total > 0 ? ch->total / total : 0;
	}
}

/* Nodes of at least min samples. */
static size_t count_nodes(const struct rb_flame *f, double min)
{
	size_t i, n = 0;

	for (i = 0; i < f->count; i++)
		if (f->n[i].total >= min)
			n++;
	return n;
}

void etl__report_flame_write(struct rb_out *o, const struct rb_flame *f)
{
	struct out_ctx c = { o, f, 0, 0 };
	double total = etl__report_flame_total(f);

	c.min = total / RB_FLAME_FRACTION;
	while (count_nodes(f, c.min) > RB_FLAME_OUT)
		c.min *= 2;
	etl__report_str(o, "<svg class=\"flame\" id=\"flame\" width=\"100%\" height=\"40\">\n");
	write_node(&c, 0, 0, 0);
	etl__report_str(o, "</svg>\n");
	if (f->truncated)
		etl__report_printf(o, "<p class=\"note\">%llu samples' stacks were cut: the graph holds at most %u frames.</p>\n",
			  (unsigned long long)f->truncated, RB_FLAME_NODES);
}

/*
 * frames.c - stack frames with names: the .NET method or the image (and in
 * it the PDB's function) that held an address when its event happened.
 *
 * Everything here reads the trace's stack index (its image and method
 * histories, read in the stack index pass: state/stacks.h), which does not
 * change once loaded, and the reader's symbol files (symbols/symbols.h),
 * which guard themselves: copies of one reader's events may be resolved on
 * several threads at once.
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "reader/reader.h"

/* The reader that delivered ev, whose trace ev came from; NULL when ev names no trace of it. */
static struct etl_reader *owner_of(struct etl_reader *r, const struct etl_event *ev)
{
	if (r->observer && ev->stack_ctx)
		r = ev->stack_ctx; /* a copy from another reader: that reader read the trace's records */
	return ev->trace_index >= 0 && ev->trace_index < r->ntraces ? r : NULL;
}

/* The process a frame of ev's stack ran in: the stack records' (StackProcess), else the one ev
 * is about (its header's, or its payload's thread's: a sample's instruction pointer), by the
 * state of the reader asking (an observing reader's is that of ev's time). */
static uint32_t frame_pid(const struct etl_reader *r, const struct etl_event *ev)
{
	if (ev->nstack_parts)
		return ev->stack_pid;
	return ev->pid != ETL_ID_NONE ? ev->pid : etl__state_event_pid(&r->sys, ev);
}

/* The image of the trace's history that held addr for pid at ev's time; kernel addresses are
 * also looked up in the images of the idle and System processes (drivers). */
static const struct etl_himage *image_at(uint32_t pid, const struct etl_imagehist *h,
					 const struct etl_event *ev, uint64_t addr)
{
	static const uint32_t kernel_pids[] = { 0, 4 };
	const struct etl_himage *im = pid != ETL_ID_NONE ? etl__imagehist_find(h, pid, addr, ev->ts_raw) : NULL;
	unsigned i;

	for (i = 0; !im && i < 2; i++)
		if (pid != kernel_pids[i])
			im = etl__imagehist_find(h, kernel_pids[i], addr, ev->ts_raw);
	return im;
}

const char *etl_reader_frame_image(struct etl_reader *r, const struct etl_event *ev, uint64_t addr,
				   uint64_t *offset)
{
	const struct etl_stacks *k;
	const struct etl_himage *im;
	uint32_t pid;

	if (!r || !ev)
		return NULL;
	pid = frame_pid(r, ev);
	if (!(r = owner_of(r, ev)))
		return NULL;
	k = etl__reader_stack_index(r, r->traces[ev->trace_index]);
	if (!(im = image_at(pid, &k->images, ev, addr)))
		return NULL;
	if (offset)
		*offset = addr - im->base;
	return etl__imagehist_name(&k->images, im);
}

/* A .NET method of the trace holding addr: 1 with out filled, else 0. */
static int method_frame(uint32_t pid, const struct etl_stacks *k, const struct etl_event *ev, uint64_t addr,
			struct etl_frame *out)
{
	const struct etl_methodhist *h = &k->methods;
	const struct etl_method *m = pid != ETL_ID_NONE ? etl__methodhist_find(h, pid, addr, ev->ts_raw) : NULL;
	const char *path, *file = "JIT";

	if (!m)
		return 0;
	path = etl__methodhist_module(h, pid, m->module, &file);
	out->kind = ETL_FRAME_METHOD;
	out->module_path = path;
	out->module = file;
	out->function = etl__methodhist_text(h, m->name);
	out->function_offset = addr - m->start;
	out->signature = etl__methodhist_text(h, m->sig);
	return 1;
}

int etl_reader_frame(struct etl_reader *r, const struct etl_event *ev, uint64_t addr, unsigned flags,
		     struct etl_frame *out)
{
	const struct etl_stacks *k;
	const struct etl_himage *im;
	const struct etl_dbgid *dbg;
	uint32_t pid;
	int symbols;

	if (!out)
		return ETL_E_MISUSE;
	memset(out, 0, sizeof(*out));
	out->address = addr;
	if (!r || !ev)
		return ETL_E_MISUSE;
	pid = frame_pid(r, ev);
	if (!(r = owner_of(r, ev)))
		return ETL_OK;
	k = etl__reader_stack_index(r, r->traces[ev->trace_index]);
	symbols = r->options[ETL_OPTION_SYMBOLS] != 0;
	if (symbols && method_frame(pid, k, ev, addr, out))
		return ETL_OK;
	if (!(im = image_at(pid, &k->images, ev, addr)))
		return ETL_OK;
	out->kind = ETL_FRAME_IMAGE;
	out->module_path = etl__imagehist_name(&k->images, im);
	out->module = etl__imagehist_file(&k->images, im);
	out->module_offset = addr - im->base;
	if (symbols && out->module_offset <= UINT32_MAX && (dbg = etl__imagehist_dbgid(&k->images, im)) != NULL)
		etl__symbols_frame(&r->symbols, dbg, etl__imagehist_text(&k->images, dbg->pdb_name),
				   (uint32_t)out->module_offset, (flags & ETL_FRAME_LINES) != 0, out);
	return ETL_OK;
}

int etl_reader_add_symbol_path(struct etl_reader *r, const char *path)
{
	int st;

	if (!r || !path)
		return r ? etl__reader_misuse(r, "no symbol path") : ETL_E_MISUSE;
	st = etl__symbols_add_path(&r->symbols, path);
	return st == ETL_OK ? ETL_OK : etl__reader_nomem(r);
}

size_t etl_reader_symbol_file_count(struct etl_reader *r)
{
	return r ? etl__symbols_file_count(&r->symbols) : 0;
}

int etl_reader_symbol_file(struct etl_reader *r, size_t i, struct etl_symbol_file *out)
{
	if (!r || !out)
		return ETL_E_MISUSE;
	return etl__symbols_file(&r->symbols, i, out) ? ETL_OK : ETL_E_MISUSE;
}

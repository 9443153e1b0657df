/*
 * derive.c - derived fields (ETL_OPTION_DERIVE): values PerfView users rely
 * on that no payload holds, computed from the trace's own records and kept
 * apart from the payload's properties (etl_decoded_derived_at):
 *
 *   DiskIO Read/Write/FlushBuffers  ElapsedTimeMSec  HighResResponseTime in ms
 *                                   FileName         the name of FileObject (the file key)
 *   Memory/HardFault                ElapsedTimeMSec  from InitialTime to the event
 *                                   FileName         as above
 *   Image and KernelTraceControl/ImageID events
 *                                   BuildTime        TimeDateStamp (seconds since 1970); none
 *                                                    (a null value) when it is 0
 *   Image and FileIO events         FileName         the payload's path, NT volume -> drive
 *
 * File names and volumes come from the trace's index of them (state/files.h),
 * read in one pass the first time a file name is wanted.
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "reader/reader.h"

static const struct etl_property *prop(const struct etl_decoded *d, const char *name)
{
	uint32_t i;

	for (i = 0; i < d->ntop; i++)
		if (strcmp(d->nodes[i].name, name) == 0 && d->nodes[i].data)
			return &d->nodes[i];
	return NULL;
}

static int has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static void add_double(struct etl_decoded *out, const char *name, double v)
{
	uint64_t bits;
	uint8_t le[8];
	int i;

	memcpy(&bits, &v, sizeof(bits));
	for (i = 0; i < 8; i++)
		le[i] = (uint8_t)(bits >> (8 * i));
	(void)etl__schema_add_derived(out, name, ETL_IN_DOUBLE, 0, le, 8);
}

static void add_text(struct etl_decoded *out, const char *name, const char *text)
{
	/* UTF-8 text shown as a string (an ANSI string that is valid UTF-8 is read as such) */
	(void)etl__schema_add_derived(out, name, ETL_IN_ANSISTRING, ETL_OUT_UTF8, text, strlen(text));
}

/* The path with its NT volume replaced by its drive, when the trace maps it. */
static void add_dos_path(struct etl_decoded *out, const struct etl_files *f, const char *name, const char *path)
{
	char dos[1024];

	if (path && etl__files_dos_path(f, path, dos, sizeof(dos)))
		add_text(out, name, dos);
}

static const struct etl_files *files_of(struct trace *t)
{
	if (!t->files.loaded) {
		struct etl_bufload ld;
		etl__walk_load_init(&ld, &t->src, (t->info.log_file_mode & ETL_LOG_MODE_COMPRESSED) != 0,
				  t->info.compression_format);
		etl__files_load(&t->files, &ld, &t->ix, t->ptr_size);
		etl__walk_load_free(&ld);
	}
	return &t->files;
}

int etl__reader_file_name(struct etl_reader *r, int trace, uint64_t key, uint64_t ts_raw, char *out, size_t cap)
{
	const struct etl_files *f;
	const char *name;
	size_t n;

	if (trace < 0 || trace >= r->ntraces || !cap)
		return 0;
	f = files_of(r->traces[trace]);
	if (!(name = etl__files_name(f, key, ts_raw)))
		return 0;
	if (f->nvols && etl__files_dos_path(f, name, out, cap))
		return 1;
	n = strlen(name);
	if (n >= cap)
		n = cap - 1;
	memcpy(out, name, n);
	out[n] = 0;
	return 1;
}

int etl__reader_dos_path(struct etl_reader *r, int trace, const char *path, char *out, size_t cap)
{
	const struct etl_files *f;

	if (trace < 0 || trace >= r->ntraces || !path || !cap)
		return 0;
	f = files_of(r->traces[trace]);
	return f->nvols && etl__files_dos_path(f, path, out, cap);
}

/* FileName of a DiskIO or HardFault record: its file key's name, as a DOS path when mapped. */
static void add_file_name(struct etl_decoded *out, struct trace *t, const struct etl_event *ev)
{
	const struct etl_property *fo = prop(out, "FileObject");
	const struct etl_files *f;
	const char *name;
	uint64_t key;

	if (!fo || etl_property_as_u64(fo, &key) != ETL_OK || key == 0)
		return;
	f = files_of(t);
	if (!(name = etl__files_name(f, key, ev->ts_raw)))
		return;
	if (f->nvols) {
		char dos[1024];
		if (etl__files_dos_path(f, name, dos, sizeof(dos))) {
			add_text(out, "FileName", dos);
			return;
		}
	}
	add_text(out, "FileName", name);
}

/* BuildTime from TimeDateStamp: a FILETIME, or none (a null value) for a stamp of 0, which says
 * that the image has none (PerfView shows 1970 then). */
static void add_build_time(struct etl_decoded *out)
{
	const struct etl_property *p = prop(out, "TimeDateStamp");
	uint64_t v, ft;
	uint8_t le[8];
	int i;

	if (!p || etl_property_as_u64(p, &v) != ETL_OK)
		return;
	if (v == 0) {
		(void)etl__schema_add_derived(out, "BuildTime", ETL_IN_NULL, 0, "", 0);
		return;
	}
	ft = v * 10000000ull + ETL_FILETIME_UNIX_EPOCH;
	for (i = 0; i < 8; i++)
		le[i] = (uint8_t)(ft >> (8 * i));
	(void)etl__schema_add_derived(out, "BuildTime", ETL_IN_FILETIME, 0, le, 8);
}

void etl__reader_derive(struct etl_reader *r, const struct etl_event *ev, struct etl_decoded *out)
{
	struct trace *t;
	const struct etl_property *p;
	uint64_t v;

	if (out->source != ETL_DECODER_BUILTIN || !out->name || ev->trace_index < 0 || ev->trace_index >= r->ntraces)
		return;
	if (strcmp(out->name, "KernelTraceControl/ImageID") == 0) {
		add_build_time(out);
		return;
	}
	if (!has_prefix(out->name, "Windows Kernel/"))
		return;
	t = r->traces[ev->trace_index];
	if (has_prefix(out->name, "Windows Kernel/DiskIO/")) {
		if ((p = prop(out, "HighResResponseTime")) && etl_property_as_u64(p, &v) == ETL_OK && t->info.perf_freq)
			add_double(out, "ElapsedTimeMSec", (double)v * 1000.0 / (double)t->info.perf_freq);
		add_file_name(out, t, ev);
	} else if (strcmp(out->name, "Windows Kernel/Memory/HardFault") == 0) {
		if ((p = prop(out, "InitialTime")) && etl_property_as_u64(p, &v) == ETL_OK && v <= ev->ts_raw) {
			uint64_t from = etl__clock_filetime(&t->clock, v);
			if (from <= ev->filetime)
				add_double(out, "ElapsedTimeMSec", (double)(ev->filetime - from) / 10000.0);
		}
		add_file_name(out, t, ev);
	} else if (has_prefix(out->name, "Windows Kernel/Image/")) {
		add_build_time(out);
		if ((p = prop(out, "FileName")))
			add_dos_path(out, files_of(t), "FileName", etl_property_format(p));
	} else if (has_prefix(out->name, "Windows Kernel/FileIO/")) {
		if ((p = prop(out, "FileName")) || (p = prop(out, "OpenPath")))
			add_dos_path(out, files_of(t), "FileName", etl_property_format(p));
	}
}

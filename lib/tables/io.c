/*
 * io.c - the disk-io and file-io tables.
 *
 * disk-io: DiskIO ReadInit, WriteInit and FlushInit give an I/O's issue
 *   time by its Irp; Read, Write and FlushBuffers its completion (disk,
 *   offset, bytes, the response time HighResResponseTime, the file object
 *   named through the trace's file records).  One row per completion, with
 *   the issue time when the trace has it.  An issue never completed, and a
 *   completion whose issue is missing while the trace logs issues, are
 *   counted.
 * file-io: FileIO Create, Cleanup, Close, Read, Write, SetInfo, Delete,
 *   Rename, DirEnum, Flush, QueryInfo, FSControl and DirNotify start an
 *   operation by its IrpPtr; OperationEnd ends it with a status and, for
 *   reads and writes, the bytes transferred.  One row per operation; one
 *   with no end is a row without end time or status (counted), an end with
 *   no start is counted.
 * The Microsoft-Windows-Kernel-File and -Kernel-Disk providers log the same
 * operations and completions as events (logman and WPR sessions without the
 * kernel logger): Kernel-File's Create, Cleanup, Close, Read, Write,
 * SetInformation, SetDelete/DeletePath, Rename/RenamePath, DirEnum, Flush,
 * QueryInformation, FSCTL and DirNotify start an operation by its Irp, and
 * OperationEnd ends it; a file is named by its Create (FileObject) or its
 * NameCreate (FileKey).  Kernel-Disk's Read, Write and Flush are completions
 * with their response time.  Where a trace has both, the first source that
 * gives a table rows keeps it (build.c).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "tables/tables.h"

#define TEXT_MAX ((size_t)64 << 20) /* bytes of names and paths kept */
#include "util/cursor.h"

static const struct etl_guid kernel_file = { 0xedd08927, 0x9cc4, 0x4e65,
					     { 0xb9, 0x70, 0xc2, 0x56, 0x0f, 0xb5, 0xc2, 0x89 } };
static const struct etl_guid kernel_disk = { 0xc7bde69a, 0xe1e0, 0x4177,
					     { 0xb6, 0xef, 0x28, 0x3a, 0xd1, 0x52, 0x52, 0x71 } };

#define MAX_PENDING (1u << 20) /* open I/Os and operations kept; more are counted, not paired */

static const char note_disk_open[] = "disk I/Os issued with no completion in the trace (rows without completion)";
static const char note_disk_orphan[] = "disk I/O completions whose issue is not in the trace (though it logs issues)";
static const char note_file_open[] = "file operations with no OperationEnd in the trace (rows without end)";
static const char note_file_orphan[] = "OperationEnd records whose operation is not in the trace";
static const char note_disk_no_pid[] = "disk I/Os of a thread no record had named yet (rows without pid)";
static const char note_pending[] = "I/Os not paired: too many open at once";

struct disk_slot {
	uint64_t key;            /* (trace, irp) */
	int trace;
	uint64_t time;
	uint32_t tid, pid;
	unsigned op;             /* ReadInit 12, WriteInit 13, FlushInit 15 */
};

struct file_slot {
	uint64_t key;
	int trace;
	unsigned op;
	uint64_t time, ts_raw, offset, size, file_key, file_object;
	uint32_t tid, pid;
	size_t path;             /* + 1 into texts (Create's path), or 0 */
};

/* A file's name by (trace, its FileObject or FileKey), from Kernel-File's Create and NameCreate */
struct name_slot {
	uint64_t key;
	int trace;
	size_t text;             /* + 1 into texts */
};

struct io_state {
	struct etl_htab disk, file, names;
	int saw_init;
	struct tables_texts texts;
};

static uint64_t io_key(int trace, uint64_t irp)
{
	return etl__hash_mix(irp) ^ (uint64_t)(uint32_t)trace;
}

static int disk_eq(const void *e, const void *k)
{
	const uint64_t *key = k;

	return ((const struct disk_slot *)e)->key == key[0] && ((const struct disk_slot *)e)->trace == (int)key[1];
}

static int file_eq(const void *e, const void *k)
{
	const uint64_t *key = k;

	return ((const struct file_slot *)e)->key == key[0] && ((const struct file_slot *)e)->trace == (int)key[1];
}

static struct io_state *state(struct etl_tables *T)
{
	if (!T->io && (T->io = etl__calloc(1, sizeof(*T->io))) != NULL) {
		etl__htab_init(&T->io->disk, sizeof(struct disk_slot));
		etl__htab_init(&T->io->file, sizeof(struct file_slot));
		etl__htab_init(&T->io->names, sizeof(struct name_slot));
	}
	return T->io;
}

/* The first of a field's names that the event has (the kernel layouts and the Kernel-File
 * manifest name some fields otherwise: IrpPtr and Irp, Offset and ByteOffset). */
static uint64_t either_u64(const struct etl_decoded *d, const char *a, const char *b, int *ok)
{
	int got;
	uint64_t v = etl__tables_field_u64(d, a, &got);

	if (!got)
		v = etl__tables_field_u64(d, b, &got);
	if (ok)
		*ok = got;
	return v;
}

static const char *priority_name(uint64_t irp_flags)
{
	static const char *const names[] = { "VeryLow", "Low", "Normal", "High", "Critical" };
	unsigned p = (unsigned)(irp_flags >> 17) & 7;

	return p < 5 ? names[p] : "Unknown";
}

static void disk_open_row(struct etl_tables *T, const struct disk_slot *e);
static void file_row(struct etl_tables *T, struct io_state *s, const struct file_slot *e, const struct etl_event *end,
		     uint64_t bytes, uint64_t status);

/* ReadInit, WriteInit, FlushInit: Irp, IssuingThreadId. */
static int disk_init(struct etl_tables *T, struct io_state *s, const struct etl_event *ev, unsigned op)
{
	const uint8_t *pl;
	size_t len, p = etl_event_pointer_size(ev);
	uint64_t key[2], irp, h;
	struct disk_slot *e;

	etl_event_payload(ev, &pl, &len);
	if (len < p + 4)
		return 0;
	s->saw_init = 1;
	irp = p == 8 ? etl_le64(pl) : etl_le32(pl);
	key[0] = irp;
	key[1] = (uint64_t)(uint32_t)etl_event_trace_index(ev);
	h = io_key(etl_event_trace_index(ev), irp);
	if ((e = etl__htab_find(&s->disk, h, disk_eq, key)) != NULL) {
		/* the Irp's I/O before never completed: its row now (an Irp is reused) */
		struct disk_slot was = *e;
		etl__table_note(T->tab[TK_DISK_IO], note_disk_open, 1);
		disk_open_row(T, &was);
	} else {
		if (s->disk.count >= MAX_PENDING) {
			etl__table_note(T->tab[TK_DISK_IO], note_pending, 1);
			return 0;
		}
		if (!(e = etl__htab_insert(&s->disk, h)))
			return -1;
	}
	*e = (struct disk_slot){ irp, etl_event_trace_index(ev), etl_event_filetime(ev), etl_le32(pl + p),
				 etl_reader_event_pid(T->r, ev), op };
	return 0;
}

static const char *named_file(const struct io_state *s, int trace, uint64_t object);

/* A Kernel-Disk completion's response time: HighResResponseTime in the trace's QPC ticks. */
static void disk_elapsed(struct etl_tables *T, const struct etl_decoded *d, const struct etl_event *ev, size_t row)
{
	const struct etl_trace_info *ti = etl_reader_trace_info(T->r, etl_event_trace_index(ev));
	uint64_t ticks, freq = ti ? etl_trace_info_perf_freq(ti) : 0;
	int ok;

	ticks = etl__tables_field_u64(d, "HighResResponseTime", &ok);
	if (ok && freq)
		etl__table_double(T->tab[TK_DISK_IO], row, DK_ELAPSED, (double)ticks * 1000.0 / (double)freq);
}

/* A Kernel-Disk completion's file: its FileObject's name, by the kernel logger's file records or
 * Kernel-File's. */
static void disk_file(struct etl_tables *T, struct io_state *s, const struct etl_decoded *d, const struct etl_event *ev,
		      size_t row)
{
	char name[1024];
	uint64_t fo = etl__tables_field_u64(d, "FileObject", NULL);
	int trace = etl_event_trace_index(ev);

	if (!fo)
		return;
	if (etl__reader_file_name(T->r, trace, fo, etl_event_timestamp_raw(ev), name, sizeof(name)))
		etl__table_text(T->tab[TK_DISK_IO], row, DK_FILE, name);
	else if (named_file(s, trace, fo))
		etl__table_text(T->tab[TK_DISK_IO], row, DK_FILE, named_file(s, trace, fo));
}

/* Read, Write, FlushBuffers: the completion, and its row. */
static void disk_done(struct etl_tables *T, struct io_state *s, const struct etl_event *ev, unsigned op)
{
	struct etl_table *t = T->tab[TK_DISK_IO];
	const struct etl_decoded *d = etl__tables_decode(T, ev);
	const struct etl_property *el;
	uint64_t key[2], irp, h;
	struct disk_slot *e;
	size_t row;
	uint32_t pid = etl_reader_event_pid(T->r, ev), tid = etl_event_subject_tid(ev);
	double ms;
	int ok;

	if (!d || (row = etl__table_row(t)) == SIZE_MAX)
		return;
	irp = either_u64(d, "Irp", "IORequestPacket", &ok);
	etl__table_u64(t, row, DK_TRACE, (uint64_t)etl_event_trace_index(ev));
	key[0] = irp;
	key[1] = (uint64_t)(uint32_t)etl_event_trace_index(ev);
	h = io_key(etl_event_trace_index(ev), irp);
	if (ok && (e = etl__htab_find(&s->disk, h, disk_eq, key)) != NULL) {
		etl__table_u64(t, row, DK_INIT, e->time);
		if (tid == ETL_ID_NONE)
			tid = e->tid;
		if (pid == ETL_ID_NONE)
			pid = e->pid;
		etl__htab_remove(&s->disk, e);
	} else if (s->saw_init) {
		etl__table_note(t, note_disk_orphan, 1);
	}
	etl__table_u64(t, row, DK_COMPLETE, etl_event_filetime(ev));
	if ((el = etl__tables_derived(d, "ElapsedTimeMSec")) != NULL && etl_property_as_double(el, &ms) == ETL_OK)
		etl__table_double(t, row, DK_ELAPSED, ms);
	else if (etl_event_header_kind(ev) == ETL_HEADER_EVENT) /* Kernel-Disk's: the same in QPC ticks */
		disk_elapsed(T, d, ev, row);
	if (pid != ETL_ID_NONE) {
		etl__table_u64(t, row, DK_PID, pid);
		etl__table_text(t, row, DK_PROCESS, pid == 0 ? "Idle" : etl__tables_process_name(T, ev, pid));
	} else {
		etl__table_note(t, note_disk_no_pid, 1);
	}
	if (tid != ETL_ID_NONE)
		etl__table_u64(t, row, DK_TID, tid);
	etl__table_u64(t, row, DK_DISK, etl__tables_field_u64(d, "DiskNumber", NULL));
	etl__table_text(t, row, DK_TYPE, op == 10 ? "read" : op == 11 ? "write" : "flush");
	if (op != 14) {
		etl__table_u64(t, row, DK_OFFSET, etl__tables_field_u64(d, "ByteOffset", NULL));
		etl__table_u64(t, row, DK_BYTES, etl__tables_field_u64(d, "TransferSize", NULL));
	} else {
		etl__table_u64(t, row, DK_BYTES, 0);
	}
	if ((el = etl__tables_derived(d, "FileName")) != NULL)
		etl__table_text(t, row, DK_FILE, etl_property_format(el));
	else if (etl_event_header_kind(ev) == ETL_HEADER_EVENT)
		disk_file(T, s, d, ev, row);
	etl__table_text(t, row, DK_PRIORITY, priority_name(etl__tables_field_u64(d, "IrpFlags", NULL)));
	if (ok)
		etl__table_u64(t, row, DK_IRP, irp);
	etl__tables_row_done(T, TK_DISK_IO);
}

/* An NT path as a DOS path where the trace maps its volume, kept in texts. */
static size_t dos_text(struct etl_tables *T, struct io_state *s, int trace, const char *path)
{
	char dos[1024];
	int mapped = path && etl__reader_dos_path(T->r, trace, path, dos, sizeof(dos));

	return etl__tables_keep(&s->texts, mapped ? dos : path, TEXT_MAX);
}

static int name_eq(const void *e, const void *k)
{
	const uint64_t *key = k;

	return ((const struct name_slot *)e)->key == key[0] && ((const struct name_slot *)e)->trace == (int)key[1];
}

/* Notes that object (a FileObject or FileKey) of a trace is the file of text; -1 without memory. */
static int name_file(struct io_state *s, int trace, uint64_t object, size_t text)
{
	uint64_t key[2] = { object, (uint64_t)(uint32_t)trace }, h = io_key(trace, object);
	struct name_slot *e = etl__htab_find(&s->names, h, name_eq, key);

	if (!e) {
		if (s->names.count >= MAX_PENDING)
			return 0; /* (the file is then named by its key's records, if any) */
		if (!(e = etl__htab_insert(&s->names, h)))
			return -1;
	}
	*e = (struct name_slot){ object, trace, text };
	return 0;
}

static const char *named_file(const struct io_state *s, int trace, uint64_t object)
{
	uint64_t key[2] = { object, (uint64_t)(uint32_t)trace };
	const struct name_slot *e = object ? etl__htab_find(&s->names, io_key(trace, object), name_eq, key) : NULL;

	return e ? etl__tables_kept(&s->texts, e->text) : NULL;
}

static const char *op_name(unsigned op)
{
	static const char *const names[] = { "create", "cleanup", "close", "read", "write", "set_info", "delete",
					     "rename", "dir_enum", "flush", "query_info", "fs_control", "end",
					     "dir_notify" };

	return op >= 64 && op <= 77 ? names[op - 64] : "?";
}

/* A file operation's start. */
static int file_start(struct etl_tables *T, struct io_state *s, const struct etl_event *ev, unsigned op)
{
	const struct etl_decoded *d = etl__tables_decode(T, ev);
	const struct etl_property *fn;
	uint64_t key[2], irp, h;
	struct file_slot *e;
	int ok;

	if (!d)
		return 0;
	irp = either_u64(d, "IrpPtr", "Irp", &ok);
	if (!ok)
		return 0;
	key[0] = irp;
	key[1] = (uint64_t)(uint32_t)etl_event_trace_index(ev);
	h = io_key(etl_event_trace_index(ev), irp);
	if ((e = etl__htab_find(&s->file, h, file_eq, key)) != NULL) {
		/* the Irp's operation before never ended: its row now (an Irp is reused) */
		struct file_slot was = *e;
		etl__table_note(T->tab[TK_FILE_IO], note_file_open, 1);
		file_row(T, s, &was, NULL, 0, 0);
	} else {
		if (s->file.count >= MAX_PENDING) {
			etl__table_note(T->tab[TK_FILE_IO], note_pending, 1);
			return 0;
		}
		if (!(e = etl__htab_insert(&s->file, h)))
			return -1;
	}
	memset(e, 0, sizeof(*e));
	e->key = irp;
	e->trace = etl_event_trace_index(ev);
	e->op = op;
	e->time = etl_event_filetime(ev);
	e->ts_raw = etl_event_timestamp_raw(ev);
	e->tid = etl_event_subject_tid(ev);
	e->pid = etl_reader_event_pid(T->r, ev);
	e->offset = either_u64(d, "Offset", "ByteOffset", NULL);
	e->size = etl__tables_field_u64(d, "IoSize", NULL);
	e->file_key = etl__tables_field_u64(d, "FileKey", &ok);
	e->file_object = etl__tables_field_u64(d, "FileObject", NULL);
	if (!ok || !e->file_key)
		e->file_key = e->file_object;
	if (op == 64 && ((fn = etl__tables_derived(d, "FileName")) != NULL ||
			 (fn = etl_decoded_property_by_name(d, "OpenPath")) != NULL))
		e->path = etl__tables_keep(&s->texts, etl_property_format(fn), TEXT_MAX);
	else if (op == 64 && (fn = etl_decoded_property_by_name(d, "FileName")) != NULL) /* Kernel-File's */
		e->path = dos_text(T, s, e->trace, etl_property_format(fn));
	if (op == 64 && e->path && e->file_object)
		return name_file(s, e->trace, e->file_object, e->path);
	return 0;
}

/* The row of an operation; end is NULL for one that never ended. */
static void file_row(struct etl_tables *T, struct io_state *s, const struct file_slot *e, const struct etl_event *end,
		     uint64_t bytes, uint64_t status)
{
	struct etl_table *t = T->tab[TK_FILE_IO];
	size_t row = etl__table_row(t);
	char name[1024];
	const struct etl_process *p;

	if (row == SIZE_MAX)
		return;
	etl__table_u64(t, row, FI_TRACE, (uint64_t)e->trace);
	etl__table_u64(t, row, FI_START, e->time);
	if (end) {
		etl__table_u64(t, row, FI_END, etl_event_filetime(end));
		etl__table_double(t, row, FI_ELAPSED, etl__tables_ms(e->time, etl_event_filetime(end)));
		etl__table_u64(t, row, FI_STATUS, status);
	}
	if (e->pid != ETL_ID_NONE) {
		etl__table_u64(t, row, FI_PID, e->pid);
		p = etl_reader_find_process(T->r, e->trace, e->pid);
		etl__table_text(t, row, FI_PROCESS, e->pid == 0 ? "Idle" : p && *etl_process_image_name(p)
								     ? etl_process_image_name(p)
								     : etl__kproc_process_name(T, e->trace, e->pid));
	}
	if (e->tid != ETL_ID_NONE)
		etl__table_u64(t, row, FI_TID, e->tid);
	etl__table_text(t, row, FI_OPERATION, op_name(e->op));
	if (e->path)
		etl__table_text(t, row, FI_FILE, etl__tables_kept(&s->texts, e->path));
	else if (e->file_key && etl__reader_file_name(T->r, e->trace, e->file_key, e->ts_raw, name, sizeof(name)))
		etl__table_text(t, row, FI_FILE, name);
	else if (named_file(s, e->trace, e->file_key) || named_file(s, e->trace, e->file_object))
		etl__table_text(t, row, FI_FILE, named_file(s, e->trace, e->file_key) ? named_file(s, e->trace, e->file_key)
										   : named_file(s, e->trace, e->file_object));
	if (e->op == 67 || e->op == 68) {
		etl__table_u64(t, row, FI_OFFSET, e->offset);
		etl__table_u64(t, row, FI_BYTES, end ? bytes : e->size);
	}
	etl__table_u64(t, row, FI_IRP, e->key);
	etl__tables_row_done(T, TK_FILE_IO);
}

/* OperationEnd: IrpPtr, ExtraInfo, NtStatus. */
static void file_end(struct etl_tables *T, struct io_state *s, const struct etl_event *ev)
{
	const struct etl_decoded *d = etl__tables_decode(T, ev);
	uint64_t key[2], irp, h, extra, status;
	struct file_slot *e, copy;
	int ok;

	if (!d)
		return;
	irp = either_u64(d, "IrpPtr", "Irp", &ok);
	extra = either_u64(d, "ExtraInfo", "ExtraInformation", NULL);
	status = either_u64(d, "NtStatus", "Status", NULL);
	key[0] = irp;
	key[1] = (uint64_t)(uint32_t)etl_event_trace_index(ev);
	h = io_key(etl_event_trace_index(ev), irp);
	if (!ok || !(e = etl__htab_find(&s->file, h, file_eq, key))) {
		etl__table_note(T->tab[TK_FILE_IO], note_file_orphan, 1);
		return;
	}
	copy = *e;
	etl__htab_remove(&s->file, e);
	file_row(T, s, &copy, ev, extra, status);
}

/* The FileIO opcode of a Kernel-File event id (0: not an operation). */
static unsigned kernel_file_op(unsigned id)
{
	static const uint8_t ops[31] = {
		[12] = 64, [30] = 64, [13] = 65, [14] = 66, [15] = 67, [16] = 68, [17] = 69, [28] = 69, [18] = 70,
		[26] = 70, [19] = 71, [27] = 71, [29] = 71, [20] = 72, [21] = 73, [22] = 74, [23] = 75, [24] = 76,
		[25] = 77,
	};

	return id < sizeof(ops) ? ops[id] : 0;
}

/* Kernel-File's NameCreate (10): FileKey, FileName. */
static int kernel_file_name(struct etl_tables *T, struct io_state *s, const struct etl_event *ev)
{
	const struct etl_decoded *d = etl__tables_decode(T, ev);
	const char *path;
	uint64_t key;
	size_t text;
	int ok;

	if (!d || !(path = etl__tables_field_text(d, "FileName")) || !(key = etl__tables_field_u64(d, "FileKey", &ok)))
		return 0;
	text = dos_text(T, s, etl_event_trace_index(ev), path);
	return text ? name_file(s, etl_event_trace_index(ev), key, text) : 0;
}

/* Kernel-File's Create when file-io is not asked for: the name of its FileObject, for disk-io. */
static int kernel_file_create_name(struct etl_tables *T, struct io_state *s, const struct etl_event *ev)
{
	const struct etl_decoded *d = etl__tables_decode(T, ev);
	const char *path = d ? etl__tables_field_text(d, "FileName") : NULL;
	uint64_t fo = d ? etl__tables_field_u64(d, "FileObject", NULL) : 0;
	size_t text;

	if (!path || !fo || !(text = dos_text(T, s, etl_event_trace_index(ev), path)))
		return 0;
	return name_file(s, etl_event_trace_index(ev), fo, text);
}

static int file_event(struct etl_tables *T, const struct etl_event *ev, int group)
{
	struct io_state *s;
	unsigned op = group == G_FILEIO ? etl_event_opcode(ev) : kernel_file_op(etl_event_id(ev));

	if (!(s = state(T)))
		return -1;
	if (group == G_KERNEL_FILE && etl_event_id(ev) == 10)
		return kernel_file_name(T, s, ev);
	if (!T->tab[TK_FILE_IO]) /* (disk-io alone: only the names) */
		return group == G_KERNEL_FILE && op == 64 ? kernel_file_create_name(T, s, ev) : 0;
	if (op < 64 || op > 77 || !etl__tables_source(T, TK_FILE_IO, ev, group == G_FILEIO ? SRC_KERNEL : SRC_MANIFEST))
		return 0;
	if (op == 76)
		file_end(T, s, ev);
	else
		return file_start(T, s, ev, op);
	return 0;
}

int etl__io_event(struct etl_tables *T, const struct etl_event *ev, int group)
{
	struct io_state *s;
	unsigned op = etl_event_opcode(ev);

	if (group == G_DISKIO && T->tab[TK_DISK_IO]) {
		if (!(s = state(T)))
			return -1;
		if ((op >= 10 && op <= 15) && !etl__tables_source(T, TK_DISK_IO, ev, SRC_KERNEL))
			return 0;
		if (op == 12 || op == 13 || op == 15)
			return disk_init(T, s, ev, op);
		if (op == 10 || op == 11 || op == 14)
			disk_done(T, s, ev, op);
	} else if (group == G_KERNEL_DISK && T->tab[TK_DISK_IO]) {
		unsigned id = etl_event_id(ev);
		if (!(s = state(T)))
			return -1;
		if ((id == 10 || id == 11 || id == 14) && etl__tables_source(T, TK_DISK_IO, ev, SRC_MANIFEST))
			disk_done(T, s, ev, id); /* (its ids are DiskIO's completion opcodes) */
	} else if ((group == G_FILEIO && T->tab[TK_FILE_IO]) ||
		   (group == G_KERNEL_FILE && (T->tab[TK_FILE_IO] || T->tab[TK_DISK_IO]))) {
		return file_event(T, ev, group);
	}
	return 0;
}

static int by_disk_time(const void *a, const void *b)
{
	const struct disk_slot *x = *(void *const *)a, *y = *(void *const *)b;

	return x->time < y->time ? -1 : x->time > y->time;
}

static int by_file_time(const void *a, const void *b)
{
	const struct file_slot *x = *(void *const *)a, *y = *(void *const *)b;

	return x->time < y->time ? -1 : x->time > y->time;
}

/* The slots left in a table of open I/Os, sorted by cmp (oldest first); NULL when there are
 * none or without memory. */
static void **left_open(const struct etl_htab *h, int (*cmp)(const void *, const void *), size_t *n)
{
	void **v = h->count ? etl__malloc(h->count * sizeof(*v)) : NULL;
	size_t i;

	*n = 0;
	for (i = 0; v && i < h->cap; i++) {
		void *e = etl__htab_at(h, i);
		if (e)
			v[(*n)++] = e;
	}
	if (v)
		qsort(v, *n, sizeof(*v), cmp);
	return v;
}

/* A disk I/O issued and never completed: a row of what its issue said. */
static void disk_open_row(struct etl_tables *T, const struct disk_slot *e)
{
	struct etl_table *t = T->tab[TK_DISK_IO];
	size_t row = etl__table_row(t);
	const struct etl_process *p;

	if (row == SIZE_MAX)
		return;
	etl__table_u64(t, row, DK_TRACE, (uint64_t)e->trace);
	etl__table_u64(t, row, DK_INIT, e->time);
	if (e->pid != ETL_ID_NONE) {
		etl__table_u64(t, row, DK_PID, e->pid);
		p = e->pid ? etl_reader_find_process(T->r, e->trace, e->pid) : NULL;
		etl__table_text(t, row, DK_PROCESS, e->pid == 0 ? "Idle" : p ? etl_process_image_name(p) : NULL);
	}
	etl__table_u64(t, row, DK_TID, e->tid);
	etl__table_text(t, row, DK_TYPE, e->op == 12 ? "read" : e->op == 13 ? "write" : "flush");
	etl__table_u64(t, row, DK_IRP, e->key);
	etl__tables_row_done(T, TK_DISK_IO);
}

void etl__io_finish(struct etl_tables *T)
{
	struct io_state *s = T->io;
	void **v;
	size_t i, n;

	if (!s)
		return;
	if (T->tab[TK_DISK_IO] && s->disk.count) {
		etl__table_note(T->tab[TK_DISK_IO], note_disk_open, s->disk.count);
		v = left_open(&s->disk, by_disk_time, &n);
		for (i = 0; v && i < n; i++)
			disk_open_row(T, v[i]);
		etl__free(v);
	}
	if (T->tab[TK_FILE_IO] && s->file.count) {
		etl__table_note(T->tab[TK_FILE_IO], note_file_open, s->file.count);
		v = left_open(&s->file, by_file_time, &n);
		for (i = 0; v && i < n; i++)
			file_row(T, s, v[i], NULL, 0, 0);
		etl__free(v);
	}
}

void etl__io_free(struct etl_tables *T)
{
	struct io_state *s = T->io;

	if (!s)
		return;
	etl__htab_free(&s->disk);
	etl__htab_free(&s->file);
	etl__htab_free(&s->names);
	etl__free(s->texts.b);
	etl__free(s);
	T->io = NULL;
}

const struct tables_part etl__tables_part_io = {
	.name = "io", .groups = GROUP_BIT(G_DISKIO) | GROUP_BIT(G_FILEIO),
	.providers = { { &kernel_file, G_KERNEL_FILE }, { &kernel_disk, G_KERNEL_DISK } },
	.event = etl__io_event, .finish = etl__io_finish, .free = etl__io_free,
};

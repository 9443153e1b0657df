/*
 * columns.c - events into columns for libetl.to_pandas(), with no Python
 * object per event: header values go into raw arrays (numpy views them),
 * names and other repeating text into categorical codes, and only decoded
 * fields - when asked for - become Python values.
 *
 * The result is a dict: column name -> (kind, ...):
 *   ("array", bytes, dtype)                 values, numpy dtype string
 *   ("masked", bytes, dtype, mask_bytes)    values, and 1 where the value is missing
 *   ("categorical", int32 codes, [str])     codes into the categories
 *   ("objects", [values])                   Python values (decoded fields, stacks)
 *   ("text", [str or None])                 text of each event (WPP messages)
 *   ("filetime", [int or None])             a field whose every value is a FILETIME, as ints
 *                                           (100 ns since 1601: no precision lost)
 *
 * SPDX-License-Identifier: MIT
 */
#include "pyetl.h"

#include "hmap.h"

#include <string.h>

/* ---- growing byte buffers ---- */

struct buf {
	char *p;
	size_t len, cap;
};

static int buf_grow(struct buf *b, size_t n)
{
	if (b->cap - b->len < n) {
		size_t cap = b->cap ? b->cap : 4096;
		char *q;
		while (cap - b->len < n)
			cap *= 2;
		q = PyMem_RawRealloc(b->p, cap); /* (the raw allocator: rows are added without the GIL) */
		if (!q)
			return -1;
		b->p = q;
		b->cap = cap;
	}
	return 0;
}

/* n is a constant at every call: the copy becomes one store */
static inline int buf_add(struct buf *b, const void *v, size_t n)
{
	if (b->cap - b->len < n && buf_grow(b, n) < 0)
		return -1;
	memcpy(b->p + b->len, v, n);
	b->len += n;
	return 0;
}

/* ---- categories: text (or a GUID) -> code ---- */

struct cat_entry {
	char *key;
	size_t len;
	int32_t code;
};

struct cat_key {
	const void *p;
	size_t len;
};

struct cat {
	struct hmap codes;  /* of struct cat_entry (common/hmap.h) */
	char *last;         /* the key asked for last (events repeat it), and its code */
	size_t last_len;
	int32_t last_code;
};

static int cat_eq(const void *entry, const void *key)
{
	const struct cat_entry *e = entry;
	const struct cat_key *k = key;

	return e->len == k->len && memcmp(e->key, k->p, k->len) == 0;
}

/* The code of key, a new one the first time; -2 when out of memory.  No Python object: rows are
 * added without the GIL (cat_names makes the names at the end). */
static int32_t cat_code(struct cat *c, const void *key, size_t len)
{
	struct cat_key k = { key, len };
	uint64_t h;
	struct cat_entry *e;

	if (c->last && c->last_len == len && memcmp(c->last, key, len) == 0)
		return c->last_code;
	if (!c->codes.size)
		hmap_init(&c->codes, sizeof(struct cat_entry));
	h = hmap_hash_bytes(key, len, 0);
	if (!(e = hmap_find(&c->codes, h, cat_eq, &k))) {
		char *copy = PyMem_RawMalloc(len ? len : 1);
		if (!copy || !(e = hmap_insert(&c->codes, h))) {
			PyMem_RawFree(copy);
			return -2;
		}
		memcpy(copy, key, len);
		e->key = copy;
		e->len = len;
		e->code = (int32_t)(c->codes.count - 1);
	}
	c->last = e->key; /* (the copy stays where it is when the table grows) */
	c->last_len = e->len;
	c->last_code = e->code;
	return e->code;
}

/* The categories' names by code, each shown by text(key, len); a new list. */
static PyObject *cat_names(const struct cat *c, PyObject *(*text)(const void *, size_t))
{
	PyObject *names = PyList_New((Py_ssize_t)c->codes.count);
	size_t i;

	for (i = 0; names && i < c->codes.cap; i++) {
		const struct cat_entry *e = hmap_at(&c->codes, i);
		PyObject *t;
		if (!e)
			continue;
		if (!(t = text(e->key, e->len)))
			Py_CLEAR(names);
		else
			PyList_SET_ITEM(names, e->code, t);
	}
	return names;
}

static void cat_free(struct cat *c)
{
	size_t i;

	for (i = 0; i < c->codes.cap; i++) {
		struct cat_entry *e = hmap_at(&c->codes, i);
		if (e)
			PyMem_RawFree(e->key);
	}
	hmap_free(&c->codes);
}

static PyObject *text_of(const void *key, size_t len)
{
	return PyUnicode_DecodeUTF8(key, (Py_ssize_t)len, "replace");
}

static PyObject *guid_of(const void *key, size_t len)
{
	struct etl_guid g;
	char text[ETL_GUID_STRING_SIZE];

	(void)len;
	memcpy(&g, key, sizeof(g));
	etl_guid_format(&g, text); /* (a category's name: one each, no interning needed) */
	return PyUnicode_FromStringAndSize(text, ETL_GUID_STRING_SIZE - 1);
}

/* ---- the columns ---- */

enum col_kind { K_I64, K_U64, K_U32, K_U16, K_U8, K_I32, K_OPT_U32, K_CAT_TEXT, K_CAT_GUID, K_OBJECTS, K_TEXT };

enum col_id {
	COL_TIME, COL_UNIX_NS, COL_TIMESTAMP, COL_TRACE, COL_CPU, COL_PID, COL_TID, COL_PROVIDER_ID, COL_ID,
	COL_VERSION, COL_LEVEL, COL_CHANNEL, COL_OPCODE, COL_TASK, COL_KEYWORDS, COL_HEADER, COL_RECORD_SIZE,
	COL_PAYLOAD_SIZE, COL_HOOK_ID, COL_FILE_OFFSET, COL_PROCESS, COL_NAME, COL_PROVIDER, COL_DECODER,
	COL_PROCESS_PID, COL_ACTIVITY_ID, COL_RELATED_ACTIVITY_ID, COL_MESSAGE, COL_STACK, COL_DERIVED
};

static const struct coldef {
	const char *name;
	enum col_kind kind;
	int decoded; /* needs the decoded event */
} coldefs[] = {
	[COL_TIME] = { "time", K_I64, 0 },          [COL_UNIX_NS] = { "unix_ns", K_I64, 0 },
	[COL_TIMESTAMP] = { "timestamp", K_U64, 0 }, [COL_TRACE] = { "trace_index", K_I32, 0 },
	[COL_CPU] = { "cpu", K_U32, 0 },            [COL_PID] = { "pid", K_OPT_U32, 0 },
	[COL_TID] = { "tid", K_OPT_U32, 0 },        [COL_PROVIDER_ID] = { "provider_id", K_CAT_GUID, 0 },
	[COL_ID] = { "id", K_U16, 0 },              [COL_VERSION] = { "version", K_U8, 0 },
	[COL_LEVEL] = { "level", K_U8, 0 },         [COL_CHANNEL] = { "channel", K_U8, 0 },
	[COL_OPCODE] = { "opcode", K_U8, 0 },       [COL_TASK] = { "task", K_U16, 0 },
	[COL_KEYWORDS] = { "keywords", K_U64, 0 },  [COL_HEADER] = { "header", K_CAT_TEXT, 0 },
	[COL_RECORD_SIZE] = { "record_size", K_U32, 0 }, [COL_PAYLOAD_SIZE] = { "payload_size", K_U32, 0 },
	[COL_HOOK_ID] = { "hook_id", K_U16, 0 },    [COL_FILE_OFFSET] = { "file_offset", K_U64, 0 },
	[COL_PROCESS] = { "process", K_CAT_TEXT, 0 }, [COL_NAME] = { "name", K_CAT_TEXT, 1 },
	[COL_PROVIDER] = { "provider", K_CAT_TEXT, 1 }, [COL_DECODER] = { "decoder", K_CAT_TEXT, 1 },
	[COL_PROCESS_PID] = { "process_pid", K_OPT_U32, 0 }, [COL_ACTIVITY_ID] = { "activity_id", K_CAT_GUID, 0 },
	[COL_RELATED_ACTIVITY_ID] = { "related_activity_id", K_CAT_GUID, 0 },
	[COL_MESSAGE] = { "message", K_TEXT, 1 }, [COL_STACK] = { "stack", K_OBJECTS, 0 },
	[COL_DERIVED] = { "derived", K_OBJECTS, 1 },
};

#define NCOLDEFS (sizeof(coldefs) / sizeof(coldefs[0]))

struct column {
	const char *name;
	enum col_id id;
	enum col_kind kind;
	struct buf data, mask;
	struct cat cat;
	PyObject *objs;       /* K_OBJECTS: decoded field values, the fields or derived dicts, stacks */
	const char *field;    /* K_OBJECTS: the field's name, NULL for a whole dict or a stack */
	struct buf text;      /* K_TEXT: the texts one after the other (data: start and length of each,
			       * start -1 for none) */
	size_t ntimes, nother; /* a field's values: FILETIMEs (kept as ints), and others */
};

struct table {
	struct column *col;
	size_t n;
	int decode;           /* some column or filter needs the decoded event */
	size_t nobjects;      /* K_OBJECTS columns: they need the GIL for every row */
	int gather;           /* fields were named: gather the names events have, to say which are close */
	struct cat schemas;   /* the kinds of event seen (provider, id, version, name), and */
	struct cat names;     /* the names of their properties */
};

static const char *dtype_of(enum col_kind k)
{
	switch (k) {
	case K_I64: return "int64";
	case K_U64: return "uint64";
	case K_U32: case K_OPT_U32: return "uint32";
	case K_U16: return "uint16";
	case K_U8: return "uint8";
	default: return "int32";
	}
}

static int add_column(struct table *t, const char *name, int id, enum col_kind kind, const char *field)
{
	struct column *c = &t->col[t->n++];

	memset(c, 0, sizeof(*c));
	c->name = name;
	c->id = (enum col_id)id;
	c->kind = kind;
	c->field = field;
	if (kind == K_OBJECTS) {
		t->nobjects++;
		if (!(c->objs = PyList_New(0)))
			return -1;
	}
	return 0;
}

/* The columns asked for: header ones by name, then fields (True: one "fields" column of dicts;
 * a list: one column per field). */
/* Field columns one table may have: 10,000 of them over 10,000 events took 30 s and 3.3 GB,
 * the cells of a frame mostly empty (docs/PYTHON.md). */
#define PYETL_MAX_FIELD_COLUMNS 1024

static int table_init(struct table *t, PyObject *names, PyObject *fields)
{
	Py_ssize_t i, n = PySequence_Size(names), nf = fields && PyList_Check(fields) ? PyList_GET_SIZE(fields) : 1;
	size_t k;

	if (n < 0)
		return -1;
	if (nf > PYETL_MAX_FIELD_COLUMNS) { /* every row gives every column a value: rows x columns */
		PyErr_Format(PyExc_ValueError,
			     "fields= names %zd fields: at most %d columns (fields=True gives every field of "
			     "each event, as a dict)", nf, PYETL_MAX_FIELD_COLUMNS);
		return -1;
	}
	t->col = PyMem_Calloc((size_t)(n + nf + 1), sizeof(*t->col));
	if (!t->col) {
		PyErr_NoMemory();
		return -1;
	}
	for (i = 0; i < n; i++) {
		PyObject *o = PySequence_GetItem(names, i);
		const char *s = o ? PyUnicode_AsUTF8(o) : NULL;
		Py_XDECREF(o); /* the names list keeps the text alive */
		if (!s)
			return -1;
		for (k = 0; k < NCOLDEFS && strcmp(coldefs[k].name, s) != 0; k++)
			;
		if (k == NCOLDEFS) {
			PyErr_Format(PyExc_ValueError, "unknown column '%s'", s);
			return -1;
		}
		t->decode |= coldefs[k].decoded;
		if (add_column(t, coldefs[k].name, (int)k, coldefs[k].kind, NULL) < 0)
			return -1;
	}
	if (fields && PyList_Check(fields)) {
		t->gather = 1;
		for (i = 0; i < PyList_GET_SIZE(fields); i++) {
			const char *s = PyUnicode_AsUTF8(PyList_GET_ITEM(fields, i));
			if (!s || add_column(t, s, -1, K_OBJECTS, s) < 0)
				return -1;
		}
		t->decode = 1;
	} else if (fields && PyObject_IsTrue(fields)) {
		if (add_column(t, "fields", -1, K_OBJECTS, NULL) < 0)
			return -1;
		t->decode = 1;
	}
	return 0;
}

static void table_free(struct table *t)
{
	size_t i;

	for (i = 0; t->col && i < t->n; i++) {
		PyMem_RawFree(t->col[i].data.p);
		PyMem_RawFree(t->col[i].mask.p);
		PyMem_RawFree(t->col[i].text.p);
		cat_free(&t->col[i].cat);
		Py_CLEAR(t->col[i].objs);
	}
	cat_free(&t->schemas);
	cat_free(&t->names);
	PyMem_Free(t->col);
}

/* The number of a header column, widened to 64 bits. */
static uint64_t header_value(enum col_id id, const struct etl_event *ev)
{
	switch (id) {
	case COL_TIME: case COL_UNIX_NS: return (uint64_t)etl_event_unix_ns(ev);
	case COL_TIMESTAMP: return etl_event_timestamp_raw(ev);
	case COL_TRACE: return (uint64_t)etl_event_trace_index(ev);
	case COL_CPU: return etl_event_cpu(ev);
	case COL_PID: return etl_event_pid(ev);
	case COL_TID: return etl_event_tid(ev);
	case COL_ID: return etl_event_id(ev);
	case COL_VERSION: return etl_event_version(ev);
	case COL_LEVEL: return etl_event_level(ev);
	case COL_CHANNEL: return etl_event_channel(ev);
	case COL_OPCODE: return etl_event_opcode(ev);
	case COL_TASK: return etl_event_task(ev);
	case COL_KEYWORDS: return etl_event_keywords(ev);
	case COL_RECORD_SIZE: return etl_event_record_size(ev);
	case COL_HOOK_ID: return etl_event_hook_id(ev);
	case COL_FILE_OFFSET: return etl_event_file_offset(ev);
	case COL_PAYLOAD_SIZE: {
		size_t n;
		etl_event_payload(ev, NULL, &n);
		return n;
	}
	default: return 0;
	}
}

static int add_number(struct column *c, uint64_t v)
{
	uint32_t u32 = (uint32_t)v;
	uint16_t u16 = (uint16_t)v;
	uint8_t u8 = (uint8_t)v;
	int32_t i32 = (int32_t)v;

	switch (c->kind) {
	case K_I64: case K_U64: return buf_add(&c->data, &v, 8);
	case K_U32: return buf_add(&c->data, &u32, 4);
	case K_U16: return buf_add(&c->data, &u16, 2);
	case K_U8: return buf_add(&c->data, &u8, 1);
	case K_I32: return buf_add(&c->data, &i32, 4);
	default: { /* K_OPT_U32: ETL_ID_NONE is missing */
		uint8_t missing = v == ETL_ID_NONE;
		if (missing)
			u32 = 0;
		return buf_add(&c->data, &u32, 4) < 0 ? -1 : buf_add(&c->mask, &missing, 1);
	}
	}
}

/* A text's code; NULL is missing (code -1). */
static int add_text(struct column *c, const char *s)
{
	int32_t code = s ? cat_code(&c->cat, s, strlen(s)) : -1;

	return code < -1 ? -1 : buf_add(&c->data, &code, 4);
}

/* A decoded column's text: the name, the provider (its name, or its GUID), the decoder. */
static const char *decoded_text(enum col_id id, const struct etl_decoded *d, const struct etl_event *ev, char *guid)
{
	if (id == COL_NAME)
		return etl_decoded_name(d);
	if (id == COL_DECODER)
		return etl_decoder_name(etl_decoded_source(d));
	if (etl_decoded_provider_name(d))
		return etl_decoded_provider_name(d);
	etl_guid_format(etl_event_provider(ev), guid);
	return guid;
}

/* A field by name: a property, else a derived field (open(..., derive=True)). */
static const struct etl_property *field_of(const struct etl_decoded *d, const char *name)
{
	const struct etl_property *p;
	size_t i;

	if (!d || etl_decoded_source(d) == ETL_DECODER_NONE)
		return NULL;
	if ((p = etl_decoded_property_by_name(d, name)) != NULL)
		return p;
	for (i = 0; i < etl_decoded_derived_count(d); i++) {
		const char *n = etl_property_name(p = etl_decoded_derived_at(d, i));
		if (n && strcmp(n, name) == 0)
			return p;
	}
	return NULL;
}

/* A field column's cell: the value, a FILETIME kept as an int (the mask says which). */
static PyObject *field_value(struct column *c, struct pyetl_state *st, const struct etl_decoded *d)
{
	const struct etl_property *p = field_of(d, c->field);
	int ft = p && etl_property_kind(p) == ETL_PROPERTY_VALUE && etl_property_in_type(p) == ETL_IN_FILETIME;
	uint8_t is_time = (uint8_t)ft;

	if (buf_add(&c->mask, &is_time, 1) < 0)
		return NULL;
	if (!p)
		Py_RETURN_NONE;
	if (ft)
		c->ntimes++;
	else
		c->nother++;
	return pyetl_value(st, p, 0, ft ? PYETL_FILETIMES : 0);
}

static int add_object(struct column *c, ReaderObject *rd, const struct etl_event *ev, const struct etl_decoded *d)
{
	int none = !d || etl_decoded_source(d) == ETL_DECODER_NONE, rc;
	struct pyetl_state *st = pyetl_state_of((PyObject *)rd);
	PyObject *v;

	if (c->field)
		v = field_value(c, st, d);
	else if (c->id == COL_STACK)
		v = pyetl_stack(rd->r, ev);
	else if (c->id == COL_DERIVED)
		v = none ? PyDict_New() : pyetl_fields(st, d, 1, 0);
	else
		v = none ? PyDict_New() : pyetl_fields(st, d, 0, 0);
	if (!v)
		return -1;
	rc = PyList_Append(c->objs, v);
	Py_DECREF(v);
	return rc;
}

/* A WPP event's message, as text kept without the GIL; -1 when out of memory. */
static int add_message(struct column *c, const struct etl_decoded *d)
{
	const char *m = d && etl_decoded_source(d) == ETL_DECODER_TMF ? etl_decoded_message(d) : NULL;
	int64_t at[2] = { -1, 0 };

	if (m) {
		at[0] = (int64_t)c->text.len;
		at[1] = (int64_t)strlen(m);
		if (at[1] && (buf_grow(&c->text, (size_t)at[1]) < 0))
			return -1;
		memcpy(c->text.p + c->text.len, m, (size_t)at[1]);
		c->text.len += (size_t)at[1];
	}
	return buf_add(&c->data, at, sizeof(at));
}

/* The texts of a K_TEXT column: a list of str or None. */
static PyObject *texts(const struct column *c)
{
	size_t n = c->data.len / 16, i;
	PyObject *list = PyList_New((Py_ssize_t)n);

	for (i = 0; list && i < n; i++) {
		int64_t at[2];
		PyObject *v;
		memcpy(at, c->data.p + i * 16, 16);
		v = at[0] < 0 ? (Py_INCREF(Py_None), Py_None)
			      : PyUnicode_DecodeUTF8(c->text.p + at[0], (Py_ssize_t)at[1], "replace");
		if (!v)
			Py_CLEAR(list);
		else
			PyList_SET_ITEM(list, (Py_ssize_t)i, v);
	}
	return list;
}

/* The row's cells but the K_OBJECTS ones (no Python object: called without the GIL); -1 when out
 * of memory. */
static int add_row(struct table *t, ReaderObject *rd, const struct etl_event *ev, const struct etl_decoded *d)
{
	char guid[ETL_GUID_STRING_SIZE];
	size_t i;

	for (i = 0; i < t->n; i++) {
		struct column *c = &t->col[i];
		int rc;

		if (c->kind == K_OBJECTS) {
			continue;
		} else if (c->kind == K_CAT_GUID) {
			const struct etl_guid *g = c->id == COL_PROVIDER_ID ? etl_event_provider(ev)
						  : c->id == COL_ACTIVITY_ID ? etl_event_activity_id(ev)
									: etl_event_related_activity_id(ev);
			int32_t code = g ? cat_code(&c->cat, g, sizeof(struct etl_guid)) : -1;
			rc = code < -1 ? -1 : buf_add(&c->data, &code, 4);
		} else if (c->kind == K_TEXT) {
			rc = add_message(c, d);
		} else if (c->id == COL_PROCESS_PID) {
			rc = add_number(c, etl_reader_event_pid(rd->r, ev));
		} else if (c->id == COL_HEADER) {
			rc = add_text(c, etl_header_kind_name(etl_event_header_kind(ev)));
		} else if (c->id == COL_PROCESS) {
			const struct etl_process *p = etl_reader_event_process(rd->r, ev);
			rc = add_text(c, p && *etl_process_image_name(p) ? etl_process_image_name(p) : NULL);
		} else if (c->kind == K_CAT_TEXT) {
			rc = add_text(c, d ? decoded_text(c->id, d, ev, guid) : NULL);
		} else {
			rc = add_number(c, header_value(c->id, ev));
		}
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* A field column whose FILETIMEs were kept as ints but that holds other values too: the
 * FILETIMEs become datetimes, as in Event.fields; -1 with an exception. */
static int times_as_datetimes(struct column *c)
{
	Py_ssize_t i, n = PyList_GET_SIZE(c->objs);

	for (i = 0; i < n && (size_t)i < c->mask.len; i++) {
		PyObject *v = PyList_GET_ITEM(c->objs, i), *dt;
		if (!c->mask.p[i])
			continue; /* (the rows whose property was a FILETIME) */
		dt = pyetl_filetime(PyLong_AsUnsignedLongLong(v));
		if (!dt)
			return -1;
		PyList_SET_ITEM(c->objs, i, dt);
		Py_DECREF(v);
	}
	return 0;
}

static PyObject *column_result(struct column *c, Py_ssize_t rows)
{
	switch (c->kind) {
	case K_OBJECTS:
		if (c->field && c->ntimes && !c->nother)
			return Py_BuildValue("(sO)", "filetime", c->objs);
		if (c->field && c->ntimes && times_as_datetimes(c) < 0)
			return NULL;
		return Py_BuildValue("(sO)", "objects", c->objs);
	case K_TEXT:
		return Py_BuildValue("(sN)", "text", texts(c));
	case K_CAT_TEXT: case K_CAT_GUID:
		return Py_BuildValue("(sy#N)", "categorical", c->data.p ? c->data.p : "", (Py_ssize_t)c->data.len,
				     cat_names(&c->cat, c->kind == K_CAT_GUID ? guid_of : text_of));
	case K_OPT_U32:
		return Py_BuildValue("(sy#sy#)", "masked", c->data.p ? c->data.p : "", (Py_ssize_t)c->data.len,
				     dtype_of(c->kind), c->mask.p ? c->mask.p : "", rows);
	default:
		return Py_BuildValue("(sy#s)", "array", c->data.p ? c->data.p : "", (Py_ssize_t)c->data.len,
				     dtype_of(c->kind));
	}
}

/* The row's K_OBJECTS cells (with the GIL); -1, with an exception or out of memory. */
static int add_objects(struct table *t, ReaderObject *rd, const struct etl_event *ev, const struct etl_decoded *d)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->col[i].kind == K_OBJECTS && add_object(&t->col[i], rd, ev, d) < 0)
			return -1;
	return 0;
}

/* An event's decoding (d) for the filter and the columns: 1 to keep the row, 0 when the filter
 * (m: what it said before decoding) leaves it out, -1 with an exception.  Called without the GIL
 * (g): errors take it back. */
static int decode_row(struct pyetl_nogil *g, const struct etl_event *ev,
		      const struct etl_decoded **d, int m)
{
	ReaderObject *rd = g->rd;
	int st = etl_reader_decode(rd->r, ev, d), rc = 0;

	if (!*d || st != ETL_OK) {
		pyetl_gil_take(g);
		rc = !*d ? (pyetl_raise(rd, "out of memory"), -1) : pyetl_report(rd, "decode");
		pyetl_gil_drop(g);
		if (rc < 0)
			return -1;
	}
	return m != ETL_FILTER_NEEDS_DECODING || etl_filter_match_decoded(rd->filter, rd->r, ev, *d);
}

/* Kinds of event and names gathered at most (a trace has far fewer). */
#define GATHER_MAX 65536u

/* The property names of the first event of each kind (without the GIL); -1 when out of memory. */
static int gather_names(struct table *t, const struct etl_event *ev, const struct etl_decoded *d)
{
	char key[16 + 2 + 1 + 256];
	const char *name = etl_decoded_name(d);
	size_t n = name ? strlen(name) : 0, i, before = t->schemas.codes.count;
	uint16_t id = etl_event_id(ev);
	uint8_t version = etl_event_version(ev);

	if (etl_decoded_source(d) == ETL_DECODER_NONE || before >= GATHER_MAX)
		return 0;
	memcpy(key, etl_event_provider(ev), 16);
	memcpy(key + 16, &id, 2);
	key[18] = (char)version;
	if (n > sizeof(key) - 19)
		n = sizeof(key) - 19;
	memcpy(key + 19, name ? name : "", n);
	if (cat_code(&t->schemas, key, 19 + n) < -1)
		return -1;
	for (i = 0; t->schemas.codes.count > before && i < etl_decoded_property_count(d); i++) {
		const char *p = etl_property_name(etl_decoded_property_at(d, i));
		if (p && t->names.codes.count < GATHER_MAX && cat_code(&t->names, p, strlen(p)) < -1)
			return -1;
	}
	return 0;
}

/* Reads the events of rd into t without the GIL (taken back for each row's Python values, when
 * fields are asked for, and for damage); the rows, or -1 with an exception. */
static Py_ssize_t read_rows(struct table *t, ReaderObject *rd, Py_ssize_t limit)
{
	const struct etl_event *ev;
	Py_ssize_t rows = 0;
	int fail = 0;
	struct pyetl_nogil g;

	pyetl_nogil_begin(&g, rd);
	while (limit <= 0 || rows < limit) {
		const struct etl_decoded *d = NULL;
		int st = pyetl_reader_next_nogil(&g, &ev);

		if (st < 0 || st == ETL_END) {
			fail = st < 0;
			break;
		}
		int m = rd->filter ? etl_filter_match(rd->filter, rd->r, ev) : 1;
		if (m == 0)
			continue;
		if ((t->decode || m == ETL_FILTER_NEEDS_DECODING) && (st = decode_row(&g, ev, &d, m)) <= 0) {
			if (st < 0 && (fail = 1))
				break;
			continue;
		}
		if (add_row(t, rd, ev, d) < 0 || (t->gather && d && gather_names(t, ev, d) < 0)) {
			fail = 1;
			break;
		}
		if (t->nobjects) {
			pyetl_gil_take(&g);
			st = add_objects(t, rd, ev, d);
			pyetl_gil_drop(&g);
			if (st < 0 && (fail = 1))
				break;
		}
		rows++;
	}
	pyetl_nogil_end(&g);
	if (fail && !PyErr_Occurred())
		PyErr_NoMemory(); /* (the buffers and categories say nothing: they fill without the GIL) */
	if (!fail && (limit <= 0 || rows < limit) && pyetl_warn_unmatched(rd) < 0)
		return -1;
	return fail ? -1 : rows;
}

/* "__missing_fields__": the fields asked for that no event had, and "__field_names__": the
 * names events had (when some field is missing). */
static int put_missing_fields(PyObject *out, const struct table *t)
{
	PyObject *missing = PyList_New(0), *names = NULL, *s;
	size_t i;
	int rc = missing ? 0 : -1;

	for (i = 0; rc == 0 && i < t->n; i++) {
		const struct column *c = &t->col[i];
		if (c->kind != K_OBJECTS || !c->field || c->ntimes || c->nother)
			continue;
		s = PyUnicode_FromString(c->field);
		rc = s ? PyList_Append(missing, s) : -1;
		Py_XDECREF(s);
	}
	if (rc == 0 && PyList_GET_SIZE(missing) > 0) {
		names = cat_names(&t->names, text_of);
		rc = names ? PyDict_SetItemString(out, "__field_names__", names) : -1;
	}
	if (rc == 0)
		rc = PyDict_SetItemString(out, "__missing_fields__", missing);
	Py_XDECREF(missing);
	Py_XDECREF(names);
	return rc;
}

PyObject *pyetl_columns(PyObject *module, PyObject *args, PyObject *kwargs)
{
	static char *kw[] = { "reader", "names", "fields", "limit", NULL };
	PyObject *reader, *names, *fields = NULL, *out = NULL;
	Py_ssize_t limit = 0, rows;
	struct table t;
	size_t i;

	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!O|On", kw, pyetl_module_state(module)->Reader, &reader, &names,
					 &fields, &limit))
		return NULL;
	if (pyetl_reader_check((ReaderObject *)reader) < 0)
		return NULL;
	if (((ReaderObject *)reader)->closed || !((ReaderObject *)reader)->r)
		return PyErr_Format(PyExc_ValueError, "the reader is closed");
	memset(&t, 0, sizeof(t));
	if (table_init(&t, names, fields) < 0)
		goto done;
	rows = read_rows(&t, (ReaderObject *)reader, limit);
	if (rows < 0)
		goto done;
	out = PyDict_New();
	for (i = 0; out && i < t.n; i++) {
		PyObject *v = column_result(&t.col[i], rows);
		if (!v || PyDict_SetItemString(out, t.col[i].name, v) < 0)
			Py_CLEAR(out);
		Py_XDECREF(v);
	}
	if (out && t.gather && put_missing_fields(out, &t) < 0)
		Py_CLEAR(out);
	if (out) {
		PyObject *n = PyLong_FromSsize_t(rows);
		if (!n || PyDict_SetItemString(out, "__rows__", n) < 0)
			Py_CLEAR(out);
		Py_XDECREF(n);
	}
done:
	table_free(&t);
	return out;
}

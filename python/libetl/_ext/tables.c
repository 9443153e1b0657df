/*
 * tables.c - libetl.table(): one of the library's analysis tables (its
 * etl_tables_* API) as columns for pandas, built in C with no Python object
 * per row:
 *
 *   ("array", bytes, dtype)               values (doubles: NaN where null)
 *   ("masked", bytes, dtype, mask_bytes)  integers or bools, and 1 where null
 *   ("times", int64 ns bytes, mask_bytes) FILETIMEs as ns since 1970, and 1 where null
 *   ("categorical", int32 codes, [str])   text (code -1 where null)
 *
 * The result is a dict of those by column name, with "__rows__" and
 * "__notes__" (the table's notes as (text, count) pairs).  The reader's
 * damage goes to its handler (reader.damage, on_damage) as for any reading.
 *
 * SPDX-License-Identifier: MIT
 */
#include "pyetl.h"

#include "hmap.h"

#include <string.h>

static PyObject *bytes_of(const void *p, size_t n)
{
	return PyBytes_FromStringAndSize(n ? p : "", (Py_ssize_t)n);
}

/* A column of integers, bools or times: values and a null mask. */
static PyObject *number_column(const struct etl_table *t, size_t col, size_t rows)
{
	enum etl_column_type ty = etl_table_column_type(t, col);
	const char *unit = etl_table_column_unit(t, col);
	int64_t *v = PyMem_Malloc((rows ? rows : 1) * sizeof(*v));
	uint8_t *mask = PyMem_Malloc(rows ? rows : 1);
	PyObject *out = NULL, *vb, *mb;
	size_t r;

	if (!v || !mask) {
		PyMem_Free(v);
		PyMem_Free(mask);
		return PyErr_NoMemory();
	}
	for (r = 0; r < rows; r++) {
		mask[r] = (uint8_t)etl_table_is_null(t, r, col);
		if (ty == ETL_COLUMN_TIME) /* FILETIME -> ns since 1970 */
			v[r] = mask[r] ? 0 : (int64_t)(etl_table_u64(t, r, col) - ETL_FILETIME_UNIX_EPOCH) * 100;
		else
			v[r] = (int64_t)etl_table_u64(t, r, col);
	}
	vb = bytes_of(v, rows * sizeof(*v));
	mb = bytes_of(mask, rows);
	if (vb && mb) {
		if (ty == ETL_COLUMN_TIME)
			out = Py_BuildValue("(sOO)", "times", vb, mb);
		else
			out = Py_BuildValue("(sOsO)", "masked", vb,
					    ty == ETL_COLUMN_BOOL ? "bool"
					    : ty == ETL_COLUMN_INT || strcmp(unit, "address") != 0 ? "int64"
												: "uint64",
					    mb);
	}
	Py_XDECREF(vb);
	Py_XDECREF(mb);
	PyMem_Free(v);
	PyMem_Free(mask);
	return out;
}

static PyObject *double_column(const struct etl_table *t, size_t col, size_t rows)
{
	double *v = PyMem_Malloc((rows ? rows : 1) * sizeof(*v));
	PyObject *out, *vb;
	size_t r;

	if (!v)
		return PyErr_NoMemory();
	for (r = 0; r < rows; r++)
		v[r] = etl_table_is_null(t, r, col) ? Py_NAN : etl_table_double(t, r, col);
	vb = bytes_of(v, rows * sizeof(*v));
	out = vb ? Py_BuildValue("(sOs)", "array", vb, "float64") : NULL;
	Py_XDECREF(vb);
	PyMem_Free(v);
	return out;
}

/* A category by its text's address: the table keeps each text once. */
struct cat {
	const char *text;
	int32_t code;
};

static int cat_eq(const void *entry, const void *key)
{
	return ((const struct cat *)entry)->text == key;
}

static PyObject *text_column(const struct etl_table *t, size_t col, size_t rows)
{
	int32_t *codes = PyMem_Malloc((rows ? rows : 1) * sizeof(*codes));
	PyObject *cats = PyList_New(0), *out = NULL, *cb;
	struct hmap m;
	size_t r;

	hmap_init(&m, sizeof(struct cat));
	if (!codes || !cats)
		goto done;
	for (r = 0; r < rows; r++) {
		const char *s = etl_table_text(t, r, col);
		uint64_t h;
		struct cat *c;
		if (!s) {
			codes[r] = -1;
			continue;
		}
		h = hmap_hash_mix((uintptr_t)s);
		if (!(c = hmap_find(&m, h, cat_eq, s))) {
			PyObject *u = PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
			if (!u || !(c = hmap_insert(&m, h)) || PyList_Append(cats, u) < 0) {
				Py_XDECREF(u);
				if (!PyErr_Occurred())
					PyErr_NoMemory();
				goto done;
			}
			Py_DECREF(u);
			c->text = s;
			c->code = (int32_t)(PyList_GET_SIZE(cats) - 1);
		}
		codes[r] = c->code;
	}
	if ((cb = bytes_of(codes, rows * sizeof(*codes))) != NULL) {
		out = Py_BuildValue("(sOO)", "categorical", cb, cats);
		Py_DECREF(cb);
	}
done:
	hmap_free(&m);
	PyMem_Free(codes);
	Py_XDECREF(cats);
	return out;
}

static PyObject *column(const struct etl_table *t, size_t col, size_t rows)
{
	switch (etl_table_column_type(t, col)) {
	case ETL_COLUMN_DOUBLE: return double_column(t, col, rows);
	case ETL_COLUMN_TEXT: return text_column(t, col, rows);
	default: return number_column(t, col, rows);
	}
}

static int put(PyObject *d, const char *k, PyObject *v)
{
	int rc = v ? PyDict_SetItemString(d, k, v) : -1;

	Py_XDECREF(v);
	return rc;
}

/* The table's columns as the dict above. */
static PyObject *result(const struct etl_tables *tabs, const char *name)
{
	const struct etl_table *t = etl_tables_get(tabs, name);
	size_t rows = etl_table_row_count(t), c, i;
	PyObject *out = PyDict_New(), *notes = PyList_New(0);

	for (c = 0; out && c < etl_table_column_count(t); c++)
		if (put(out, etl_table_column_name(t, c), column(t, c, rows)) < 0)
			Py_CLEAR(out);
	for (i = 0; notes && i < etl_table_note_count(t); i++) {
		uint64_t n;
		const char *what = etl_table_note(t, i, &n);
		PyObject *pair = Py_BuildValue("(sK)", what, (unsigned long long)n);
		if (!pair || PyList_Append(notes, pair) < 0)
			Py_CLEAR(notes);
		Py_XDECREF(pair);
	}
	if (!out || !notes || put(out, "__rows__", PyLong_FromSize_t(rows)) < 0 ||
	    PyDict_SetItemString(out, "__notes__", notes) < 0)
		Py_CLEAR(out);
	Py_XDECREF(notes);
	return out;
}

static int add_to_tables(void *tabs, const struct etl_event *ev)
{
	return etl_tables_add(tabs, ev);
}

PyObject *pyetl_table(PyObject *module, PyObject *args)
{
	PyObject *reader, *out = NULL;
	const char *name, *text = NULL;
	int stacks = 0;
	ReaderObject *rd;
	struct etl_tables *tabs;
	struct etl_filter *f = NULL;

	if (!PyArg_ParseTuple(args, "O!s|pz", pyetl_module_state(module)->Reader, &reader, &name, &stacks, &text))
		return NULL;
	rd = (ReaderObject *)reader;
	if (pyetl_reader_check(rd) < 0)
		return NULL;
	if (rd->closed || !rd->r || rd->started)
		return PyErr_Format(PyExc_ValueError, "table() needs a reader that has read no event");
	if (text && !(f = pyetl_filter_text(text)))
		return NULL;
	if (etl_tables_new(rd->r, &name, 1, stacks ? ETL_TABLES_STACKS : 0, NULL, NULL, &tabs) != ETL_OK) {
		etl_filter_free(f);
		return pyetl_raise(rd, "cannot build the table");
	}
	if (f)
		etl_tables_set_filter(tabs, f);
	rd->started = 1;
	if (pyetl_reader_feed(rd, add_to_tables, tabs) == 0) { /* (damage goes to the reader's handler) */
		etl_tables_finish(tabs);
		out = result(tabs, name);
	}
	etl_tables_free(tabs);
	etl_filter_free(f);
	return out;
}

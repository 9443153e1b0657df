/*
 * values.c - decoded properties as Python values, by their kind
 * (etl_property_value_kind): integers as int (hex ones too), booleans as
 * bool, reals as float, text as str, GUIDs, SIDs and addresses as their
 * text, FILETIMEs as aware datetimes, bytes as bytes; a value that a map
 * names as the name (str), as etldump shows it; structs as dicts, arrays as
 * lists.  Times and stacks too.
 *
 * SPDX-License-Identifier: MIT
 */
#include "pyetl.h"

#include <datetime.h>
#include <stdio.h>
#include <string.h>

#define MAX_DEPTH 64

int pyetl_values_init(void)
{
	PyDateTime_IMPORT; /* datetime.h keeps its API pointer per file: this one's */
	return PyDateTimeAPI ? 0 : -1;
}

/* "YYYY-MM-DDTHH:MM:SS.fffffffZ" -> the number at s[at, at+n) */
static int digits(const char *s, int at, int n)
{
	int v = 0;

	while (n-- > 0)
		v = v * 10 + (s[at++] - '0');
	return v;
}

PyObject *pyetl_filetime(uint64_t ft)
{
	char t[ETL_FILETIME_STRING_SIZE];
	size_t len;

	if (ft == 0)
		Py_RETURN_NONE;
	len = etl_filetime_format(ft, t);
	if (len != 28) /* a year past 9999: datetime cannot hold it */
		return PyUnicode_FromStringAndSize(t, (Py_ssize_t)len);
	return PyDateTimeAPI->DateTime_FromDateAndTime(digits(t, 0, 4), digits(t, 5, 2), digits(t, 8, 2), digits(t, 11, 2),
						       digits(t, 14, 2), digits(t, 17, 2), digits(t, 20, 6), PyDateTime_TimeZone_UTC,
						       PyDateTimeAPI->DateTimeType);
}

static PyObject *text_value(const struct etl_property *p)
{
	const char *t = etl_property_format(p);

	return t ? PyUnicode_DecodeUTF8(t, (Py_ssize_t)strlen(t), "replace") : PyErr_NoMemory();
}

static PyObject *integer_value(const struct etl_property *p, enum etl_value_kind k)
{
	uint64_t u;
	int64_t i;

	if (etl_property_map_name(p)) {
		/* the map's name for the value, as text output shows it (a number when it names none) */
		const char *t = etl_property_format(p);
		if (t && !(*t >= '0' && *t <= '9') && !(*t == '-' && t[1] >= '0' && t[1] <= '9'))
			return text_value(p);
	}
	if (k == ETL_VALUE_SIGNED && etl_property_as_i64(p, &i) == ETL_OK)
		return PyLong_FromLongLong(i);
	if (etl_property_as_u64(p, &u) == ETL_OK)
		return PyLong_FromUnsignedLongLong(u);
	Py_RETURN_NONE;
}

static PyObject *time_value(const struct etl_property *p, unsigned flags)
{
	uint64_t ft;

	if ((flags & PYETL_FILETIMES) && etl_property_in_type(p) == ETL_IN_FILETIME &&
	    etl_property_as_u64(p, &ft) == ETL_OK)
		return PyLong_FromUnsignedLongLong(ft); /* lossless: 100 ns since 1601 */
	if (etl_property_as_u64(p, &ft) == ETL_OK)
		return pyetl_filetime(ft);
	return text_value(p); /* a SYSTEMTIME: its text */
}

static PyObject *scalar(const struct etl_property *p, unsigned flags)
{
	enum etl_value_kind k = etl_property_value_kind(p);
	const uint8_t *b;
	size_t n;
	double d;
	uint64_t u;

	switch (k) {
	case ETL_VALUE_SIGNED: case ETL_VALUE_UNSIGNED: case ETL_VALUE_HEX:
		return integer_value(p, k);
	case ETL_VALUE_BOOLEAN:
		if (etl_property_map_name(p))
			return text_value(p);
		return PyBool_FromLong(etl_property_as_u64(p, &u) == ETL_OK && u != 0);
	case ETL_VALUE_REAL:
		if (etl_property_as_double(p, &d) != ETL_OK)
			Py_RETURN_NONE;
		return PyFloat_FromDouble(d);
	case ETL_VALUE_TIME:
		return time_value(p, flags);
	case ETL_VALUE_BINARY:
		if (etl_property_as_bytes(p, &b, &n) != ETL_OK)
			Py_RETURN_NONE;
		return PyBytes_FromStringAndSize((const char *)b, (Py_ssize_t)n);
	case ETL_VALUE_ADDRESS:
		if (etl_property_out_type(p) == ETL_OUT_PORT && !etl_property_map_name(p)) {
			const char *t = etl_property_format(p); /* the port in host order, in decimal */
			return t ? PyLong_FromString(t, NULL, 10) : PyErr_NoMemory();
		}
		return text_value(p);
	case ETL_VALUE_STRING: case ETL_VALUE_GUID: case ETL_VALUE_SID:
		return text_value(p);
	default:
		Py_RETURN_NONE;
	}
}

/* Members of a struct into a dict, elements of an array into a list. */
static PyObject *compound(struct pyetl_state *st, const struct etl_property *p, unsigned depth, unsigned flags)
{
	size_t i, n = etl_property_child_count(p);
	int is_struct = etl_property_kind(p) == ETL_PROPERTY_STRUCT;
	PyObject *out = is_struct ? PyDict_New() : PyList_New((Py_ssize_t)n);

	for (i = 0; out && i < n; i++) {
		const struct etl_property *c = etl_property_child_at(p, i);
		PyObject *v = pyetl_value(st, c, depth + 1, flags), *key;
		if (!v) {
			Py_CLEAR(out);
			break;
		}
		if (!is_struct) {
			PyList_SET_ITEM(out, (Py_ssize_t)i, v);
			continue;
		}
		key = pyetl_intern(st, etl_property_name(c));
		if (!key || PyDict_SetItem(out, key, v) < 0)
			Py_CLEAR(out);
		Py_XDECREF(key);
		Py_DECREF(v);
	}
	return out;
}

PyObject *pyetl_value(struct pyetl_state *st, const struct etl_property *p, unsigned depth, unsigned flags)
{
	if (etl_property_kind(p) == ETL_PROPERTY_VALUE)
		return scalar(p, flags);
	if (depth >= MAX_DEPTH)
		return text_value(p);
	return compound(st, p, depth, flags);
}

PyObject *pyetl_fields(struct pyetl_state *st, const struct etl_decoded *d, int derived, unsigned flags)
{
	size_t i, n = derived ? etl_decoded_derived_count(d) : etl_decoded_property_count(d);
	PyObject *out = PyDict_New();

	for (i = 0; out && i < n; i++) {
		const struct etl_property *p = derived ? etl_decoded_derived_at(d, i) : etl_decoded_property_at(d, i);
		PyObject *key = pyetl_intern(st, etl_property_name(p)), *v = key ? pyetl_value(st, p, 0, flags) : NULL;
		if (!v || PyDict_SetItem(out, key, v) < 0)
			Py_CLEAR(out);
		Py_XDECREF(key);
		Py_XDECREF(v);
	}
	return out;
}

/* A frame's text as etldump writes it: module!Function+0xOFF, module!+0xOFF or 0xADDR. */
static PyObject *frame_text(const struct etl_frame *f)
{
	char text[1024];

	if (f->kind == ETL_FRAME_ADDRESS)
		snprintf(text, sizeof(text), "0x%llx", (unsigned long long)f->address);
	else if (!f->function)
		snprintf(text, sizeof(text), "%s!+0x%llx", f->module, (unsigned long long)f->module_offset);
	else
		snprintf(text, sizeof(text), "%s!%s+0x%llx", f->module, f->function, (unsigned long long)f->function_offset);
	return PyUnicode_DecodeUTF8(text, (Py_ssize_t)strlen(text), "replace");
}

static PyObject *frame(struct etl_reader *r, const struct etl_event *ev, uint64_t addr)
{
	struct etl_frame f;

	if (!r) {
		memset(&f, 0, sizeof(f));
		f.address = addr;
	} else {
		etl_reader_frame(r, ev, addr, 0, &f);
	}
	return frame_text(&f);
}

static PyStructSequence_Field frame_fields[] = {
	{ "address", "The frame's address." },
	{ "module", "File name of the image or .NET assembly (\"JIT\" for a method no module event names), or None." },
	{ "function", "The PDB's function or the .NET method (Namespace.Type.Method), or None." },
	{ "offset", "From the function's start, else from the module's base; None when neither holds it." },
	{ "file", "Source file of the line (from the PDB), or None." },
	{ "line", "Source line, or None." },
	{ "kind", "What named it: 'method', 'symbol', 'image' or 'address'." },
	{ "module_path", "The image's or assembly's path as the trace gives it, or None." },
	{ NULL, NULL },
};

static PyStructSequence_Desc frame_desc = {
	"libetl.Frame", "A stack frame with its names (Event.frames).", frame_fields, 8,
};

PyTypeObject *pyetl_frame_type_new(void)
{
	return PyStructSequence_NewType(&frame_desc);
}

static PyObject *str_or_none(const char *s)
{
	if (!s)
		Py_RETURN_NONE;
	return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
}

/* One libetl.Frame. */
static PyObject *frame_object(struct pyetl_state *st, struct etl_reader *r, const struct etl_event *ev,
			      uint64_t addr)
{
	static const char *const kinds[] = { "address", "image", "symbol", "method" };
	PyObject *o = PyStructSequence_New(st->Frame), *v[8];
	struct etl_frame f;
	int i;

	if (!o)
		return NULL;
	etl_reader_frame(r, ev, addr, ETL_FRAME_LINES, &f);
	v[0] = PyLong_FromUnsignedLongLong(f.address);
	v[1] = str_or_none(f.module);
	v[2] = str_or_none(f.function);
	if (f.function)
		v[3] = PyLong_FromUnsignedLongLong(f.function_offset);
	else if (f.kind != ETL_FRAME_ADDRESS)
		v[3] = PyLong_FromUnsignedLongLong(f.module_offset);
	else
		v[3] = Py_NewRef(Py_None);
	v[4] = str_or_none(f.file);
	v[5] = f.line ? PyLong_FromUnsignedLong(f.line) : Py_NewRef(Py_None);
	v[6] = pyetl_intern(st, kinds[f.kind <= ETL_FRAME_METHOD ? f.kind : 0]);
	v[7] = str_or_none(f.module_path);
	for (i = 0; i < 8; i++) {
		if (!v[i]) {
			while (++i < 8)
				Py_XDECREF(v[i]);
			Py_DECREF(o);
			return NULL;
		}
		PyStructSequence_SET_ITEM(o, i, v[i]);
	}
	return o;
}

PyObject *pyetl_frames(struct pyetl_state *st, struct etl_reader *r, const struct etl_event *ev)
{
	size_t i, n = r ? etl_event_stack_depth(ev) : 0;
	PyObject *list = PyList_New((Py_ssize_t)n);

	for (i = 0; list && i < n; i++) {
		PyObject *f = frame_object(st, r, ev, etl_event_stack_frame(ev, i));
		if (!f)
			Py_CLEAR(list);
		else
			PyList_SET_ITEM(list, (Py_ssize_t)i, f);
	}
	return list;
}

PyObject *pyetl_stack(struct etl_reader *r, const struct etl_event *ev)
{
	size_t i, n = etl_event_stack_depth(ev);
	PyObject *list = PyList_New((Py_ssize_t)n);

	for (i = 0; list && i < n; i++) {
		PyObject *f = frame(r, ev, etl_event_stack_frame(ev, i));
		if (!f)
			Py_CLEAR(list);
		else
			PyList_SET_ITEM(list, (Py_ssize_t)i, f);
	}
	return list;
}

/*
 * module.c - the _libetl module: its types and exceptions, its table of
 * interned strings (event, provider and field names repeat in every event:
 * one Python object each; in the module's state, one per interpreter), and
 * argument helpers.
 *
 * SPDX-License-Identifier: MIT
 */
#include "pyetl.h"

#include "hmap.h"

#include <string.h>

/* ---- interned strings: UTF-8 bytes (or a tagged GUID) -> str, in the module's state ---- */

#define INTERN_MAX 65536u /* entries kept before the table starts over */

struct intern_entry {
	char *key;
	size_t len;
	PyObject *value;
};

struct intern_key {
	const void *p;
	size_t len;
};

/* In front of the table, for pyetl_intern: the str last found for a string at this address.
 * Names mostly come from a few places (a schema's field names, static tables), but an address
 * may hold other text later (a decoded name is made anew for every event), so a hit is taken
 * only when the text there is still the entry's key. */
#define FRONT_SLOTS 512u
struct intern_front {
	const char *at;  /* NULL: free */
	const char *key; /* the table's copy of the text (freed only by intern_clear) */
	size_t len;
	PyObject *value; /* borrowed from the table */
};

/* Each module object's own (an interpreter's: strs are not shared between interpreters); used
 * with the GIL held. */
struct pyetl_interned {
	struct hmap table; /* of struct intern_entry (common/hmap.h) */
	struct intern_front front[FRONT_SLOTS];
};

/* A hash of the bytes, eight at a time (names are read for every event).  Only this table sees
 * it: byte order does not matter. */
static uint64_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 0x9E3779B97F4A7C15ULL ^ n, w;

	for (; n >= 8; b += 8, n -= 8) {
		memcpy(&w, b, 8);
		h = (h ^ w) * 0xFF51AFD7ED558CCDULL;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, b, n);
	h = (h ^ w) * 0xC4CEB9FE1A85EC53ULL;
	h ^= h >> 29;
	return h;
}

static void intern_clear(struct pyetl_interned *in)
{
	size_t i;

	memset(in->front, 0, sizeof(in->front));
	for (i = 0; i < in->table.cap; i++) {
		struct intern_entry *e = hmap_at(&in->table, i);
		if (e) {
			PyMem_Free(e->key);
			Py_DECREF(e->value);
		}
	}
	hmap_free(&in->table);
}

static int intern_eq(const void *entry, const void *key)
{
	const struct intern_entry *e = entry;
	const struct intern_key *k = key;

	return e->len == k->len && memcmp(e->key, k->p, k->len) == 0;
}

/* The str of key (made by make(key, len) the first time); a new reference.  *copy, when not
 * NULL, gets the table's copy of key.  Past INTERN_MAX entries the table starts over. */
static PyObject *intern_find(struct pyetl_interned *in, const void *key, size_t len,
			     PyObject *(*make)(const void *, size_t), const char **copy)
{
	uint64_t h = hash_bytes(key, len);
	struct intern_key k = { key, len };
	struct intern_entry *e;

	if (!in->table.size)
		hmap_init(&in->table, sizeof(struct intern_entry));
	if ((e = hmap_find(&in->table, h, intern_eq, &k)) == NULL) {
		PyObject *v;
		char *c;
		if (in->table.count >= INTERN_MAX)
			intern_clear(in);
		v = make(key, len);
		c = PyMem_Malloc(len ? len : 1);
		if (!v || !c || !(e = hmap_insert(&in->table, h))) {
			Py_XDECREF(v);
			PyMem_Free(c);
			return PyErr_Occurred() ? NULL : PyErr_NoMemory();
		}
		memcpy(c, key, len);
		e->key = c;
		e->len = len;
		e->value = v;
	}
	if (copy)
		*copy = e->key;
	Py_INCREF(e->value);
	return e->value;
}

static PyObject *make_text(const void *key, size_t len)
{
	return PyUnicode_DecodeUTF8(key, (Py_ssize_t)len, "replace");
}

PyObject *pyetl_intern(struct pyetl_state *st, const char *s)
{
	struct pyetl_interned *in = st->interned;
	struct intern_front *f;
	PyObject *v;
	size_t len;

	if (!in) /* (a module object being torn down) */
		return make_text(s, strlen(s));
	f = &in->front[((uintptr_t)s >> 3) * 0x9E3779B9u >> 23 & (FRONT_SLOTS - 1)];
	/* strncmp stops at the end of s, so a shorter text there is never read past */
	if (f->at == s && strncmp(s, f->key, f->len) == 0 && s[f->len] == 0) {
		Py_INCREF(f->value);
		return f->value;
	}
	len = strlen(s);
	v = intern_find(in, s, len, make_text, &f->key);
	if (v) {
		f->at = s;
		f->len = len;
		f->value = v;
	} else {
		f->at = NULL;
	}
	return v;
}

static PyObject *make_guid(const void *key, size_t len)
{
	struct etl_guid g;
	char text[ETL_GUID_STRING_SIZE];

	(void)len;
	memcpy(&g, (const char *)key + 1, sizeof(g));
	etl_guid_format(&g, text);
	return PyUnicode_FromStringAndSize(text, ETL_GUID_STRING_SIZE - 1);
}

PyObject *pyetl_guid(struct pyetl_state *st, const struct etl_guid *g)
{
	char key[1 + sizeof(*g)];

	key[0] = 0; /* never the first byte of a UTF-8 name */
	memcpy(key + 1, g, sizeof(*g));
	return st->interned ? intern_find(st->interned, key, sizeof(key), make_guid, NULL) : make_guid(key, sizeof(key));
}

/* ---- arguments ---- */

int pyetl_filetime_arg(PyObject *o, uint64_t *ft)
{
	unsigned long long v;

	*ft = 0;
	if (!o || o == Py_None)
		return 0;
	if (!PyLong_Check(o)) {
		PyErr_SetString(PyExc_TypeError, "a time is None or a FILETIME int (libetl converts datetimes)");
		return -1;
	}
	v = PyLong_AsUnsignedLongLong(o);
	if (v == (unsigned long long)-1 && PyErr_Occurred())
		return -1;
	*ft = v;
	return 0;
}

/* ---- the module ---- */

static PyObject *mod_version(PyObject *m, PyObject *noargs)
{
	(void)m;
	(void)noargs;
	return PyUnicode_FromString(etl_version_string());
}

static PyObject *mod_version_details(PyObject *m, PyObject *noargs)
{
	(void)m;
	(void)noargs;
	return PyUnicode_FromString(etl_version_details());
}

/* The names of the analysis tables, as a tuple. */
static PyObject *table_names(void)
{
	size_t i, n = etl_table_kind_count();
	PyObject *names = PyTuple_New((Py_ssize_t)n);

	for (i = 0; names && i < n; i++) {
		PyObject *s = PyUnicode_FromString(etl_table_kind_name(i));
		if (!s)
			Py_CLEAR(names);
		else
			PyTuple_SET_ITEM(names, (Py_ssize_t)i, s);
	}
	return names;
}

/* ---- the providers that decode ---- */

static int provider_item(const struct etl_provider_info *p, void *ctx)
{
	char g[ETL_GUID_STRING_SIZE];
	PyObject *d;
	int rc;

	etl_guid_format(&p->guid, g);
	d = Py_BuildValue("{s:s,s:s,s:s,s:n,s:s,s:z}", "guid", g, "name", p->name ? p->name : "", "kind",
			  p->decoder == ETL_DECODER_BUILTIN_MANIFEST ? "built-in" : "given", "events",
			  (Py_ssize_t)p->events, "source", p->source ? p->source : "", "license", p->license);
	if (!d)
		return -1;
	rc = PyList_Append(ctx, d);
	Py_DECREF(d);
	return rc;
}

/* providers(manifests, builtin) -> list of dicts (libetl.providers) */
static PyObject *mod_providers(PyObject *m, PyObject *args)
{
	PyObject *paths, *out;
	int builtin = 1, st = ETL_OK;
	struct etl_manifests *set = NULL;
	Py_ssize_t i;

	if (!PyArg_ParseTuple(args, "Op", &paths, &builtin))
		return NULL;
	if (!(out = PyList_New(0)))
		return NULL;
	if (paths != Py_None) {
		if (!PyList_Check(paths) || !(set = etl_manifests_new())) {
			Py_DECREF(out);
			return PyList_Check(paths) ? PyErr_NoMemory() : (PyErr_SetString(PyExc_TypeError, "a list of paths"), NULL);
		}
		for (i = 0; i < PyList_GET_SIZE(paths) && st == ETL_OK; i++) {
			PyObject *b = PyUnicode_EncodeFSDefault(PyList_GET_ITEM(paths, i));
			if (!b) {
				st = ETL_E_MISUSE;
				break;
			}
			if ((st = etl_manifests_add_path(set, PyBytes_AS_STRING(b))) != ETL_OK)
				PyErr_Format(pyetl_module_state(m)->Error, "%s", etl_error_message(etl_manifests_error(set)));
			Py_DECREF(b);
		}
		if (st == ETL_OK && (st = etl_manifests_providers(set, provider_item, out)) != ETL_OK && !PyErr_Occurred())
			PyErr_NoMemory();
	}
	if (st == ETL_OK && builtin && etl_builtin_providers(provider_item, out) != ETL_OK)
		st = ETL_E_NOMEM;
	etl_manifests_free(set);
	if (st != ETL_OK) {
		Py_DECREF(out);
		return NULL;
	}
	return out;
}

static PyMethodDef module_methods[] = {
	{ "providers", mod_providers, METH_VARARGS,
	  "providers(manifests, builtin) -> list of dicts: the providers that decode (libetl.providers)." },
	{ "library_version", mod_version, METH_NOARGS, "The version of the libetl C library." },
	{ "library_version_details", mod_version_details, METH_NOARGS,
	  "The version of the libetl C library and its dependencies." },
	{ "filter_text", (PyCFunction)(void (*)(void))pyetl_filter_text_of, METH_VARARGS | METH_KEYWORDS,
	  "filter_text(*, providers=None, names=None, processes=None, ids=None, pids=None, level=None,\n"
	  "filter=None) -> str or None: the filter those arguments make, as Reader() makes it." },
	{ "table", (PyCFunction)pyetl_table, METH_VARARGS,
	  "table(reader, name, stacks=False) -> dict: an analysis table of an unread Reader as columns\n"
	  "(libetl.table builds the DataFrame)." },
	{ "report", (PyCFunction)pyetl_html_report, METH_VARARGS,
	  "report(reader, path): the HTML report of an unread Reader, written to path (libetl.report)." },
	{ "columns", (PyCFunction)(void (*)(void))pyetl_columns, METH_VARARGS | METH_KEYWORDS,
	  "columns(reader, names, fields=None, limit=0) -> dict: events of an open Reader as columns\n"
	  "(see libetl.to_pandas)." },
	{ "_event_from_state", pyetl_event_from_state, METH_O,
	  "The Event a pickle or copy made of Event.__reduce__'s state (libetl._event_from_state)." },
	{ NULL, NULL, 0, NULL },
};

struct pyetl_state *pyetl_module_state(PyObject *module)
{
	return PyModule_GetState(module);
}

struct pyetl_state *pyetl_state_of(PyObject *obj)
{
	return PyType_GetModuleState(Py_TYPE(obj));
}

static int add_type(PyObject *m, const char *name, PyObject *type)
{
	int rc = type ? PyModule_AddObjectRef(m, name, type) : -1;

	Py_XDECREF(type);
	return rc;
}

static int module_exec(PyObject *m)
{
	struct pyetl_state *st = pyetl_module_state(m);

	if (pyetl_values_init() < 0)
		return -1;
	if (!(st->interned = PyMem_Calloc(1, sizeof(*st->interned)))) {
		PyErr_NoMemory();
		return -1;
	}
	st->Error = PyErr_NewExceptionWithDoc("libetl.Error",
					      "A trace could not be read: not a trace, an I/O error, or out of memory.",
					      PyExc_OSError, NULL);
	st->DamageWarning = PyErr_NewExceptionWithDoc(
		"libetl.DamageWarning", "Damaged or unsupported data was skipped; reading went on.",
		PyExc_RuntimeWarning, NULL);
	st->Reader = (PyTypeObject *)pyetl_reader_type_new(m);
	st->Event = (PyTypeObject *)pyetl_event_type_new(m);
	st->Frame = pyetl_frame_type_new();
	st->FilterWarning = PyErr_NewExceptionWithDoc(
		"libetl.FilterWarning", "A filter's pattern matched no event: the message names the closest names.",
		PyExc_UserWarning, NULL);
	if (!st->Error || !st->DamageWarning || !st->FilterWarning || !st->Reader || !st->Event || !st->Frame)
		return -1;
	if (PyModule_AddObjectRef(m, "Error", st->Error) < 0 ||
	    PyModule_AddObjectRef(m, "DamageWarning", st->DamageWarning) < 0 ||
	    PyModule_AddObjectRef(m, "FilterWarning", st->FilterWarning) < 0 ||
	    PyModule_AddObjectRef(m, "Reader", (PyObject *)st->Reader) < 0 ||
	    PyModule_AddObjectRef(m, "Event", (PyObject *)st->Event) < 0 ||
	    PyModule_AddObjectRef(m, "Frame", (PyObject *)st->Frame) < 0)
		return -1;
	if (add_type(m, "TABLES", table_names()) < 0)
		return -1;
	return add_type(m, "FILETIME_UNIX_EPOCH", PyLong_FromUnsignedLongLong(ETL_FILETIME_UNIX_EPOCH));
}

static int module_traverse(PyObject *m, visitproc visit, void *arg)
{
	struct pyetl_state *st = pyetl_module_state(m);

	Py_VISIT(st->Error);
	Py_VISIT(st->DamageWarning);
	Py_VISIT(st->FilterWarning);
	Py_VISIT(st->Reader);
	Py_VISIT(st->Event);
	Py_VISIT(st->Frame);
	return 0;
}

static int module_clear(PyObject *m)
{
	struct pyetl_state *st = pyetl_module_state(m);

	Py_CLEAR(st->Error);
	Py_CLEAR(st->DamageWarning);
	Py_CLEAR(st->FilterWarning);
	Py_CLEAR(st->Reader);
	Py_CLEAR(st->Event);
	Py_CLEAR(st->Frame);
	return 0;
}

static void module_free(void *m)
{
	struct pyetl_state *st = pyetl_module_state(m);

	module_clear(m);
	if (st && st->interned) {
		intern_clear(st->interned);
		PyMem_Free(st->interned);
		st->interned = NULL;
	}
}

/* Each interpreter gets a module object of its own, with its state (names, types), but the
 * datetime C API it makes values with is one pointer per process (datetime.h): interpreters that
 * share the main GIL are supported, not those with a GIL of their own.  The module relies on the
 * GIL (its state is used under it) where Python has a free-threaded build. */
static PyModuleDef_Slot module_slots[] = {
	{ Py_mod_exec, NULL }, /* (module_exec: set by PyInit__libetl) */
#if PY_VERSION_HEX >= 0x030C0000
	{ Py_mod_multiple_interpreters, Py_MOD_MULTIPLE_INTERPRETERS_SUPPORTED },
#endif
#if PY_VERSION_HEX >= 0x030D0000
	{ Py_mod_gil, Py_MOD_GIL_USED },
#endif
	{ 0, NULL },
};

static struct PyModuleDef module = {
	PyModuleDef_HEAD_INIT,
	.m_name = "_libetl",
	.m_doc = "The C core of the libetl package: read Windows ETW traces (.etl) with libetl.",
	.m_size = sizeof(struct pyetl_state),
	.m_methods = module_methods,
	.m_slots = module_slots,
	.m_traverse = module_traverse,
	.m_clear = module_clear,
	.m_free = module_free,
};

/* Multi-phase initialisation (PEP 489): module_exec runs for each module object. */
PyMODINIT_FUNC PyInit__libetl(void);
PyMODINIT_FUNC PyInit__libetl(void)
{
	module_slots[0].value = pyetl_fn((void (*)(void))module_exec);
	return PyModuleDef_Init(&module);
}

/*
 * filter.c - the filters libetl.open() and to_pandas() apply in C, so that
 * the events they skip never become Python objects: providers (GUIDs, or
 * names and globs matched against the decoded provider name), event names
 * (globs over "Provider/Task/Opcode"), ids, a maximum level and pids.  The
 * time range is the reader's own window (etl_reader_set_time_window).
 *
 * SPDX-License-Identifier: MIT
 */
#include "pyetl.h"

#include <fnmatch.h>
#include <string.h>

#define MEMO_MAX 65536u /* names remembered; past it, the globs are matched each time */

struct memo_entry {
	char *name;
	int kind; /* 0: a provider name, 1: an event name */
	int hit;
};

struct memo_key {
	const char *name;
	int kind;
};

static int memo_eq(const void *e, const void *k)
{
	const struct memo_entry *a = e;
	const struct memo_key *b = k;

	return a->kind == b->kind && strcmp(a->name, b->name) == 0;
}

/* A str or an iterable of str as a list of str; NULL with an exception. */
static PyObject *str_list(PyObject *o, const char *what)
{
	PyObject *list;
	Py_ssize_t i;

	if (PyUnicode_Check(o))
		return Py_BuildValue("[O]", o);
	list = PySequence_List(o);
	if (!list)
		return NULL;
	for (i = 0; i < PyList_GET_SIZE(list); i++)
		if (!PyUnicode_Check(PyList_GET_ITEM(list, i))) {
			Py_DECREF(list);
			return PyErr_Format(PyExc_TypeError, "%s: a str or a list of str", what);
		}
	return list;
}

static char *copy_utf8(PyObject *s)
{
	const char *u = PyUnicode_AsUTF8(s);
	char *c;

	if (!u)
		return NULL;
	c = PyMem_Malloc(strlen(u) + 1);
	if (!c)
		return (char *)PyErr_NoMemory();
	strcpy(c, u);
	return c;
}

static int add_providers(struct pyfilter *f, PyObject *spec)
{
	PyObject *list = str_list(spec, "providers");
	Py_ssize_t i, n;

	if (!list)
		return -1;
	n = PyList_GET_SIZE(list);
	f->guids = PyMem_Calloc((size_t)n + 1, sizeof(*f->guids));
	f->provider_globs = PyMem_Calloc((size_t)n + 1, sizeof(*f->provider_globs));
	if (!f->guids || !f->provider_globs) {
		Py_DECREF(list);
		PyErr_NoMemory();
		return -1;
	}
	for (i = 0; i < n; i++) {
		const char *u = PyUnicode_AsUTF8(PyList_GET_ITEM(list, i));
		if (!u) {
			Py_DECREF(list);
			return -1;
		}
		if (etl_guid_parse(u, &f->guids[f->nguids]) == ETL_OK)
			f->nguids++;
		else if (!(f->provider_globs[f->nprovider_globs++] = copy_utf8(PyList_GET_ITEM(list, i)))) {
			Py_DECREF(list);
			return -1;
		}
	}
	Py_DECREF(list);
	return 0;
}

static int add_names(struct pyfilter *f, PyObject *spec)
{
	PyObject *list = str_list(spec, "names");
	Py_ssize_t i, n;

	if (!list)
		return -1;
	n = PyList_GET_SIZE(list);
	f->name_globs = PyMem_Calloc((size_t)n + 1, sizeof(*f->name_globs));
	if (!f->name_globs) {
		Py_DECREF(list);
		PyErr_NoMemory();
		return -1;
	}
	for (i = 0; i < n; i++)
		if (!(f->name_globs[f->nname_globs++] = copy_utf8(PyList_GET_ITEM(list, i)))) {
			Py_DECREF(list);
			return -1;
		}
	Py_DECREF(list);
	return 0;
}

/* An int or an iterable of ints, each in [0, max], through add(). */
static int int_values(PyObject *spec, const char *what, unsigned long max, int (*add)(struct pyfilter *, unsigned long),
		      struct pyfilter *f)
{
	PyObject *list = PyLong_Check(spec) ? Py_BuildValue("[O]", spec) : PySequence_List(spec);
	Py_ssize_t i;

	if (!list)
		return -1;
	for (i = 0; i < PyList_GET_SIZE(list); i++) {
		unsigned long v = PyLong_AsUnsignedLong(PyList_GET_ITEM(list, i));
		if ((v == (unsigned long)-1 && PyErr_Occurred()) || v > max) {
			Py_DECREF(list);
			PyErr_Format(PyExc_ValueError, "%s: integers from 0 to %lu", what, max);
			return -1;
		}
		if (add(f, v) != 0) {
			Py_DECREF(list);
			return -1;
		}
	}
	Py_DECREF(list);
	return 0;
}

static int add_id(struct pyfilter *f, unsigned long v)
{
	f->ids[v >> 3] |= (uint8_t)(1u << (v & 7));
	return 0;
}

static int add_pid(struct pyfilter *f, unsigned long v)
{
	uint32_t *n = PyMem_Realloc(f->pids, (f->npids + 1) * sizeof(*n));

	if (!n) {
		PyErr_NoMemory();
		return -1;
	}
	f->pids = n;
	f->pids[f->npids++] = (uint32_t)v;
	return 0;
}

int pyfilter_init(struct pyfilter *f, PyObject *providers, PyObject *names, PyObject *ids, PyObject *level,
		  PyObject *pids)
{
	memset(f, 0, sizeof(*f));
	f->max_level = -1;
	if (providers && providers != Py_None && add_providers(f, providers) != 0)
		return -1;
	if (names && names != Py_None && add_names(f, names) != 0)
		return -1;
	if (f->nprovider_globs || f->nname_globs) { /* (without memory: matched each time) */
		if ((f->memo = PyMem_Malloc(sizeof(*f->memo))) != NULL)
			hmap_init(f->memo, sizeof(struct memo_entry));
	}
	if (ids && ids != Py_None) {
		f->ids = PyMem_Calloc(65536 / 8, 1);
		if (!f->ids) {
			PyErr_NoMemory();
			return -1;
		}
		if (int_values(ids, "ids", 65535, add_id, f) != 0)
			return -1;
	}
	if (level && level != Py_None) {
		long v = PyLong_AsLong(level);
		if ((v == -1 && PyErr_Occurred()) || v < 0 || v > 255) {
			PyErr_SetString(PyExc_ValueError, "level: an integer from 0 to 255");
			return -1;
		}
		f->max_level = (int)v;
	}
	if (pids && pids != Py_None && int_values(pids, "pids", UINT32_MAX, add_pid, f) != 0)
		return -1;
	return 0;
}

void pyfilter_free(struct pyfilter *f)
{
	size_t i;

	for (i = 0; i < f->nprovider_globs; i++)
		PyMem_Free(f->provider_globs[i]);
	for (i = 0; i < f->nname_globs; i++)
		PyMem_Free(f->name_globs[i]);
	PyMem_Free(f->provider_globs);
	PyMem_Free(f->name_globs);
	if (f->memo) {
		for (i = 0; i < f->memo->cap; i++) {
			struct memo_entry *e = hmap_at(f->memo, i);
			if (e && e->kind >= 0)
				PyMem_RawFree(e->name);
		}
		hmap_free(f->memo);
		PyMem_Free(f->memo);
	}
	PyMem_Free(f->guids);
	PyMem_Free(f->ids);
	PyMem_Free(f->pids);
	memset(f, 0, sizeof(*f));
	f->max_level = -1;
}

int pyfilter_needs_names(const struct pyfilter *f)
{
	return f->nprovider_globs > 0 || f->nname_globs > 0;
}

int pyfilter_header(const struct pyfilter *f, const struct etl_reader *r, const struct etl_event *ev)
{
	size_t i;

	if (f->ids && !(f->ids[etl_event_id(ev) >> 3] & (1u << (etl_event_id(ev) & 7))))
		return 0;
	if (f->max_level >= 0 && etl_event_level(ev) > f->max_level)
		return 0;
	if (f->npids) { /* the process the event is about: its header's, else its payload's */
		uint32_t pid = etl_reader_event_pid(r, ev);
		for (i = 0; i < f->npids && f->pids[i] != pid; i++)
			;
		if (i == f->npids)
			return 0;
	}
	if (f->nguids && !f->nprovider_globs) {
		for (i = 0; i < f->nguids && !etl_guid_equal(&f->guids[i], etl_event_provider(ev)); i++)
			;
		if (i == f->nguids)
			return 0;
	}
	return 1;
}

static int any_glob(char *const *globs, size_t n, const char *s)
{
	size_t i;

	for (i = 0; s && i < n; i++)
		if (fnmatch(globs[i], s, 0) == 0)
			return 1;
	return 0;
}

/* any_glob, remembered per name. */
static int memo_glob(struct hmap *memo, int kind, char *const *globs, size_t n, const char *s)
{
	struct memo_key key = { s, kind };
	uint64_t h;
	struct memo_entry *e;
	int hit;

	if (!s)
		return 0;
	h = hmap_hash_bytes(s, strlen(s), (uint64_t)kind + 1);
	if (memo && (e = hmap_find(memo, h, memo_eq, &key)) != NULL)
		return e->hit;
	hit = any_glob(globs, n, s);
	if (memo && memo->count < MEMO_MAX && (e = hmap_insert(memo, h)) != NULL) {
		if ((e->name = PyMem_RawMalloc(strlen(s) + 1)) != NULL) { /* (matched without the GIL) */
			strcpy(e->name, s);
			e->kind = kind;
			e->hit = hit;
		} else {
			e->name = (char *)""; /* (an entry no name equals: never found; not freed) */
			e->kind = -1;
		}
	}
	return hit;
}

int pyfilter_names(const struct pyfilter *f, const struct etl_event *ev, const struct etl_decoded *d)
{
	if (f->nprovider_globs) {
		size_t i;
		int ok = 0;
		for (i = 0; i < f->nguids && !ok; i++)
			ok = etl_guid_equal(&f->guids[i], etl_event_provider(ev));
		if (!ok && !memo_glob(f->memo, 0, f->provider_globs, f->nprovider_globs,
				      d ? etl_decoded_provider_name(d) : NULL))
			return 0;
	}
	if (f->nname_globs && !memo_glob(f->memo, 1, f->name_globs, f->nname_globs, d ? etl_decoded_name(d) : NULL))
		return 0;
	return 1;
}

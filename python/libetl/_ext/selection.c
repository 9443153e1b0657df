/*
 * selection.c - the filter keyword arguments of libetl.open() and
 * to_pandas() as one library filter (etl_filter, docs/FILTERS.md), as
 * etldump's options make theirs: providers=, names=, processes= (globs),
 * ids=, pids= (ints), level= (at most), each a term whose values are or'ed,
 * and filter= (an expression), all and'ed.
 *
 * SPDX-License-Identifier: MIT
 */
#include "pyetl.h"

struct text {
	char *s;
	size_t n, cap;
};

static int put(struct text *t, const char *s, size_t n)
{
	if (t->n + n + 1 > t->cap) {
		size_t cap = (t->n + n + 1) * 2;
		char *p = PyMem_Realloc(t->s, cap);
		if (!p) {
			PyErr_NoMemory();
			return -1;
		}
		t->s = p;
		t->cap = cap;
	}
	memcpy(t->s + t->n, s, n);
	t->n += n;
	t->s[t->n] = 0;
	return 0;
}

static int puts_(struct text *t, const char *s)
{
	return put(t, s, strlen(s));
}

/* "field op "value"" with the value's quotes and backslashes escaped. */
static int put_term(struct text *t, const char *field_op, const char *v)
{
	if (puts_(t, field_op) < 0 || puts_(t, " \"") < 0)
		return -1;
	for (; *v; v++)
		if (((*v == '"' || *v == '\\') && put(t, "\\", 1) < 0) || put(t, v, 1) < 0)
			return -1;
	return put(t, "\"", 1);
}

/* A str or int, or an iterable of them, as a list; NULL with an exception. */
static PyObject *as_list(PyObject *o, int ints, const char *what)
{
	PyObject *list = (ints ? PyLong_Check(o) : PyUnicode_Check(o)) ? Py_BuildValue("[O]", o) : PySequence_List(o);
	Py_ssize_t i;

	for (i = 0; list && i < PyList_GET_SIZE(list); i++)
		if (ints ? !PyLong_Check(PyList_GET_ITEM(list, i)) : !PyUnicode_Check(PyList_GET_ITEM(list, i))) {
			Py_DECREF(list);
			return PyErr_Format(PyExc_TypeError, "%s: %s or a list of them", what, ints ? "an int" : "a str");
		}
	if (list && PyList_GET_SIZE(list) == 0) {
		Py_DECREF(list);
		return PyErr_Format(PyExc_ValueError, "%s: an empty list matches nothing", what);
	}
	return list;
}

/* One keyword argument's term: "(field = v1 or field = v2 ...)", and'ed after what is there. */
static int add_group(struct text *t, PyObject *spec, const char *field_op, int ints, unsigned long max,
		     const char *what)
{
	PyObject *list;
	Py_ssize_t i;
	int rc = 0;

	if (!spec || spec == Py_None)
		return 0;
	if (!(list = as_list(spec, ints, what)))
		return -1;
	rc = puts_(t, t->n ? " and (" : "(");
	for (i = 0; rc == 0 && i < PyList_GET_SIZE(list); i++) {
		PyObject *o = PyList_GET_ITEM(list, i);
		char num[32];
		const char *v;
		if (ints) {
			unsigned long x = PyLong_AsUnsignedLong(o);
			if ((x == (unsigned long)-1 && PyErr_Occurred()) || x > max) {
				PyErr_Clear();
				PyErr_Format(PyExc_ValueError, "%s: integers from 0 to %lu", what, max);
				rc = -1;
				break;
			}
			snprintf(num, sizeof(num), "%lu", x);
			v = num;
		} else if (!(v = PyUnicode_AsUTF8(o)) || !*v) {
			if (v)
				PyErr_Format(PyExc_ValueError, "%s: an empty name", what);
			rc = -1;
			break;
		}
		rc = (i && puts_(t, " or ") < 0) || put_term(t, field_op, v) < 0 ? -1 : 0;
	}
	Py_DECREF(list);
	return rc < 0 || put(t, ")", 1) < 0 ? -1 : 0;
}

/* filter=: the expression, in parentheses. */
static int add_expr(struct text *t, PyObject *o)
{
	const char *v;

	if (!o || o == Py_None)
		return 0;
	if (!PyUnicode_Check(o)) {
		PyErr_SetString(PyExc_TypeError, "filter: a str");
		return -1;
	}
	if (!(v = PyUnicode_AsUTF8(o)))
		return -1;
	{ /* a filter of its own first, so that it cannot close the parenthesis it goes in */
		struct etl_filter *alone = pyetl_filter_text(v);
		if (!alone)
			return -1;
		etl_filter_free(alone);
	}
	return puts_(t, t->n ? " and (" : "(") < 0 || puts_(t, v) < 0 || puts_(t, ")") < 0 ? -1 : 0;
}

/* The arguments' terms, and'ed, into t; -1 with an exception. */
static int build(struct text *t, const struct pyetl_filter_args *a)
{
	if (add_group(t, a->providers, "@provider =", 0, 0, "providers") < 0 ||
	    add_group(t, a->names, "@name =", 0, 0, "names") < 0 ||
	    add_group(t, a->processes, "@process =", 0, 0, "processes") < 0 ||
	    add_group(t, a->ids, "@id =", 1, 65535, "ids") < 0 || add_group(t, a->pids, "@pid =", 1, UINT32_MAX, "pids") < 0 ||
	    add_group(t, a->level, "@level <=", 1, 255, "level") < 0 || add_expr(t, a->expr) < 0)
		return -1;
	return 0;
}

PyObject *pyetl_filter_text_of(PyObject *module, PyObject *args, PyObject *kwargs)
{
	static char *kw[] = { "providers", "names", "processes", "ids", "pids", "level", "filter", NULL };
	struct pyetl_filter_args a = { NULL, NULL, NULL, NULL, NULL, NULL, NULL };
	struct text t = { NULL, 0, 0 };
	PyObject *out = NULL;

	(void)module;
	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$OOOOOOO", kw, &a.providers, &a.names, &a.processes, &a.ids,
					 &a.pids, &a.level, &a.expr))
		return NULL;
	if (build(&t, &a) == 0)
		out = t.n ? PyUnicode_FromStringAndSize(t.s, (Py_ssize_t)t.n) : Py_NewRef(Py_None);
	PyMem_Free(t.s);
	return out;
}

int pyetl_filter_new(const struct pyetl_filter_args *a, struct etl_filter **out)
{
	struct text t = { NULL, 0, 0 };
	char err[300];
	int rc = 0;

	*out = NULL;
	if (build(&t, a) < 0)
		rc = -1;
	else if (t.n && etl_filter_new(t.s, out, err, sizeof(err)) != ETL_OK) {
		PyErr_SetString(PyExc_ValueError, err);
		rc = -1;
	}
	PyMem_Free(t.s);
	return rc;
}

struct etl_filter *pyetl_filter_text(const char *text)
{
	struct etl_filter *f = NULL;
	char err[300];

	if (etl_filter_new(text, &f, err, sizeof(err)) != ETL_OK)
		PyErr_SetString(PyExc_ValueError, err);
	return f;
}

int pyetl_warn_unmatched(ReaderObject *rd)
{
	const char *field, *pattern, *near[3];
	size_t i, n, k;

	if (!rd->filter || rd->unmatched_said)
		return 0;
	rd->unmatched_said = 1;
	for (i = 0; (pattern = etl_filter_unmatched(rd->filter, i, &field)) != NULL; i++) {
		char msg[1200];
		int len;
		n = etl_filter_closest(rd->filter, i, near, 3);
		len = snprintf(msg, sizeof(msg), "no %s matched '%.300s'", strcmp(field, "name") == 0 ? "event name" : field,
			       pattern);
		for (k = 0; k < n && len > 0 && (size_t)len < sizeof(msg); k++)
			len += snprintf(msg + len, sizeof(msg) - (size_t)len, "%s'%.200s'", k ? ", " : " (closest: ", near[k]);
		if (n && len > 0 && (size_t)len < sizeof(msg))
			snprintf(msg + len, sizeof(msg) - (size_t)len, ")");
		if (PyErr_WarnEx(pyetl_state_of((PyObject *)rd)->FilterWarning, msg, 1) < 0)
			return -1;
	}
	return 0;
}

/*
 * reader.c - libetl.Reader: one libetl reader over one or several inputs
 * (merged in time order), iterated into Event objects.
 *
 * Damage is never silent: each error libetl reports while reading (and each
 * payload that contradicts its schema) becomes a dict in reader.damage and
 * goes to the on_damage callable, or to warnings.warn as a DamageWarning;
 * reading goes on as in C.  Errors libetl cannot read past (I/O, memory)
 * raise libetl.Error.
 *
 * SPDX-License-Identifier: MIT
 */
#include "pyetl.h"

#include <string.h>

/* A libetl.Error with the message, and as attributes the status ("format", "io", ...), the
 * offset in the input (None when there is none) and the input's path (None when unknown). */
static PyObject *raise_error(PyObject *type, const struct etl_error *e, const char *msg, const char *path)
{
	uint64_t off = e ? etl_error_offset(e) : UINT64_MAX;
	PyObject *exc = PyObject_CallFunction(type, "s", msg), *v;
	int bad = !exc;

	if (exc) {
		v = off == UINT64_MAX ? (Py_INCREF(Py_None), Py_None) : PyLong_FromUnsignedLongLong(off);
		bad |= !v || PyObject_SetAttrString(exc, "offset", v) < 0;
		Py_XDECREF(v);
		v = e ? PyUnicode_FromString(etl_status_string(etl_error_code(e))) : (Py_INCREF(Py_None), Py_None);
		bad |= !v || PyObject_SetAttrString(exc, "status", v) < 0;
		Py_XDECREF(v);
		v = path ? PyUnicode_DecodeFSDefault(path) : (Py_INCREF(Py_None), Py_None);
		bad |= !v || PyObject_SetAttrString(exc, "path", v) < 0;
		Py_XDECREF(v);
	}
	if (!bad)
		PyErr_SetObject(type, exc);
	Py_XDECREF(exc);
	return NULL;
}

PyObject *pyetl_raise_path(ReaderObject *self, const char *fallback, const char *path)
{
	struct etl_reader *r = self->r;
	const struct etl_error *e = r ? etl_reader_error(r) : NULL;
	int code = e ? etl_error_code(e) : ETL_E_NOMEM;
	int ti = e ? etl_error_trace_index(e) : -1;
	const struct etl_trace_info *t = ti >= 0 ? etl_reader_trace_info(r, ti) : NULL;

	if (code == ETL_E_NOMEM)
		return PyErr_NoMemory();
	if (code == ETL_E_MISUSE)
		return PyErr_Format(PyExc_ValueError, "%s", e ? etl_error_message(e) : fallback);
	return raise_error(pyetl_state_of((PyObject *)self)->Error, e, e ? etl_error_message(e) : fallback,
			   path ? path : t ? etl_trace_info_name(t) : NULL);
}

PyObject *pyetl_raise(ReaderObject *self, const char *fallback)
{
	return pyetl_raise_path(self, fallback, NULL);
}

/* ---- damage ---- */

static PyObject *damage_dict(ReaderObject *self, const char *kind)
{
	const struct etl_error *e = etl_reader_error(self->r);
	int ti = etl_error_trace_index(e);
	const struct etl_trace_info *t = ti >= 0 ? etl_reader_trace_info(self->r, ti) : NULL;
	uint64_t off = etl_error_offset(e);
	PyObject *offset = off == UINT64_MAX ? (Py_INCREF(Py_None), Py_None) : PyLong_FromUnsignedLongLong(off);

	if (!offset)
		return NULL;
	return Py_BuildValue("{s:s,s:s,s:s,s:N,s:i,s:L,s:s}", "kind", kind, "message", etl_error_message(e), "status",
			     etl_status_string(etl_error_code(e)), "offset", offset, "trace", ti, "buffer",
			     (long long)etl_error_buffer_index(e), "file", t ? etl_trace_info_name(t) : "");
}

/* The folder of the package (".../libetl/"), from the extension's __file__; a new reference or
 * NULL (no exception) when it cannot be known. */
static PyObject *package_folder(void)
{
	PyObject *name = PyUnicode_FromString("libetl._libetl"), *m, *file, *dir = NULL;
	Py_ssize_t cut;

	m = name ? PyImport_GetModule(name) : NULL;
	Py_XDECREF(name);
	file = m ? PyModule_GetFilenameObject(m) : NULL;
	Py_XDECREF(m);
	if (file && (cut = PyUnicode_FindChar(file, '/', 0, PyUnicode_GET_LENGTH(file), -1)) >= 0)
		dir = PyUnicode_Substring(file, 0, cut + 1);
	Py_XDECREF(file);
	PyErr_Clear();
	return dir;
}

/* The stacklevel of a warning that points at the first frame outside the package: damage met
 * inside to_pandas, table or the Dask readers is the caller's line, not libetl's own. */
static int caller_stacklevel(void)
{
	PyObject *dir = package_folder();
	PyFrameObject *f = PyEval_GetFrame();
	int level = 1;

	Py_XINCREF(f);
	while (dir && f) {
		PyCodeObject *code = PyFrame_GetCode(f);
		PyObject *file = PyObject_GetAttrString((PyObject *)code, "co_filename");
		PyFrameObject *back;
		int ours = file && PyUnicode_Check(file) &&
			   PyUnicode_Tailmatch(file, dir, 0, PyUnicode_GET_LENGTH(dir), -1) == 1;
		Py_XDECREF(file);
		Py_DECREF(code);
		if (!ours)
			break;
		back = PyFrame_GetBack(f);
		Py_DECREF(f);
		f = back;
		level++;
	}
	Py_XDECREF(f);
	Py_XDECREF(dir);
	PyErr_Clear();
	return level;
}

int pyetl_report(ReaderObject *self, const char *kind)
{
	PyObject *d = damage_dict(self, kind), *r;
	int rc = 0;

	if (!d || PyList_Append(self->damage, d) < 0) {
		Py_XDECREF(d);
		return -1;
	}
	if (self->on_damage) {
		r = PyObject_CallOneArg(self->on_damage, d);
		rc = r ? 0 : -1;
		Py_XDECREF(r);
	} else {
		PyObject *off = PyDict_GetItemString(d, "offset");
		rc = PyErr_WarnFormat(pyetl_state_of((PyObject *)self)->DamageWarning, caller_stacklevel(),
				      "%s: offset %S: %s",
				      PyUnicode_AsUTF8(PyDict_GetItemString(d, "file")), off,
				      PyUnicode_AsUTF8(PyDict_GetItemString(d, "message")));
	}
	Py_DECREF(d);
	return rc;
}

/* ---- setup ---- */

/* The name of an input as open_input takes it (NULL for bytes). */
static const char *input_name(PyObject *item)
{
	PyObject *name = PyTuple_Check(item) && PyTuple_GET_SIZE(item) == 2 ? PyTuple_GET_ITEM(item, 1) : item;

	return PyUnicode_Check(name) ? PyUnicode_AsUTF8(name) : NULL;
}

/* One input: a path (str or bytes path), a trace in memory (bytes-like, kept alive), or a
 * (descriptor, name) tuple. */
static int open_input(ReaderObject *self, PyObject *item)
{
	int st;

	if (PyUnicode_Check(item)) {
		const char *path = PyUnicode_AsUTF8(item);
		if (!path)
			return -1;
		Py_BEGIN_ALLOW_THREADS /* (a zip or gzip may be unpacked: other threads run) */
		st = etl_reader_open_path(self->r, path);
		Py_END_ALLOW_THREADS
	} else if (PyTuple_Check(item)) {
		int fd;
		const char *name;
		if (!PyArg_ParseTuple(item, "is", &fd, &name))
			return -1;
		Py_BEGIN_ALLOW_THREADS
		st = etl_reader_open_fd(self->r, fd, name);
		Py_END_ALLOW_THREADS
	} else if (PyBytes_Check(item)) {
		if (PyList_Append(self->keep, item) < 0)
			return -1;
		Py_BEGIN_ALLOW_THREADS /* (the bytes object is kept: it cannot change meanwhile) */
		st = etl_reader_open_memory(self->r, PyBytes_AS_STRING(item), (size_t)PyBytes_GET_SIZE(item),
					    "(bytes)");
		Py_END_ALLOW_THREADS
	} else {
		PyErr_SetString(PyExc_TypeError, "an input is a path, bytes, or a (fd, name) tuple");
		return -1;
	}
	if (st != ETL_OK) {
		pyetl_raise_path(self, "cannot open the input", input_name(item));
		return -1;
	}
	return 0;
}

static int add_manifests(ReaderObject *self, PyObject *manifests)
{
	PyObject *list;
	Py_ssize_t i;

	if (!manifests || manifests == Py_None)
		return 0;
	list = PyUnicode_Check(manifests) ? Py_BuildValue("[O]", manifests) : PySequence_List(manifests);
	if (!list)
		return -1;
	for (i = 0; i < PyList_GET_SIZE(list); i++) {
		PyObject *m = PyList_GET_ITEM(list, i);
		unsigned before = etl_reader_manifest_warnings(self->r);
		int st;
		if (PyUnicode_Check(m))
			st = etl_reader_add_manifest_path(self->r, PyUnicode_AsUTF8(m));
		else if (PyBytes_Check(m))
			st = etl_reader_add_manifest_memory(self->r, PyBytes_AS_STRING(m), (size_t)PyBytes_GET_SIZE(m),
							    "(bytes)");
		else {
			Py_DECREF(list);
			PyErr_SetString(PyExc_TypeError, "a manifest is a path or the XML as bytes");
			return -1;
		}
		if (st != ETL_OK) {
			Py_DECREF(list);
			pyetl_raise(self, "cannot load the manifest");
			return -1;
		}
		if (etl_reader_manifest_warnings(self->r) != before && pyetl_report(self, "manifest") < 0) {
			Py_DECREF(list);
			return -1;
		}
	}
	Py_DECREF(list);
	return 0;
}

/* TMF files or folders for WPP messages: a path or a list of paths. */
static int add_tmf(ReaderObject *self, PyObject *tmf)
{
	PyObject *list;
	Py_ssize_t i;

	if (!tmf || tmf == Py_None)
		return 0;
	list = PyUnicode_Check(tmf) ? Py_BuildValue("[O]", tmf) : PySequence_List(tmf);
	if (!list)
		return -1;
	for (i = 0; i < PyList_GET_SIZE(list); i++) {
		PyObject *m = PyList_GET_ITEM(list, i);
		unsigned before = etl_reader_tmf_warnings(self->r);
		if (!PyUnicode_Check(m)) {
			Py_DECREF(list);
			PyErr_SetString(PyExc_TypeError, "a TMF input is a path to a file or folder");
			return -1;
		}
		if (etl_reader_add_tmf_path(self->r, PyUnicode_AsUTF8(m)) != ETL_OK) {
			Py_DECREF(list);
			pyetl_raise(self, "cannot read the TMF files");
			return -1;
		}
		if (etl_reader_tmf_warnings(self->r) != before && pyetl_report(self, "tmf") < 0) {
			Py_DECREF(list);
			return -1;
		}
	}
	Py_DECREF(list);
	return 0;
}

/* Symbol paths for PDB files: a path (or symbol path string) or a list of them. */
static int add_symbols(ReaderObject *self, PyObject *symbols)
{
	PyObject *list;
	Py_ssize_t i;

	if (!symbols || symbols == Py_None)
		return 0;
	list = PyUnicode_Check(symbols) ? Py_BuildValue("[O]", symbols) : PySequence_List(symbols);
	if (!list)
		return -1;
	for (i = 0; i < PyList_GET_SIZE(list); i++) {
		PyObject *m = PyList_GET_ITEM(list, i);
		if (!PyUnicode_Check(m)) {
			Py_DECREF(list);
			PyErr_SetString(PyExc_TypeError, "a symbol path is a str");
			return -1;
		}
		if (etl_reader_add_symbol_path(self->r, PyUnicode_AsUTF8(m)) != ETL_OK) {
			Py_DECREF(list);
			PyErr_NoMemory();
			return -1;
		}
	}
	Py_DECREF(list);
	return 0;
}

int pyetl_reader_setup(ReaderObject *self, PyObject *paths, PyObject *manifests, const char *order, int stacks,
		       uint64_t since, uint64_t until)
{
	PyObject *list;
	Py_ssize_t i;

	if (strcmp(order, "time") != 0 && strcmp(order, "file") != 0) {
		PyErr_SetString(PyExc_ValueError, "order is 'time' or 'file'");
		return -1;
	}
	if (etl_reader_set_order(self->r, strcmp(order, "file") == 0 ? ETL_ORDER_FILE : ETL_ORDER_TIME) != ETL_OK ||
	    etl_reader_set_option(self->r, ETL_OPTION_STACKS, stacks != 0) != ETL_OK ||
	    ((since || until) && etl_reader_set_time_window(self->r, since, until) != ETL_OK)) {
		pyetl_raise(self, "bad reader option");
		return -1;
	}
	if (add_manifests(self, manifests) < 0)
		return -1;
	list = PySequence_List(paths);
	if (!list)
		return -1;
	for (i = 0; i < PyList_GET_SIZE(list); i++)
		if (open_input(self, PyList_GET_ITEM(list, i)) < 0) {
			Py_DECREF(list);
			return -1;
		}
	Py_DECREF(list);
	if (i == 0) {
		PyErr_SetString(PyExc_ValueError, "no input");
		return -1;
	}
	return 0;
}

/* slice=: a time slice's state (bytes from Reader.plan_slices), given before the inputs open. */
static int set_slice(ReaderObject *self, PyObject *slice, uint64_t since, uint64_t until)
{
	Py_buffer view;
	int st;

	if (!slice || slice == Py_None)
		return 0;
	if (since || until) {
		PyErr_SetString(PyExc_ValueError, "slice= sets the slice's times: not with since= or until=");
		return -1;
	}
	if (PyObject_GetBuffer(slice, &view, PyBUF_SIMPLE) < 0)
		return -1;
	st = etl_reader_set_slice(self->r, view.buf, (size_t)view.len);
	PyBuffer_Release(&view);
	if (st != ETL_OK) {
		PyErr_Format(PyExc_ValueError, "slice: %s", etl_error_message(etl_reader_error(self->r)));
		return -1;
	}
	return 0;
}

static int Reader_init(ReaderObject *self, PyObject *args, PyObject *kwargs)
{
	static char *kw[] = { "inputs", "manifests", "order", "stacks", "since", "until", "providers", "names",
			      "ids", "level", "pids", "on_damage", "keep", "derive", "tmf", "threads", "times", "symbols",
			      "slice", "builtin_manifests", "processes", "filter", NULL };
	PyObject *paths, *manifests = NULL, *since_o = NULL, *until_o = NULL, *providers = NULL, *names = NULL;
	PyObject *ids = NULL, *level = NULL, *pids = NULL, *on_damage = NULL, *keep = NULL, *tmf = NULL;
	PyObject *symbols = NULL, *slice = NULL, *processes = NULL, *expr = NULL;
	struct pyetl_filter_args fa;
	const char *order = "time", *times = "datetime";
	int stacks = 1, derive = 0, threads = 0, builtin = 1;
	uint64_t since, until;

	if (self->r) {
		PyErr_SetString(PyExc_RuntimeError, "a Reader is set up once");
		return -1;
	}
	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OspOOOOOOOOOpOisOOpOO", kw, &paths, &manifests, &order, &stacks,
					 &since_o, &until_o, &providers, &names, &ids, &level, &pids, &on_damage, &keep,
					 &derive, &tmf, &threads, &times, &symbols, &slice, &builtin, &processes, &expr))
		return -1;
	if (strcmp(times, "filetime") == 0) {
		self->value_flags |= PYETL_FILETIMES;
	} else if (strcmp(times, "datetime") != 0) {
		PyErr_SetString(PyExc_ValueError, "times is \"datetime\" or \"filetime\"");
		return -1;
	}
	if (pyetl_filetime_arg(since_o, &since) < 0 || pyetl_filetime_arg(until_o, &until) < 0)
		return -1;
	if (on_damage && on_damage != Py_None) {
		if (!PyCallable_Check(on_damage)) {
			PyErr_SetString(PyExc_TypeError, "on_damage is a callable");
			return -1;
		}
		Py_INCREF(on_damage);
		self->on_damage = on_damage;
	}
	fa = (struct pyetl_filter_args){ providers, names, processes, ids, pids, level, expr };
	if (pyetl_filter_new(&fa, &self->filter) < 0)
		return -1;
	self->keep = PyList_New(0);
	self->damage = PyList_New(0);
	self->r = etl_reader_new();
	if (!self->keep || !self->damage || !self->r) {
		PyErr_NoMemory();
		return -1;
	}
	if (keep && keep != Py_None && PyList_Append(self->keep, keep) < 0) /* file objects the inputs read */
		return -1;
	if (etl_reader_set_option(self->r, ETL_OPTION_DERIVE, derive != 0) != ETL_OK ||
	    etl_reader_set_option(self->r, ETL_OPTION_BUILTIN_MANIFESTS, builtin != 0) != ETL_OK)
		return -1;
	if (etl_reader_set_option(self->r, ETL_OPTION_THREADS, threads) != ETL_OK) {
		PyErr_SetString(PyExc_ValueError, "threads is 0 to 64");
		return -1;
	}
	if (add_tmf(self, tmf) < 0 || add_symbols(self, symbols) < 0 || set_slice(self, slice, since, until) < 0)
		return -1;
	if (pyetl_reader_setup(self, paths, manifests, order, stacks, since, until) < 0)
		return -1;
	/* the reader skips what the filter rules out (its time window too, where no other sets one) */
	if (self->filter && (!(etl_filter_parts(self->filter) & ETL_FILTER_TIME) || (!since && !until && !slice)) &&
	    etl_reader_set_filter(self->r, self->filter) != ETL_OK) {
		pyetl_raise(self, "filter");
		return -1;
	}
	return 0;
}

/* ---- life ---- */

static void reader_free(ReaderObject *self)
{
	etl_reader_free(self->r);
	self->r = NULL;
	self->last_decoded = NULL;
	self->decode_serial++;
}

/* Ends the iteration; the C reader (its inputs, tables and decoder) lives on while Events do, and
 * while another thread's call reads it (dealloc frees it then). */
static void reader_close(ReaderObject *self)
{
	self->closed = 1;
	if (self->live_events == 0 && !self->busy)
		reader_free(self);
}

int pyetl_reader_check(ReaderObject *self)
{
	if (!self->busy)
		return 0;
	PyErr_SetString(PyExc_RuntimeError, "the Reader is being read by a call in another thread");
	return -1;
}

void pyetl_reader_event_gone(ReaderObject *self)
{
	if (--self->live_events == 0 && self->closed && !self->busy)
		reader_free(self);
}

static int Reader_traverse(ReaderObject *self, visitproc visit, void *arg)
{
	Py_VISIT(Py_TYPE(self)); /* (a heap type) */
	Py_VISIT(self->keep);
	Py_VISIT(self->on_damage);
	Py_VISIT(self->damage);
	return 0;
}

static int Reader_clear(ReaderObject *self)
{
	Py_CLEAR(self->keep);
	Py_CLEAR(self->on_damage);
	Py_CLEAR(self->damage);
	return 0;
}

static void Reader_dealloc(ReaderObject *self)
{
	PyTypeObject *type = Py_TYPE(self);

	PyObject_GC_UnTrack(self);
	reader_free(self);
	etl_filter_free(self->filter);
	self->filter = NULL;
	Reader_clear(self);
	type->tp_free((PyObject *)self);
	Py_DECREF(type);
}

static PyObject *Reader_close(ReaderObject *self, PyObject *noargs)
{
	(void)noargs;
	if (pyetl_reader_check(self) < 0)
		return NULL;
	reader_close(self);
	Py_RETURN_NONE;
}

static PyObject *Reader_enter(ReaderObject *self, PyObject *noargs)
{
	(void)noargs;
	Py_INCREF(self);
	return (PyObject *)self;
}

static PyObject *Reader_exit(ReaderObject *self, PyObject *args)
{
	(void)args;
	if (pyetl_reader_check(self) < 0)
		return NULL;
	reader_close(self);
	Py_RETURN_FALSE;
}

/* ---- iteration ---- */

void pyetl_nogil_begin(struct pyetl_nogil *g, ReaderObject *rd)
{
	g->rd = rd;
	rd->busy = 1;
	g->ts = PyEval_SaveThread();
}

void pyetl_gil_take(struct pyetl_nogil *g)
{
	if (g->ts) {
		PyEval_RestoreThread(g->ts);
		g->ts = NULL;
	}
}

void pyetl_gil_drop(struct pyetl_nogil *g)
{
	if (!g->ts)
		g->ts = PyEval_SaveThread();
}

void pyetl_nogil_end(struct pyetl_nogil *g)
{
	pyetl_gil_take(g);
	g->rd->busy = 0;
}

/* etl_reader_next, reporting damage; g: NULL while holding the GIL, else the GIL is taken back
 * for the report (and dropped again). */
static int reader_next(ReaderObject *self, struct pyetl_nogil *g, const struct etl_event **ev)
{
	int st, rc;

	for (;;) {
		st = etl_reader_next(self->r, ev);
		self->decode_serial++; /* the reader's decoded view ends here */
		self->last_decoded = NULL;
		if (st == ETL_OK || st == ETL_END)
			return st;
		if (g)
			pyetl_gil_take(g);
		if (etl_error_is_fatal(etl_reader_error(self->r)))
			rc = (pyetl_raise(self, "the trace cannot be read further"), -1);
		else
			rc = pyetl_report(self, "damage");
		if (g)
			pyetl_gil_drop(g);
		if (rc < 0)
			return -1;
	}
}

int pyetl_reader_next(ReaderObject *self, const struct etl_event **ev)
{
	return reader_next(self, NULL, ev);
}

int pyetl_reader_next_nogil(struct pyetl_nogil *g, const struct etl_event **ev)
{
	return reader_next(g->rd, g, ev);
}

int pyetl_reader_feed(ReaderObject *rd, int (*add)(void *ctx, const struct etl_event *ev), void *ctx)
{
	const struct etl_event *ev;
	struct pyetl_nogil g;
	int st;

	pyetl_nogil_begin(&g, rd); /* (other threads run meanwhile) */
	while ((st = reader_next(rd, &g, &ev)) == ETL_OK) {
		if (add(ctx, ev) != ETL_OK) {
			st = ETL_E_NOMEM;
			break;
		}
	}
	pyetl_nogil_end(&g);
	if (st == ETL_E_NOMEM)
		PyErr_NoMemory();
	return st == ETL_END ? 0 : -1;
}

static PyObject *Reader_iternext(ReaderObject *self)
{
	const struct etl_event *ev;

	if (pyetl_reader_check(self) < 0)
		return NULL;
	if (self->closed || !self->r) {
		PyErr_SetString(PyExc_ValueError, "the reader is closed");
		return NULL;
	}
	self->started = 1;
	for (;;) {
		PyObject *e;
		int st = pyetl_reader_next(self, &ev);

		if (st < 0)
			return NULL;
		if (st == ETL_END) {
			(void)pyetl_warn_unmatched(self); /* (an exception it raises replaces StopIteration) */
			return NULL; /* StopIteration */
		}
		int m = self->filter ? etl_filter_match(self->filter, self->r, ev) : 1;
		if (m == 0)
			continue;
		e = pyetl_event_new(self, ev);
		if (!e || m != ETL_FILTER_NEEDS_DECODING)
			return e;
		if (pyetl_event_decode((EventObject *)e, 0) < 0) {
			Py_DECREF(e);
			return NULL;
		}
		if (etl_filter_match_decoded(self->filter, self->r, ev, self->last_decoded))
			return e;
		Py_DECREF(e);
	}
}

/* ---- tables ---- */

static int put_time(PyObject *d, const char *key, uint64_t ft)
{
	PyObject *v = pyetl_filetime(ft);
	int rc = v ? PyDict_SetItemString(d, key, v) : -1;

	Py_XDECREF(v);
	return rc;
}

/* The rest of etldump --info's fields. */
static int put_more_info(PyObject *d, const struct etl_trace_info *t)
{
	PyObject *more = Py_BuildValue(
		"{s:N,s:K,s:K,s:K,s:I,s:I,s:I,s:K,s:i,s:i,s:i,s:s,s:s}", "layout",
		PyUnicode_FromFormat("%u.%u", etl_trace_info_layout_major(t), etl_trace_info_layout_minor(t)),
		"start_filetime", (unsigned long long)etl_trace_info_start_time(t), "end_filetime",
		(unsigned long long)etl_trace_info_end_time(t), "perf_freq", (unsigned long long)etl_trace_info_perf_freq(t),
		"timer_resolution", etl_trace_info_timer_resolution(t), "timer_source", etl_trace_info_timer_source(t),
		"perf_counter_source", etl_trace_info_perf_counter_source(t), "start_timestamp",
		(unsigned long long)etl_trace_info_start_timestamp_raw(t), "tz_bias", (int)etl_trace_info_tz_bias(t),
		"tz_standard_bias", (int)etl_trace_info_tz_standard_bias(t), "tz_daylight_bias",
		(int)etl_trace_info_tz_daylight_bias(t), "tz_standard_name", etl_trace_info_tz_standard_name(t),
		"tz_daylight_name", etl_trace_info_tz_daylight_name(t));
	int rc = more ? PyDict_Update(d, more) : -1;

	Py_XDECREF(more);
	return rc;
}

static PyObject *trace_info_dict(const struct etl_trace_info *t)
{
	PyObject *others = PyList_New(0), *d;
	size_t i;

	for (i = 0; others && i < etl_trace_info_other_member_count(t); i++) {
		PyObject *s = PyUnicode_FromString(etl_trace_info_other_member(t, i));
		if (!s || PyList_Append(others, s) < 0)
			Py_CLEAR(others);
		Py_XDECREF(s);
	}
	if (!others)
		return NULL;
	d = Py_BuildValue("{s:s,s:s,s:N,s:K,s:s,s:s,s:I,s:I,s:I,s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}",
			  "file", etl_trace_info_name(t), "container", etl_trace_info_container(t), "other_members",
			  others, "size", (unsigned long long)etl_trace_info_file_size(t), "logger_name",
			  etl_trace_info_logger_name(t), "log_file_name", etl_trace_info_log_file_name(t), "os_major",
			  etl_trace_info_os_major(t), "os_minor", etl_trace_info_os_minor(t), "os_build",
			  etl_trace_info_os_build(t), "clock_type", etl_clock_name(etl_trace_info_clock_type(t)),
			  "pointer_size", etl_trace_info_pointer_size(t), "cpu_count", etl_trace_info_cpu_count(t),
			  "cpu_speed_mhz", etl_trace_info_cpu_speed_mhz(t), "buffer_size", etl_trace_info_buffer_size(t),
			  "buffers_written", etl_trace_info_buffers_written(t), "buffers_lost",
			  etl_trace_info_buffers_lost(t), "events_lost", etl_trace_info_events_lost(t), "log_file_mode",
			  etl_trace_info_log_file_mode(t), "compression_format", etl_trace_info_compression_format(t),
			  "maximum_file_size", etl_trace_info_maximum_file_size(t));
	if (!d)
		return NULL;
	if (put_time(d, "start_time", etl_trace_info_start_time(t)) < 0 ||
	    put_time(d, "end_time", etl_trace_info_end_time(t)) < 0 ||
	    put_time(d, "boot_time", etl_trace_info_boot_time(t)) < 0 || put_more_info(d, t) < 0) {
		Py_DECREF(d);
		return NULL;
	}
	return d;
}

static PyObject *Reader_get_info(ReaderObject *self, void *closure)
{
	PyObject *list;
	int i;

	(void)closure;
	if (pyetl_reader_check(self) < 0)
		return NULL;
	if (!self->r)
		return PyErr_Format(PyExc_ValueError, "the reader is closed");
	list = PyList_New(0);
	for (i = 0; list && i < etl_reader_trace_count(self->r); i++) {
		PyObject *d = trace_info_dict(etl_reader_trace_info(self->r, i));
		if (!d || PyList_Append(list, d) < 0)
			Py_CLEAR(list);
		Py_XDECREF(d);
	}
	return list;
}

static PyObject *Reader_get_counts(ReaderObject *self, void *closure)
{
	static const char *const names[] = { "events", "buffers", "buffers_compressed", "buffers_skipped",
					     "records_skipped", "bytes_skipped", "errors", "buffers_events_lost",
					     "stacks_dropped", "events_before_window", "bytes_read" };
	PyObject *d;
	size_t i;

	(void)closure;
	if (pyetl_reader_check(self) < 0)
		return NULL;
	if (!self->r)
		return PyErr_Format(PyExc_ValueError, "the reader is closed");
	d = PyDict_New();
	for (i = 0; d && i < sizeof(names) / sizeof(names[0]); i++) {
		PyObject *v = PyLong_FromUnsignedLongLong(etl_reader_count(self->r, (enum etl_counter)i));
		if (!v || PyDict_SetItemString(d, names[i], v) < 0)
			Py_CLEAR(d);
		Py_XDECREF(v);
	}
	return d;
}

static PyObject *Reader_get_damage(ReaderObject *self, void *closure)
{
	(void)closure;
	Py_INCREF(self->damage);
	return self->damage;
}

static PyObject *id_or_none(uint32_t v)
{
	if (v == ETL_ID_NONE)
		Py_RETURN_NONE;
	return PyLong_FromUnsignedLong(v);
}

static PyObject *process_dict(const struct etl_process *p)
{
	uint64_t end = 0;
	int32_t code = 0;
	int ended = etl_process_end(p, &end, &code);

	return Py_BuildValue("{s:i,s:I,s:N,s:N,s:s,s:s,s:N,s:N,s:N,s:n,s:n}", "trace", etl_process_trace_index(p), "pid",
			     etl_process_id(p), "parent_pid", id_or_none(etl_process_parent_id(p)), "session_id",
			     id_or_none(etl_process_session_id(p)), "image", etl_process_image_name(p), "command_line",
			     etl_process_command_line(p), "start", pyetl_filetime(etl_process_start_filetime(p)), "end",
			     ended ? pyetl_filetime(end) : (Py_INCREF(Py_None), Py_None), "exit_status",
			     ended ? PyLong_FromLong(code) : (Py_INCREF(Py_None), Py_None), "images",
			     (Py_ssize_t)etl_process_image_count(p), "named_threads",
			     (Py_ssize_t)etl_process_thread_name_count(p));
}

static PyObject *Reader_processes(ReaderObject *self, PyObject *noargs)
{
	PyObject *list;
	size_t i;

	(void)noargs;
	if (pyetl_reader_check(self) < 0)
		return NULL;
	if (!self->r)
		return PyErr_Format(PyExc_ValueError, "the reader is closed");
	list = PyList_New(0);
	for (i = 0; list && i < etl_reader_process_count(self->r); i++) {
		PyObject *d = process_dict(etl_reader_process_at(self->r, i));
		if (!d || PyList_Append(list, d) < 0)
			Py_CLEAR(list);
		Py_XDECREF(d);
	}
	return list;
}

static PyObject *Reader_time_slices(ReaderObject *self, PyObject *args)
{
	Py_ssize_t n, k, i;
	int trace = 0;
	uint64_t *bounds;
	PyObject *list;
	struct pyetl_nogil g;

	if (!PyArg_ParseTuple(args, "n|i", &n, &trace) || pyetl_reader_check(self) < 0)
		return NULL;
	if (!self->r)
		return PyErr_Format(PyExc_ValueError, "the reader is closed");
	if (n < 1 || n > 1000000)
		return PyErr_Format(PyExc_ValueError, "slices: from 1 to 1000000");
	bounds = PyMem_Calloc((size_t)n + 1, sizeof(*bounds));
	if (!bounds)
		return PyErr_NoMemory();
	pyetl_nogil_begin(&g, self); /* (it reads the headers of every buffer) */
	k = (Py_ssize_t)etl_reader_time_slices(self->r, trace, (size_t)n, bounds);
	pyetl_nogil_end(&g);
	list = k ? PyList_New(k + 1) : NULL;
	for (i = 0; list && i <= k; i++)
		PyList_SET_ITEM(list, i, PyLong_FromUnsignedLongLong(bounds[i]));
	PyMem_Free(bounds);
	if (!k && !PyErr_Occurred())
		PyErr_SetString(pyetl_state_of((PyObject *)self)->Error, "the input's buffers could not be read");
	return list;
}

/* The (since, until, state) of each slice of a plan. */
static PyObject *slices_list(struct etl_slices *p)
{
	size_t k = etl_slices_count(p), i, len;
	PyObject *list = PyList_New((Py_ssize_t)k);

	for (i = 0; list && i < k; i++) {
		const void *state = etl_slices_state(p, i, &len);
		PyObject *t = state ? Py_BuildValue("(KKy#)", (unsigned long long)etl_slices_bound(p, i),
						    (unsigned long long)etl_slices_bound(p, i + 1), (const char *)state,
						    (Py_ssize_t)len)
				    : PyErr_NoMemory();
		if (!t)
			Py_CLEAR(list);
		else
			PyList_SET_ITEM(list, (Py_ssize_t)i, t);
	}
	return list;
}

static PyObject *Reader_plan_slices(ReaderObject *self, PyObject *args)
{
	Py_ssize_t n;
	int trace = 0;
	struct etl_slices *p;
	struct pyetl_nogil g;
	PyObject *list;

	if (!PyArg_ParseTuple(args, "n|i", &n, &trace) || pyetl_reader_check(self) < 0)
		return NULL;
	if (!self->r)
		return PyErr_Format(PyExc_ValueError, "the reader is closed");
	if (n < 1 || n > 4096)
		return PyErr_Format(PyExc_ValueError, "slices: from 1 to 4096");
	pyetl_nogil_begin(&g, self); /* (it reads the whole input, lightly) */
	p = etl_reader_plan_slices(self->r, trace, (size_t)n);
	pyetl_nogil_end(&g);
	if (!p)
		return PyErr_Format(pyetl_state_of((PyObject *)self)->Error, "input %d could not be planned", trace);
	list = slices_list(p);
	etl_slices_free(p);
	return list;
}

static PyMethodDef Reader_methods[] = {
	{ "close", (PyCFunction)Reader_close, METH_NOARGS, "Closes the inputs (events decoded so far stay usable)." },
	{ "processes", (PyCFunction)Reader_processes, METH_NOARGS,
	  "The processes the trace's kernel events described so far, as dicts." },
	{ "time_slices", (PyCFunction)Reader_time_slices, METH_VARARGS,
	  "time_slices(n, trace=0): at most n + 1 FILETIME bounds cutting input trace into slices of about\n"
	  "equal bytes (the last bound 0 means no end)." },
	{ "plan_slices", (PyCFunction)Reader_plan_slices, METH_VARARGS,
	  "plan_slices(n, trace=0): the time slices of time_slices(n), each (since, until, state): reading\n"
	  "input trace with Reader(..., slice=state) gives the events of [since, until) as a reader with\n"
	  "that time window does, without reading the slices before it (the state, bytes, says what they\n"
	  "describe).  It reads the input once, lightly." },
	{ "__enter__", (PyCFunction)Reader_enter, METH_NOARGS, NULL },
	{ "__exit__", (PyCFunction)Reader_exit, METH_VARARGS, NULL },
	{ NULL, NULL, 0, NULL },
};

static PyGetSetDef Reader_getset[] = {
	{ "info", (getter)Reader_get_info, NULL, "The trace information of each input, as a list of dicts.", NULL },
	{ "counts", (getter)Reader_get_counts, NULL, "The reader's counters, as a dict.", NULL },
	{ "damage", (getter)Reader_get_damage, NULL, "What was damaged and skipped so far, as a list of dicts.", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};


PyObject *pyetl_reader_type_new(PyObject *module)
{
	static char doc[] =
		"Reader(inputs, manifests=None, order='time', stacks=True, since=None, until=None,\n"
		"       providers=None, names=None, ids=None, level=None, pids=None, on_damage=None,\n"
		"       keep=None, derive=False, tmf=None, threads=0, times='datetime', symbols=None,\n"
		"       slice=None)\n\n"
		"Events of one or several traces, merged in time order.  Use libetl.open().";
	PyType_Slot slots[] = {
		{ Py_tp_doc, doc },
		{ Py_tp_methods, Reader_methods },
		{ Py_tp_getset, Reader_getset },
		PYETL_SLOT(Py_tp_new, PyType_GenericNew),
		PYETL_SLOT(Py_tp_init, Reader_init),
		PYETL_SLOT(Py_tp_dealloc, Reader_dealloc),
		PYETL_SLOT(Py_tp_traverse, Reader_traverse),
		PYETL_SLOT(Py_tp_clear, Reader_clear),
		PYETL_SLOT(Py_tp_iter, PyObject_SelfIter),
		PYETL_SLOT(Py_tp_iternext, Reader_iternext),
		{ 0, NULL },
	};
	PyType_Spec spec = {
		.name = "libetl.Reader",
		.basicsize = sizeof(ReaderObject),
		.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE,
		.slots = slots,
	};

	return PyType_FromModuleAndSpec(module, &spec, NULL);
}

/*
 * report.c - libetl.report(): the library's HTML report of an unread Reader
 * (etl_report_*), written to what the caller's path names, as etldump -o
 * writes: a regular file (new, or there before, whose mode it keeps; through
 * a symbolic link, the file it points to) is made only when the report is
 * complete (written under a temporary name in the same folder, then renamed
 * over it); anything else (a FIFO, a device) is written through as it is.
 * Never over one of the reader's inputs.  Damage goes to the reader's handler
 * (reader.damage, on_damage) as for any reading.
 *
 * SPDX-License-Identifier: MIT
 */
#include "pyetl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int write_file(void *ctx, const void *data, size_t size)
{
	return fwrite(data, 1, size, ctx) == size ? 0 : -1;
}

/* Whether path names the same file as one of the reader's inputs. */
static int is_an_input(const struct etl_reader *r, const char *path)
{
	struct stat a, b;
	int i;

	if (stat(path, &a) != 0)
		return 0;
	for (i = 0; i < etl_reader_trace_count(r); i++) {
		const char *in = etl_trace_info_name(etl_reader_trace_info(r, i));
		if (in && stat(in, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			return 1;
	}
	return 0;
}

/* Whether path names a regular file, or nothing yet (then the report is made beside it and renamed
 * over it): 1, with *target the file to rename over (malloc'd: path, or what its symbolic links
 * point to; NULL without memory) and *mode the mode of the file there before (-1 for a new one).
 * 0 for anything else (a FIFO, a device, a socket), which is written through. */
static int regular_target(const char *path, char **target, mode_t *mode)
{
	struct stat st;

	*target = NULL;
	if (lstat(path, &st) != 0) {
		*target = strdup(path); /* a new file (a dangling link's target is not made) */
		return 1;
	}
	if (S_ISLNK(st.st_mode)) {
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
			return 0; /* (through the link: what it names decides) */
		*target = realpath(path, NULL);
	} else if (S_ISREG(st.st_mode)) {
		*target = strdup(path);
	} else {
		return 0;
	}
	*mode = st.st_mode & 07777;
	return 1;
}

static int add_to_report(void *rep, const struct etl_event *ev)
{
	return etl_report_add(rep, ev);
}

PyObject *pyetl_html_report(PyObject *module, PyObject *args)
{
	PyObject *reader, *path_o, *bytes = NULL;
	ReaderObject *rd;
	struct etl_report *rep = NULL;
	struct etl_filter *filter = NULL;
	const char *path, *text = NULL;
	char *tmp = NULL, *target = NULL;
	FILE *f = NULL;
	mode_t mode = (mode_t)-1;
	int st;

	if (!PyArg_ParseTuple(args, "O!O&|z", pyetl_module_state(module)->Reader, &reader, PyUnicode_FSConverter, &bytes,
			      &text))
		return NULL;
	path_o = bytes;
	path = PyBytes_AS_STRING(path_o);
	rd = (ReaderObject *)reader;
	if (pyetl_reader_check(rd) < 0) {
		Py_DECREF(bytes);
		return NULL;
	}
	if (rd->closed || !rd->r || rd->started) {
		Py_DECREF(bytes);
		return PyErr_Format(PyExc_ValueError, "report() needs a reader that has read no event");
	}
	if (is_an_input(rd->r, path)) {
		Py_DECREF(bytes);
		return PyErr_Format(PyExc_ValueError, "%s is one of the inputs: the report is never written over one",
				    path);
	}
	if (text && !(filter = pyetl_filter_text(text))) {
		Py_DECREF(bytes);
		return NULL;
	}
	if (etl_report_new(rd->r, 0, &rep) != ETL_OK) {
		Py_DECREF(bytes);
		etl_filter_free(filter);
		return pyetl_raise(rd, "cannot make the report");
	}
	if (filter)
		etl_report_set_filter(rep, filter);
	rd->started = 1;
	if (pyetl_reader_feed(rd, add_to_report, rep) != 0) /* (damage goes to the reader's handler) */
		goto fail;
	if (!regular_target(path, &target, &mode)) { /* a FIFO, a device: written through */
		if (!(f = fopen(path, "wb"))) {
			PyErr_SetFromErrnoWithFilename(PyExc_OSError, path);
			goto fail;
		}
		st = etl_report_write_html(rep, write_file, f);
		if (fclose(f) != 0 && st == ETL_OK)
			st = ETL_E_IO;
		f = NULL;
		if (st != ETL_OK) {
			errno = EIO;
			PyErr_SetFromErrnoWithFilename(PyExc_OSError, path);
			goto fail;
		}
		goto done;
	}
	if (!target || !(tmp = PyMem_Malloc(strlen(target) + 24))) {
		PyErr_NoMemory();
		goto fail;
	}
	sprintf(tmp, "%s.tmp%ld", target, (long)getpid());
	if (!(f = fopen(tmp, "wbx"))) {
		PyErr_SetFromErrnoWithFilename(PyExc_OSError, tmp);
		goto fail;
	}
	st = etl_report_write_html(rep, write_file, f);
	if (fclose(f) != 0 && st == ETL_OK)
		st = ETL_E_IO;
	f = NULL;
	if (st != ETL_OK || (mode != (mode_t)-1 && chmod(tmp, mode) != 0) || rename(tmp, target) != 0) {
		int e = st != ETL_OK ? EIO : errno;
		unlink(tmp);
		errno = e;
		PyErr_SetFromErrnoWithFilename(PyExc_OSError, path);
		goto fail;
	}
done:
	PyMem_Free(tmp);
	free(target);
	etl_report_free(rep);
	etl_filter_free(filter);
	Py_DECREF(bytes);
	Py_RETURN_NONE;
fail:
	if (f) {
		fclose(f);
		unlink(tmp);
	}
	PyMem_Free(tmp);
	free(target);
	etl_report_free(rep);
	etl_filter_free(filter);
	Py_DECREF(bytes);
	return NULL;
}

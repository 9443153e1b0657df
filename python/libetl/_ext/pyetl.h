/*
 * pyetl.h - the parts of the libetl Python extension (_libetl), written
 * against libetl's public API:
 *
 *   module.c   the module: types, exceptions, interned strings, helpers
 *   reader.c   Reader: inputs, iteration into Event objects, damage, tables
 *   event.c    Event: header fields, lazy decoding, stack, process
 *   values.c   decoded properties and times as Python values
 *   filter.c   filters applied in C, before an event becomes an object
 *   columns.c  to_pandas: events into columns, with no object per event
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef PYETL_H
#define PYETL_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include <etl.h>

struct pyetl_state; /* the module's state (module.c) */

/* ---- filters (selection.c) ---- */

#include "hmap.h"

/* The filter keyword arguments (each may be NULL or None). */
struct pyetl_filter_args {
	PyObject *providers, *names, *processes, *ids, *pids, *level;
	PyObject *expr;                  /* filter=: an expression */
};
/* Their filter into *out (NULL: none given); -1 with an exception (ValueError: not a filter). */
int pyetl_filter_new(const struct pyetl_filter_args *a, struct etl_filter **out);
/* libetl._libetl.filter_text(*, providers=, names=, processes=, ids=, pids=, level=, filter=):
 * the filter text those arguments make (None for none), as Reader() makes it. */
PyObject *pyetl_filter_text_of(PyObject *module, PyObject *args, PyObject *kwargs);
/* A filter from its text; NULL with a ValueError. */
struct etl_filter *pyetl_filter_text(const char *text);

/* ---- the reader (reader.c) ---- */

typedef struct {
	PyObject_HEAD
	struct etl_reader *r;       /* NULL once closed and no Event needs it any more */
	int closed;                 /* close() was called: no more iteration */
	Py_ssize_t live_events;     /* Events alive: they decode and resolve through r */
	PyObject *keep;             /* list: objects whose memory the inputs borrow */
	PyObject *on_damage;        /* callable, or NULL: warnings.warn */
	PyObject *damage;           /* list of Damage */
	struct etl_filter *filter;  /* the filter arguments', or NULL */
	int started;
	int unmatched_said;         /* the filter's patterns that matched nothing were warned of */
	/* the C reader's decoded view, valid while decode_serial is unchanged: it grows with every
	 * decoding and every etl_reader_next (events remember the serial of their decoding) */
	const struct etl_decoded *last_decoded;
	uint64_t decode_serial;
	unsigned value_flags;       /* PYETL_* flags of the values events give (times="filetime") */
	int busy;                   /* a call is reading it without the GIL (struct pyetl_nogil) */
} ReaderObject;

/* selection.c: at the end of a reading, a FilterWarning for each pattern of rd's filter that matched
 * nothing, with the closest names (once per reader); -1 when a warning became an exception. */
int pyetl_warn_unmatched(ReaderObject *rd);

/* The type (a heap type of the module, pyetl_reader_type_new). */
PyObject *pyetl_reader_type_new(PyObject *module);

/* An Event of the reader ended: frees the C reader when the Reader was closed and it was the last. */
void pyetl_reader_event_gone(ReaderObject *self);
/* Raises libetl.Error for the reader's current error (a fatal one or a misuse); NULL. */
PyObject *pyetl_raise(ReaderObject *self, const char *fallback);
/* The same, naming the input's path in Error.path (NULL: the trace the error names, if any). */
PyObject *pyetl_raise_path(ReaderObject *self, const char *fallback, const char *path);
/* Hands a non-fatal error (damage, a payload that contradicts its schema) to on_damage or
 * warnings.warn and keeps it in reader.damage; -1 when the handler raised. */
int pyetl_report(ReaderObject *self, const char *kind);
/* etl_reader_next with damage reported (pyetl_report): ETL_OK, ETL_END, or -1 with an exception
 * (a fatal error, or the damage handler raised). */
int pyetl_reader_next(ReaderObject *self, const struct etl_event **ev);
/* Whether the reader may be used now: 0, or -1 with a RuntimeError while another thread's call
 * reads it without the GIL. */
int pyetl_reader_check(ReaderObject *self);

/* Reading without the GIL: whole passes over the events (to_pandas, tables, the report) let other
 * threads run.  The reader is marked busy meanwhile; damage is reported with the GIL taken back. */
struct pyetl_nogil {
	ReaderObject *rd;
	PyThreadState *ts; /* NULL while the GIL is held */
};
void pyetl_nogil_begin(struct pyetl_nogil *g, ReaderObject *rd);
void pyetl_gil_take(struct pyetl_nogil *g);
void pyetl_gil_drop(struct pyetl_nogil *g);
void pyetl_nogil_end(struct pyetl_nogil *g);
/* pyetl_reader_next between pyetl_nogil_begin and _end (with the GIL dropped). */
int pyetl_reader_next_nogil(struct pyetl_nogil *g, const struct etl_event **ev);
/* Hands every event of rd to add(ctx, ev) without the GIL (damage is reported with it): the
 * passes of the tables and the report.  0 at the end; -1 with an exception (MemoryError when add
 * failed). */
int pyetl_reader_feed(ReaderObject *rd, int (*add)(void *ctx, const struct etl_event *ev), void *ctx);
/* Opens the inputs and sets the options of a new reader from the arguments of libetl.open(). */
int pyetl_reader_setup(ReaderObject *self, PyObject *paths, PyObject *manifests, const char *order,
		       int stacks, uint64_t since, uint64_t until);

/* ---- events (event.c) ---- */

typedef struct {
	PyObject_HEAD
	ReaderObject *reader;             /* strong: decoding and addresses need it */
	const struct etl_event *ev;       /* a copy in ev_mem (etl_event_copy_into, ETL_COPY_STACK_LATER):
					     its stack, if the reader left it for later, is completed
					     when asked for */
	void *ev_mem;                     /* owned (PyMem) */
	const struct etl_process *proc;   /* as known when the event was delivered; may be NULL */
	uint32_t process_pid;             /* etl_reader_event_pid when delivered */
	uint64_t serial;                  /* decode_serial of the reader when it decoded this event */
	int decoded;                      /* names decoded (name .. decode_error below set) */
	PyObject *name, *provider_name, *decoder, *reason, *decode_error, *fields, *derived, *stack, *frames;
	PyObject *message; /* a WPP event's formatted message (decoder tmf), or None */
	PyObject *process;                /* the process's image name when delivered, or NULL */
	PyObject *snapshot;               /* an Event unpickled or copied: its attributes as a dict (no
					     reader, no ev), or NULL */
} EventObject;

/* The type (a heap type of the module). */
PyObject *pyetl_event_type_new(PyObject *module);

/* A new Event for ev (copied); proc as the reader knows it now. */
PyObject *pyetl_event_new(ReaderObject *reader, const struct etl_event *ev);
/* Decodes the event if it was not (names; fields too when want_fields); -1 with an exception. */
int pyetl_event_decode(EventObject *self, int want_fields);
/* _libetl._event_from_state(dict): the Event a pickle or copy.copy made (Event.__reduce__). */
PyObject *pyetl_event_from_state(PyObject *module, PyObject *state);

/* ---- values (values.c) ---- */

/* Flags of the values: FILETIMEs as ints (100 ns since 1601, lossless) instead of datetimes
 * (microseconds). */
#define PYETL_FILETIMES 1u
/* The properties (derived 0) or the derived fields (1) as a dict (structs as dicts, arrays as
 * lists). */
PyObject *pyetl_fields(struct pyetl_state *st, const struct etl_decoded *d, int derived, unsigned flags);
/* Imports the datetime API for values.c; -1 with an exception. */
int pyetl_values_init(void);
/* One property's value. */
PyObject *pyetl_value(struct pyetl_state *st, const struct etl_property *p, unsigned depth, unsigned flags);
/* A FILETIME as an aware datetime (UTC); None for 0; the ISO text past year 9999. */
PyObject *pyetl_filetime(uint64_t ft);
/* The frames of ev's stack as etldump writes them (module!Function+0xOFF, module!+0xOFF or
 * 0xADDR); an empty list without one. */
PyObject *pyetl_stack(struct etl_reader *r, const struct etl_event *ev);
/* The frames as libetl.Frame objects (the module's type; with source lines). */
PyObject *pyetl_frames(struct pyetl_state *st, struct etl_reader *r, const struct etl_event *ev);
/* A new libetl.Frame type (a struct sequence). */
PyTypeObject *pyetl_frame_type_new(void);

/* ---- the module (module.c) ---- */

/* The module's state (PEP 489: one per module object, so the module works in subinterpreters
 * and survives reloads).  The table of interned strings stays one per process. */
struct pyetl_state {
	PyObject *Error;          /* libetl.Error (an OSError) */
	PyObject *DamageWarning;  /* libetl.DamageWarning (a RuntimeWarning) */
	PyObject *FilterWarning;  /* libetl.FilterWarning (a UserWarning) */
	PyTypeObject *Reader;     /* libetl.Reader */
	PyTypeObject *Event;      /* libetl.Event */
	PyTypeObject *Frame;      /* libetl.Frame */
	struct pyetl_interned *interned; /* names as str, one object each (module.c), or NULL */
};

/* A function as the void * of a type or module slot.  The C API's slots hold functions so (POSIX
 * makes the conversion exact); ISO C has no cast for it, but copies the bytes. */
static inline void *pyetl_fn(void (*f)(void))
{
	void *p;

	memcpy(&p, &f, sizeof(p));
	return p;
}
#define PYETL_SLOT(id, f) { (id), pyetl_fn((void (*)(void))(f)) }
#ifndef Py_TPFLAGS_IMMUTABLETYPE
#define Py_TPFLAGS_IMMUTABLETYPE 0 /* (Python 3.9) */
#endif

/* The state of the module that made obj's type (a Reader or an Event). */
struct pyetl_state *pyetl_state_of(PyObject *obj);
/* The state of the module. */
struct pyetl_state *pyetl_module_state(PyObject *module);

/* An interned str for UTF-8 text (names repeat: one object each, in the module's state); a new
 * reference. */
PyObject *pyetl_intern(struct pyetl_state *st, const char *s);
/* The GUID as "xxxxxxxx-...", interned; a new reference. */
PyObject *pyetl_guid(struct pyetl_state *st, const struct etl_guid *g);
/* A FILETIME argument: None (0) or an int (the Python layer converts datetimes and text). */
int pyetl_filetime_arg(PyObject *o, uint64_t *ft);

/* tables.c: libetl._libetl.table(reader, name, stacks=False) */
PyObject *pyetl_table(PyObject *module, PyObject *args);
/* report.c: libetl.report(). */
PyObject *pyetl_html_report(PyObject *module, PyObject *args);
/* columns.c: libetl._libetl.columns(reader, names, fields) */
PyObject *pyetl_columns(PyObject *module, PyObject *args, PyObject *kwargs);

#endif

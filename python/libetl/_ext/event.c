/*
 * event.c - libetl.Event: one event, valid after the iteration moved on.
 *
 * An Event owns a copy of its record (etl_event_copy_into: header fields,
 * payload, extended items, stack frames) and holds its Reader, which the
 * copy needs when its stack is first asked for (the stack index pass runs
 * then, not for every iteration).  Header
 * fields are read from the copy; the name, provider name, decoder and
 * fields are decoded on first access - against the metadata the reader has
 * seen by then, which is what a decoding at delivery sees for every intact
 * trace (metadata comes before the events it describes) - and kept.
 *
 * SPDX-License-Identifier: MIT
 */
#include "pyetl.h"

#include <structmember.h>
#include <string.h>

PyObject *pyetl_event_new(ReaderObject *reader, const struct etl_event *ev)
{
	EventObject *self = PyObject_GC_New(EventObject, pyetl_state_of((PyObject *)reader)->Event);

	if (!self)
		return NULL;
	self->ev = NULL;
	self->ev_mem = NULL;
	self->decoded = 0;
	self->serial = 0;
	self->name = self->provider_name = self->decoder = self->reason = NULL;
	self->decode_error = self->fields = self->derived = self->stack = self->frames = NULL;
	self->process = NULL;
	self->message = NULL;
	self->snapshot = NULL;
	Py_INCREF(reader);
	self->reader = reader;
	reader->live_events++;
	self->proc = etl_reader_event_process(reader->r, ev);
	self->process_pid = etl_reader_event_pid(reader->r, ev);
	self->process = NULL; /* the image name as known now: a later record may name the process */
	if (self->proc && *etl_process_image_name(self->proc) &&
	    !(self->process = pyetl_intern(pyetl_state_of((PyObject *)self), etl_process_image_name(self->proc)))) {
		Py_DECREF(self);
		return NULL;
	}
	{
		/* the Event holds the Reader, which outlives the copy: its stack may wait until read */
		size_t need = etl_event_copy_size(ev, ETL_COPY_STACK_LATER);
		if (!(self->ev_mem = PyMem_Malloc(need)) ||
		    !(self->ev = etl_event_copy_into(ev, self->ev_mem, need, ETL_COPY_STACK_LATER))) {
			Py_DECREF(self);
			return PyErr_NoMemory();
		}
	}
	PyObject_GC_Track(self);
	return (PyObject *)self;
}

static int Event_traverse(EventObject *self, visitproc visit, void *arg)
{
	Py_VISIT(Py_TYPE(self)); /* (a heap type) */
	Py_VISIT(self->reader);
	Py_VISIT(self->fields);
	Py_VISIT(self->derived);
	Py_VISIT(self->stack);
	Py_VISIT(self->frames);
	Py_VISIT(self->snapshot);
	return 0;
}

static int Event_clear(EventObject *self)
{
	if (self->reader)
		pyetl_reader_event_gone(self->reader);
	Py_CLEAR(self->reader);
	Py_CLEAR(self->name);
	Py_CLEAR(self->provider_name);
	Py_CLEAR(self->decoder);
	Py_CLEAR(self->reason);
	Py_CLEAR(self->decode_error);
	Py_CLEAR(self->fields);
	Py_CLEAR(self->derived);
	Py_CLEAR(self->stack);
	Py_CLEAR(self->frames);
	Py_CLEAR(self->process);
	Py_CLEAR(self->message);
	Py_CLEAR(self->snapshot);
	return 0;
}

static void Event_dealloc(EventObject *self)
{
	PyTypeObject *type = Py_TYPE(self);

	PyObject_GC_UnTrack(self);
	Event_clear(self);
	PyMem_Free(self->ev_mem);
	type->tp_free((PyObject *)self);
	Py_DECREF(type);
}

static PyObject *text_or_none(EventObject *self, const char *s)
{
	if (!s)
		Py_RETURN_NONE;
	return pyetl_intern(pyetl_state_of((PyObject *)self), s);
}

/* Keeps what the decoded view says of names (fields are kept by the caller). */
static int take_names(EventObject *self, const struct etl_decoded *d)
{
	Py_XSETREF(self->name, pyetl_intern(pyetl_state_of((PyObject *)self), etl_decoded_name(d)));
	Py_XSETREF(self->provider_name, text_or_none(self, etl_decoded_provider_name(d)));
	Py_XSETREF(self->decoder,
		   pyetl_intern(pyetl_state_of((PyObject *)self), etl_decoder_name(etl_decoded_source(d))));
	Py_XSETREF(self->reason, text_or_none(self, etl_decoded_reason(d)));
	Py_XSETREF(self->message, etl_decoded_source(d) == ETL_DECODER_TMF && etl_decoded_message(d)
					  ? PyUnicode_DecodeUTF8(etl_decoded_message(d), (Py_ssize_t)strlen(etl_decoded_message(d)),
								 "replace")
					  : (Py_INCREF(Py_None), Py_None));
	return self->name && self->provider_name && self->decoder && self->reason && self->message ? 0 : -1;
}

int pyetl_event_decode(EventObject *self, int want_fields)
{
	ReaderObject *rd = self->reader;
	const struct etl_decoded *d = NULL;
	int st = ETL_OK;

	if (self->decoded && (!want_fields || self->fields))
		return 0;
	if (self->decoded && self->serial == rd->decode_serial && rd->last_decoded) {
		d = rd->last_decoded; /* the reader still holds this event's decoding: no second one */
	} else {
		if (!rd->r) {
			PyErr_SetString(PyExc_ValueError, "the event's reader was closed before the event was decoded");
			return -1;
		}
		if (pyetl_reader_check(rd) < 0)
			return -1;
		st = etl_reader_decode(rd->r, self->ev, &d);
		if (!d)
			return pyetl_raise(rd, "out of memory"), -1;
		rd->last_decoded = d;
		self->serial = ++rd->decode_serial;
	}
	if (!self->decoded) {
		if (take_names(self, d) < 0)
			return -1;
		if (st != ETL_OK) {
			/* the text etldump writes as decode_error (the reader's message may add where the
			 * record lies in a decompressed buffer) */
			const char *why = etl_decoded_error(d) ? etl_decoded_error(d) : etl_error_message(etl_reader_error(rd->r));
			Py_XSETREF(self->decode_error, PyUnicode_FromString(why));
			if (!self->decode_error || pyetl_report(rd, "decode") < 0)
				return -1;
		} else {
			Py_INCREF(Py_None);
			Py_XSETREF(self->decode_error, Py_None);
		}
		self->decoded = 1;
	}
	if (want_fields) {
		unsigned vf = rd->value_flags;
		Py_XSETREF(self->fields, etl_decoded_source(d) == ETL_DECODER_NONE ? PyDict_New() : pyetl_fields(pyetl_state_of((PyObject *)self), d, 0, vf));
		Py_XSETREF(self->derived, pyetl_fields(pyetl_state_of((PyObject *)self), d, 1, vf));
		if (!self->fields || !self->derived)
			return -1;
	}
	return 0;
}

/* ---- attributes ---- */

#define GETTER(name) static PyObject *Event_get_##name(EventObject *self, void *closure)

static PyObject *id_or_none(uint32_t v)
{
	if (v == ETL_ID_NONE)
		Py_RETURN_NONE;
	return PyLong_FromUnsignedLong(v);
}

GETTER(id) { (void)closure; return PyLong_FromLong(etl_event_id(self->ev)); }
GETTER(version) { (void)closure; return PyLong_FromLong(etl_event_version(self->ev)); }
GETTER(level) { (void)closure; return PyLong_FromLong(etl_event_level(self->ev)); }
GETTER(channel) { (void)closure; return PyLong_FromLong(etl_event_channel(self->ev)); }
GETTER(opcode) { (void)closure; return PyLong_FromLong(etl_event_opcode(self->ev)); }
GETTER(task) { (void)closure; return PyLong_FromLong(etl_event_task(self->ev)); }
GETTER(keywords) { (void)closure; return PyLong_FromUnsignedLongLong(etl_event_keywords(self->ev)); }
GETTER(pid) { (void)closure; return id_or_none(etl_event_pid(self->ev)); }
GETTER(tid) { (void)closure; return id_or_none(etl_event_tid(self->ev)); }
GETTER(process_pid) { (void)closure; return id_or_none(self->process_pid); }
GETTER(cpu) { (void)closure; return PyLong_FromUnsignedLong(etl_event_cpu(self->ev)); }
GETTER(unix_ns) { (void)closure; return PyLong_FromLongLong(etl_event_unix_ns(self->ev)); }
GETTER(filetime) { (void)closure; return PyLong_FromUnsignedLongLong(etl_event_filetime(self->ev)); }
GETTER(timestamp) { (void)closure; return PyLong_FromUnsignedLongLong(etl_event_timestamp_raw(self->ev)); }
GETTER(time) { (void)closure; return pyetl_filetime(etl_event_filetime(self->ev)); }
GETTER(provider_id)
{
	(void)closure;
	return pyetl_guid(pyetl_state_of((PyObject *)self), etl_event_provider(self->ev));
}
GETTER(hook_id) { (void)closure; return PyLong_FromLong(etl_event_hook_id(self->ev)); }
GETTER(trace_index) { (void)closure; return PyLong_FromLong(etl_event_trace_index(self->ev)); }
GETTER(file_offset) { (void)closure; return PyLong_FromUnsignedLongLong(etl_event_file_offset(self->ev)); }
GETTER(record_size) { (void)closure; return PyLong_FromUnsignedLong(etl_event_record_size(self->ev)); }
GETTER(pointer_size) { (void)closure; return PyLong_FromUnsignedLong(etl_event_pointer_size(self->ev)); }
GETTER(header)
{
	(void)closure;
	return pyetl_intern(pyetl_state_of((PyObject *)self), etl_header_kind_name(etl_event_header_kind(self->ev)));
}

GETTER(activity_id)
{
	const struct etl_guid *g = etl_event_activity_id(self->ev);

	(void)closure;
	if (!g)
		Py_RETURN_NONE;
	return pyetl_guid(pyetl_state_of((PyObject *)self), g);
}

GETTER(related_activity_id)
{
	const struct etl_guid *g = etl_event_related_activity_id(self->ev);

	(void)closure;
	if (!g)
		Py_RETURN_NONE;
	return pyetl_guid(pyetl_state_of((PyObject *)self), g);
}

GETTER(payload)
{
	const uint8_t *p;
	size_t n;

	(void)closure;
	etl_event_payload(self->ev, &p, &n);
	return PyBytes_FromStringAndSize((const char *)p, (Py_ssize_t)n);
}

/* name, provider, decoder, ...: decoded on first access */
static PyObject *decoded_attr(EventObject *self, PyObject **slot, int want_fields)
{
	if (pyetl_event_decode(self, want_fields) < 0)
		return NULL;
	Py_INCREF(*slot);
	return *slot;
}

GETTER(name) { (void)closure; return decoded_attr(self, &self->name, 0); }
GETTER(decoder) { (void)closure; return decoded_attr(self, &self->decoder, 0); }
GETTER(undecoded_reason) { (void)closure; return decoded_attr(self, &self->reason, 0); }
GETTER(decode_error) { (void)closure; return decoded_attr(self, &self->decode_error, 0); }
GETTER(message) { (void)closure; return decoded_attr(self, &self->message, 0); }
GETTER(fields) { (void)closure; return decoded_attr(self, &self->fields, 1); }
GETTER(derived) { (void)closure; return decoded_attr(self, &self->derived, 1); }

GETTER(provider)
{
	(void)closure;
	if (pyetl_event_decode(self, 0) < 0)
		return NULL;
	if (self->provider_name != Py_None) {
		Py_INCREF(self->provider_name);
		return self->provider_name;
	}
	return pyetl_guid(pyetl_state_of((PyObject *)self), etl_event_provider(self->ev));
}

GETTER(process)
{
	(void)closure;
	if (!self->process)
		Py_RETURN_NONE;
	Py_INCREF(self->process);
	return self->process;
}

GETTER(stack)
{
	(void)closure;
	if (!self->stack) {
		if (pyetl_reader_check(self->reader) < 0)
			return NULL;
		self->stack = pyetl_stack(self->reader->r, self->ev);
		if (!self->stack)
			return NULL;
	}
	Py_INCREF(self->stack);
	return self->stack;
}

GETTER(frames)
{
	(void)closure;
	if (!self->frames) {
		if (pyetl_reader_check(self->reader) < 0)
			return NULL;
		self->frames = pyetl_frames(pyetl_state_of((PyObject *)self), self->reader->r, self->ev);
		if (!self->frames)
			return NULL;
	}
	Py_INCREF(self->frames);
	return self->frames;
}

#define ATTR(name, doc) { #name, (getter)Event_get_##name, NULL, doc, NULL }

static PyGetSetDef Event_getset[] = {
	ATTR(name, "Event name: Provider/Task/Opcode (manifest, kernel) or Provider/EventName (TraceLogging)."),
	ATTR(provider, "Provider name, or its GUID when the trace does not name it."),
	ATTR(provider_id, "Provider GUID (event class GUID for classic events) as text."),
	ATTR(id, "Event id (EventDescriptor.Id; 0xFFFF for classic kernel events)."),
	ATTR(version, "Event version."),
	ATTR(level, "Level (1 critical ... 5 verbose)."),
	ATTR(channel, "Channel."),
	ATTR(opcode, "Opcode."),
	ATTR(task, "Task."),
	ATTR(keywords, "Keywords (a 64-bit mask)."),
	ATTR(pid, "Process id, or None when the header has none."),
	ATTR(process_pid, "The process the event is about: pid, else the one its payload names (a sample's\n"
			  "thread, an I/O's issuing thread, a connection's PID: docs/TABLES.md), or None."),
	ATTR(tid, "Thread id, or None when the header has none."),
	ATTR(cpu, "Processor that logged the event."),
	ATTR(unix_ns, "Time in nanoseconds since 1970 (UTC; 100 ns resolution)."),
	ATTR(filetime, "Time as a FILETIME (100 ns since 1601, UTC)."),
	ATTR(time, "Time as an aware datetime (UTC, microseconds)."),
	ATTR(timestamp, "Raw timestamp in the session's clock."),
	ATTR(decoder, "Where the layout came from: manifest, eventsource, tracelogging, trace-metadata, builtin-manifest, builtin, tmf, none."),
	ATTR(fields, "Decoded fields as a dict (decoded on first access)."),
	ATTR(derived, "Derived fields (open(..., derive=True)): values computed from the trace, not the payload."),
	ATTR(undecoded_reason, "Why the event was not decoded, or None."),
	ATTR(message, "The formatted message of a WPP event decoded with TMF files (open(..., tmf=...)), else None."),
	ATTR(decode_error, "What was wrong when the payload contradicted its schema (fields then hold what came before), or None."),
	ATTR(payload, "The payload bytes."),
	ATTR(stack, "The call stack as strings, innermost first: module!Function+0xOFF (a .NET method or a PDB's\n"
		    "function), module!+0xOFF (an image, no symbol) or 0xADDRESS, as etldump writes them."),
	ATTR(frames, "The call stack as libetl.Frame objects (address, module, function, offset, file, line,\n"
		     "kind, module_path), innermost first."),
	ATTR(process, "Image name of the process, when the trace's kernel events describe it; else None."),
	ATTR(hook_id, "Kernel HookId (group << 8 | type) for kernel records, else 0."),
	ATTR(header, "Header kind: system, compact, perfinfo, full, instance, event, message."),
	ATTR(activity_id, "Activity id, or None."),
	ATTR(related_activity_id, "Related activity id, or None."),
	ATTR(trace_index, "Index of the input the event came from."),
	ATTR(file_offset, "File offset of the record (of its buffer, for compressed buffers)."),
	ATTR(record_size, "Size of the record, header included."),
	ATTR(pointer_size, "Pointer size of the payload (4 or 8)."),
	{ NULL, NULL, NULL, NULL, NULL },
};

/* ---- methods ---- */

static int put(PyObject *d, const char *key, PyObject *v)
{
	int rc = v ? PyDict_SetItemString(d, key, v) : -1;

	Py_XDECREF(v);
	return rc;
}

static PyObject *Event_as_dict(EventObject *self, PyObject *noargs)
{
	static const char *const keys[] = { "name", "provider", "provider_id", "id", "version", "level", "opcode",
					    "task", "keywords", "pid", "tid", "cpu", "unix_ns", "timestamp",
					    "decoder", "fields", "process", "process_pid", "message" };
	PyObject *d = PyDict_New();
	size_t i;

	(void)noargs;
	for (i = 0; d && i < sizeof(keys) / sizeof(keys[0]); i++)
		if (put(d, keys[i], PyObject_GetAttrString((PyObject *)self, keys[i])) < 0)
			Py_CLEAR(d);
	return d;
}

static PyObject *Event_repr(EventObject *self)
{
	char when[ETL_FILETIME_STRING_SIZE];
	PyObject *name;
	PyObject *out;

	if (self->snapshot) {
		PyObject *ft = PyDict_GetItemString(self->snapshot, "filetime");
		PyObject *cpu = PyDict_GetItemString(self->snapshot, "cpu");
		name = PyDict_GetItemString(self->snapshot, "name");
		etl_filetime_format(ft && PyLong_Check(ft) ? PyLong_AsUnsignedLongLong(ft) : 0, when);
		PyErr_Clear();
		return PyUnicode_FromFormat("<libetl.Event %s %S cpu=%S>", when, name ? name : Py_None,
					    cpu ? cpu : Py_None);
	}
	etl_filetime_format(etl_event_filetime(self->ev), when);
	name = Event_get_name(self, NULL);
	if (!name) {
		PyErr_Clear();
		name = PyUnicode_FromString("?");
	}
	out = PyUnicode_FromFormat("<libetl.Event %s %U cpu=%u>", when, name, (unsigned)etl_event_cpu(self->ev));
	Py_XDECREF(name);
	return out;
}

/* ---- pickling and copies: a snapshot of every attribute ---- */

static PyObject *event_state(EventObject *self)
{
	PyObject *d;
	const PyGetSetDef *g;

	if (self->snapshot)
		return PyDict_Copy(self->snapshot);
	d = PyDict_New();
	for (g = Event_getset; d && g->name; g++)
		if (put(d, g->name, PyObject_GetAttrString((PyObject *)self, g->name)) < 0)
			Py_CLEAR(d);
	return d;
}

static PyObject *Event_reduce(EventObject *self, PyObject *noargs)
{
	PyObject *mod, *restore, *state, *out = NULL;

	(void)noargs;
	mod = PyImport_ImportModule("libetl");
	restore = mod ? PyObject_GetAttrString(mod, "_event_from_state") : NULL;
	state = restore ? event_state(self) : NULL;
	if (state)
		out = Py_BuildValue("(O(O))", restore, state);
	Py_XDECREF(mod);
	Py_XDECREF(restore);
	Py_XDECREF(state);
	return out;
}

/* A snapshot answers from its dict; the methods as any Event's. */
static PyObject *Event_getattro(EventObject *self, PyObject *name)
{
	if (self->snapshot) {
		PyObject *v = PyDict_GetItemWithError(self->snapshot, name);
		if (v) {
			Py_INCREF(v);
			return v;
		}
		if (PyErr_Occurred())
			return NULL;
	}
	return PyObject_GenericGetAttr((PyObject *)self, name);
}

PyObject *pyetl_event_from_state(PyObject *module, PyObject *state)
{
	EventObject *self;
	const PyGetSetDef *g;

	if (!PyDict_Check(state))
		return PyErr_Format(PyExc_TypeError, "an Event's state is a dict");
	for (g = Event_getset; g->name; g++) /* (a getter would read the event it does not have) */
		if (!PyDict_GetItemString(state, g->name))
			return PyErr_Format(PyExc_ValueError, "an Event's state without '%s'", g->name);
	self = PyObject_GC_New(EventObject, pyetl_module_state(module)->Event);
	if (!self)
		return NULL;
	memset((char *)self + sizeof(PyObject), 0, sizeof(*self) - sizeof(PyObject));
	self->snapshot = PyDict_Copy(state);
	if (!self->snapshot) {
		Py_DECREF(self);
		return NULL;
	}
	PyObject_GC_Track(self);
	return (PyObject *)self;
}

static PyMethodDef Event_methods[] = {
	{ "__reduce__", (PyCFunction)Event_reduce, METH_NOARGS,
	  "Pickles (and copies) as a snapshot: every attribute's value, with no tie to the reader." },
	{ "as_dict", (PyCFunction)Event_as_dict, METH_NOARGS,
	  "The event as a dict: name, provider, provider_id, id, version, level, opcode, task, keywords,\n"
	  "pid, tid, cpu, unix_ns, timestamp, decoder, fields, process, process_pid, message." },
	{ NULL, NULL, 0, NULL },
};

#ifndef Py_TPFLAGS_DISALLOW_INSTANTIATION
#define Py_TPFLAGS_DISALLOW_INSTANTIATION 0 /* (Python 3.9: tp_new is cleared instead) */
#endif

PyObject *pyetl_event_type_new(PyObject *module)
{
	static char doc[] = "One event of a trace (from iterating a libetl.Reader). It stays valid after the\n"
			    "iteration moves on; its name and fields are decoded on first access.";
	PyType_Slot slots[] = {
		{ Py_tp_doc, doc },
		{ Py_tp_getset, Event_getset },
		{ Py_tp_methods, Event_methods },
		PYETL_SLOT(Py_tp_dealloc, Event_dealloc),
		PYETL_SLOT(Py_tp_traverse, Event_traverse),
		PYETL_SLOT(Py_tp_clear, Event_clear),
		PYETL_SLOT(Py_tp_repr, Event_repr),
		PYETL_SLOT(Py_tp_getattro, Event_getattro),
		{ 0, NULL },
	};
	PyType_Spec spec = {
		.name = "libetl.Event",
		.basicsize = sizeof(EventObject),
		.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE |
			 Py_TPFLAGS_DISALLOW_INSTANTIATION, /* (Events come from Readers) */
		.slots = slots,
	};
	PyObject *type = PyType_FromModuleAndSpec(module, &spec, NULL);

	if (type && Py_TPFLAGS_DISALLOW_INSTANTIATION == 0)
		((PyTypeObject *)type)->tp_new = NULL;
	return type;
}

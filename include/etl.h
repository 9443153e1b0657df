/*
 * etl.h - libetl public API: read Windows ETW trace files (.etl) offline.
 *
 * SPDX-License-Identifier: MIT
 *
 * Ownership words used in every comment below:
 *   borrowed  the pointer belongs to the library; it stays valid until the
 *             event named in the comment (usually the next etl_reader_next()
 *             or etl_reader_free()).  Never free it.
 *   owned     the caller frees it with the function named.
 *   copied    the library copied the data out; nothing to free.
 *
 * Status convention: ETL_OK (0) and the positive ETL_END mean success;
 * every failure is negative.  See docs/API.md for the full contract.
 */
#ifndef ETL_H
#define ETL_H

#include <stddef.h>
#include <stdint.h>

#include "etl_version.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#  define ETL_API __declspec(dllexport)
#elif defined(__GNUC__) && __GNUC__ >= 4
#  define ETL_API __attribute__((visibility("default")))
#else
#  define ETL_API
#endif

#if defined(__GNUC__)
#  define ETL_WARN_UNUSED __attribute__((warn_unused_result))
#else
#  define ETL_WARN_UNUSED
#endif

/* ------------------------------------------------------------------ */
/* Status codes                                                        */
/* ------------------------------------------------------------------ */

/** Result of every fallible call. @since 0.1 */
enum etl_status {
	ETL_OK = 0,               /**< success */
	ETL_END = 1,              /**< no more events */
	ETL_E_FORMAT = -1,        /**< the bytes are not what the format allows */
	ETL_E_TRUNCATED = -2,     /**< a structure runs past the end of its container */
	ETL_E_UNSUPPORTED = -3,   /**< valid but not supported (e.g. a compression format) */
	ETL_E_LIMIT = -4,         /**< a size or count exceeds a configured limit */
	ETL_E_IO = -5,            /**< the operating system reported an I/O error */
	ETL_E_NOMEM = -6,         /**< an allocation failed */
	ETL_E_MISUSE = -7         /**< the API was called in a way it does not allow */
};

/** Short constant name of a status ("format", "truncated", ...). copied. @since 0.1 */
ETL_API const char *etl_status_string(int status);

/**
 * Copies @p text for printing where a terminal may see it: control bytes,
 * C1 controls, line and paragraph separators, bidirectional overrides and
 * bytes that are not UTF-8 become "\xNN"; the rest is copied as is.  The
 * result is cut (at a character) to fit @p cap bytes with its NUL; @p cap
 * must be at least 1.  Names from an input (etl_trace_info_name() of a zip
 * member, provider and property names) may hold anything; error messages are
 * already escaped.  Returns @p out. @since 0.2
 */
ETL_API const char *etl_text_escape(const char *text, char *out, size_t cap);
/** How many bytes at the start of @p text etl_text_escape() copies as they are: printable ASCII
 *  and well-formed UTF-8 that is not a C1 control, a separator or a bidirectional control.  For
 *  writers with a rule of their own for the rest (etldump: "\n" in quoted text, "\xNN" in CSV).
 *  @since 0.2 */
ETL_API size_t etl_text_printable(const char *text);

/* ------------------------------------------------------------------ */
/* Versions                                                            */
/* ------------------------------------------------------------------ */

/** Library version, e.g. "0.1.0".  Static storage. @since 0.1 */
ETL_API const char *etl_version_string(void);
/** Library version with its dependencies, e.g. "libetl 0.1.0 (zlib 1.2.13, libdeflate 1.14, libxml2 2.9.14)"
 * (libdeflate where the build has it). @since 0.1 */
ETL_API const char *etl_version_details(void);
/** ETL_VERSION_NUMBER of the library actually loaded. @since 0.1 */
ETL_API unsigned long etl_version_number(void);

/* ------------------------------------------------------------------ */
/* Small value types                                                   */
/* ------------------------------------------------------------------ */

/** A GUID in its Windows field form (Data1-3 are read little-endian). @since 0.1 */
struct etl_guid {
	uint32_t data1;
	uint16_t data2;
	uint16_t data3;
	uint8_t data4[8];
};

/** Length of a formatted GUID with its NUL: "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx". */
#define ETL_GUID_STRING_SIZE 37

/** Writes the lower-case, brace-less form of @p g into @p out. @since 0.1 */
ETL_API void etl_guid_format(const struct etl_guid *g, char out[ETL_GUID_STRING_SIZE]);
/** The FILETIME of the Unix epoch (1970-01-01T00:00:00Z): 100-ns intervals from 1601 to 1970.
 *  @since 0.2 */
#define ETL_FILETIME_UNIX_EPOCH 116444736000000000ULL
/** Length of a formatted FILETIME with its NUL: "YYYY-MM-DDTHH:MM:SS.fffffffZ" (a year past 9999
 *  takes five digits). */
#define ETL_FILETIME_STRING_SIZE 32

/** Writes a FILETIME (100 ns since 1601-01-01, UTC) as ISO 8601 UTC with 7 fraction digits into
 *  @p out, e.g. "2024-01-02T03:04:05.1234567Z"; every value has a text (0 is
 *  "1601-01-01T00:00:00.0000000Z").  Returns the length written. @since 0.2 */
ETL_API size_t etl_filetime_format(uint64_t filetime, char out[ETL_FILETIME_STRING_SIZE]);

/** Parses "xxxxxxxx-...", with or without braces. @retval ETL_OK @retval ETL_E_FORMAT @since 0.1 */
ETL_API int etl_guid_parse(const char *s, struct etl_guid *out);
/** 1 if the two GUIDs are equal, else 0. @since 0.1 */
ETL_API int etl_guid_equal(const struct etl_guid *a, const struct etl_guid *b);

/* ------------------------------------------------------------------ */
/* The reader                                                          */
/* ------------------------------------------------------------------ */

struct etl_reader;
struct etl_event;
struct etl_trace_info;
struct etl_error;
struct etl_slices;

/** Creates a reader.  owned: free with etl_reader_free().  NULL if out of memory. @since 0.1 */
ETL_API struct etl_reader *etl_reader_new(void);
/** Closes every input and frees the reader and all that it lent out.  NULL is allowed. @since 0.1 */
ETL_API void etl_reader_free(struct etl_reader *r);

/** Delivery order. @since 0.1 */
enum etl_order {
	ETL_ORDER_TIME = 0,  /**< default: per-CPU buffer streams merged by timestamp */
	ETL_ORDER_FILE = 1   /**< records as they are laid out in the file */
};
/** Sets the delivery order; only before the first etl_reader_next(). @retval ETL_OK @retval ETL_E_MISUSE @since 0.1 */
ETL_API int etl_reader_set_order(struct etl_reader *r, enum etl_order order);

/** Limits on what a file may claim.  Defaults are in docs/API.md. @since 0.1 */
enum etl_limit {
	ETL_LIMIT_BUFFER_SIZE = 0,   /**< largest buffer, bytes (default 64 MiB) */
	ETL_LIMIT_BUFFER_COUNT = 1,  /**< most buffers per trace (default 16 Mi) */
	ETL_LIMIT_STREAMS = 2,       /**< most per-CPU streams per trace (default 4096) */
	ETL_LIMIT_SPOOL_SIZE = 3,    /**< most bytes spooled from a pipe, or unpacked from one archive in all (default 64 GiB; an archive also stops at 256 times its size) */
	ETL_LIMIT_PROPERTIES = 4,    /**< most properties (values, array elements, structs) per decoded event (default 1 Mi) */
	ETL_LIMIT_DEPTH = 5,         /**< deepest nesting of structs and arrays in a decoded event (default 32) */
	ETL_LIMIT_STACK_KEY_BYTES = 6, /**< most memory for a trace's compressed-stack definitions (default 256 MiB) */
	ETL_LIMIT_KEPT_BUFFER_BYTES = 7, /**< most bytes of decompressed buffers the stack index pass keeps per trace, so that the reader does not decompress them again, and as many for a slice plan's (etl_reader_plan_slices) (default 32 MiB; 0 keeps none) @since 0.2 */
	ETL_LIMIT_SYMBOL_BYTES = 8, /**< most memory for what the reader reads of PDB files (tables and streams kept; default 512 MiB): past it, more PDBs are not read (ETL_SYMBOLS_LIMIT) @since 0.2 */
	ETL_LIMIT_COUNT_
};
/** Sets a limit; only before the first input is opened.  A limit is at least 1, except
 *  ETL_LIMIT_KEPT_BUFFER_BYTES (0 keeps none). @retval ETL_OK @retval ETL_E_MISUSE @since 0.1 */
ETL_API int etl_reader_set_limit(struct etl_reader *r, enum etl_limit which, uint64_t value);
/** Current value of a limit (0 for an unknown one). @since 0.1 */
ETL_API uint64_t etl_reader_get_limit(const struct etl_reader *r, enum etl_limit which);

/** Reader options (etl_reader_set_option). @since 0.2 */
enum etl_option {
	/** 1 (default): give events their call stack (etl_event_stack_depth): the StackWalk
	 *  records that follow them, and - through the trace's stack index, read in one extra pass
	 *  the first time a stack of the trace is asked for - compressed stacks (stack keys) and
	 *  stacks logged away from them.  0: attach no StackWalk records (no extra pass; stack
	 *  extended items of EVENT_HEADER records are still the event's stack). */
	ETL_OPTION_STACKS = 0,
	/** 0 (default) or 1: give decoded kernel events derived fields (etl_decoded_derived_at()):
	 *  DiskIO's and HardFault's ElapsedTimeMSec and FileName (through the trace's file-name
	 *  records, read in one extra pass the first time a name is needed), Image's BuildTime
	 *  (from TimeDateStamp) and file names with the NT volume rewritten to its drive letter
	 *  (through the trace's volume-mapping records). */
	ETL_OPTION_DERIVE = 1,
	/** 0 (default) to 64: helper threads that load (decompress) each stream's next buffers and
	 *  parse their records while the caller's thread merges the current ones.  Events, their
	 *  order and their bytes are the same; only the time changes.  @since 0.2 */
	ETL_OPTION_THREADS = 2,
	/** 1 (default): etl_reader_frame() names functions: .NET methods from the trace's CLR
	 *  events, native functions from PDB files.  0: images and offsets only (no PDB file is
	 *  opened).  @since 0.2 */
	ETL_OPTION_SYMBOLS = 3,
	/** 1 (default): decode events with the provider descriptions built into libetl (the
	 *  Windows kernel providers, the .NET runtime's, HTTP, TCP/IP, NDIS packet capture...:
	 *  etl_builtin_providers()) where no given manifest, EventSource manifest or merge-time
	 *  metadata of the trace describes them, and name events by them.  0: only what is given
	 *  and what the trace carries.  @since 0.2 */
	ETL_OPTION_BUILTIN_MANIFESTS = 4,
	ETL_OPTION_COUNT_
};
/** Sets an option; only before the first etl_reader_next().  Values are 0 or 1, except
 *  ETL_OPTION_THREADS (0 to 64).
 *  @retval ETL_OK @retval ETL_E_MISUSE (unknown option, bad value or too late) @since 0.2 */
ETL_API int etl_reader_set_option(struct etl_reader *r, enum etl_option which, int64_t value);
/** Current value of an option (0 for an unknown one). @since 0.2 */
ETL_API int64_t etl_reader_get_option(const struct etl_reader *r, enum etl_option which);

/**
 * A set of manifests loaded once and shared by any number of readers, on any threads (a batch
 * of inputs, a pool of workers): etl_manifests_new(), then etl_manifests_add_path() (same
 * rules and statuses as etl_reader_add_manifest_path(); problems in etl_manifests_error() and
 * etl_manifests_warnings()), then etl_reader_use_manifests() on each reader before its first
 * event.  Once a reader uses it the set no longer changes (adding is ETL_E_MISUSE).
 * etl_manifests_free() drops the caller's reference; readers keep theirs until freed.  A
 * reader's own manifests (etl_reader_add_manifest_*) are looked up before the set.  @since 0.2
 */
struct etl_manifests;
ETL_API struct etl_manifests *etl_manifests_new(void);
ETL_API int etl_manifests_add_path(struct etl_manifests *m, const char *path);
ETL_API int etl_manifests_add_memory(struct etl_manifests *m, const void *xml, size_t size, const char *name);
/**
 * Adds TMF files to the set, as etl_reader_add_tmf_path() adds them to one reader (same rules
 * and statuses): one file is parsed now, the files of a folder when a reader first needs them -
 * once for all the readers that use the set, whatever thread they run on.  A reader's own TMF
 * files are looked up before the set's.  Their problems count in etl_manifests_warnings() (those
 * of folder files read later, in each reader's etl_reader_tmf_warnings()).  @since 0.2
 */
ETL_API int etl_manifests_add_tmf_path(struct etl_manifests *m, const char *path);
/** Events or templates skipped so far, and the last problem (NULL if none). @since 0.2 */
ETL_API unsigned etl_manifests_warnings(const struct etl_manifests *m);
ETL_API const struct etl_error *etl_manifests_error(const struct etl_manifests *m);
ETL_API void etl_manifests_free(struct etl_manifests *m);
/** The reader decodes with the set too (one set per reader). @retval ETL_OK @retval ETL_E_MISUSE @since 0.2 */
ETL_API int etl_reader_use_manifests(struct etl_reader *r, struct etl_manifests *m);


/**
 * Loads the providers of an instrumentation manifest (.man/.xml, UTF-8 or UTF-16 with a BOM), or
 * of every *.man, *.xml and *.manifest file of a directory, for decoding.  May be called at any
 * time.  A provider loaded again replaces the earlier one.  Manifests are untrusted: no network,
 * no external entities, at most 64 MiB each.
 * @retval ETL_OK        loaded; some events or templates may have been skipped, see
 *                       etl_reader_manifest_warnings() and etl_reader_error()
 * @retval ETL_E_FORMAT  not a manifest (the error says why) @retval ETL_E_IO @retval ETL_E_LIMIT
 * @retval ETL_E_NOMEM
 * @since 0.1
 */
ETL_API int etl_reader_add_manifest_path(struct etl_reader *r, const char *path);
/** The same from memory (copied: the bytes need not outlive the call). @since 0.1 */
ETL_API int etl_reader_add_manifest_memory(struct etl_reader *r, const void *xml, size_t size,
					   const char *name);
/** Events, templates or files skipped while loading manifests, so far. @since 0.1 */
ETL_API unsigned etl_reader_manifest_warnings(const struct etl_reader *r);

/**
 * Adds WPP trace message format (TMF) files for decoding WPP messages: one .tmf file (parsed now),
 * or a folder of GUID.tmf files as tracefmt's -p takes (each parsed when a trace first names its
 * GUID).  May be called at any time; a message defined again replaces the earlier one.  TMF files
 * are untrusted: at most 16 MiB each, 64 folders, 64 arguments per message (docs/WPP.md).
 * @retval ETL_OK  added; messages with a bad line were skipped, see etl_reader_tmf_warnings() and
 *                 etl_reader_error()
 * @retval ETL_E_IO @retval ETL_E_LIMIT @retval ETL_E_UNSUPPORTED (UTF-16) @retval ETL_E_NOMEM
 * @since 0.2
 */
ETL_API int etl_reader_add_tmf_path(struct etl_reader *r, const char *path);
/** Lines of TMF files that could not be read (each drops its message), so far, including files of
 *  folders read on demand. @since 0.2 */
ETL_API unsigned etl_reader_tmf_warnings(const struct etl_reader *r);

/**
 * Adds a trace file by path.  May be called several times before the first
 * etl_reader_next(): the events of all inputs are merged into one stream.
 * Compressed (.gz) and PerfView .etl.zip containers are recognised by content.
 * @retval ETL_OK @retval ETL_E_IO @retval ETL_E_FORMAT @retval ETL_E_TRUNCATED
 * @retval ETL_E_UNSUPPORTED @retval ETL_E_LIMIT @retval ETL_E_NOMEM @retval ETL_E_MISUSE
 * @since 0.1
 */
ETL_API ETL_WARN_UNUSED int etl_reader_open_path(struct etl_reader *r, const char *path);
/**
 * Adds a trace from an open file descriptor.  The descriptor is not closed
 * by the library.  A descriptor that cannot seek (a pipe) is spooled to a
 * temporary file first (bounded by ETL_LIMIT_SPOOL_SIZE).  @p name is used in
 * messages and may be NULL.  Statuses as etl_reader_open_path(). @since 0.1
 */
ETL_API ETL_WARN_UNUSED int etl_reader_open_fd(struct etl_reader *r, int fd, const char *name);
/**
 * Adds a trace held in memory.  The bytes are borrowed: they must outlive the
 * reader.  Statuses as etl_reader_open_path(). @since 0.1
 */
ETL_API ETL_WARN_UNUSED int etl_reader_open_memory(struct etl_reader *r, const void *data,
						   size_t size, const char *name);
/**
 * Opens input @p trace of reader @p from again in @p r, sharing what @p from unpacked (a container's
 * temporary file, a spooled pipe) instead of reading the original again: several readers of one
 * input, e.g. one per thread.  @p from is only read, and may be used by another thread meanwhile
 * as long as it is not freed before @p r (an input held in memory is borrowed from it).  The two
 * share the input's stack index (frames, images, methods): it is read once, by whichever reader
 * first needs it, under a lock.
 * @retval ETL_OK @retval ETL_E_IO @retval ETL_E_MISUSE (no such input, or too late)
 * @since 0.2
 */
ETL_API ETL_WARN_UNUSED int etl_reader_open_same(struct etl_reader *r, const struct etl_reader *from, int trace);
/**
 * Lets @p r learn from @p ev, an event another reader of the same inputs delivered (@p r opened
 * them with etl_reader_open_same(), in the same order): the in-trace metadata, processes,
 * threads and images it describes, as if @p r had delivered it.  Given every event for which
 * etl_event_updates_state() is 1, in the other reader's order, up to an event, @p r decodes
 * that event (etl_reader_decode) and names its process as the other reader would: one reader
 * iterates, and readers on other threads decode copies of its events (etl_event_copy_into).
 * Events that describe nothing are ignored.  A reader given events this way cannot iterate.
 * (An iterating reader with a time window learns from the events before the window without
 * delivering them: a reader that observes it misses what they describe.)
 * @retval ETL_OK @retval ETL_E_MISUSE (@p r iterates, or the event's input is not open in it)
 * @since 0.2
 */
ETL_API int etl_reader_observe(struct etl_reader *r, const struct etl_event *ev);

/**
 * Delivers the next event.
 * @param event  set to a borrowed view valid until the next call of
 *               etl_reader_next() or etl_reader_free().
 * @retval ETL_OK   an event was delivered
 * @retval ETL_END  no more events
 * @retval <0       damage was found and skipped (no event delivered); the
 *                  error object tells what and where.  Call again to go on,
 *                  unless etl_error_is_fatal() says the reader cannot.
 * @since 0.1
 */
ETL_API int etl_reader_next(struct etl_reader *r, const struct etl_event **event);

/**
 * Delivers only the events whose time (FILETIME, etl_event_filetime) is in [from, to); to = 0
 * means no end.  Only before the first etl_reader_next().  The events before the window are
 * still read, for the processes, threads, images and in-trace metadata they describe (so that
 * the events in the window decode and resolve as in a whole reading), but not delivered, and
 * damage before the window is not reported.  Each CPU's events are read past to through the
 * rest of that buffer and the whole next one, so an event whose damaged timestamp lies after
 * the window does not end it.  Windows that tile the time line - as etl_reader_time_slices()
 * gives them - deliver every event of an input exactly once, even when damage moved an event's
 * time back further than that read-ahead: the window that meets it then delivers it, outside
 * its times, after a non-fatal error saying so (once per CPU).  Damage found while indexing is
 * reported by the window that starts at 0.  In ETL_ORDER_FILE a window reads its input to the
 * end.
 * @retval ETL_OK @retval ETL_E_MISUSE @since 0.2
 */
ETL_API int etl_reader_set_time_window(struct etl_reader *r, uint64_t from, uint64_t to);

/**
 * Cuts input @p trace into at most @p n time slices of about equal bytes, by the flush times of
 * its buffers: writes k + 1 bounds into @p bounds (room for n + 1), bounds[0] = 0 and
 * bounds[k] = 0 (no end), and returns k (1 <= k <= n; fewer when the input has few buffers).
 * Each [bounds[i], bounds[i+1]) is a window for etl_reader_set_time_window() on a reader of its
 * own.  Reads the buffer headers (72 bytes each).  Where a flush time lies outside the trace's
 * start and end (a relogged trace's are not in its clock), the buffers are cut by the times of
 * their records instead, which reads them as etl_reader_plan_slices() does.  0 on a bad argument
 * or an I/O error.
 * @since 0.2
 */
ETL_API size_t etl_reader_time_slices(struct etl_reader *r, int trace, size_t n, uint64_t *bounds);

/**
 * Time slices that each start where they start: a plan.  A reader with a time window reads every
 * record before it (etl_reader_set_time_window), so k slices read the trace about k/2 times.
 * The plan reads input @p trace once - each record's size and time, and in full only the records
 * that describe processes, threads, images or in-trace metadata - cuts it as
 * etl_reader_time_slices() does (the same bounds), and gives each slice a state
 * (etl_slices_state): those records from before the slice, and where each CPU's buffers take up.
 * A reader given a slice's state (etl_reader_set_slice) reads from there on, and delivers what a
 * reader with that slice's time window delivers, decoded and resolved the same.  Buffers are
 * skipped only where reading them lightly gives exactly what the reader would read (records that
 * parse, in time order, none taken in by another's size); from a buffer that is not so, its CPU
 * is read as with a time window.  A trace whose buffers are out of sequence (a circular log) gets
 * states that skip nothing.  With ETL_OPTION_THREADS, helper threads load (decompress) the
 * buffers for it, and the planning thread loads those none has taken yet while it waits.  With
 * ETL_OPTION_STACKS (the default), the same pass makes the trace's stack index, which readers of
 * the slices opened with etl_reader_open_same() from @p r share.  Memory while planning: 88 bytes
 * a buffer (56 kept with the plan), and the describing records (at most 64 MiB; past it, their
 * buffers are read by the slices).
 * @return the plan (etl_slices_free), or NULL on a bad argument (@p n above 4096), an I/O error or
 *         out of memory
 * @since 0.2
 */
ETL_API struct etl_slices *etl_reader_plan_slices(struct etl_reader *r, int trace, size_t n);
/** The plan's slices (k, 1 <= k <= n).  @since 0.2 */
ETL_API size_t etl_slices_count(const struct etl_slices *p);
/** Bound @p i of the plan (0 <= i <= k, as etl_reader_time_slices writes them: bound 0 and bound k
 *  are 0).  @since 0.2 */
ETL_API uint64_t etl_slices_bound(const struct etl_slices *p, size_t i);
/**
 * About how many records slice @p i of the plan holds - what reading it costs, where slices of
 * equal bytes can differ many times over: each buffer's records as the plan read them (a buffer
 * it could not read counts none), spread evenly over the time from its CPU's last record before
 * it to its own last, rounded.  0 for no such slice, or a plan of a trace whose buffers are out of
 * sequence (it reads none).  @since 0.2
 */
ETL_API uint64_t etl_slices_records(const struct etl_slices *p, size_t i);
/**
 * The state of slice @p i (0 <= i < k), @p len bytes, for etl_reader_set_slice(): valid until the
 * next call on @p p.  It holds the slice's bounds, what identifies the input, where each CPU's
 * buffers take up and the records before the slice that describe something (a few hundred bytes
 * to as much as those records take): bytes that can be stored or sent to another process or
 * machine (docs/API.md, "Time slices").  NULL on a bad argument or out of memory.
 * @since 0.2
 */
ETL_API const void *etl_slices_state(struct etl_slices *p, size_t i, size_t *len);
/**
 * The bytes etl_slices_state() gives for slice @p i, without writing them (the plan counted each
 * state's records once): what a caller weighs the slices by.  0 on a bad argument.
 * @since 0.2
 */
ETL_API size_t etl_slices_state_size(const struct etl_slices *p, size_t i);
/**
 * Whether the plan's slices, read one after another, deliver exactly the events of a whole
 * reading, in its order: every data buffer read lightly as the reader reads it (records that
 * parse, none taken in by another's size, each CPU's times never going back) and nothing the
 * index skipped.  Then the merge's order is the order of time, and each slice holds a run of it.
 * 0 for a trace that is not so (its slices still deliver every event once, each as its time
 * window does, but not always in a whole reading's order), or for NULL.  @since 0.2
 */
ETL_API int etl_slices_in_order(const struct etl_slices *p);
ETL_API void etl_slices_free(struct etl_slices *p);
/**
 * Reads @p r as the time slice @p state describes (from etl_slices_state(), @p len bytes; copied):
 * sets its time window (etl_reader_set_time_window() then refuses another start; it may move the
 * end, to read slices i to j - 1 as one), and when the input the state is of is opened (the same index: open the
 * inputs in the order the planning reader did), takes its buffers as the state says instead of
 * indexing the file, and learns from the state's records instead of reading the buffers before
 * the slice.  Before the inputs are opened; once.  The state is checked as untrusted input; an
 * input whose size or first 4096 bytes are not those the state was made of fails to open
 * (ETL_E_MISUSE).  Damage found while indexing is reported by the first slice, which skips nothing.
 * @retval ETL_OK @retval ETL_E_FORMAT (the bytes are not a state: the error names the byte)
 * @retval ETL_E_MISUSE @retval ETL_E_NOMEM @since 0.2
 */
ETL_API int etl_reader_set_slice(struct etl_reader *r, const void *state, size_t len);
/**
 * Reads @p r as slice @p i of plan @p p, as etl_reader_set_slice() would with the state
 * etl_slices_state() gives, but takes the slice's records from the plan instead of bytes: nothing
 * written, copied or checked again.  The plan is only read, so readers in several threads may
 * take their slices of one plan at once (but not while etl_slices_free() runs); it must outlive
 * @p r.  For a reader in the process that planned; a state for another process is bytes.
 * @retval ETL_OK @retval ETL_E_MISUSE (no such slice, a state given already, the state's input
 * open already) @retval ETL_E_NOMEM @since 0.2
 */
ETL_API int etl_reader_set_slice_planned(struct etl_reader *r, const struct etl_slices *p, size_t i);
/**
 * Moves @p r on to slice @p i of plan @p p, keeping what it learnt: @p r read a later slice of @p p
 * (given with etl_reader_set_slice_planned(), not the first slice, whose reader indexes the file
 * itself) to its end - etl_reader_next() returned ETL_END - and slice @p i starts at or after where
 * its window ended.  It then reads as a new reader given slice @p i would (its window set, its end
 * movable with etl_reader_set_time_window()), but learns only from the plan's records of times
 * from there on instead of replaying the state of every record before the slice: a reader that
 * takes several slices of one plan in turn replays the trace's early state once.  The plan must be
 * in order (etl_slices_in_order()), the reader read only that input, and the plan outlives it.
 * @retval ETL_OK @retval ETL_E_MISUSE (no such slice, a reader or plan that cannot move, as said)
 * @retval ETL_E_NOMEM @since 0.2
 */
ETL_API int etl_reader_move_to_slice(struct etl_reader *r, const struct etl_slices *p, size_t i);

/** The last error (borrowed until the next call on the reader), or NULL. @since 0.1 */
ETL_API const struct etl_error *etl_reader_error(const struct etl_reader *r);

/** Counters kept while reading; etl_reader_count() returns them. @since 0.1 */
enum etl_counter {
	ETL_COUNT_EVENTS = 0,            /**< events delivered */
	ETL_COUNT_BUFFERS = 1,           /**< buffers found (header buffer included) */
	ETL_COUNT_BUFFERS_COMPRESSED = 2,/**< of which compressed */
	ETL_COUNT_BUFFERS_SKIPPED = 3,   /**< buffers that could not be read at all */
	ETL_COUNT_RECORDS_SKIPPED = 4,   /**< records dropped as damaged or of unknown kind */
	ETL_COUNT_BYTES_SKIPPED = 5,     /**< file bytes that could not be attributed to a record */
	ETL_COUNT_ERRORS = 6,            /**< errors reported through etl_reader_next() */
	ETL_COUNT_BUFFERS_EVENTS_LOST = 7, /**< buffers flagged EVENTS_LOST by the logger */
	ETL_COUNT_STACKS_DROPPED = 8,    /**< stack-key definitions, away-from-event stack records, image
	                                      and CLR method records the stack index could not keep
	                                      (ETL_LIMIT_STACK_KEY_BYTES, each kind on its own): stacks
	                                      come out incomplete, or frames unnamed */
	ETL_COUNT_EVENTS_BEFORE_WINDOW = 9, /**< events read before the time window (etl_reader_set_time_window)
	                                      for what they tell of later ones, not delivered (since 0.2) */
	ETL_COUNT_BYTES_READ = 10,       /**< bytes of the inputs' buffers read so far (as stored): with
	                                      the inputs' sizes, how far reading is; it only grows (since 0.2) */
	ETL_COUNT_EVENTS_FILTERED = 11,  /**< events read but not delivered: the filter said no
	                                      (etl_reader_set_filter; since 0.2) */
	ETL_COUNT_COUNT_
};
/** Value of a counter, summed over all inputs. @since 0.1 */
ETL_API uint64_t etl_reader_count(const struct etl_reader *r, enum etl_counter which);

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */

/** The status of the error (< 0). @since 0.1 */
ETL_API int etl_error_code(const struct etl_error *e);
/** UTF-8 message, lower case, naming the structure and what was wrong. borrowed. @since 0.1 */
ETL_API const char *etl_error_message(const struct etl_error *e);
/** Absolute offset in the input file, or UINT64_MAX if not tied to one. @since 0.1 */
ETL_API uint64_t etl_error_offset(const struct etl_error *e);
/** Index of the input the error belongs to, or -1. @since 0.1 */
ETL_API int etl_error_trace_index(const struct etl_error *e);
/** Index of the buffer in its file, or -1. @since 0.1 */
ETL_API int64_t etl_error_buffer_index(const struct etl_error *e);
/** 1 if the reader cannot continue (every later call repeats the error). @since 0.1 */
ETL_API int etl_error_is_fatal(const struct etl_error *e);

/* ------------------------------------------------------------------ */
/* Trace information (one per input)                                   */
/* ------------------------------------------------------------------ */

/** Number of inputs opened. @since 0.1 */
ETL_API int etl_reader_trace_count(const struct etl_reader *r);
/** Information of input @p index; borrowed until etl_reader_free().  NULL if out of range. @since 0.1 */
ETL_API const struct etl_trace_info *etl_reader_trace_info(const struct etl_reader *r, int index);

/** Clock types of TRACE_LOGFILE_HEADER.ReservedFlags. @since 0.1 */
enum etl_clock {
	ETL_CLOCK_UNKNOWN = 0,
	ETL_CLOCK_QPC = 1,         /**< QueryPerformanceCounter ticks */
	ETL_CLOCK_SYSTEM_TIME = 2, /**< FILETIME (100 ns) */
	ETL_CLOCK_CPU_CYCLES = 3   /**< CPU cycle counter */
};

/** Short name of a clock type ("qpc", "system-time", "cpu-cycles", "unknown"). Static storage. @since 0.2 */
ETL_API const char *etl_clock_name(enum etl_clock c);

/** Name the input was opened under (path, or the name given). borrowed. @since 0.1 */
ETL_API const char *etl_trace_info_name(const struct etl_trace_info *t);
/** Size of the trace data in bytes (after any container was unpacked). @since 0.1 */
ETL_API uint64_t etl_trace_info_file_size(const struct etl_trace_info *t);
ETL_API uint32_t etl_trace_info_buffer_size(const struct etl_trace_info *t);
ETL_API uint32_t etl_trace_info_os_major(const struct etl_trace_info *t);
ETL_API uint32_t etl_trace_info_os_minor(const struct etl_trace_info *t);
/** TRACE_LOGFILE_HEADER.Version sub-version and sub-minor (file layout: 1.5 or 2.0). */
ETL_API uint32_t etl_trace_info_layout_major(const struct etl_trace_info *t);
ETL_API uint32_t etl_trace_info_layout_minor(const struct etl_trace_info *t);
/** ProviderVersion: the OS build number. */
ETL_API uint32_t etl_trace_info_os_build(const struct etl_trace_info *t);
ETL_API uint32_t etl_trace_info_cpu_count(const struct etl_trace_info *t);
/** Start, end and boot times as FILETIME (100 ns since 1601, UTC). */
ETL_API uint64_t etl_trace_info_start_time(const struct etl_trace_info *t);
ETL_API uint64_t etl_trace_info_end_time(const struct etl_trace_info *t);
ETL_API uint64_t etl_trace_info_boot_time(const struct etl_trace_info *t);
/** Timer resolution in 100 ns units. */
ETL_API uint32_t etl_trace_info_timer_resolution(const struct etl_trace_info *t);
ETL_API uint32_t etl_trace_info_maximum_file_size(const struct etl_trace_info *t);
ETL_API enum etl_clock etl_trace_info_clock_type(const struct etl_trace_info *t);
ETL_API uint64_t etl_trace_info_perf_freq(const struct etl_trace_info *t);
ETL_API uint32_t etl_trace_info_cpu_speed_mhz(const struct etl_trace_info *t);
/** Pointer size of the logging session (4 or 8). */
ETL_API uint32_t etl_trace_info_pointer_size(const struct etl_trace_info *t);
ETL_API uint32_t etl_trace_info_log_file_mode(const struct etl_trace_info *t);
ETL_API uint32_t etl_trace_info_buffers_written(const struct etl_trace_info *t);
ETL_API uint32_t etl_trace_info_events_lost(const struct etl_trace_info *t);
ETL_API uint32_t etl_trace_info_buffers_lost(const struct etl_trace_info *t);
/** Raw timestamp of the logfile-header event (the clock's origin). */
ETL_API uint64_t etl_trace_info_start_timestamp_raw(const struct etl_trace_info *t);
/** From Windows 7 on these hold the clock-interrupt and performance-counter sources. */
ETL_API uint32_t etl_trace_info_timer_source(const struct etl_trace_info *t);
ETL_API uint32_t etl_trace_info_perf_counter_source(const struct etl_trace_info *t);
/** Time-zone bias in minutes (UTC = local + bias), and the standard/daylight biases. */
ETL_API int32_t etl_trace_info_tz_bias(const struct etl_trace_info *t);
ETL_API int32_t etl_trace_info_tz_standard_bias(const struct etl_trace_info *t);
ETL_API int32_t etl_trace_info_tz_daylight_bias(const struct etl_trace_info *t);
/** Time-zone names, logger name and log file name as UTF-8.  borrowed until etl_reader_free(). */
ETL_API const char *etl_trace_info_tz_standard_name(const struct etl_trace_info *t);
ETL_API const char *etl_trace_info_tz_daylight_name(const struct etl_trace_info *t);
ETL_API const char *etl_trace_info_logger_name(const struct etl_trace_info *t);
ETL_API const char *etl_trace_info_log_file_name(const struct etl_trace_info *t);
/** Compression format declared by the header buffer (3 = XPRESS), 0 if not compressed. */
ETL_API uint32_t etl_trace_info_compression_format(const struct etl_trace_info *t);
/** Container the trace came from: "" (plain file), "gzip" or "zip".  Static storage. */
ETL_API const char *etl_trace_info_container(const struct etl_trace_info *t);
/** Names of the container's members that are not traces (logs, symbols); borrowed. */
ETL_API size_t etl_trace_info_other_member_count(const struct etl_trace_info *t);
ETL_API const char *etl_trace_info_other_member(const struct etl_trace_info *t, size_t i);

/* ------------------------------------------------------------------ */
/* Events                                                              */
/* ------------------------------------------------------------------ */

/** The trace header kind a record was written with. @since 0.1 */
enum etl_header_kind {
	ETL_HEADER_SYSTEM = 1,   /**< SYSTEM_TRACE_HEADER (kernel) */
	ETL_HEADER_COMPACT = 2,  /**< compact SYSTEM_TRACE_HEADER (no CPU times) */
	ETL_HEADER_PERFINFO = 3, /**< PERFINFO_TRACE_HEADER (kernel, no pid/tid) */
	ETL_HEADER_FULL = 4,     /**< EVENT_TRACE_HEADER (classic MOF providers) */
	ETL_HEADER_INSTANCE = 5, /**< EVENT_INSTANCE_GUID_HEADER */
	ETL_HEADER_EVENT = 6,    /**< EVENT_HEADER (manifest, TraceLogging, EventSource) */
	ETL_HEADER_MESSAGE = 7   /**< MESSAGE_TRACE_HEADER (WPP / TraceMessage) */
};
/** Short name of a header kind ("system", "perfinfo", "event", ...). Static storage. */
ETL_API const char *etl_header_kind_name(enum etl_header_kind k);

/** Extended data item types (EVENT_HEADER_EXT_TYPE_*). @since 0.1 */
enum etl_ext_type {
	ETL_EXT_RELATED_ACTIVITYID = 1,
	ETL_EXT_SID = 2,
	ETL_EXT_TS_ID = 3,
	ETL_EXT_INSTANCE_INFO = 4,
	ETL_EXT_STACK_TRACE32 = 5,
	ETL_EXT_STACK_TRACE64 = 6,
	ETL_EXT_PEBS_INDEX = 7,
	ETL_EXT_PMC_COUNTERS = 8,
	ETL_EXT_PSM_KEY = 9,
	ETL_EXT_EVENT_KEY = 10,
	ETL_EXT_EVENT_SCHEMA_TL = 11,
	ETL_EXT_PROV_TRAITS = 12,
	ETL_EXT_PROCESS_START_KEY = 13,
	ETL_EXT_CONTROL_GUID = 14,
	ETL_EXT_QPC_DELTA = 15,
	ETL_EXT_CONTAINER_ID = 16,
	ETL_EXT_STACK_KEY32 = 17,
	ETL_EXT_STACK_KEY64 = 18
};

/** Value of pid/tid when the header does not carry one. */
#define ETL_ID_NONE UINT32_MAX

ETL_API enum etl_header_kind etl_event_header_kind(const struct etl_event *ev);
/** Pointer size of the record's payload (4 or 8), from its header type. */
ETL_API unsigned etl_event_pointer_size(const struct etl_event *ev);
/** Provider (EVENT_HEADER), event class (FULL/INSTANCE), kernel group GUID
 *  (SYSTEM/COMPACT/PERFINFO) or message GUID (MESSAGE; zero if absent). borrowed from the event. */
ETL_API const struct etl_guid *etl_event_provider(const struct etl_event *ev);
/** Event id: EventDescriptor.Id, the WPP message number, or 0xFFFF for classic kernel events. */
ETL_API uint16_t etl_event_id(const struct etl_event *ev);
ETL_API uint8_t etl_event_version(const struct etl_event *ev);
ETL_API uint8_t etl_event_channel(const struct etl_event *ev);
ETL_API uint8_t etl_event_level(const struct etl_event *ev);
ETL_API uint8_t etl_event_opcode(const struct etl_event *ev);
ETL_API uint16_t etl_event_task(const struct etl_event *ev);
ETL_API uint64_t etl_event_keywords(const struct etl_event *ev);
/** Kernel HookId (group << 8 | type) for SYSTEM/COMPACT/PERFINFO records, else 0. */
ETL_API uint16_t etl_event_hook_id(const struct etl_event *ev);
/** Process and thread ids, or ETL_ID_NONE when the header has none. */
ETL_API uint32_t etl_event_pid(const struct etl_event *ev);
ETL_API uint32_t etl_event_tid(const struct etl_event *ev);
/** CPU that logged the event (the buffer's processor index). */
ETL_API uint32_t etl_event_cpu(const struct etl_event *ev);
/** Kernel and user CPU time (ticks) when the header carries them, else 0. */
ETL_API uint32_t etl_event_kernel_time(const struct etl_event *ev);
ETL_API uint32_t etl_event_user_time(const struct etl_event *ev);
/** Header flags (EVENT_HEADER.Flags) and EventProperty, 0 for other kinds. */
ETL_API uint16_t etl_event_header_flags(const struct etl_event *ev);
ETL_API uint16_t etl_event_property_flags(const struct etl_event *ev);

/** Raw timestamp in the session clock. */
ETL_API uint64_t etl_event_timestamp_raw(const struct etl_event *ev);
/** 1 if the record carried no timestamp and the raw value was inherited (WPP without TIMESTAMP). */
ETL_API int etl_event_timestamp_inherited(const struct etl_event *ev);
/** Converted time: FILETIME (100 ns since 1601, UTC). */
ETL_API uint64_t etl_event_filetime(const struct etl_event *ev);
/** Converted time: nanoseconds since the Unix epoch (UTC; negative before 1970). */
ETL_API int64_t etl_event_unix_ns(const struct etl_event *ev);

/** Activity id (EVENT_HEADER); NULL if the header has none. borrowed from the event. */
ETL_API const struct etl_guid *etl_event_activity_id(const struct etl_event *ev);
/** Related activity id from the extended items, NULL if absent. borrowed from the event. */
ETL_API const struct etl_guid *etl_event_related_activity_id(const struct etl_event *ev);

/** Instance header fields (INSTANCE kind, or the INSTANCE_INFO item): 1 if present. */
ETL_API int etl_event_instance(const struct etl_event *ev, uint32_t *instance_id,
			       uint32_t *parent_instance_id, struct etl_guid *parent_guid);
/** PERFINFO performance-monitor counters; count and value i. */
ETL_API unsigned etl_event_pmc_count(const struct etl_event *ev);
ETL_API uint64_t etl_event_pmc_at(const struct etl_event *ev, unsigned i);
/** PEBS index if the PERFINFO header had one: 1 and *value set, else 0. */
ETL_API int etl_event_pebs_index(const struct etl_event *ev, uint64_t *value);
/** WPP option fields: 1 and the value if the record carried it, else 0. */
ETL_API int etl_event_message_sequence(const struct etl_event *ev, uint32_t *seq);
ETL_API int etl_event_message_component_id(const struct etl_event *ev, uint32_t *id);
ETL_API uint16_t etl_event_message_flags(const struct etl_event *ev);

/** Number of extended data items (EVENT_HEADER only). */
ETL_API unsigned etl_event_extended_count(const struct etl_event *ev);
/**
 * Extended item @p i: its type and a borrowed view of its data (valid as the event).
 * @retval ETL_OK @retval ETL_E_MISUSE if i is out of range
 */
ETL_API int etl_event_extended_at(const struct etl_event *ev, unsigned i, uint16_t *type,
				  const uint8_t **data, size_t *size);
/** First extended item of @p type: 1 and its data, or 0. */
ETL_API int etl_event_extended_find(const struct etl_event *ev, uint16_t type,
				    const uint8_t **data, size_t *size);

/**
 * The call stack recorded with the event, innermost frame first: its stack extended item
 * (EVENT_HEADER records with stack tracing), or the kernel StackWalk records that follow it
 * in its buffer naming its time stamp and thread (kernel part, then user part; those records
 * are still delivered as events of their own).  Compressed stacks (StackWalk StackKeyKernel/
 * StackKeyUser records, stack-key extended items) are resolved through the trace's
 * KeyDelete/KeyRundown records, which come later in the trace: the reader reads the trace's
 * stack-key definitions in one extra pass the first time a stack of the trace is asked for
 * (this call, etl_event_stack_frame() or a copy of the event: an iteration that never asks
 * costs nothing; since 0.2, before it was when the first event with stack records was
 * delivered), with memory bounded by ETL_LIMIT_STACK_KEY_BYTES (ETL_OPTION_STACKS turns it
 * off).  0 frames when none was recorded, or when a compressed stack's key is not defined in
 * the trace.  Ask while the event is valid (before the reader's next call); the answer does
 * not change.  Resolve frames with etl_reader_resolve_address().
 */
ETL_API size_t etl_event_stack_depth(const struct etl_event *ev);
/** Frame i (an address), 0 past the end. */
ETL_API uint64_t etl_event_stack_frame(const struct etl_event *ev, size_t i);
/** The process the stack ran in: the StackProcess its StackWalk records name, else the event's
 *  pid (ETL_ID_NONE when neither says). @since 0.2 */
ETL_API uint32_t etl_event_stack_process(const struct etl_event *ev);

/** The payload (user data) bytes: a borrowed, zero-copy view valid as the event. */
ETL_API void etl_event_payload(const struct etl_event *ev, const uint8_t **data, size_t *size);
/** Size of the whole record (header included, padding excluded). */
ETL_API uint32_t etl_event_record_size(const struct etl_event *ev);

/** Where the event came from: input index, file offset of its record (for compressed buffers,
 *  the offset of the buffer), buffer index in its file, offset of the record inside the
 *  (decompressed) buffer. */
ETL_API int etl_event_trace_index(const struct etl_event *ev);
ETL_API uint64_t etl_event_file_offset(const struct etl_event *ev);
ETL_API uint64_t etl_event_buffer_index(const struct etl_event *ev);
ETL_API uint32_t etl_event_buffer_offset(const struct etl_event *ev);
/** 1 if the record came from a compressed buffer. */
ETL_API int etl_event_from_compressed(const struct etl_event *ev);

/** Copies an event so that it outlives the reader call.  owned: free with etl_event_free().
 *  @retval ETL_OK @retval ETL_E_NOMEM */
ETL_API int etl_event_copy(const struct etl_event *ev, struct etl_event **copy);
/** Frees a copy made by etl_event_copy().  NULL is allowed. */
ETL_API void etl_event_free(struct etl_event *copy);
/** Flags of etl_event_copy_into() and etl_event_copy_size(). @since 0.2 */
enum etl_copy_flags {
	/** Leave a stack the reader has not completed yet (see etl_event_stack_depth()) for later:
	 *  it is completed when first asked for on the copy, through the reader that delivered the
	 *  event - which must not be freed before the copy - on any thread (the reader guards its
	 *  stack index).  Copies whose stack nobody asks for then cost no stack index pass.  Without
	 *  it the stack is completed first and the copy is independent of the reader. */
	ETL_COPY_STACK_LATER = 1
};
/** The bytes etl_event_copy_into() needs for @p ev with @p flags (0 for NULL): a multiple of 8,
 *  so that copies laid end to end in one block stay aligned.  Without ETL_COPY_STACK_LATER it
 *  completes the event's stack first (the copy holds all of it). @since 0.2 */
ETL_API size_t etl_event_copy_size(const struct etl_event *ev, unsigned flags);
/**
 * Copies @p ev into @p mem (@p size bytes, 8-byte aligned) so that it outlives the reader call:
 * many copies in one block of the caller's, without an allocation each.  The copy lasts as long
 * as @p mem; do not pass it to etl_event_free().  @p flags: 0 or ETL_COPY_STACK_LATER.  Returns
 * the copy, or NULL when @p mem is NULL or misaligned or @p size is less than
 * etl_event_copy_size(@p ev, @p flags). @since 0.2
 */
ETL_API const struct etl_event *etl_event_copy_into(const struct etl_event *ev, void *mem, size_t size,
						    unsigned flags);
/** 1 when @p ev describes something a reader keeps for the events after it (in-trace metadata;
 *  a process, thread or image): the events etl_reader_observe() learns from. @since 0.2 */
ETL_API int etl_event_updates_state(const struct etl_event *ev);

/* ------------------------------------------------------------------ */
/* Decoding payloads                                                   */
/* ------------------------------------------------------------------ */

struct etl_decoded;
struct etl_property;

/** Where a decoded event's schema came from. @since 0.1 */
enum etl_decoder {
	ETL_DECODER_NONE = 0,          /**< not decoded: payload delivered raw, see etl_decoded_reason() */
	ETL_DECODER_MANIFEST = 1,      /**< an instrumentation manifest given to the reader */
	ETL_DECODER_EVENTSOURCE = 2,   /**< a .NET EventSource manifest logged inside the trace */
	ETL_DECODER_TRACELOGGING = 3,  /**< the event's own TraceLogging metadata */
	ETL_DECODER_TRACE_METADATA = 4,/**< merge-time metadata (KernelTraceControl EventInfo) in the trace */
	ETL_DECODER_BUILTIN = 5,       /**< a layout built into libetl (kernel and logfile-header events) */
	ETL_DECODER_TMF = 6,           /**< WPP trace message format (TMF) files given to the reader @since 0.2 */
	ETL_DECODER_BUILTIN_MANIFEST = 7 /**< a provider description built into libetl (ETL_OPTION_BUILTIN_MANIFESTS) @since 0.2 */
};
/** Short name of a decoder ("manifest", "tracelogging", ...). Static storage. */
ETL_API const char *etl_decoder_name(enum etl_decoder d);
/** Where the decoder's schemas come from, for people ("built-in", "in-trace (EventSource
 *  manifest)", ...). Static storage. @since 0.2 */
ETL_API const char *etl_decoder_description(enum etl_decoder d);

/** A provider description the library knows: given in a manifest, or built in. @since 0.2 */
struct etl_provider_info {
	struct etl_guid guid;
	const char *name;
	/** a given one's manifest file (or the name given with its text); a built-in one's origin:
	 *  the repository and file it was generated from */
	const char *source;
	const char *license;      /**< a built-in one's license (SPDX identifier), else NULL */
	enum etl_decoder decoder; /**< ETL_DECODER_MANIFEST or ETL_DECODER_BUILTIN_MANIFEST */
	size_t events;            /**< the events (id and version) it describes */
};
/** Called for each provider listed; a non-zero return stops the listing and is returned. */
typedef int (*etl_provider_fn)(const struct etl_provider_info *p, void *ctx);
/** Lists the providers built into libetl, in GUID order (for one GUID, the description that wins
 *  first; the others fill in the events it lacks).  Nothing is parsed.
 *  @retval ETL_OK, or what @p fn returned @since 0.2 */
ETL_API int etl_builtin_providers(etl_provider_fn fn, void *ctx);
/** Lists the providers of a manifest set's files, in the order they were given.  The files of
 *  folders, otherwise parsed when a trace first needs one of their providers, are parsed for the
 *  listing (and let go after it).  Not while another thread lists the same set.
 *  @retval ETL_OK, what @p fn returned, ETL_E_NOMEM @retval ETL_E_MISUSE (NULL) @since 0.2 */
ETL_API int etl_manifests_providers(struct etl_manifests *m, etl_provider_fn fn, void *ctx);

/**
 * Decodes the payload of @p ev (an event just returned by etl_reader_next()).
 * @param decoded set to a view borrowed until the next etl_reader_next(),
 *                etl_reader_decode() or etl_reader_free(); never NULL on ETL_OK.
 * @retval ETL_OK  decoded, or not decodable (etl_decoded_source() is ETL_DECODER_NONE
 *                 and etl_decoded_reason() says why; the event keeps its raw payload)
 * @retval <0      the payload contradicts its schema: *decoded still holds the name
 *                 and the properties read before the fault; etl_reader_error() says
 *                 which field and where.  Reading can go on.
 * @since 0.1
 */
ETL_API int etl_reader_decode(struct etl_reader *r, const struct etl_event *ev,
			      const struct etl_decoded **decoded);

ETL_API enum etl_decoder etl_decoded_source(const struct etl_decoded *d);
/** Event name in PerfView's shape: "Provider/Task/Opcode" (manifest, kernel) or
 *  "Provider/EventName" (TraceLogging).  Never NULL. borrowed as the decoded view. */
ETL_API const char *etl_decoded_name(const struct etl_decoded *d);
/** Parts of the name; NULL when unknown. borrowed as the decoded view. */
ETL_API const char *etl_decoded_provider_name(const struct etl_decoded *d);
ETL_API const char *etl_decoded_event_name(const struct etl_decoded *d);
ETL_API const char *etl_decoded_task_name(const struct etl_decoded *d);
ETL_API const char *etl_decoded_opcode_name(const struct etl_decoded *d);
/** Level, channel and keyword names from the manifest; NULL when unknown. */
ETL_API const char *etl_decoded_level_name(const struct etl_decoded *d);
ETL_API const char *etl_decoded_channel_name(const struct etl_decoded *d);
ETL_API const char *etl_decoded_keywords_name(const struct etl_decoded *d);
/** The event's message with its %N inserts filled in; NULL if the schema has none. */
ETL_API const char *etl_decoded_message(const struct etl_decoded *d);
/** TraceLogging event tags (28 bits), 0 if none. */
ETL_API uint32_t etl_decoded_event_tags(const struct etl_decoded *d);
/** TraceLogging provider group from the provider traits: 1 and *group, or 0. */
ETL_API int etl_decoded_provider_group(const struct etl_decoded *d, struct etl_guid *group);
/** Why the event was not decoded (NULL if it was). */
ETL_API const char *etl_decoded_reason(const struct etl_decoded *d);

/** How complete a decoding is. @since 0.2 */
enum etl_decode_status {
	ETL_DECODE_COMPLETE = 0, /**< every property of the schema was read */
	ETL_DECODE_PARTIAL = 1,  /**< the payload contradicts its schema: the properties before the
				      fault are there, the one that failed and those after it are not
				      (etl_decoded_error_field(), etl_decoded_error()) */
	ETL_DECODE_RAW = 2       /**< not decoded (etl_decoded_reason()); the raw payload stands */
};
/** Whether the decoding is complete, partial or raw. @since 0.2 */
ETL_API enum etl_decode_status etl_decoded_status(const struct etl_decoded *d);
/** Why a decoding stopped (the message etl_reader_decode() reported, without the offset), or
 *  NULL when it did not.  Borrowed as the decoded view. @since 0.2 */
ETL_API const char *etl_decoded_error(const struct etl_decoded *d);
/** The top-level property at which a partial decoding stopped, or NULL. @since 0.2 */
ETL_API const char *etl_decoded_error_field(const struct etl_decoded *d);
/** Derived fields (ETL_OPTION_DERIVE): values computed from the trace's other records, not read
 *  from this payload - elapsed times, file names found through file keys, build times, DOS paths.
 *  They are not among the properties (a name may repeat a property's).  Borrowed as the
 *  decoded view. @since 0.2 */
ETL_API size_t etl_decoded_derived_count(const struct etl_decoded *d);
ETL_API const struct etl_property *etl_decoded_derived_at(const struct etl_decoded *d, size_t i);
/** The version of the description that decoded the payload when it is older than the event's
 *  (a manifest that lacks the event's version: a newer version only adds fields after the old
 *  ones, so the nearest older template reads the start of the payload, and the bytes after it
 *  are etl_decoded_trailing_bytes()); -1 when the event's own version decoded it.  @since 0.2 */
ETL_API int etl_decoded_described_version(const struct etl_decoded *d);
/** Bytes of payload after the last property (0 when the schema used them all). */
ETL_API size_t etl_decoded_trailing_bytes(const struct etl_decoded *d);
/** Top-level properties. */
ETL_API size_t etl_decoded_property_count(const struct etl_decoded *d);
ETL_API const struct etl_property *etl_decoded_property_at(const struct etl_decoded *d, size_t i);
/** First top-level property named @p name, or NULL. */
ETL_API const struct etl_property *etl_decoded_property_by_name(const struct etl_decoded *d,
								 const char *name);

/** Shape of a property. @since 0.1 */
enum etl_property_kind {
	ETL_PROPERTY_VALUE = 0,  /**< a single value */
	ETL_PROPERTY_STRUCT = 1, /**< children are the members */
	ETL_PROPERTY_ARRAY = 2   /**< children are the elements */
};

/** TDH in-types: how a property is laid out in the payload (tdh.h TDH_IN_TYPE). @since 0.2 */
enum etl_in_type {
	ETL_IN_NULL = 0, ETL_IN_UNICODESTRING = 1, ETL_IN_ANSISTRING = 2, ETL_IN_INT8 = 3, ETL_IN_UINT8 = 4,
	ETL_IN_INT16 = 5, ETL_IN_UINT16 = 6, ETL_IN_INT32 = 7, ETL_IN_UINT32 = 8, ETL_IN_INT64 = 9, ETL_IN_UINT64 = 10,
	ETL_IN_FLOAT = 11, ETL_IN_DOUBLE = 12, ETL_IN_BOOLEAN = 13, ETL_IN_BINARY = 14, ETL_IN_GUID = 15,
	ETL_IN_POINTER = 16, ETL_IN_FILETIME = 17, ETL_IN_SYSTEMTIME = 18, ETL_IN_SID = 19, ETL_IN_HEXINT32 = 20,
	ETL_IN_HEXINT64 = 21, ETL_IN_COUNTEDSTRING = 22, ETL_IN_COUNTEDANSISTRING = 23, ETL_IN_COUNTEDBINARY = 25,
	ETL_IN_MOF_COUNTEDSTRING = 300, ETL_IN_MOF_COUNTEDANSISTRING = 301, ETL_IN_REVERSEDCOUNTEDSTRING = 302,
	ETL_IN_REVERSEDCOUNTEDANSISTRING = 303, ETL_IN_NONNULLTERMINATEDSTRING = 304,
	ETL_IN_NONNULLTERMINATEDANSISTRING = 305, ETL_IN_UNICODECHAR = 306, ETL_IN_ANSICHAR = 307,
	ETL_IN_SIZET = 308, ETL_IN_HEXDUMP = 309, ETL_IN_WBEMSID = 310
};

/** TDH out-types: how a value is meant to be shown (tdh.h TDH_OUT_TYPE). @since 0.2 */
enum etl_out_type {
	ETL_OUT_NULL = 0, ETL_OUT_STRING = 1, ETL_OUT_DATETIME = 2, ETL_OUT_BYTE = 3, ETL_OUT_UNSIGNEDBYTE = 4,
	ETL_OUT_SHORT = 5, ETL_OUT_UNSIGNEDSHORT = 6, ETL_OUT_INT = 7, ETL_OUT_UNSIGNEDINT = 8, ETL_OUT_LONG = 9,
	ETL_OUT_UNSIGNEDLONG = 10, ETL_OUT_FLOAT = 11, ETL_OUT_DOUBLE = 12, ETL_OUT_BOOLEAN = 13, ETL_OUT_GUID = 14,
	ETL_OUT_HEXBINARY = 15, ETL_OUT_HEXINT8 = 16, ETL_OUT_HEXINT16 = 17, ETL_OUT_HEXINT32 = 18, ETL_OUT_HEXINT64 = 19,
	ETL_OUT_PID = 20, ETL_OUT_TID = 21, ETL_OUT_PORT = 22, ETL_OUT_IPV4 = 23, ETL_OUT_IPV6 = 24,
	ETL_OUT_SOCKETADDRESS = 25, ETL_OUT_CIMDATETIME = 26, ETL_OUT_ETWTIME = 27, ETL_OUT_XML = 28,
	ETL_OUT_ERRORCODE = 29, ETL_OUT_WIN32ERROR = 30, ETL_OUT_NTSTATUS = 31, ETL_OUT_HRESULT = 32,
	ETL_OUT_CULTURE_INSENSITIVE_DATETIME = 33, ETL_OUT_JSON = 34, ETL_OUT_UTF8 = 35, ETL_OUT_PKCS7 = 36,
	ETL_OUT_CODE_POINTER = 37, ETL_OUT_DATETIME_UTC = 38, ETL_OUT_REDUCEDSTRING = 300, ETL_OUT_NOPRINT = 301
};

/** What a value is, as its canonical text (etl_property_format) shows it; pick the typed getter
 *  from it.  A value a map names (etl_property_map_name) keeps the kind of its number. @since 0.2 */
enum etl_value_kind {
	ETL_VALUE_NONE = 0,     /**< no value: a struct or array, a null in-type, or not decoded (after a fault) */
	ETL_VALUE_SIGNED = 1,   /**< an integer shown in decimal: etl_property_as_i64() */
	ETL_VALUE_UNSIGNED = 2, /**< an integer shown in decimal: etl_property_as_u64() */
	ETL_VALUE_HEX = 3,      /**< an integer shown in hexadecimal (pointers, HexInt, error and status codes):
	                             etl_property_as_u64() */
	ETL_VALUE_BOOLEAN = 4,  /**< etl_property_as_u64(): 0 or not */
	ETL_VALUE_REAL = 5,     /**< etl_property_as_double() */
	ETL_VALUE_STRING = 6,   /**< text: etl_property_as_utf8() */
	ETL_VALUE_GUID = 7,     /**< etl_property_as_guid() */
	ETL_VALUE_TIME = 8,     /**< a FILETIME (etl_property_as_u64() is the FILETIME) or a SYSTEMTIME
	                             (16 bytes, etl_property_as_bytes()) */
	ETL_VALUE_SID = 9,      /**< a security identifier, shown S-1-...: etl_property_as_bytes() */
	ETL_VALUE_BINARY = 10,  /**< bytes, shown in hexadecimal: etl_property_as_bytes() */
	ETL_VALUE_ADDRESS = 11  /**< an IPv4/IPv6 address, port or socket address, shown as text */
};

/** In-types are enum etl_in_type values, out-types enum etl_out_type values. */
ETL_API const char *etl_property_name(const struct etl_property *p);
ETL_API enum etl_property_kind etl_property_kind(const struct etl_property *p);
ETL_API uint16_t etl_property_in_type(const struct etl_property *p);
ETL_API uint16_t etl_property_out_type(const struct etl_property *p);
ETL_API size_t etl_property_child_count(const struct etl_property *p);
ETL_API const struct etl_property *etl_property_child_at(const struct etl_property *p, size_t i);
/** Name of the value or bit map that renders the value, NULL if none. */
ETL_API const char *etl_property_map_name(const struct etl_property *p);
/** TraceLogging field tags (28 bits), 0 if none. */
ETL_API uint32_t etl_property_tags(const struct etl_property *p);
/** The schema bytes of a TraceLogging custom-schema field: ETL_OK, or ETL_E_MISUSE if it has none.
 *  borrowed as the decoded view; the value itself is etl_property_as_bytes(). */
ETL_API int etl_property_custom_schema(const struct etl_property *p, const uint8_t **schema, size_t *size);
/** Typed values: ETL_OK, or ETL_E_MISUSE when the property is not of a fitting type.  A port
 *  (ETL_OUT_PORT, stored in network byte order) is its number (since 0.2; before, its bytes
 *  read little-endian). */
ETL_API int etl_property_as_u64(const struct etl_property *p, uint64_t *v);
ETL_API int etl_property_as_i64(const struct etl_property *p, int64_t *v);
ETL_API int etl_property_as_double(const struct etl_property *p, double *v);
ETL_API int etl_property_as_guid(const struct etl_property *p, struct etl_guid *v);
/** The value's bytes in the payload (zero-copy; strings without their terminator). */
ETL_API int etl_property_as_bytes(const struct etl_property *p, const uint8_t **data, size_t *size);
/** Strings as UTF-8 (converted on demand; borrowed as the decoded view). */
ETL_API int etl_property_as_utf8(const struct etl_property *p, const char **s, size_t *len);
/** The canonical text of the value (see docs/OUTPUT.md); arrays and structs in JSON-like
 *  brackets.  borrowed as the decoded view; NULL only when out of memory. */
ETL_API const char *etl_property_format(const struct etl_property *p);
/** What kind of value p holds. @since 0.2 */
ETL_API enum etl_value_kind etl_property_value_kind(const struct etl_property *p);
/** Flags of etl_property_format_flags(). @since 0.2 */
enum etl_format_flag {
	ETL_FORMAT_NO_MAPS = 1  /**< a value that a value or bit map names is shown as its number */
};
/** The text of the value as etl_property_format(), changed by ETL_FORMAT_* flags.  borrowed as
 *  the decoded view; NULL only when out of memory. @since 0.2 */
ETL_API const char *etl_property_format_flags(const struct etl_property *p, unsigned flags);

/* ------------------------------------------------------------------ */
/* System state: processes, threads and images                         */
/* ------------------------------------------------------------------ */

/*
 * The reader keeps the processes, threads and loaded images that the classic
 * kernel events (Process, Thread and Image start, stop and rundown) describe,
 * as it delivers them: a lookup answers with what the trace said up to the
 * last event delivered.  Records are per trace; a pid reused after its
 * process ended gets a new record.  Pointers stay valid until
 * etl_reader_free().  Traces without kernel events have no records.
 */
struct etl_process;

/** Process records made so far, in the order first seen. */
ETL_API size_t etl_reader_process_count(const struct etl_reader *r);
/** Process record i (< etl_reader_process_count()), or NULL. */
ETL_API const struct etl_process *etl_reader_process_at(const struct etl_reader *r, size_t i);
/** The live record of a pid in a trace (the latest one), or NULL. */
ETL_API const struct etl_process *etl_reader_find_process(const struct etl_reader *r, int trace,
							  uint32_t pid);
/** The process record of etl_reader_event_pid(), as the trace described it up to now; NULL when
 *  it has not (since 0.2 by the rules of etl_reader_event_pid: before, samples only). */
ETL_API const struct etl_process *etl_reader_event_process(const struct etl_reader *r,
							   const struct etl_event *ev);
/**
 * The process an event is about: its header's pid when the header has one; else the process
 * its payload names, directly (TcpIp, UdpIp, Thread records) or through the thread it names and
 * the thread table at the event's time (CPU samples, disk I/O, hard faults, file I/O): one rule
 * per kind, docs/TABLES.md.  A context switch is always the process of the thread switched in.
 * Thread 0 (the idle thread) is process 0.
 * ETL_ID_NONE when neither says. The header's pid (etl_event_pid) is unchanged. @since 0.2
 */
ETL_API uint32_t etl_reader_event_pid(const struct etl_reader *r, const struct etl_event *ev);
/** The thread an event is about: where etl_reader_event_pid() follows the payload, the thread it
 *  names (a sample's thread, the thread switched in, the I/O's issuing thread), else the
 *  header's. @since 0.2 */
ETL_API uint32_t etl_event_subject_tid(const struct etl_event *ev);
/** Kernel records that could not be kept (limits or memory); 0 normally. */
ETL_API uint64_t etl_reader_state_dropped(const struct etl_reader *r);

ETL_API int etl_process_trace_index(const struct etl_process *p);
ETL_API uint32_t etl_process_id(const struct etl_process *p);
/** Parent and session ids, ETL_ID_NONE when no event said. */
ETL_API uint32_t etl_process_parent_id(const struct etl_process *p);
ETL_API uint32_t etl_process_session_id(const struct etl_process *p);
/** Image file name ("chrome.exe") and command line; "" when unknown. */
ETL_API const char *etl_process_image_name(const struct etl_process *p);
ETL_API const char *etl_process_command_line(const struct etl_process *p);
/** FILETIME of Process/Start, 0 when the process was running when the trace began. */
ETL_API uint64_t etl_process_start_filetime(const struct etl_process *p);
/** 1 and the FILETIME and exit status of Process/Stop when it ended in the trace, else 0. */
ETL_API int etl_process_end(const struct etl_process *p, uint64_t *filetime, int32_t *exit_status);
/** Named threads of the process (Thread/SetName, or a name in Thread/Start or its rundown). */
ETL_API size_t etl_process_thread_name_count(const struct etl_process *p);
/** Named thread i: its latest name, and its id in *tid; NULL past the end. */
ETL_API const char *etl_process_thread_name_at(const struct etl_process *p, size_t i, uint32_t *tid);
/** The process that thread tid of input trace_index belongs to, as far as the events so far
 *  tell (Thread start and rundown, Thread/SetName): the current record of its pid, or NULL. */
ETL_API const struct etl_process *etl_reader_thread_process(const struct etl_reader *r, int trace_index,
							    uint32_t tid);
/** The latest name of thread tid of input trace_index, or NULL when none was logged (yet). */
ETL_API const char *etl_reader_thread_name(const struct etl_reader *r, int trace_index, uint32_t tid);
/** Images loaded in the process (kernel images are in pid 0's record). */
ETL_API size_t etl_process_image_count(const struct etl_process *p);
/** Image i: its file name (as logged, "\\Device\\..." paths), base and size; NULL past the end. */
ETL_API const char *etl_process_image_at(const struct etl_process *p, size_t i, uint64_t *base,
					 uint64_t *size);
/** The image of process p (or, for none found there, of pid 0: the kernel) that holds
 *  address addr: its file name and the offset of addr in it, or NULL. */
ETL_API const char *etl_reader_resolve_address(const struct etl_reader *r, const struct etl_process *p,
					       uint64_t addr, uint64_t *offset);
/**
 * The image that held address @p addr of @p ev's call stack when @p ev happened: its file name
 * (as the trace gives it, e.g. "\Device\HarddiskVolume3\Windows\System32\ntdll.dll"), and
 * in @p offset (may be NULL) the address's offset in it; NULL when no image of the trace held
 * it.  The answer comes from the trace's whole record of image loads, unloads and rundowns
 * (read with the stack index, in one pass, the first time it is needed), not from what was
 * delivered so far: it is the same whenever it is asked, during the iteration or after, and
 * a frame logged before the rundown at the end of a trace is resolved too.  The process is
 * the one the stack records name (StackProcess), else the event's; kernel addresses are also
 * looked up in the images of processes 0 and 4 (drivers).  For a copy given to a reader that
 * observes (etl_reader_observe), the reader that delivered the event answers (it must not be
 * freed before).  Borrowed until the reader is freed. @since 0.2
 */
ETL_API const char *etl_reader_frame_image(struct etl_reader *r, const struct etl_event *ev, uint64_t addr,
					   uint64_t *offset);

/** What resolved a stack frame (struct etl_frame). @since 0.2 */
enum etl_frame_kind {
	ETL_FRAME_ADDRESS = 0, /**< nothing the trace describes holds the address */
	ETL_FRAME_IMAGE = 1,   /**< an image holds it; no symbol names the code (module and offset) */
	ETL_FRAME_SYMBOL = 2,  /**< a function of the image's PDB file (etl_reader_add_symbol_path) */
	ETL_FRAME_METHOD = 3   /**< a .NET method the trace's CLR events describe (JIT or ReadyToRun code) */
};

/** A stack frame with its names (etl_reader_frame).  Strings are NULL when unknown, and borrowed
 *  until the reader is freed. @since 0.2 */
struct etl_frame {
	uint64_t address;
	enum etl_frame_kind kind;
	/** file name without folders: "ntdll.dll"; for a method its assembly's file
	 *  ("System.Private.CoreLib.dll"), or "JIT" when no module event names it */
	const char *module;
	const char *module_path;  /**< the image's or assembly's path as the trace gives it */
	uint64_t module_offset;   /**< address - image base (ETL_FRAME_IMAGE and _SYMBOL) */
	/** the function: a PDB procedure's or public symbol's name as the PDB stores it, or for a
	 *  method "Namespace.Type.Method" (the CLR's MethodNamespace, a dot, MethodName) */
	const char *function;
	uint64_t function_offset; /**< address - the function's start */
	const char *signature;    /**< a method's MethodSignature, e.g. "void  (class System.String)" */
	const char *file;         /**< source file of the line (ETL_FRAME_LINES), as the PDB names it */
	uint32_t line;            /**< 0 when unknown */
};

/** Flags of etl_reader_frame(). @since 0.2 */
enum {
	ETL_FRAME_LINES = 1 /**< look the source line up too (PDB line tables) */
};

/**
 * Resolves address @p addr of @p ev's call stack, as the trace and the symbol files say it was
 * when @p ev happened: a .NET method the CLR described (Method/LoadVerbose, UnloadVerbose and
 * the rundown's DCStartVerbose/DCEndVerbose, per process with their lifetimes; the module events
 * name its assembly), else the image that held it (as etl_reader_frame_image()), and in that
 * image the function its PDB file places there (ETL_OPTION_SYMBOLS; the PDB found through
 * etl_reader_add_symbol_path() or an .etl.zip's symbols/ folder, matched to the image by the
 * trace's ImageID/DbgID_RSDS record: GUID and age must be equal).  PDB files are read the first
 * time a frame of their image is resolved, and only the parts needed.  Safe to call from
 * several threads on copies of one reader's events.  Always fills @p out.
 * @retval ETL_OK @retval ETL_E_MISUSE (NULL argument) @since 0.2
 */
ETL_API int etl_reader_frame(struct etl_reader *r, const struct etl_event *ev, uint64_t addr, unsigned flags,
			     struct etl_frame *out);

/**
 * Adds where PDB files are looked for: a folder (files flat, "name.pdb", or in the symbol-store
 * layout "name.pdb/GUIDAGE/name.pdb"), or a symbol path as _NT_SYMBOL_PATH writes it
 * ("dir;srv*C:\cache*https://server;cache*dir"): of a srv* or symsrv* element only its local
 * stores are searched, and nothing is ever downloaded.  Several calls add in order.  May be
 * called at any time (frames already resolved stay as they were).
 * @retval ETL_OK @retval ETL_E_MISUSE (NULL) @retval ETL_E_NOMEM @since 0.2
 */
ETL_API int etl_reader_add_symbol_path(struct etl_reader *r, const char *path);

/** What became of an image's PDB file (etl_reader_symbol_file). @since 0.2 */
enum etl_symbol_status {
	ETL_SYMBOLS_LOADED = 0,   /**< found, matched and read */
	ETL_SYMBOLS_NOT_FOUND = 1,/**< no file of that name in the symbol paths */
	ETL_SYMBOLS_MISMATCH = 2, /**< only files of another GUID or age: not used */
	ETL_SYMBOLS_DAMAGED = 3,  /**< the matching file could not be read (message says where) */
	ETL_SYMBOLS_LIMIT = 4     /**< not read: ETL_LIMIT_SYMBOL_BYTES was reached */
};

/** An image's PDB file as the reader looked for it. Borrowed until the reader is freed. @since 0.2 */
struct etl_symbol_file {
	const char *pdb_name;        /**< as the trace's DbgID_RSDS record names it */
	struct etl_guid guid;
	uint32_t age;
	enum etl_symbol_status status;
	const char *path;            /**< the file used, or the last one refused; NULL when none */
	const char *message;         /**< why it was refused or not found, or NULL */
};

/** PDB files looked for so far (one per GUID, age and name), and the i-th of them.
 *  @retval ETL_OK @retval ETL_E_MISUSE (no such file) @since 0.2 */
ETL_API size_t etl_reader_symbol_file_count(struct etl_reader *r);
ETL_API int etl_reader_symbol_file(struct etl_reader *r, size_t i, struct etl_symbol_file *out);

/* ------------------------------------------------------------------ */
/* Filters (docs/FILTERS.md)                                           */
/* ------------------------------------------------------------------ */

/**
 * A filter: text parsed once (libpcap's pcap_compile is the model), then matched per event.
 * Comparisons of the header's fields (@provider, @name, @process, @id, @opcode, @level,
 * @keywords, @version, @pid, @tid, @cpu, @time) or of payload properties with values, joined by
 * and, or, not and parentheses:
 *
 *     @provider = Microsoft-Windows-DotNETRuntime* and @time >= +4s and @time < +5s
 *     @pid = 3676,4000-4100 or (@process = test*.exe and not FileName = *.dll)
 *
 * Globs and text comparisons ignore ASCII case.  Matching may be called from several threads at
 * once; a filter learns as it matches (a GUID's provider name, the names its patterns met).
 * @since 0.2
 */
struct etl_filter;

/** Parses @p text (empty: a filter every event matches) into *out.  On failure *out is NULL and
 *  @p err (errlen bytes; may be NULL) says what was wrong and at which character.
 *  @retval ETL_OK @retval ETL_E_FORMAT (not a filter) @retval ETL_E_NOMEM @since 0.2 */
ETL_API int etl_filter_new(const char *text, struct etl_filter **out, char *err, size_t errlen);
ETL_API void etl_filter_free(struct etl_filter *f);
/** The text the filter was made from. @since 0.2 */
ETL_API const char *etl_filter_text(const struct etl_filter *f);

/** etl_filter_match(): the answer needs the decoded payload (etl_filter_match_decoded). */
#define ETL_FILTER_NEEDS_DECODING 2
/** Whether the event (the one etl_reader_next() of @p r just delivered) matches, from its
 *  header and the reader's state alone: 1, 0, or ETL_FILTER_NEEDS_DECODING when a term
 *  (@name, a payload property, a provider name not met yet) needs the decoding.
 *  @retval ETL_E_MISUSE @since 0.2 */
ETL_API int etl_filter_match(struct etl_filter *f, const struct etl_reader *r, const struct etl_event *ev);
/** Whether the event matches, given its decoding @p d (etl_reader_decode(); NULL when it could
 *  not be decoded): 1 or 0. @since 0.2 */
ETL_API int etl_filter_match_decoded(struct etl_filter *f, const struct etl_reader *r,
				     const struct etl_event *ev, const struct etl_decoded *d);

/** What a filter's top-level ("and"-ed) terms select (etl_filter_parts): analyses (tables,
 *  report) apply the time window and the process selection, and no other term. */
enum etl_filter_part {
	ETL_FILTER_TIME = 1,    /**< @time comparisons: a time window */
	ETL_FILTER_PROCESS = 2, /**< terms of @pid and @process alone */
	ETL_FILTER_OTHER = 4    /**< any other term: event outputs only */
};
/** The etl_filter_part bits of @p f. @since 0.2 */
ETL_API unsigned etl_filter_parts(const struct etl_filter *f);
/** The time window the filter's top-level @time terms give input @p trace of @p r: [*from, *to]
 *  in FILETIMEs, both included (*to is UINT64_MAX without an end).
 *  @retval ETL_OK @retval ETL_END (the window is empty) @retval ETL_E_MISUSE @since 0.2 */
ETL_API int etl_filter_window(const struct etl_filter *f, const struct etl_reader *r, int trace,
			      uint64_t *from, uint64_t *to);
/** Whether the filter's top-level @pid and @process terms select process @p pid named
 *  @p process (NULL: not known); 1 when it has none. @since 0.2 */
ETL_API int etl_filter_process_selected(struct etl_filter *f, uint32_t pid, const char *process);

/**
 * Lets @p r skip what @p f rules out without decoding: it reads every record (for the processes,
 * images and metadata they describe) but delivers only events etl_filter_match() does not say 0
 * to, and none outside the filter's time window (etl_reader_set_time_window).  A delivered event
 * may still need etl_filter_match_decoded().  After the inputs are opened, before the first
 * event; @p f must outlive the reader.  Not for a reader other readers follow with
 * etl_reader_observe(): they would miss the events it skips.
 * @retval ETL_OK @retval ETL_E_MISUSE @since 0.2
 */
ETL_API int etl_reader_set_filter(struct etl_reader *r, struct etl_filter *f);

/** The text patterns (@provider, @name, @process compared with =) that matched none of the
 *  events the filter was asked about, one by one (i from 0): the pattern, NULL past the last;
 *  *field is "provider", "name" or "process".  After matching. @since 0.2 */
ETL_API const char *etl_filter_unmatched(const struct etl_filter *f, size_t i, const char **field);
/** Up to @p max of the names that pattern was compared with, the closest first (few edits; '*'
 *  and '?' as in the glob), into @p out: how many.  Borrowed until the next match. @since 0.2 */
ETL_API size_t etl_filter_closest(const struct etl_filter *f, size_t i, const char **out, size_t max);

/* ------------------------------------------------------------------ */
/* Analysis tables (docs/TABLES.md)                                    */
/* ------------------------------------------------------------------ */

/**
 * The tables a trace analyst asks for - processes, threads, images, CPU samples, CPU usage from
 * context switches, disk and file I/O with their completions, network, .NET GCs, exceptions and
 * JIT compilations - computed from one pass over a reader's events.  Each table has documented
 * columns (names, types, units: docs/TABLES.md and etl_table_column_*).  Pairing that fails (an
 * I/O without its completion, a GC without its end) is counted in the table's notes, and rows
 * are kept for what was seen.  @since 0.2
 */
struct etl_tables;
struct etl_table;

/** Column types. A value may also be null (etl_table_is_null). */
enum etl_column_type {
	ETL_COLUMN_UINT = 0,   /**< an unsigned integer */
	ETL_COLUMN_INT = 1,    /**< a signed integer */
	ETL_COLUMN_DOUBLE = 2, /**< a number (durations in ms, weights) */
	ETL_COLUMN_TEXT = 3,   /**< UTF-8 text */
	ETL_COLUMN_TIME = 4,   /**< a FILETIME (100 ns since 1601, UTC), read as an unsigned integer */
	ETL_COLUMN_BOOL = 5    /**< 0 or 1, read as an unsigned integer */
};

/** The kinds of table, by index (0 .. etl_table_kind_count() - 1): their names ("processes",
 *  "disk-io", ...) and one line saying what a row is. Static storage. */
ETL_API size_t etl_table_kind_count(void);
ETL_API const char *etl_table_kind_name(size_t i);
ETL_API const char *etl_table_kind_description(size_t i);

/** Flags of etl_tables_build(). */
enum {
	ETL_TABLES_STACKS = 1 /**< cpu-samples: a "stack" column, the sample's frames as text */
};

/** Called for each row of a streamed table as soon as it is complete (etl_tables_build with a
 *  callback): the table holds that one row (row index 0) during the call. */
typedef void (*etl_table_row_fn)(void *ctx, const struct etl_table *t);

/**
 * Starts building the tables named in @p names (@p n of them; n = 0: all) from the events of
 * @p r (its inputs open, no event read yet): give every event etl_reader_next() delivers to
 * etl_tables_add(), then call etl_tables_finish().  With @p row_fn, the tables whose rows are
 * complete one by one (every kind but processes, threads and images) are streamed: each row is
 * given to row_fn and not kept, so memory does not grow with them; the others are built at the
 * end.  Sets ETL_OPTION_DERIVE (file names).  *out is NULL on failure.
 * @retval ETL_OK @retval ETL_E_MISUSE (an unknown name, or the reader has already read events)
 * @retval ETL_E_NOMEM
 */
ETL_API int etl_tables_new(struct etl_reader *r, const char *const *names, size_t n, unsigned flags,
			   etl_table_row_fn row_fn, void *ctx, struct etl_tables **out);
/** One event the reader delivered (in its order). @retval ETL_OK @retval ETL_E_NOMEM */
ETL_API int etl_tables_add(struct etl_tables *t, const struct etl_event *ev);
/** Rows of the time window and the processes @p f selects (etl_filter_parts; docs/TABLES.md says
 *  which row falls in a window), before the first etl_tables_add(); @p f outlives the tables.
 *  @retval ETL_OK @retval ETL_E_MISUSE @since 0.2 */
ETL_API int etl_tables_set_filter(struct etl_tables *t, struct etl_filter *f);
/** After the last event: the tables only the whole trace makes, the pairs left open (rows
 *  without their end, and notes). @retval ETL_OK */
ETL_API int etl_tables_finish(struct etl_tables *t);
/**
 * etl_tables_new(), then every event of @p r (damage is counted, etl_tables_damage(), and
 * reading goes on), then etl_tables_finish(): the tables of a whole reading.
 * @retval ETL_OK @retval ETL_E_MISUSE @retval ETL_E_NOMEM @retval a fatal reader error
 */
ETL_API int etl_tables_build(struct etl_reader *r, const char *const *names, size_t n, unsigned flags,
			     etl_table_row_fn row_fn, void *ctx, struct etl_tables **out);
/** Frees the tables (NULL: nothing).  Built tables own their rows and texts: the reader may be
 *  freed before them. */
ETL_API void etl_tables_free(struct etl_tables *t);
/** Damage reports met while reading (each an error etl_reader_next gave). */
ETL_API uint64_t etl_tables_damage(const struct etl_tables *t);
/** The table of that name, or NULL when it was not asked for. */
ETL_API const struct etl_table *etl_tables_get(const struct etl_tables *t, const char *name);

ETL_API const char *etl_table_name(const struct etl_table *t);
ETL_API size_t etl_table_row_count(const struct etl_table *t);
ETL_API size_t etl_table_column_count(const struct etl_table *t);
ETL_API const char *etl_table_column_name(const struct etl_table *t, size_t col);
ETL_API enum etl_column_type etl_table_column_type(const struct etl_table *t, size_t col);
/** The column's unit ("ms", "bytes", ...), or "" when it has none. */
ETL_API const char *etl_table_column_unit(const struct etl_table *t, size_t col);
/** The index of a column by name, or (size_t)-1. */
ETL_API size_t etl_table_column_index(const struct etl_table *t, const char *name);
/** Whether the value is null (unknown, or not in the trace). */
ETL_API int etl_table_is_null(const struct etl_table *t, size_t row, size_t col);
/** A value: integers, times and bools as u64 (an INT column's value as its two's complement),
 *  doubles as double, text as UTF-8 (NULL when null; borrowed until the tables are freed, or for
 *  a streamed row until row_fn returns).  Past the table, or of another type: 0 / NULL. */
ETL_API uint64_t etl_table_u64(const struct etl_table *t, size_t row, size_t col);
ETL_API int64_t etl_table_i64(const struct etl_table *t, size_t row, size_t col);
ETL_API double etl_table_double(const struct etl_table *t, size_t row, size_t col);
ETL_API const char *etl_table_text(const struct etl_table *t, size_t row, size_t col);
/** Notes on the table: what could not be paired or kept, with how many ("disk I/O issued with no
 *  completion in the trace", 3).  The i-th note's text, and its count in *count. */
ETL_API size_t etl_table_note_count(const struct etl_table *t);
ETL_API const char *etl_table_note(const struct etl_table *t, size_t i, uint64_t *count);
/** Rows given to row_fn (streamed tables) or kept, in all. */
ETL_API uint64_t etl_table_rows_seen(const struct etl_table *t);

/* ------------------------------------------------------------------ */
/* HTML report (docs/REPORT.md)                                        */
/* ------------------------------------------------------------------ */

/**
 * One self-contained HTML page over a reading: the traces and their losses, the providers over
 * time, the processes' lifetimes, CPU over time by process (samples and context switches) with
 * a flame graph of the sampled stacks, disk and file I/O over time with latency histograms and
 * the top files and processes, network by process and endpoint, .NET GC pauses and exceptions,
 * and what could not be paired; every chart is SVG written into the page, with a little inline
 * script for zoom, search and sorting.  Memory and the page's size are bounded whatever the
 * trace's size (docs/REPORT.md).  @since 0.2
 */
struct etl_report;

/** Where a report goes: called with each block of the page; 0 on success, else the writing stops
 *  and the report's status is ETL_E_IO. */
typedef int (*etl_write_fn)(void *ctx, const void *data, size_t size);

/** Starts a report over the events of @p r (its inputs open, no event read yet): give every
 *  event etl_reader_next() delivers to etl_report_add(), then write it with
 *  etl_report_write_html().  @p flags: 0.  *out is NULL on failure.
 *  @retval ETL_OK @retval ETL_E_MISUSE @retval ETL_E_NOMEM */
ETL_API int etl_report_new(struct etl_reader *r, unsigned flags, struct etl_report **out);
/** One event the reader delivered. @retval ETL_OK @retval ETL_E_NOMEM */
ETL_API int etl_report_add(struct etl_report *rep, const struct etl_event *ev);
/** The report of the time window and the processes @p f selects (as etl_tables_set_filter),
 *  stated in its header; before the first etl_report_add(). @retval ETL_OK @retval ETL_E_MISUSE
 *  @since 0.2 */
ETL_API int etl_report_set_filter(struct etl_report *rep, struct etl_filter *f);
/** Writes the page through @p write (after the last event; the reader must still be there).
 *  @retval ETL_OK @retval ETL_E_IO (write failed) @retval ETL_E_MISUSE @retval ETL_E_NOMEM */
ETL_API int etl_report_write_html(struct etl_report *rep, etl_write_fn write, void *ctx);
ETL_API void etl_report_free(struct etl_report *rep);
/** etl_report_new(), every event of @p r (damage is counted and shown, and reading goes on),
 *  etl_report_write_html(), etl_report_free(). @retval as those, or a fatal reader error */
ETL_API int etl_report_html(struct etl_reader *r, unsigned flags, etl_write_fn write, void *ctx);

/* ------------------------------------------------------------------ */
/* Well-known names                                                    */
/* ------------------------------------------------------------------ */

/** Kernel group (HookId high byte) to its GUID.  NULL for an unknown group. Static storage. */
ETL_API const struct etl_guid *etl_kernel_group_guid(unsigned group);
/** Kernel group name ("Process", "Thread", ...), NULL if unknown. Static storage. */
ETL_API const char *etl_kernel_group_name(unsigned group);

#ifdef __cplusplus
}
#endif

#endif /* ETL_H */

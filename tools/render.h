/*
 * render.h - how etldump shows values, stacks and times, shared by the
 * writers: text values (bare tokens or quoted), JSON values (numbers, bools
 * or strings), stacks as module!+offset.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETLDUMP_RENDER_H
#define ETLDUMP_RENDER_H

#include <etl.h>

#include "etldump.h"

/* --no-maps and --time (set once, before any thread starts) */
extern int render_no_maps;
enum time_mode { RTIME_UTC, RTIME_LOCAL, RTIME_RELATIVE, RTIME_RAW };
extern enum time_mode render_time_mode;
/* --lines (ETL_FRAME_LINES) and --signatures */
extern unsigned render_frame_flags;
extern int render_signatures;
/* The file name of a source path (Windows or POSIX separators). */
const char *frame_file_name(const char *path);

/* An event's time as --time asks, for text and CSV: UTC (ISO 8601, 100 ns), local (the same with
 * the zone's offset), relative (milliseconds since the earliest input's start, 4 decimals) or raw
 * (the record's own time stamp). */
#define RENDER_TIME_SIZE 96
const char *render_time(const struct etl_reader *r, const struct etl_event *ev, char out[RENDER_TIME_SIZE]);

/* The text of a value: the canonical one, or the number behind a map with --no-maps. */
const char *render_value_text(const struct etl_property *p);
/* A text value: bare when it is a plain token (no space, '"', '=' or control byte), else in
 * double quotes with \" \\ \n \r \t and \xNN escapes. */
void out_text_value(const char *v);
/* The same into dst, which holds TEXT_QUOTED_SIZE(strlen(v)) bytes; returns the length. */
#define TEXT_QUOTED_SIZE(n) (4 * (n) + 3)
size_t text_value_quoted(const char *v, char *dst);
/* A value as JSON: a number, true/false, or a string; structs and arrays as objects and arrays. */
void out_json_value(const struct etl_property *p, unsigned depth);
/* A name from the trace (an event, a property, a module) in text output: as it is, but for
 * control bytes, written as \xNN so that a line stays one line. */
void out_text_name(const char *s);
/* A CSV cell of text: in double quotes (quotes doubled) when it holds a comma, a quote, or what
 * out_text_name escapes - control bytes, C1 controls, separators, bidirectional controls, UTF-8
 * that is not: each as \xNN, so that no cell holds a line break or acts on a terminal. */
void out_csv_cell(const char *v);
/* Whether text is a JSON number (so that it may be written bare). */
int is_json_number(const char *t);
/* " stack=f1,f2,..." in text, ",\"stack\":[\"f1\",...]" in JSON; nothing without a stack.  A frame
 * is module!Function+0xOFF, module!+0xOFF or 0xADDRESS (etl_reader_frame). */
void out_stack(struct etl_reader *r, const struct etl_event *ev, int json);
/* ,"key":"xxxxxxxx-..." when g is not NULL. */
void out_guid_field(const char *key, const struct etl_guid *g);
/* Whether an event's payload is written in hex: always with --payload, else only when its fields
 * do not say all of it (not decoded, decoded in part, or with bytes left over). */
int render_payload_wanted(const struct options *o, const struct etl_decoded *d);
/* ,"key":"value" (no comma before the first when comma is 0). */
void out_json_kv_str(const char *k, const char *v, int comma);

/* The message an output shows for the event: a WPP message's text (decoder tmf), else NULL. */
const char *render_message(const struct etl_decoded *d);

#endif

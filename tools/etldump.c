/*
 * etldump - print the events of Windows ETW trace files (.etl).
 *
 * A thin tool: everything it prints comes through the public libetl API.
 * Data goes to stdout, diagnostics to stderr.  Exit codes: see usage() and
 * docs/etldump.1.
 *
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <pthread.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <etl.h>

#include "exit_codes.h"
#include "filter.h"
#include "out.h"

enum out_format { FMT_TEXT, FMT_JSONL, FMT_CSV, FMT_XML, FMT_CHROME };

struct options {
	enum out_format format;
	enum etl_order order;
	int info;
	int quiet;
	int raw;             /* do not decode payloads */
	int no_maps;         /* mapped values as numbers */
	int stats;           /* --stats */
	int providers;       /* --providers */
	int processes;       /* --processes */
	const char *output;  /* -o FILE */
	const char *outdir;  /* -O DIR */
	struct filter filter;
	uint64_t max_events; /* 0 = all */
	size_t max_payload;  /* bytes of payload hex shown in text, SIZE_MAX = all */
	unsigned threads;    /* --threads: decoding and formatting threads (1 = none) */
	int threads_auto;    /* --threads=0: one per processor, for inputs large enough */
};

static const char *progname = "etldump";

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [OPTIONS] FILE...\n"
		"Print the events of Windows ETW trace files (.etl), merged in time order.\n"
		"\n"
		"Options:\n"
		"  -f, --format=FORMAT   output format: text (default), jsonl, csv, xml or chrome\n"
		"  -i, --info            print the trace information instead of events\n"
		"      --stats           print events and bytes per provider and event name, decoding\n"
		"                        counts, time span and losses instead of events\n"
		"      --providers       print each provider with its name source and event count\n"
		"      --processes       print the processes that the kernel events describe\n"
		"  -o, --output=FILE     write to FILE instead of standard output\n"
		"  -O, --output-dir=DIR  one output per input in DIR, named after the input\n"
		"\n"
		"Filters (applied before decoding where they can be):\n"
		"  -p, --provider=P      provider GUID, name or glob (repeatable)\n"
		"      --id=LIST         event ids, e.g. 1,5-9\n"
		"      --opcode=LIST     opcodes\n"
		"      --level=N         level at most N (1 critical ... 5 verbose)\n"
		"      --keywords-any=M  keyword mask: any bit set\n"
		"      --keywords-all=M  keyword mask: all bits set\n"
		"      --pid=LIST        process ids\n"
		"      --process=NAME    process image name or glob, e.g. 'chrome*' (repeatable; from\n"
		"                        the trace's kernel process events)\n"
		"      --tid=LIST        thread ids\n"
		"      --cpu=LIST        processors\n"
		"      --since=T         from T: UTC like 2024-01-02T03:04:05Z, or after the start: 1.5s, 250ms\n"
		"      --until=T         up to T (same forms)\n"
		"\n"
		"Other options:\n"
		"      --order=ORDER     time (default: all CPUs and files merged by time) or file\n"
		"  -m, --manifest=PATH   load provider manifests from a file or directory (repeatable);\n"
		"                        ETLDUMP_MANIFEST_PATH may list more, separated by ':'\n"
		"  -n, --count=N         stop after N events\n"
		"  -j, --threads=N       decode and format with N threads (0 = one per processor when\n"
		"                        the inputs hold 32 MB or more); the output is the same (default: 1)\n"
		"      --raw             do not decode payloads: show header fields and payload hex\n"
		"      --no-maps         print values that a value or bit map names as numbers\n"
		"      --payload-bytes=N show at most N payload bytes in text output (default 64; 0 = none, -1 = all)\n"
		"  -q, --quiet           do not print damage diagnostics (the exit status still tells)\n"
		"  -h, --help            show this help and exit\n"
		"  -V, --version         show the version of etldump and its libraries and exit\n"
		"\n"
		"FILE may be '-' for standard input.\n"
		"\n"
		"Exit status: 0 all input read cleanly; 1 damaged or unsupported data was skipped\n"
		"(everything intact was still printed); 2 usage error; 3 an input could not be opened\n"
		"or read; 4 out of memory.\n",
		progname);
}

/* ---- output helpers ---- */

/* "2024-01-02T03:04:05.1234567Z" from a FILETIME. */
static void format_filetime(uint64_t ft, char *out, size_t n) /* n >= 64 */
{
	const uint64_t epoch = 116444736000000000ULL;
	struct tm tm;
	time_t secs;
	int64_t unix100;
	uint32_t frac;

	unix100 = ft >= epoch ? (int64_t)(ft - epoch) : -(int64_t)(epoch - ft);
	secs = (time_t)(unix100 / 10000000);
	frac = (uint32_t)(unix100 % 10000000);
	if (unix100 < 0 && frac) {
		secs -= 1;
		frac = (uint32_t)(10000000 + (unix100 % 10000000));
	}
	/* events come in time order: the date and time of day change once a second at most */
	static _Thread_local time_t cached_secs = -1;
	static _Thread_local char cached[32]; /* "YYYY-MM-DDTHH:MM:SS." */
	static _Thread_local size_t cached_len;
	int i;

	if (secs != cached_secs || cached_secs == -1) {
		int len;
		if (!gmtime_r(&secs, &tm)) {
			snprintf(out, n, "filetime:%" PRIu64, ft);
			return;
		}
		len = snprintf(cached, sizeof(cached), "%04d-%02d-%02dT%02d:%02d:%02d.", tm.tm_year + 1900,
			       tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
		if (len <= 0 || (size_t)len >= sizeof(cached)) {
			snprintf(out, n, "filetime:%" PRIu64, ft);
			return;
		}
		cached_len = (size_t)len;
		cached_secs = secs;
	}
	memcpy(out, cached, cached_len);
	for (i = 6; i >= 0; i--) {
		out[cached_len + (size_t)i] = (char)('0' + frac % 10);
		frac /= 10;
	}
	out[cached_len + 7] = 'Z';
	out[cached_len + 8] = 0;
}

static const char *clock_name(enum etl_clock c)
{
	switch (c) {
	case ETL_CLOCK_QPC: return "qpc";
	case ETL_CLOCK_SYSTEM_TIME: return "system-time";
	case ETL_CLOCK_CPU_CYCLES: return "cpu-cycles";
	default: return "unknown";
	}
}

/* ---- trace information ---- */

static void print_info_text(const struct etl_trace_info *t)
{
	char start[64], end[64], boot[64];
	size_t i;

	format_filetime(etl_trace_info_start_time(t), start, sizeof(start));
	format_filetime(etl_trace_info_end_time(t), end, sizeof(end));
	format_filetime(etl_trace_info_boot_time(t), boot, sizeof(boot));
	out_printf("file:               %s\n", etl_trace_info_name(t));
	if (etl_trace_info_container(t)[0])
		out_printf("container:          %s\n", etl_trace_info_container(t));
	for (i = 0; i < etl_trace_info_other_member_count(t); i++)
		out_printf("other member:       %s\n", etl_trace_info_other_member(t, i));
	out_printf("size:               %" PRIu64 " bytes\n", etl_trace_info_file_size(t));
	out_printf("logger name:        %s\n", etl_trace_info_logger_name(t));
	out_printf("log file name:      %s\n", etl_trace_info_log_file_name(t));
	out_printf("os version:         %u.%u build %u\n", etl_trace_info_os_major(t),
	       etl_trace_info_os_minor(t), etl_trace_info_os_build(t));
	out_printf("file layout:        %u.%u\n", etl_trace_info_layout_major(t), etl_trace_info_layout_minor(t));
	out_printf("pointer size:       %u\n", etl_trace_info_pointer_size(t));
	out_printf("processors:         %u\n", etl_trace_info_cpu_count(t));
	out_printf("cpu speed:          %u MHz\n", etl_trace_info_cpu_speed_mhz(t));
	out_printf("buffer size:        %u\n", etl_trace_info_buffer_size(t));
	out_printf("buffers written:    %u\n", etl_trace_info_buffers_written(t));
	out_printf("buffers lost:       %u\n", etl_trace_info_buffers_lost(t));
	out_printf("events lost:        %u\n", etl_trace_info_events_lost(t));
	out_printf("log file mode:      0x%08x\n", etl_trace_info_log_file_mode(t));
	out_printf("compression:        %u\n", etl_trace_info_compression_format(t));
	out_printf("maximum file size:  %u\n", etl_trace_info_maximum_file_size(t));
	out_printf("start time:         %s\n", start);
	out_printf("end time:           %s\n", end);
	out_printf("boot time:          %s\n", boot);
	out_printf("clock type:         %s\n", clock_name(etl_trace_info_clock_type(t)));
	out_printf("perf frequency:     %" PRIu64 "\n", etl_trace_info_perf_freq(t));
	out_printf("timer resolution:   %u (100 ns units)\n", etl_trace_info_timer_resolution(t));
	out_printf("timer source:       %u\n", etl_trace_info_timer_source(t));
	out_printf("perf counter source:%u\n", etl_trace_info_perf_counter_source(t));
	out_printf("start timestamp:    %" PRIu64 "\n", etl_trace_info_start_timestamp_raw(t));
	out_printf("time zone bias:     %d min\n", etl_trace_info_tz_bias(t));
	out_printf("time zone standard: %s (bias %d)\n", etl_trace_info_tz_standard_name(t),
	       etl_trace_info_tz_standard_bias(t));
	out_printf("time zone daylight: %s (bias %d)\n", etl_trace_info_tz_daylight_name(t),
	       etl_trace_info_tz_daylight_bias(t));
}

static void json_kv_str(const char *k, const char *v, int comma)
{
	out_printf("%s\"%s\":\"", comma ? "," : "", k);
	out_json_str(v);
	out_char('"');
}

static void print_info_json(const struct etl_trace_info *t)
{
	char start[64], end[64], boot[64];
	size_t i;

	format_filetime(etl_trace_info_start_time(t), start, sizeof(start));
	format_filetime(etl_trace_info_end_time(t), end, sizeof(end));
	format_filetime(etl_trace_info_boot_time(t), boot, sizeof(boot));
	out_printf("{\"type\":\"trace\"");
	json_kv_str("file", etl_trace_info_name(t), 1);
	json_kv_str("container", etl_trace_info_container(t), 1);
	out_printf(",\"other_members\":[");
	for (i = 0; i < etl_trace_info_other_member_count(t); i++) {
		out_printf("%s\"", i ? "," : "");
		out_json_str(etl_trace_info_other_member(t, i));
		out_char('"');
	}
	out_printf("],\"size\":%" PRIu64, etl_trace_info_file_size(t));
	json_kv_str("logger_name", etl_trace_info_logger_name(t), 1);
	json_kv_str("log_file_name", etl_trace_info_log_file_name(t), 1);
	out_printf(",\"os_major\":%u,\"os_minor\":%u,\"os_build\":%u,\"layout\":\"%u.%u\"",
	       etl_trace_info_os_major(t), etl_trace_info_os_minor(t), etl_trace_info_os_build(t),
	       etl_trace_info_layout_major(t), etl_trace_info_layout_minor(t));
	out_printf(",\"pointer_size\":%u,\"cpu_count\":%u,\"cpu_speed_mhz\":%u,\"buffer_size\":%u",
	       etl_trace_info_pointer_size(t), etl_trace_info_cpu_count(t),
	       etl_trace_info_cpu_speed_mhz(t), etl_trace_info_buffer_size(t));
	out_printf(",\"buffers_written\":%u,\"buffers_lost\":%u,\"events_lost\":%u,\"log_file_mode\":%u",
	       etl_trace_info_buffers_written(t), etl_trace_info_buffers_lost(t),
	       etl_trace_info_events_lost(t), etl_trace_info_log_file_mode(t));
	out_printf(",\"compression_format\":%u,\"maximum_file_size\":%u",
	       etl_trace_info_compression_format(t), etl_trace_info_maximum_file_size(t));
	out_printf(",\"start_time\":\"%s\",\"end_time\":\"%s\",\"boot_time\":\"%s\"", start, end, boot);
	out_printf(",\"start_filetime\":%" PRIu64 ",\"end_filetime\":%" PRIu64,
	       etl_trace_info_start_time(t), etl_trace_info_end_time(t));
	out_printf(",\"clock_type\":\"%s\",\"perf_freq\":%" PRIu64 ",\"timer_resolution\":%u",
	       clock_name(etl_trace_info_clock_type(t)), etl_trace_info_perf_freq(t),
	       etl_trace_info_timer_resolution(t));
	out_printf(",\"timer_source\":%u,\"perf_counter_source\":%u,\"start_timestamp\":%" PRIu64,
	       etl_trace_info_timer_source(t), etl_trace_info_perf_counter_source(t),
	       etl_trace_info_start_timestamp_raw(t));
	out_printf(",\"tz_bias\":%d,\"tz_standard_bias\":%d,\"tz_daylight_bias\":%d",
	       etl_trace_info_tz_bias(t), etl_trace_info_tz_standard_bias(t),
	       etl_trace_info_tz_daylight_bias(t));
	json_kv_str("tz_standard_name", etl_trace_info_tz_standard_name(t), 1);
	json_kv_str("tz_daylight_name", etl_trace_info_tz_daylight_name(t), 1);
	out_printf("}\n");
}

static _Thread_local int decode_errors; /* per thread: workers add theirs up */

/* A payload that contradicts its schema: reported like damage, printing goes on. */
static void report_decode(const struct etl_reader *r, const struct options *o)
{
	const struct etl_error *e = etl_reader_error(r);
	int ti;

	decode_errors++;
	if (!e || o->quiet)
		return;
	ti = etl_error_trace_index(e);
	fprintf(stderr, "%s: %s: offset 0x%llx: %s\n", progname,
		ti >= 0 && etl_reader_trace_info(r, ti) ? etl_trace_info_name(etl_reader_trace_info(r, ti)) : "?",
		(unsigned long long)etl_error_offset(e), etl_error_message(e));
}

/* ---- decoded values ---- */

static int no_maps;

/* The text of a value: the canonical one, or the number behind a map with --no-maps. */
static const char *value_text(const struct etl_property *p)
{
	static _Thread_local char num[32];
	uint64_t u;
	int64_t i;

	if (no_maps && etl_property_map_name(p)) {
		if (etl_property_in_type(p) == 3 || etl_property_in_type(p) == 5 || etl_property_in_type(p) == 7 ||
		    etl_property_in_type(p) == 9) {
			if (etl_property_as_i64(p, &i) == ETL_OK) {
				snprintf(num, sizeof(num), "%lld", (long long)i);
				return num;
			}
		} else if (etl_property_as_u64(p, &u) == ETL_OK) {
			snprintf(num, sizeof(num), "%llu", (unsigned long long)u);
			return num;
		}
	}
	return etl_property_format(p);
}

/* A text value: bare when it is a plain token, else in double quotes with \" \\ \n escapes. */
static void out_text_value(const char *v)
{
	const char *p;
	int plain = *v != 0;

	for (p = v; *p && plain; p++)
		plain = *p != ' ' && *p != '"' && *p != '=' && (unsigned char)*p >= 0x20;
	if (plain) {
		out_cstr(v);
		return;
	}
	out_char('"');
	for (p = v; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c == '"' || c == '\\')
			out_printf("\\%c", c);
		else if (c == '\n')
			out_cstr("\\n");
		else if (c == '\r')
			out_cstr("\\r");
		else if (c == '\t')
			out_cstr("\\t");
		else if (c < 0x20)
			out_printf("\\x%02x", c);
		else
			out_char(c);
	}
	out_char('"');
}

/* Whether text is a JSON number (so that it may be written bare). */
static int is_json_number(const char *t)
{
	const char *p = t;

	if (*p == '-')
		p++;
	if (!(*p >= '0' && *p <= '9'))
		return 0;
	if (*p == '0' && p[1] >= '0' && p[1] <= '9')
		return 0;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p == '.') {
		p++;
		if (!(*p >= '0' && *p <= '9'))
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return *p == 0;
}

static int is_plain_integer(const struct etl_property *p)
{
	uint16_t in = etl_property_in_type(p), out = etl_property_out_type(p);

	if (!((in >= 3 && in <= 10)))
		return 0;
	/* out-types rendered as text: hex, characters, addresses, booleans, codes, times */
	return !(out == 1 || out == 2 || (out >= 13 && out <= 19) || out == 22 || out == 23 ||
		 (out >= 29 && out <= 32) || out == 37 || out == 38);
}

static void out_json_value(const struct etl_property *p, unsigned depth)
{
	enum etl_property_kind k = etl_property_kind(p);
	size_t i, n = etl_property_child_count(p);

	if (k != ETL_PROPERTY_VALUE && depth < 64) {
		out_char(k == ETL_PROPERTY_ARRAY ? '[' : '{');
		for (i = 0; i < n; i++) {
			const struct etl_property *c = etl_property_child_at(p, i);
			if (i)
				out_char(',');
			if (k == ETL_PROPERTY_STRUCT) {
				out_char('"');
				out_json_str(etl_property_name(c));
				out_cstr("\":");
			}
			out_json_value(c, depth + 1);
		}
		out_char(k == ETL_PROPERTY_ARRAY ? ']' : '}');
		return;
	}
	{
		const char *text;
		uint16_t in = etl_property_in_type(p), out = etl_property_out_type(p);
		int64_t iv;
		uint64_t uv;

		/* the common case, a plain integer with no map and no out-type: straight from its value */
		if (out == 0 && in >= 3 && in <= 10 && !etl_property_map_name(p)) {
			if ((in & 1) && etl_property_as_i64(p, &iv) == ETL_OK) {
				out_i64(iv);
				return;
			}
			if (!(in & 1) && etl_property_as_u64(p, &uv) == ETL_OK) {
				out_u64(uv);
				return;
			}
		}
		text = value_text(p);

		if (!text)
			text = "";
		if ((in == 13 || out == 13) && (strcmp(text, "true") == 0 || strcmp(text, "false") == 0)) {
			out_cstr(text);
		} else if (is_plain_integer(p) && etl_property_as_i64(p, &iv) == ETL_OK &&
			   etl_property_as_u64(p, &uv) == ETL_OK && is_json_number(text)) {
			out_cstr(text); /* a map may have turned the number into a name: then it is a string */
		} else if ((in == 11 || in == 12) && is_json_number(text)) {
			out_cstr(text);
		} else {
			out_char('"');
			out_json_str(text);
			out_char('"');
		}
	}
}

/* ---- events ---- */

/* A stack frame as module!+offset (the module's file name without its folders), or the
 * address in hex when no loaded image holds it. */
static void out_frame(struct etl_reader *r, const struct etl_process *proc, uint64_t addr)
{
	uint64_t off = 0;
	const char *img = etl_reader_resolve_address(r, proc, addr, &off);
	char hex[24];

	if (img) {
		const char *base = strrchr(img, '\\');
		out_cstr(base ? base + 1 : img);
		snprintf(hex, sizeof(hex), "!+0x%" PRIx64, off);
	} else {
		snprintf(hex, sizeof(hex), "0x%" PRIx64, addr);
	}
	out_cstr(hex);
}

/* " stack=f1,f2,..." in text, ",\"stack\":[\"f1\",...]" in JSON; nothing without a stack */
static void out_stack(struct etl_reader *r, const struct etl_event *ev, int json)
{
	size_t i, n = etl_event_stack_depth(ev);
	const struct etl_process *proc;

	if (!n)
		return;
	proc = etl_reader_event_process(r, ev);
	out_cstr(json ? ",\"stack\":[" : " stack=");
	for (i = 0; i < n; i++) {
		if (i)
			out_char(',');
		if (json)
			out_char('"');
		out_frame(r, proc, etl_event_stack_frame(ev, i));
		if (json)
			out_char('"');
	}
	if (json)
		out_char(']');
}

static void print_event_text(const struct etl_event *ev, struct etl_reader *r, const struct options *o,
			     const struct etl_decoded *d)
{
	const struct etl_process *proc = etl_reader_event_process(r, ev);

	char when[64], guid[ETL_GUID_STRING_SIZE];
	const uint8_t *payload;
	size_t len, shown, i;
	enum etl_header_kind k = etl_event_header_kind(ev);

	if (o->raw)
		d = NULL;
	format_filetime(etl_event_filetime(ev), when, sizeof(when));
	etl_event_payload(ev, &payload, &len);
	out_printf("%s cpu=%u", when, etl_event_cpu(ev));
	if (etl_event_pid(ev) != ETL_ID_NONE)
		out_printf(" pid=%u", etl_event_pid(ev));
	if (etl_event_tid(ev) != ETL_ID_NONE)
		out_printf(" tid=%u", etl_event_tid(ev));
	if (proc && *etl_process_image_name(proc)) {
		out_cstr(" process=");
		out_text_value(etl_process_image_name(proc));
	}
	if (d) {
		out_char(' ');
		out_cstr(etl_decoded_name(d));
	}
	if (d && etl_decoded_source(d) != ETL_DECODER_NONE) {
		for (i = 0; i < etl_decoded_property_count(d); i++) {
			const struct etl_property *p = etl_decoded_property_at(d, i);
			const char *v = value_text(p);
			out_char(' ');
			out_cstr(etl_property_name(p));
			out_char('=');
			out_text_value(v ? v : "");
		}
		out_stack(r, ev, 0);
		out_char('\n');
		return;
	}
	if (!d) {
		if (k == ETL_HEADER_SYSTEM || k == ETL_HEADER_COMPACT || k == ETL_HEADER_PERFINFO) {
			const char *g = etl_kernel_group_name(etl_event_hook_id(ev) >> 8);
			out_printf(" kernel=%s hook=0x%04x", g ? g : "?", etl_event_hook_id(ev));
		} else {
			etl_guid_format(etl_event_provider(ev), guid);
			out_printf(" provider={%s} id=%u", guid, etl_event_id(ev));
		}
		out_printf(" opcode=%u version=%u level=%u", etl_event_opcode(ev), etl_event_version(ev),
		       etl_event_level(ev));
	}
	out_printf(" len=%zu", len);
	shown = len < o->max_payload ? len : o->max_payload;
	if (shown) {
		out_cstr(" payload=");
		out_hex(payload, shown);
		if (shown < len)
			out_cstr("...");
	}
	out_stack(r, ev, 0);
	out_char('\n');
}

static void print_guid_field(const char *key, const struct etl_guid *g)
{
	char s[ETL_GUID_STRING_SIZE];

	if (!g)
		return;
	etl_guid_format(g, s);
	out_char(',');
	out_char('"');
	out_cstr(key);
	OUT_LIT("\":\"");
	out_mem(s, ETL_GUID_STRING_SIZE - 1);
	out_char('"');
}

/* "process" (and "process_pid" where the header has no pid) from the reader's process table */
static void process_json(struct etl_reader *r, const struct etl_event *ev)
{
	const struct etl_process *p = etl_reader_event_process(r, ev);

	if (!p || !*etl_process_image_name(p))
		return;
	out_cstr(",\"process\":\"");
	out_json_str(etl_process_image_name(p));
	out_cstr("\"");
	if (etl_event_pid(ev) == ETL_ID_NONE)
		out_printf(",\"process_pid\":%u", etl_process_id(p));
}

/* --processes: every process record the trace described */
static void print_processes(struct etl_reader *r, const struct options *o)
{
	size_t i, n = etl_reader_process_count(r);
	char start[64], end[64];

	if (o->format != FMT_JSONL)
		out_printf("%-5s %8s %8s %-28s %-28s %11s  %s %s\n", "trace", "pid", "ppid", "start", "end", "exit",
		       "image", "command line");
	for (i = 0; i < n; i++) {
		const struct etl_process *p = etl_reader_process_at(r, i);
		uint64_t st = etl_process_start_filetime(p), et = 0;
		int32_t code = 0;
		int ended = etl_process_end(p, &et, &code);

		if (st)
			format_filetime(st, start, sizeof(start));
		else
			snprintf(start, sizeof(start), "-");
		if (ended)
			format_filetime(et, end, sizeof(end));
		else
			snprintf(end, sizeof(end), "-");
		if (o->format == FMT_JSONL) {
			out_printf("{\"type\":\"process\",\"trace\":%d,\"pid\":%u", etl_process_trace_index(p),
			       etl_process_id(p));
			if (etl_process_parent_id(p) != ETL_ID_NONE)
				out_printf(",\"parent_pid\":%u", etl_process_parent_id(p));
			if (etl_process_session_id(p) != ETL_ID_NONE)
				out_printf(",\"session_id\":%u", etl_process_session_id(p));
			if (st)
				out_printf(",\"start\":\"%s\"", start);
			if (ended)
				out_printf(",\"end\":\"%s\",\"exit_status\":%d", end, code);
			out_cstr(",\"image\":\"");
			out_json_str(etl_process_image_name(p));
			out_cstr("\",\"command_line\":\"");
			out_json_str(etl_process_command_line(p));
			out_printf("\",\"images\":%zu}\n", etl_process_image_count(p));
			continue;
		}
		out_printf("%-5d %8u ", etl_process_trace_index(p), etl_process_id(p));
		if (etl_process_parent_id(p) != ETL_ID_NONE)
			out_printf("%8u ", etl_process_parent_id(p));
		else
			out_printf("%8s ", "-");
		out_printf("%-28s %-28s ", start, end);
		if (ended)
			out_printf("%11d  ", code);
		else
			out_printf("%11s  ", "-");
		out_text_value(*etl_process_image_name(p) ? etl_process_image_name(p) : "-");
		out_char(' ');
		out_text_value(etl_process_command_line(p));
		out_char('\n');
	}
}

static void print_event_json(const struct etl_event *ev, struct etl_reader *r, const struct options *o,
			     const struct etl_decoded *d)
{
	char when[64], guid[ETL_GUID_STRING_SIZE];
	const uint8_t *payload;
	size_t len;
	unsigned i, n;
	uint32_t a, b;
	uint64_t v;
	struct etl_guid pg;
	enum etl_header_kind k = etl_event_header_kind(ev);

	format_filetime(etl_event_filetime(ev), when, sizeof(when));
	etl_guid_format(etl_event_provider(ev), guid);
	etl_event_payload(ev, &payload, &len);
	OUT_LIT("{\"type\":\"event\",\"file\":\"");
	out_json_str(etl_trace_info_name(etl_reader_trace_info(r, etl_event_trace_index(ev))));
	OUT_LIT("\",\"file_offset\":");
	out_u64(etl_event_file_offset(ev));
	OUT_LIT(",\"buffer\":");
	out_u64(etl_event_buffer_index(ev));
	OUT_LIT(",\"buffer_offset\":");
	out_u64(etl_event_buffer_offset(ev));
	OUT_LIT(",\"time\":\"");
	out_cstr(when);
	OUT_LIT("\",\"unix_ns\":");
	out_i64(etl_event_unix_ns(ev));
	OUT_LIT(",\"timestamp\":");
	out_u64(etl_event_timestamp_raw(ev));
	if (etl_event_timestamp_inherited(ev))
		OUT_LIT(",\"timestamp_inherited\":true");
	OUT_LIT(",\"header\":\"");
	out_cstr(etl_header_kind_name(k));
	OUT_LIT("\",\"pointer_size\":");
	out_u64(etl_event_pointer_size(ev));
	OUT_LIT(",\"cpu\":");
	out_u64(etl_event_cpu(ev));
	if (etl_event_pid(ev) != ETL_ID_NONE) {
		OUT_LIT(",\"pid\":");
		out_u64(etl_event_pid(ev));
	}
	if (etl_event_tid(ev) != ETL_ID_NONE) {
		OUT_LIT(",\"tid\":");
		out_u64(etl_event_tid(ev));
	}
	process_json(r, ev);
	OUT_LIT(",\"provider\":\"");
	out_mem(guid, ETL_GUID_STRING_SIZE - 1);
	out_char('"');
	if (k == ETL_HEADER_SYSTEM || k == ETL_HEADER_COMPACT || k == ETL_HEADER_PERFINFO) {
		const char *g = etl_kernel_group_name(etl_event_hook_id(ev) >> 8);
		OUT_LIT(",\"hook_id\":");
		out_u64(etl_event_hook_id(ev));
		if (g) {
			OUT_LIT(",\"kernel_group\":\"");
			out_cstr(g);
			out_char('"');
		}
	}
	OUT_LIT(",\"id\":");
	out_u64(etl_event_id(ev));
	OUT_LIT(",\"version\":");
	out_u64(etl_event_version(ev));
	OUT_LIT(",\"channel\":");
	out_u64(etl_event_channel(ev));
	OUT_LIT(",\"level\":");
	out_u64(etl_event_level(ev));
	OUT_LIT(",\"opcode\":");
	out_u64(etl_event_opcode(ev));
	OUT_LIT(",\"task\":");
	out_u64(etl_event_task(ev));
	OUT_LIT(",\"keywords\":\"0x");
	{
		uint8_t kw[8];
		uint64_t x = etl_event_keywords(ev);
		for (i = 0; i < 8; i++)
			kw[i] = (uint8_t)(x >> (56 - 8 * i));
		out_hex(kw, 8);
	}
	out_char('"');
	if (k == ETL_HEADER_EVENT)
	{
		OUT_LIT(",\"header_flags\":");
		out_u64(etl_event_header_flags(ev));
		OUT_LIT(",\"event_property\":");
		out_u64(etl_event_property_flags(ev));
	}
	if (k == ETL_HEADER_SYSTEM || k == ETL_HEADER_FULL || k == ETL_HEADER_INSTANCE ||
	    k == ETL_HEADER_EVENT)
	{
		OUT_LIT(",\"kernel_time\":");
		out_u64(etl_event_kernel_time(ev));
		OUT_LIT(",\"user_time\":");
		out_u64(etl_event_user_time(ev));
	}
	print_guid_field("activity_id", etl_event_activity_id(ev));
	print_guid_field("related_activity_id", etl_event_related_activity_id(ev));
	if (etl_event_instance(ev, &a, &b, &pg)) {
		OUT_LIT(",\"instance_id\":");
		out_u64(a);
		OUT_LIT(",\"parent_instance_id\":");
		out_u64(b);
		print_guid_field("parent_guid", &pg);
	}
	if (k == ETL_HEADER_MESSAGE) {
		OUT_LIT(",\"message_flags\":");
		out_u64(etl_event_message_flags(ev));
		if (etl_event_message_sequence(ev, &a)) {
			OUT_LIT(",\"sequence\":");
			out_u64(a);
		}
		if (etl_event_message_component_id(ev, &a)) {
			OUT_LIT(",\"component_id\":");
			out_u64(a);
		}
	}
	if (etl_event_pebs_index(ev, &v)) {
		OUT_LIT(",\"pebs_index\":");
		out_u64(v);
	}
	n = etl_event_pmc_count(ev);
	if (n) {
		OUT_LIT(",\"pmc\":[");
		for (i = 0; i < n; i++) {
			if (i)
				out_char(',');
			out_u64(etl_event_pmc_at(ev, i));
		}
		out_char(']');
	}
	n = etl_event_extended_count(ev);
	if (n) {
		OUT_LIT(",\"extended\":[");
		for (i = 0; i < n; i++) {
			uint16_t type;
			const uint8_t *xd;
			size_t dl;

			etl_event_extended_at(ev, i, &type, &xd, &dl);
			if (i)
				out_char(',');
			OUT_LIT("{\"type\":");
			out_u64(type);
			OUT_LIT(",\"data\":\"");
			out_hex(xd, dl);
			OUT_LIT("\"}");
		}
		out_char(']');
	}
	if (!o->raw) {
		if (d) {
			OUT_LIT(",\"name\":\"");
			out_json_str(etl_decoded_name(d));
			OUT_LIT("\",\"decoder\":\"");
			out_cstr(etl_decoder_name(etl_decoded_source(d)));
			out_char('"');
			if (etl_decoded_source(d) != ETL_DECODER_NONE) {
				OUT_LIT(",\"fields\":{");
				for (i = 0; i < etl_decoded_property_count(d); i++) {
					const struct etl_property *p = etl_decoded_property_at(d, i);
					if (i)
						out_char(',');
					out_char('"');
					out_json_str(etl_property_name(p));
					out_cstr("\":");
					out_json_value(p, 0);
				}
				out_char('}');
				if (etl_decoded_trailing_bytes(d))
				{
					OUT_LIT(",\"trailing_bytes\":");
					out_u64(etl_decoded_trailing_bytes(d));
				}
			} else if (etl_decoded_reason(d)) {
				OUT_LIT(",\"undecoded_reason\":\"");
				out_json_str(etl_decoded_reason(d));
				out_char('"');
			}
		}
	}
	out_stack(r, ev, 1);
	OUT_LIT(",\"record_size\":");
	out_u64(etl_event_record_size(ev));
	OUT_LIT(",\"payload_size\":");
	out_u64(len);
	OUT_LIT(",\"payload\":\"");
	out_hex(payload, len);
	OUT_LIT("\"}\n");
}


/* ---- CSV (RFC 4180) ---- */

static void csv_field(const char *v)
{
	const char *p;
	int quote = 0;

	for (p = v; *p; p++)
		if (*p == ',' || *p == '"' || *p == '\r' || *p == '\n')
			quote = 1;
	if (!quote) {
		out_cstr(v);
		return;
	}
	out_char('"');
	for (p = v; *p; p++) {
		if (*p == '"')
			out_char('"');
		out_char(*p);
	}
	out_char('"');
}

static void print_csv_header(void)
{
	out_cstr("time,unix_ns,file,file_offset,buffer,cpu,pid,tid,provider,name,decoder,id,version,level,"
		"opcode,task,keywords,payload_size,fields,payload\r\n");
}

/* Writes "name=value; name=value" of the decoded properties into a growing string. */
static char *fields_text(const struct etl_decoded *d)
{
	size_t cap = 256, len = 0, i;
	char *buf = malloc(cap);

	if (!buf)
		return NULL;
	buf[0] = 0;
	for (i = 0; d && i < etl_decoded_property_count(d); i++) {
		const struct etl_property *p = etl_decoded_property_at(d, i);
		const char *v = value_text(p), *n = etl_property_name(p);
		size_t need = strlen(n) + strlen(v ? v : "") + 4;
		if (len + need + 1 > cap) {
			char *nb;
			while (len + need + 1 > cap)
				cap *= 2;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				return NULL;
			}
			buf = nb;
		}
		len += (size_t)snprintf(buf + len, cap - len, "%s%s=%s", i ? "; " : "", n, v ? v : "");
	}
	return buf;
}

static void print_event_csv(const struct etl_event *ev, struct etl_reader *r, const struct etl_decoded *d)
{
	char when[64], guid[ETL_GUID_STRING_SIZE], num[64];
	const uint8_t *payload;
	size_t len;
	char *ft;

	format_filetime(etl_event_filetime(ev), when, sizeof(when));
	etl_guid_format(etl_event_provider(ev), guid);
	etl_event_payload(ev, &payload, &len);
	out_printf("%s,%" PRId64 ",", when, etl_event_unix_ns(ev));
	csv_field(etl_trace_info_name(etl_reader_trace_info(r, etl_event_trace_index(ev))));
	out_printf(",%" PRIu64 ",%" PRIu64 ",%u,", etl_event_file_offset(ev), etl_event_buffer_index(ev), etl_event_cpu(ev));
	if (etl_event_pid(ev) != ETL_ID_NONE)
		out_printf("%u", etl_event_pid(ev));
	out_char(',');
	if (etl_event_tid(ev) != ETL_ID_NONE)
		out_printf("%u", etl_event_tid(ev));
	out_char(',');
	csv_field(d && etl_decoded_provider_name(d) ? etl_decoded_provider_name(d) : guid);
	out_char(',');
	csv_field(d ? etl_decoded_name(d) : "");
	out_printf(",%s,%u,%u,%u,%u,%u,", d ? etl_decoder_name(etl_decoded_source(d)) : "", etl_event_id(ev),
	       etl_event_version(ev), etl_event_level(ev), etl_event_opcode(ev), etl_event_task(ev));
	snprintf(num, sizeof(num), "0x%016" PRIx64, etl_event_keywords(ev));
	out_printf("%s,%zu,", num, len);
	ft = d && etl_decoded_source(d) != ETL_DECODER_NONE ? fields_text(d) : NULL;
	csv_field(ft ? ft : "");
	free(ft);
	out_char(',');
	out_hex(payload, len);
	out_cstr("\r\n");
}

/* ---- XML (the shape of Windows event XML) ---- */

static void xml_text(const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '<': out_cstr("&lt;"); break;
		case '>': out_cstr("&gt;"); break;
		case '&': out_cstr("&amp;"); break;
		case '"': out_cstr("&quot;"); break;
		case '\'': out_cstr("&apos;"); break;
		default:
			/* characters XML 1.0 cannot hold, even escaped */
			if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
				out_cstr("\xef\xbf\xbd");
			else
				out_char(c);
		}
	}
}

static void print_event_xml(const struct etl_event *ev, const struct etl_decoded *d)
{
	char when[64], guid[ETL_GUID_STRING_SIZE];
	const uint8_t *payload;
	size_t len, i;

	format_filetime(etl_event_filetime(ev), when, sizeof(when));
	etl_guid_format(etl_event_provider(ev), guid);
	etl_event_payload(ev, &payload, &len);
	out_cstr("<Event xmlns=\"http://schemas.microsoft.com/win/2004/08/events/event\"><System><Provider");
	if (d && etl_decoded_provider_name(d)) {
		out_cstr(" Name=\"");
		xml_text(etl_decoded_provider_name(d));
		out_char('"');
	}
	out_printf(" Guid=\"{%s}\"/><EventID>%u</EventID><Version>%u</Version><Level>%u</Level><Task>%u</Task>"
	       "<Opcode>%u</Opcode><Keywords>0x%" PRIx64 "</Keywords><TimeCreated SystemTime=\"%s\"/>",
	       guid, etl_event_id(ev), etl_event_version(ev), etl_event_level(ev), etl_event_task(ev),
	       etl_event_opcode(ev), etl_event_keywords(ev), when);
	if (etl_event_activity_id(ev)) {
		char a[ETL_GUID_STRING_SIZE];
		etl_guid_format(etl_event_activity_id(ev), a);
		out_printf("<Correlation ActivityID=\"{%s}\"", a);
		if (etl_event_related_activity_id(ev)) {
			etl_guid_format(etl_event_related_activity_id(ev), a);
			out_printf(" RelatedActivityID=\"{%s}\"", a);
		}
		out_cstr("/>");
	}
	out_cstr("<Execution");
	if (etl_event_pid(ev) != ETL_ID_NONE)
		out_printf(" ProcessID=\"%u\"", etl_event_pid(ev));
	if (etl_event_tid(ev) != ETL_ID_NONE)
		out_printf(" ThreadID=\"%u\"", etl_event_tid(ev));
	out_printf(" ProcessorID=\"%u\"/>", etl_event_cpu(ev));
	if (d && etl_decoded_channel_name(d)) {
		out_cstr("<Channel>");
		xml_text(etl_decoded_channel_name(d));
		out_cstr("</Channel>");
	}
	out_cstr("</System>");
	if (d && etl_decoded_source(d) != ETL_DECODER_NONE) {
		out_cstr("<EventData>");
		for (i = 0; i < etl_decoded_property_count(d); i++) {
			const struct etl_property *p = etl_decoded_property_at(d, i);
			const char *v = value_text(p);
			out_cstr("<Data Name=\"");
			xml_text(etl_property_name(p));
			out_cstr("\">");
			xml_text(v ? v : "");
			out_cstr("</Data>");
		}
		out_cstr("</EventData>");
	} else if (len) {
		out_cstr("<BinaryEventData>");
		out_hex(payload, len);
		out_cstr("</BinaryEventData>");
	}
	if (d) {
		out_cstr("<RenderingInfo><Task>");
		xml_text(etl_decoded_name(d));
		out_cstr("</Task>");
		if (etl_decoded_message(d)) {
			out_cstr("<Message>");
			xml_text(etl_decoded_message(d));
			out_cstr("</Message>");
		}
		out_cstr("</RenderingInfo>");
	}
	out_cstr("</Event>\n");
}

/* ---- Chrome trace-event JSON ---- */

static int chrome_first = 1;
static uint64_t chrome_origin; /* FILETIME of the earliest input start */
static double chrome_last_us;  /* time of the latest event written */

/* Context switches become "Running" slices on the thread tracks: what runs on each CPU of
 * each input since when. */
struct chrome_cpu {
	int trace;
	unsigned cpu;
	uint32_t pid, tid; /* tid 0: idle or not known yet */
	double since_us;
};
#define CHROME_MAX_CPUS 4096
static struct chrome_cpu *chrome_cpus;
static size_t chrome_ncpus;

static struct chrome_cpu *chrome_cpu_of(int trace, unsigned cpu)
{
	size_t i;
	struct chrome_cpu *c;

	for (i = 0; i < chrome_ncpus; i++)
		if (chrome_cpus[i].trace == trace && chrome_cpus[i].cpu == cpu)
			return &chrome_cpus[i];
	if (chrome_ncpus == CHROME_MAX_CPUS)
		return NULL;
	c = realloc(chrome_cpus, (chrome_ncpus + 1) * sizeof(*c));
	if (!c)
		return NULL;
	chrome_cpus = c;
	c = &chrome_cpus[chrome_ncpus++];
	memset(c, 0, sizeof(*c));
	c->trace = trace;
	c->cpu = cpu;
	return c;
}

static void chrome_slice(const struct chrome_cpu *c, double end_us, const char *wait_reason)
{
	if (c->tid == 0 || end_us < c->since_us)
		return;
	out_cstr(chrome_first ? "\n" : ",\n");
	chrome_first = 0;
	out_printf("{\"name\":\"Running\",\"cat\":\"cpu\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,"
		   "\"pid\":%u,\"tid\":%u,\"args\":{\"cpu\":%u",
		   c->since_us, end_us - c->since_us, c->pid, c->tid, c->cpu);
	if (wait_reason) {
		out_cstr(",\"old_thread_wait_reason\":\"");
		out_json_str(wait_reason);
		out_char('"');
	}
	out_cstr("}}");
}

/* A context switch: the slice of the thread switched out ends, the new one's begins. */
static void chrome_cswitch(const struct etl_event *ev, struct etl_reader *r, const struct etl_decoded *d,
			   double us)
{
	const struct etl_property *np = etl_decoded_property_by_name(d, "NewThreadID");
	const struct etl_property *wp = etl_decoded_property_by_name(d, "OldThreadWaitReason");
	struct chrome_cpu *c = chrome_cpu_of(etl_event_trace_index(ev), etl_event_cpu(ev));
	const struct etl_process *p;
	uint64_t ntid;

	if (!c || !np || etl_property_as_u64(np, &ntid) != ETL_OK || ntid >= ETL_ID_NONE)
		return;
	chrome_slice(c, us, wp ? etl_property_format(wp) : NULL);
	p = etl_reader_thread_process(r, etl_event_trace_index(ev), (uint32_t)ntid);
	c->tid = (uint32_t)ntid;
	c->pid = p ? etl_process_id(p) : 0;
	c->since_us = us;
}

static void print_event_chrome(const struct etl_event *ev, struct etl_reader *r, const struct etl_decoded *d)
{
	/* records without a pid or tid in their header (CPU samples) go to the thread and process
	 * they name, so they land on its track */
	const struct etl_process *proc = etl_reader_event_process(r, ev);
	uint32_t pid = etl_event_pid(ev) != ETL_ID_NONE ? etl_event_pid(ev) : proc ? etl_process_id(proc) : 0;
	uint32_t tid = etl_event_tid(ev);
	uint64_t v;

	if (tid == ETL_ID_NONE) {
		const struct etl_property *t = d ? etl_decoded_property_by_name(d, "ThreadID") : NULL;
		tid = t && etl_property_as_u64(t, &v) == ETL_OK && v < ETL_ID_NONE ? (uint32_t)v : 0;
	}
	const char *name = d ? etl_decoded_name(d) : "event", *ph = "i";
	char base[512];
	size_t i, l;
	double us = ((double)etl_event_filetime(ev) - (double)chrome_origin) / 10.0;

	snprintf(base, sizeof(base), "%s", name);
	l = strlen(base);
	/* Start/Stop pairs (opcodes 1 and 2) become durations named without the opcode */
	if (etl_event_opcode(ev) == 1 && l > 6 && strcmp(base + l - 6, "/Start") == 0) {
		base[l - 6] = 0;
		ph = "B";
	} else if (etl_event_opcode(ev) == 2 && l > 5 && strcmp(base + l - 5, "/Stop") == 0) {
		base[l - 5] = 0;
		ph = "E";
	}
	out_cstr(chrome_first ? "\n" : ",\n");
	chrome_first = 0;
	out_cstr("{\"name\":\"");
	out_json_str(base);
	out_cstr("\",\"cat\":\"");
	out_json_str(d && etl_decoded_provider_name(d) ? etl_decoded_provider_name(d) : "unknown");
	out_printf("\",\"ph\":\"%s\",%s\"ts\":%.3f,\"pid\":%u,\"tid\":%u", ph, ph[0] == 'i' ? "\"s\":\"t\"," : "", us,
	       pid, tid);
	out_cstr(",\"args\":{");
	out_printf("\"cpu\":%u", etl_event_cpu(ev));
	for (i = 0; d && etl_decoded_source(d) != ETL_DECODER_NONE && i < etl_decoded_property_count(d); i++) {
		const struct etl_property *p = etl_decoded_property_at(d, i);
		out_cstr(",\"");
		out_json_str(etl_property_name(p));
		out_cstr("\":");
		out_json_value(p, 0);
	}
	out_stack(r, ev, 1);
	out_cstr("}}");
	if (us > chrome_last_us)
		chrome_last_us = us;
	if (d && etl_decoded_source(d) != ETL_DECODER_NONE && strcmp(name, "Windows Kernel/Thread/CSwitch") == 0)
		chrome_cswitch(ev, r, d, us);
}

/* ---- summaries ---- */

struct tally {
	char *key;
	uint64_t events, bytes;
	int source;
};

struct tallies {
	struct tally *t;
	size_t n, cap;
};

static struct tally *tally_get(struct tallies *ts, const char *key)
{
	size_t i;

	for (i = 0; i < ts->n; i++)
		if (strcmp(ts->t[i].key, key) == 0)
			return &ts->t[i];
	if (ts->n == ts->cap) {
		size_t ncap = ts->cap ? ts->cap * 2 : 64;
		struct tally *n = realloc(ts->t, ncap * sizeof(*n));
		if (!n)
			return NULL;
		ts->t = n;
		ts->cap = ncap;
	}
	ts->t[ts->n].key = strdup(key);
	if (!ts->t[ts->n].key)
		return NULL;
	ts->t[ts->n].events = ts->t[ts->n].bytes = 0;
	ts->t[ts->n].source = -1;
	return &ts->t[ts->n++];
}

static int tally_cmp(const void *a, const void *b)
{
	const struct tally *x = a, *y = b;
	if (x->events != y->events)
		return x->events < y->events ? 1 : -1;
	return strcmp(x->key, y->key);
}

static void tallies_free(struct tallies *ts)
{
	size_t i;
	for (i = 0; i < ts->n; i++)
		free(ts->t[i].key);
	free(ts->t);
	memset(ts, 0, sizeof(*ts));
}

struct summary {
	struct tallies providers, names;
	uint64_t events, decoded, undecoded, decode_errors, damage;
	uint64_t first, last;
};

static const char *source_label(int s)
{
	switch (s) {
	case ETL_DECODER_MANIFEST: return "manifest";
	case ETL_DECODER_EVENTSOURCE: return "in-trace (EventSource manifest)";
	case ETL_DECODER_TRACELOGGING: return "TraceLogging";
	case ETL_DECODER_TRACE_METADATA: return "in-trace (merge metadata)";
	case ETL_DECODER_BUILTIN: return "built-in";
	default: return "unknown";
	}
}

static void summary_add(struct summary *sm, const struct etl_event *ev, const struct etl_decoded *d, int st)
{
	char guid[ETL_GUID_STRING_SIZE + 2];
	struct tally *t;
	const char *pname;

	sm->events++;
	if (st != ETL_OK)
		sm->decode_errors++;
	else if (d && etl_decoded_source(d) != ETL_DECODER_NONE)
		sm->decoded++;
	else
		sm->undecoded++;
	if (sm->events == 1 || etl_event_filetime(ev) < sm->first)
		sm->first = etl_event_filetime(ev);
	if (etl_event_filetime(ev) > sm->last)
		sm->last = etl_event_filetime(ev);
	guid[0] = '{';
	etl_guid_format(etl_event_provider(ev), guid + 1);
	strcat(guid, "}");
	pname = d && etl_decoded_provider_name(d) ? etl_decoded_provider_name(d) : guid;
	if ((t = tally_get(&sm->providers, pname)) != NULL) {
		t->events++;
		t->bytes += etl_event_record_size(ev);
		if (d && (t->source < 0 || t->source == ETL_DECODER_NONE))
			t->source = (int)etl_decoded_source(d);
	}
	if (d && (t = tally_get(&sm->names, etl_decoded_name(d))) != NULL) {
		t->events++;
		t->bytes += etl_event_record_size(ev);
	}
}

static void print_summary(struct summary *sm, struct etl_reader *r, const struct options *o)
{
	char a[64], b[64];
	size_t i;
	uint64_t lost = 0;
	int k;

	for (k = 0; k < etl_reader_trace_count(r); k++)
		lost += etl_trace_info_events_lost(etl_reader_trace_info(r, k));
	qsort(sm->providers.t, sm->providers.n, sizeof(struct tally), tally_cmp);
	qsort(sm->names.t, sm->names.n, sizeof(struct tally), tally_cmp);
	format_filetime(sm->first, a, sizeof(a));
	format_filetime(sm->last, b, sizeof(b));
	if (o->format == FMT_JSONL) {
		if (o->providers) {
			for (i = 0; i < sm->providers.n; i++) {
				out_printf("{\"type\":\"provider\",\"name\":\"");
				out_json_str(sm->providers.t[i].key);
				out_printf("\",\"source\":\"%s\",\"events\":%" PRIu64 ",\"bytes\":%" PRIu64 "}\n",
				       source_label(sm->providers.t[i].source), sm->providers.t[i].events,
				       sm->providers.t[i].bytes);
			}
			return;
		}
		out_printf("{\"type\":\"stats\",\"events\":%" PRIu64 ",\"decoded\":%" PRIu64 ",\"undecoded\":%" PRIu64
		       ",\"decode_errors\":%" PRIu64 ",\"damage_reports\":%" PRIu64 ",\"events_lost\":%" PRIu64
		       ",\"buffers_flagged_events_lost\":%" PRIu64 ",\"first\":\"%s\",\"last\":\"%s\",\"providers\":[",
		       sm->events, sm->decoded, sm->undecoded, sm->decode_errors, sm->damage, lost,
		       etl_reader_count(r, ETL_COUNT_BUFFERS_EVENTS_LOST), a, b);
		for (i = 0; i < sm->providers.n; i++) {
			out_printf("%s{\"name\":\"", i ? "," : "");
			out_json_str(sm->providers.t[i].key);
			out_printf("\",\"events\":%" PRIu64 ",\"bytes\":%" PRIu64 "}", sm->providers.t[i].events,
			       sm->providers.t[i].bytes);
		}
		out_printf("],\"event_names\":[");
		for (i = 0; i < sm->names.n; i++) {
			out_printf("%s{\"name\":\"", i ? "," : "");
			out_json_str(sm->names.t[i].key);
			out_printf("\",\"events\":%" PRIu64 ",\"bytes\":%" PRIu64 "}", sm->names.t[i].events,
			       sm->names.t[i].bytes);
		}
		out_printf("]}\n");
		return;
	}
	if (o->providers) {
		out_printf("%10s  %-32s  %s\n", "events", "source", "provider");
		for (i = 0; i < sm->providers.n; i++)
			out_printf("%10" PRIu64 "  %-32s  %s\n", sm->providers.t[i].events,
			       source_label(sm->providers.t[i].source), sm->providers.t[i].key);
		return;
	}
	out_printf("events:          %" PRIu64 " (decoded %" PRIu64 ", undecoded %" PRIu64 ", decoding errors %" PRIu64 ")\n",
	       sm->events, sm->decoded, sm->undecoded, sm->decode_errors);
	out_printf("damage reports:  %" PRIu64 "\n", sm->damage);
	out_printf("events lost:     %" PRIu64 " (logger's count), %" PRIu64 " buffers flagged\n", lost,
	       etl_reader_count(r, ETL_COUNT_BUFFERS_EVENTS_LOST));
	out_printf("time span:       %s .. %s\n\n", a, b);
	out_printf("%10s %12s  %s\n", "events", "bytes", "provider");
	for (i = 0; i < sm->providers.n; i++)
		out_printf("%10" PRIu64 " %12" PRIu64 "  %s\n", sm->providers.t[i].events, sm->providers.t[i].bytes,
		       sm->providers.t[i].key);
	out_printf("\n%10s %12s  %s\n", "events", "bytes", "event name");
	for (i = 0; i < sm->names.n; i++)
		out_printf("%10" PRIu64 " %12" PRIu64 "  %s\n", sm->names.t[i].events, sm->names.t[i].bytes,
		       sm->names.t[i].key);
}

/* ---- main ---- */

static void report(const struct etl_reader *r, const char *fallback_name, const struct options *o)
{
	const struct etl_error *e = etl_reader_error(r);
	int ti;
	const char *name = fallback_name;

	if (!e || o->quiet)
		return;
	ti = etl_error_trace_index(e);
	if (ti >= 0 && etl_reader_trace_info(r, ti))
		name = etl_trace_info_name(etl_reader_trace_info(r, ti));
	flockfile(stderr); /* one line, whole, whichever worker thread reports */
	fprintf(stderr, "%s: %s: ", progname, name ? name : "?");
	if (etl_error_offset(e) != UINT64_MAX)
		fprintf(stderr, "offset 0x%" PRIx64 ": ", etl_error_offset(e));
	if (etl_error_buffer_index(e) >= 0)
		fprintf(stderr, "buffer %" PRId64 ": ", etl_error_buffer_index(e));
	fprintf(stderr, "%s\n", etl_error_message(e));
	funlockfile(stderr);
}

static int status_exit(int st)
{
	switch (st) {
	case ETL_E_IO: return EXIT_IO;
	case ETL_E_NOMEM: return EXIT_NOMEM;
	default: return EXIT_DAMAGED;
	}
}

static int worse(int a, int b)
{
	/* Order of severity: ok < damaged < io < nomem. */
	static const int rank[] = { [EXIT_OK] = 0, [EXIT_DAMAGED] = 1, [EXIT_USAGE] = 2,
				    [EXIT_IO] = 3, [EXIT_NOMEM] = 4 };
	return rank[a] >= rank[b] ? a : b;
}

/* Progress on a terminal: a line on stderr, at most five times a second. */
static void progress(const struct etl_reader *r, const struct etl_event *ev, uint64_t n, int done)
{
	static struct timespec last;
	struct timespec now;
	const struct etl_trace_info *t;
	double pct;

	if (done) {
		if (last.tv_sec || last.tv_nsec)
			fputs("\r\033[K", stderr);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	if ((now.tv_sec - last.tv_sec) * 1000000000L + (now.tv_nsec - last.tv_nsec) < 200000000L)
		return;
	last = now;
	t = etl_reader_trace_info(r, etl_event_trace_index(ev));
	pct = t && etl_trace_info_file_size(t) ? 100.0 * (double)etl_event_file_offset(ev) /
							 (double)etl_trace_info_file_size(t) : 0;
	fprintf(stderr, "\r\033[K%s: %3.0f%%  %" PRIu64 " events", t ? etl_trace_info_name(t) : "", pct, n);
}

/* Reads the given inputs, merged, and writes what the options ask for to stdout. */
/* Whether --threads applies: event output in a stateless format (not chrome, whose
 * pairs and names span events; not the summaries), no --count, no standard input
 * (the workers read each input on their own). */
static int threads_usable(const struct options *o, char **files, int nfiles)
{
	int i;

	if (o->threads < 2 || o->info || o->stats || o->providers || o->processes ||
	    o->format == FMT_CHROME || o->max_events)
		return 0;
	for (i = 0; i < nfiles; i++)
		if (strcmp(files[i], "-") == 0)
			return 0;
	if (o->threads_auto) {
		/* each worker opens the inputs again: not worth it below a few tens of MB */
		uint64_t total = 0;
		struct stat sb;
		for (i = 0; i < nfiles; i++)
			if (stat(files[i], &sb) == 0)
				total += (uint64_t)sb.st_size;
		if (total < ((uint64_t)32 << 20))
			return 0;
	}
	return 1;
}

/* Adds the manifests and opens the inputs; reports problems unless quiet (the
 * worker threads open the same inputs again, silently). Returns the inputs opened. */
static int setup_reader(struct etl_reader *r, char **files, int nfiles, const struct options *o,
			const char **manifests, size_t nmanifests, int quiet, int *exit_code)
{
	int opened = 0, i;
	size_t k;
	char *env_copy = NULL;

	/* manifests: the environment's search path first, then --manifest (later ones win) */
	if (getenv("ETLDUMP_MANIFEST_PATH") && *getenv("ETLDUMP_MANIFEST_PATH")) {
		char *p, *save = NULL;
		env_copy = strdup(getenv("ETLDUMP_MANIFEST_PATH"));
		for (p = env_copy ? strtok_r(env_copy, ":", &save) : NULL; p; p = strtok_r(NULL, ":", &save)) {
			if (etl_reader_add_manifest_path(r, p) != ETL_OK && !quiet) {
				report(r, p, o);
				*exit_code = worse(*exit_code, EXIT_DAMAGED);
			}
		}
	}
	free(env_copy);
	for (k = 0; k < nmanifests; k++) {
		unsigned before = etl_reader_manifest_warnings(r);
		if (etl_reader_add_manifest_path(r, manifests[k]) != ETL_OK) {
			if (!quiet) {
				report(r, manifests[k], o);
				*exit_code = worse(*exit_code, EXIT_DAMAGED);
			}
		} else if (etl_reader_manifest_warnings(r) != before && !o->quiet && !quiet) {
			fprintf(stderr, "%s: %s: %u problems, the first: %s\n", progname, manifests[k],
				etl_reader_manifest_warnings(r) - before, etl_error_message(etl_reader_error(r)));
		}
	}
	for (i = 0; i < nfiles; i++) {
		int st;
		if (strcmp(files[i], "-") == 0)
			st = etl_reader_open_fd(r, 0, "(stdin)");
		else
			st = etl_reader_open_path(r, files[i]);
		if (st != ETL_OK) {
			struct options loud = *o;
			if (quiet)
				continue;
			loud.quiet = 0;
			report(r, files[i], &loud);
			*exit_code = worse(*exit_code, st == ETL_E_NOMEM ? EXIT_NOMEM : st == ETL_E_IO ? EXIT_IO : EXIT_DAMAGED);
			continue;
		}
		opened++;
	}
	return opened;
}

/* Filters, decodes and writes one event (or adds it to the summary); 1 if it was selected. */
static int handle_event(struct etl_reader *r, const struct etl_event *ev, const struct options *o,
			struct summary *sm)
{
	const struct etl_decoded *d = NULL;
	int dst = ETL_OK;

	if (!filter_header(&o->filter, r, ev))
		return 0;
	/* decode for the output, the summaries and name filters; --processes alone needs
	 * only the reader's own tables */
	if (filter_needs_name(&o->filter) || o->stats || o->providers || (!o->raw && !o->processes)) {
		dst = etl_reader_decode(r, ev, &d);
		if (dst != ETL_OK)
			report_decode(r, o);
	}
	if (!filter_provider(&o->filter, ev, d ? etl_decoded_provider_name(d) : NULL))
		return 0;
	if (o->stats || o->providers)
		summary_add(sm, ev, d, dst);
	else if (o->processes)
		; /* listed after the last event */
	else if (o->format == FMT_JSONL)
		print_event_json(ev, r, o, d);
	else if (o->format == FMT_CSV)
		print_event_csv(ev, r, o->raw ? NULL : d);
	else if (o->format == FMT_XML)
		print_event_xml(ev, o->raw ? NULL : d);
	else if (o->format == FMT_CHROME)
		print_event_chrome(ev, r, o->raw ? NULL : d);
	else
		print_event_text(ev, r, o, d);
	return 1;
}

/* ---- several threads (--threads) ----
 *
 * Every worker opens the inputs with a reader of its own and iterates all of
 * them (iteration is cheap next to decoding and formatting, and each reader
 * then keeps the full process tables and in-trace metadata), but it decodes
 * and formats only its own batches: batch b (BATCH_ITEMS consecutive results
 * of etl_reader_next, events and errors alike) belongs to worker b % N. The
 * main thread writes the batches in order, so the output is the same bytes as
 * with one thread. Each worker holds at most SLOTS formatted batches. */

#define BATCH_ITEMS 1024
#define SLOTS 4

struct slot {
	struct out_sink text;
	int ready;
};

struct pool;

struct worker {
	pthread_t thread;
	unsigned index;
	struct pool *pool;
	int exit_code, decode_errors;
	struct slot slots[SLOTS];
};

struct pool {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned n;
	struct worker *w;
	char **files;
	int nfiles;
	const struct options *o;
	const char **manifests;
	size_t nmanifests;
	uint64_t total_items; /* results of etl_reader_next, known when a worker finished */
	int finished, stop;   /* stop: output failed or a worker could not go on */
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct pool *pl = w->pool;
	const struct options *o = pl->o;
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	uint64_t i = 0, cur = UINT64_MAX;
	struct slot *slot = NULL;
	int ignored = EXIT_OK, stop = 0;

	decode_errors = 0;
	if (!r || etl_reader_set_order(r, o->order) != ETL_OK ||
	    setup_reader(r, pl->files, pl->nfiles, o, pl->manifests, pl->nmanifests, 1, &ignored) == 0) {
		w->exit_code = EXIT_NOMEM;
		pthread_mutex_lock(&pl->mu);
		pl->stop = 1;
		pthread_cond_broadcast(&pl->cv);
		pthread_mutex_unlock(&pl->mu);
		etl_reader_free(r);
		return NULL;
	}
	for (;;) {
		int st = etl_reader_next(r, &ev);
		uint64_t b;

		if (st == ETL_END)
			break;
		b = i++ / BATCH_ITEMS;
		if (b % pl->n != w->index) {
			if (st != ETL_OK && (!etl_reader_error(r) || etl_error_is_fatal(etl_reader_error(r))))
				break;
			continue;
		}
		if (b != cur) {
			/* hand over the batch before, then wait for the slot of this one */
			if (slot) {
				out_flush();
				pthread_mutex_lock(&pl->mu);
				slot->ready = 1;
				pthread_cond_broadcast(&pl->cv);
				pthread_mutex_unlock(&pl->mu);
			}
			slot = &w->slots[(b / pl->n) % SLOTS];
			pthread_mutex_lock(&pl->mu);
			while (slot->ready && !pl->stop)
				pthread_cond_wait(&pl->cv, &pl->mu);
			stop = pl->stop;
			pthread_mutex_unlock(&pl->mu);
			if (stop)
				break;
			slot->text.len = 0;
			out_buf.sink = &slot->text;
			cur = b;
		}
		if (st != ETL_OK) {
			const struct etl_error *e = etl_reader_error(r);
			report(r, NULL, o);
			w->exit_code = worse(w->exit_code, status_exit(st));
			if (!e || etl_error_is_fatal(e))
				break;
			continue;
		}
		handle_event(r, ev, o, NULL);
		if (out_buf.failed) {
			w->exit_code = worse(w->exit_code, EXIT_NOMEM);
			stop = 1;
			break;
		}
	}
	if (slot && !stop) {
		out_flush();
		if (out_buf.failed)
			w->exit_code = worse(w->exit_code, EXIT_NOMEM);
	}
	out_buf.sink = NULL;
	w->decode_errors = decode_errors;
	pthread_mutex_lock(&pl->mu);
	if (slot && !stop && !out_buf.failed)
		slot->ready = 1;
	if (out_buf.failed)
		pl->stop = 1;
	if (!pl->finished || i > pl->total_items)
		pl->total_items = i;
	pl->finished = 1;
	pthread_cond_broadcast(&pl->cv);
	pthread_mutex_unlock(&pl->mu);
	etl_reader_free(r);
	return NULL;
}

/* Runs the workers and writes their batches in order; returns the exit status. */
static int run_threaded(char **files, int nfiles, const struct options *o, const char **manifests,
			size_t nmanifests, unsigned n)
{
	struct pool pl;
	uint64_t b;
	unsigned k, started = 0;
	int exit_code = EXIT_OK;

	memset(&pl, 0, sizeof(pl));
	pthread_mutex_init(&pl.mu, NULL);
	pthread_cond_init(&pl.cv, NULL);
	pl.n = n;
	pl.files = files;
	pl.nfiles = nfiles;
	pl.o = o;
	pl.manifests = manifests;
	pl.nmanifests = nmanifests;
	pl.w = calloc(n, sizeof(*pl.w));
	if (!pl.w) {
		fprintf(stderr, "%s: out of memory\n", progname);
		return EXIT_NOMEM;
	}
	out_flush(); /* what the main thread wrote before the events */
	for (k = 0; k < n; k++) {
		pl.w[k].index = k;
		pl.w[k].pool = &pl;
		if (pthread_create(&pl.w[k].thread, NULL, worker_main, &pl.w[k]) != 0)
			break;
		started++;
	}
	if (started < n) {
		/* the batches of the missing workers would never come: stop the others */
		pthread_mutex_lock(&pl.mu);
		pl.stop = 1;
		pthread_cond_broadcast(&pl.cv);
		pthread_mutex_unlock(&pl.mu);
		fprintf(stderr, "%s: cannot start %u threads\n", progname, n);
		exit_code = EXIT_NOMEM;
	}
	for (b = 0; started == n; b++) {
		struct slot *slot = &pl.w[b % n].slots[(b / n) % SLOTS];
		int have;

		pthread_mutex_lock(&pl.mu);
		while (!slot->ready && !pl.stop &&
		       !(pl.finished && b >= (pl.total_items + BATCH_ITEMS - 1) / BATCH_ITEMS))
			pthread_cond_wait(&pl.cv, &pl.mu);
		have = slot->ready && !pl.stop;
		pthread_mutex_unlock(&pl.mu);
		if (!have)
			break;
		if (slot->text.len && fwrite(slot->text.data, 1, slot->text.len, stdout) != slot->text.len)
			out_buf.failed = 1;
		pthread_mutex_lock(&pl.mu);
		slot->ready = 0;
		if (out_buf.failed)
			pl.stop = 1;
		pthread_cond_broadcast(&pl.cv);
		pthread_mutex_unlock(&pl.mu);
	}
	for (k = 0; k < started; k++) {
		pthread_join(pl.w[k].thread, NULL);
		exit_code = worse(exit_code, pl.w[k].exit_code);
		decode_errors += pl.w[k].decode_errors;
	}
	for (k = 0; k < n; k++) {
		unsigned j;
		for (j = 0; j < SLOTS; j++)
			free(pl.w[k].slots[j].text.data);
	}
	free(pl.w);
	pthread_cond_destroy(&pl.cv);
	pthread_mutex_destroy(&pl.mu);
	return exit_code;
}

/* Reads the given inputs, merged, and writes what the options ask for to stdout. */
static int run_inputs(char **files, int nfiles, const struct options *o, const char **manifests,
		      size_t nmanifests)
{
	struct etl_reader *r = etl_reader_new();
	const struct etl_event *ev;
	int exit_code = EXIT_OK, opened, i;
	int show_progress = !o->quiet && isatty(2);
	struct summary sm;
	int summarise = o->stats || o->providers || o->processes;

	memset(&sm, 0, sizeof(sm));
	decode_errors = 0;
	if (!r) {
		fprintf(stderr, "%s: out of memory\n", progname);
		return EXIT_NOMEM;
	}
	if (etl_reader_set_order(r, o->order) != ETL_OK) {
		etl_reader_free(r);
		return EXIT_USAGE;
	}
	opened = setup_reader(r, files, nfiles, o, manifests, nmanifests, 0, &exit_code);
	if (opened == 0) {
		etl_reader_free(r);
		return exit_code;
	}
	if (o->info) {
		for (i = 0; i < etl_reader_trace_count(r); i++) {
			const struct etl_trace_info *t = etl_reader_trace_info(r, i);
			if (o->format == FMT_JSONL)
				print_info_json(t);
			else {
				if (i)
					out_char('\n');
				print_info_text(t);
			}
		}
		etl_reader_free(r);
		return exit_code;
	}
	if (!summarise) {
		if (o->format == FMT_CSV)
			print_csv_header();
		else if (o->format == FMT_XML)
			out_cstr("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Events>\n");
		else if (o->format == FMT_CHROME) {
			chrome_origin = UINT64_MAX;
			for (i = 0; i < etl_reader_trace_count(r); i++) {
				uint64_t st = etl_trace_info_start_time(etl_reader_trace_info(r, i));
				if (st < chrome_origin)
					chrome_origin = st;
			}
			chrome_first = 1;
			chrome_last_us = 0;
			out_cstr("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
		}
	}
	if (threads_usable(o, files, nfiles) && opened == nfiles) {
		/* the workers open the inputs again: this reader was for the reports */
		etl_reader_free(r);
		exit_code = worse(exit_code, run_threaded(files, nfiles, o, manifests, nmanifests, o->threads));
		if (o->format == FMT_XML)
			out_cstr("</Events>\n");
		if (decode_errors)
			exit_code = worse(exit_code, EXIT_DAMAGED);
		return exit_code;
	}
	{
		uint64_t n = 0;
		for (;;) {
			int st = etl_reader_next(r, &ev);
			if (st == ETL_END)
				break;
			if (st != ETL_OK) {
				const struct etl_error *e = etl_reader_error(r);
				report(r, NULL, o);
				sm.damage++;
				exit_code = worse(exit_code, status_exit(st));
				if (!e || etl_error_is_fatal(e))
					break;
				continue;
			}
			if (!handle_event(r, ev, o, &sm))
				continue;
			if (out_buf.failed)
				break;
			++n;
			if (show_progress && (n & 1023) == 0)
				progress(r, ev, n, 0);
			if (o->max_events && n >= o->max_events)
				break;
		}
		if (show_progress)
			progress(r, NULL, n, 1);
	}
	if (o->stats || o->providers)
		print_summary(&sm, r, o);
	if (o->processes)
		print_processes(r, o);
	if (summarise)
		; /* no event output to close */
	else if (o->format == FMT_XML)
		out_cstr("</Events>\n");
	else if (o->format == FMT_CHROME) {
		/* name the processes the kernel events described (the latest record of each pid) */
		size_t np = etl_reader_process_count(r), j;
		for (j = 0; j < np; j++) {
			const struct etl_process *p = etl_reader_process_at(r, j);
			if (!*etl_process_image_name(p) ||
			    etl_reader_find_process(r, etl_process_trace_index(p), etl_process_id(p)) != p)
				continue;
			out_cstr(chrome_first ? "\n" : ",\n");
			chrome_first = 0;
			out_printf("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":0,\"args\":{\"name\":\"",
			       etl_process_id(p));
			out_json_str(etl_process_image_name(p));
			out_cstr("\"}}");
		}
		/* and the threads that were named (the latest name of each) */
		for (j = 0; j < np; j++) {
			const struct etl_process *p = etl_reader_process_at(r, j);
			size_t t, nt = etl_process_thread_name_count(p);
			for (t = 0; t < nt; t++) {
				uint32_t tid;
				const char *tn = etl_process_thread_name_at(p, t, &tid);
				out_cstr(chrome_first ? "\n" : ",\n");
				chrome_first = 0;
				out_printf("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":\"",
					   etl_process_id(p), tid);
				out_json_str(tn);
				out_cstr("\"}}");
			}
		}
		/* the slices still running when the trace ends */
		for (j = 0; j < chrome_ncpus; j++)
			chrome_slice(&chrome_cpus[j], chrome_last_us, NULL);
		free(chrome_cpus);
		chrome_cpus = NULL;
		chrome_ncpus = 0;
		out_cstr("\n]}\n");
	}
	tallies_free(&sm.providers);
	tallies_free(&sm.names);
	etl_reader_free(r);
	if (decode_errors)
		exit_code = worse(exit_code, EXIT_DAMAGED);
	return exit_code;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "info", no_argument, NULL, 'i' },
		{ "order", required_argument, NULL, 'O' + 256 },
		{ "count", required_argument, NULL, 'n' },
		{ "manifest", required_argument, NULL, 'm' },
		{ "payload-bytes", required_argument, NULL, 'p' + 256 },
		{ "quiet", no_argument, NULL, 'q' },
		{ "raw", no_argument, NULL, 'r' + 256 },
		{ "no-maps", no_argument, NULL, 'M' + 256 },
		{ "stats", no_argument, NULL, 's' + 256 },
		{ "providers", no_argument, NULL, 'P' + 256 },
		{ "processes", no_argument, NULL, 'X' + 256 },
		{ "output", required_argument, NULL, 'o' },
		{ "output-dir", required_argument, NULL, 'O' },
		{ "provider", required_argument, NULL, 'p' },
		{ "process", required_argument, NULL, 'N' + 256 },
		{ "id", required_argument, NULL, 'I' + 256 },
		{ "opcode", required_argument, NULL, 'c' + 256 },
		{ "level", required_argument, NULL, 'l' + 256 },
		{ "keywords-any", required_argument, NULL, 'k' + 256 },
		{ "keywords-all", required_argument, NULL, 'K' + 256 },
		{ "pid", required_argument, NULL, 'd' + 256 },
		{ "tid", required_argument, NULL, 't' + 256 },
		{ "cpu", required_argument, NULL, 'u' + 256 },
		{ "since", required_argument, NULL, 'S' + 256 },
		{ "until", required_argument, NULL, 'U' + 256 },
		{ "threads", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct options o;
	int c, i, exit_code = EXIT_OK, damaged_inputs = 0;
	static const char *manifests[256];
	size_t nmanifests = 0;

	memset(&o, 0, sizeof(o));
	o.format = FMT_TEXT;
	o.order = ETL_ORDER_TIME;
	o.max_payload = 64;
	o.threads = 1;
	filter_init(&o.filter);
	signal(SIGPIPE, SIG_IGN);
	while ((c = getopt_long(argc, argv, "f:ij:m:n:o:O:p:qhV", longopts, NULL)) != -1) {
		char *end, err[160];
		uint64_t v;
		switch (c) {
		case 'f':
			if (strcmp(optarg, "text") == 0)
				o.format = FMT_TEXT;
			else if (strcmp(optarg, "jsonl") == 0 || strcmp(optarg, "json") == 0)
				o.format = FMT_JSONL;
			else if (strcmp(optarg, "csv") == 0)
				o.format = FMT_CSV;
			else if (strcmp(optarg, "xml") == 0)
				o.format = FMT_XML;
			else if (strcmp(optarg, "chrome") == 0)
				o.format = FMT_CHROME;
			else {
				fprintf(stderr, "%s: unknown format '%s' (text, jsonl, csv, xml, chrome)\n", progname, optarg);
				return EXIT_USAGE;
			}
			break;
		case 'i':
			o.info = 1;
			break;
		case 'm':
			if (nmanifests < sizeof(manifests) / sizeof(manifests[0]))
				manifests[nmanifests++] = optarg;
			break;
		case 'O' + 256:
			if (strcmp(optarg, "time") == 0)
				o.order = ETL_ORDER_TIME;
			else if (strcmp(optarg, "file") == 0)
				o.order = ETL_ORDER_FILE;
			else {
				fprintf(stderr, "%s: unknown order '%s' (time, file)\n", progname, optarg);
				return EXIT_USAGE;
			}
			break;
		case 'j':
			errno = 0;
			v = strtoull(optarg, &end, 10);
			if (errno || *end || !*optarg || optarg[0] == '-' || v > 64) {
				fprintf(stderr, "%s: --threads wants a number from 0 to 64, not '%s'\n", progname, optarg);
				return EXIT_USAGE;
			}
			o.threads_auto = v == 0;
			if (v == 0) {
				long cpus = sysconf(_SC_NPROCESSORS_ONLN);
				v = cpus < 1 ? 1 : cpus > 64 ? 64 : (uint64_t)cpus;
			}
			o.threads = (unsigned)v;
			break;
		case 'n':
			errno = 0;
			o.max_events = strtoull(optarg, &end, 10);
			if (errno || *end || optarg[0] == '-' || o.max_events == 0) {
				fprintf(stderr, "%s: --count wants a positive number, not '%s'\n", progname, optarg);
				return EXIT_USAGE;
			}
			break;
		case 'p' + 256: {
			long long pb = strtoll(optarg, &end, 10);
			if (*end || pb < -1) {
				fprintf(stderr, "%s: --payload-bytes wants a number >= -1\n", progname);
				return EXIT_USAGE;
			}
			o.max_payload = pb < 0 ? SIZE_MAX : (size_t)pb;
			break;
		}
		case 'q':
			o.quiet = 1;
			break;
		case 'r' + 256:
			o.raw = 1;
			break;
		case 'M' + 256:
			o.no_maps = 1;
			break;
		case 's' + 256:
			o.stats = 1;
			break;
		case 'P' + 256:
			o.providers = 1;
			break;
		case 'X' + 256:
			o.processes = 1;
			break;
		case 'o':
			o.output = optarg;
			break;
		case 'O':
			o.outdir = optarg;
			break;
		case 'p':
			if (filter_add_provider(&o.filter, optarg, err, sizeof(err)) != 0)
				goto bad_filter;
			break;
		case 'N' + 256:
			if (filter_add_process(&o.filter, optarg, err, sizeof(err)) != 0)
				goto bad_filter;
			break;
		case 'I' + 256:
			if (filter_add_ranges(o.filter.ids, &o.filter.nids, optarg, err, sizeof(err)) != 0)
				goto bad_filter;
			break;
		case 'c' + 256:
			if (filter_add_ranges(o.filter.opcodes, &o.filter.nopcodes, optarg, err, sizeof(err)) != 0)
				goto bad_filter;
			break;
		case 'd' + 256:
			if (filter_add_ranges(o.filter.pids, &o.filter.npids, optarg, err, sizeof(err)) != 0)
				goto bad_filter;
			break;
		case 't' + 256:
			if (filter_add_ranges(o.filter.tids, &o.filter.ntids, optarg, err, sizeof(err)) != 0)
				goto bad_filter;
			break;
		case 'u' + 256:
			if (filter_add_ranges(o.filter.cpus, &o.filter.ncpus, optarg, err, sizeof(err)) != 0)
				goto bad_filter;
			break;
		case 'l' + 256:
			if (filter_parse_u64(optarg, &v) != 0 || v > 255) {
				snprintf(err, sizeof(err), "--level wants a number 0-255, not '%s'", optarg);
				goto bad_filter;
			}
			o.filter.max_level = (int)v;
			break;
		case 'k' + 256:
		case 'K' + 256:
			if (filter_parse_u64(optarg, &v) != 0) {
				snprintf(err, sizeof(err), "a keyword mask wants a number like 0x10, not '%s'", optarg);
				goto bad_filter;
			}
			if (c == 'k' + 256) {
				o.filter.keywords_any = v;
				o.filter.have_any = 1;
			} else {
				o.filter.keywords_all = v;
				o.filter.have_all = 1;
			}
			break;
		case 'S' + 256:
		case 'U' + 256:
			if (filter_set_time(&o.filter, c == 'U' + 256, optarg, err, sizeof(err)) != 0)
				goto bad_filter;
			break;
		bad_filter:
			fprintf(stderr, "%s: %s\n", progname, err);
			return EXIT_USAGE;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 'V':
			printf("etldump %s\n%s\n", etl_version_string(), etl_version_details());
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "%s: no input file (try --help)\n", progname);
		return EXIT_USAGE;
	}
	setvbuf(stdout, NULL, _IONBF, 0); /* out.c buffers */
	no_maps = o.no_maps;

	if (o.outdir) {
		/* one output per input, named after it, in DIR (made if missing) */
		if (mkdir(o.outdir, 0777) != 0 && errno != EEXIST) {
			fprintf(stderr, "%s: %s: cannot create the output directory: %s\n", progname, o.outdir,
				strerror(errno));
			return EXIT_IO;
		}
		for (i = optind; i < argc; i++) {
			char path[4096];
			const char *base = strrchr(argv[i], '/'), *ext;
			int code;
			base = base ? base + 1 : argv[i];
			if (strcmp(argv[i], "-") == 0)
				base = "stdin";
			ext = o.info || o.stats || o.providers || o.processes ? (o.format == FMT_JSONL ? "json" : "txt")
			      : o.format == FMT_JSONL ? "jsonl" : o.format == FMT_CSV ? "csv"
			      : o.format == FMT_XML ? "xml" : o.format == FMT_CHROME ? "json" : "txt";
			snprintf(path, sizeof(path), "%s/%s.%s", o.outdir, base, ext);
			if (!freopen(path, "w", stdout)) {
				fprintf(stderr, "%s: %s: cannot create: %s\n", progname, path, strerror(errno));
				exit_code = worse(exit_code, EXIT_IO);
				damaged_inputs++;
				continue;
			}
			setvbuf(stdout, NULL, _IONBF, 0); /* out.c buffers */
			out_buf.failed = 0;
			code = run_inputs(argv + i, 1, &o, manifests, nmanifests);
			out_flush();
			if ((code == EXIT_IO || code == EXIT_NOMEM) && fflush(stdout) == 0 && ftell(stdout) == 0)
				remove(path); /* the input could not be read: leave no empty output */
			if (code != EXIT_OK) {
				if (!o.quiet)
					fprintf(stderr, "%s: %s: %s\n", progname, argv[i],
						code == EXIT_DAMAGED ? "damaged (see above); output written"
								     : "failed (see above)");
				damaged_inputs++;
			}
			exit_code = worse(exit_code, code);
			if (fflush(stdout) == EOF && errno != EPIPE)
				exit_code = worse(exit_code, EXIT_IO);
		}
		if (!o.quiet && argc - optind > 1)
			fprintf(stderr, "%s: %d inputs, %d with problems\n", progname, argc - optind, damaged_inputs);
		return exit_code;
	}
	if (o.output && !freopen(o.output, "w", stdout)) {
		fprintf(stderr, "%s: %s: cannot create: %s\n", progname, o.output, strerror(errno));
		return EXIT_IO;
	}
	if (o.output)
		setvbuf(stdout, NULL, _IONBF, 0); /* out.c buffers */
	exit_code = run_inputs(argv + optind, argc - optind, &o, manifests, nmanifests);
	out_flush();
	if (fflush(stdout) == EOF || ferror(stdout) || out_buf.failed) {
		if (errno == EPIPE)
			return exit_code; /* the reader went away: not an error of ours */
		fprintf(stderr, "%s: cannot write output: %s\n", progname, strerror(errno));
		return worse(exit_code, EXIT_IO);
	}
	return exit_code;
}

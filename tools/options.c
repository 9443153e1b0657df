/*
 * options.c - etldump's command line: --help, and the options into struct
 * options.
 *
 * SPDX-License-Identifier: MIT
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etldump.h"
#include "tabout.h"
#include "writers/writer.h"

/* long options without a short form */
enum {
	OPT_ORDER = 256, OPT_TMF, OPT_PAYLOAD, OPT_PAYLOAD_BYTES, OPT_RAW, OPT_NO_MAPS, OPT_DERIVE, OPT_WHERE, OPT_TIME, OPT_CSV_FIELDS, OPT_STATS, OPT_PROVIDERS, OPT_PROCESSES,
	OPT_PROCESS, OPT_ID, OPT_OPCODE, OPT_LEVEL, OPT_KEYWORDS_ANY, OPT_KEYWORDS_ALL, OPT_PID, OPT_TID, OPT_CPU,
	OPT_SINCE, OPT_UNTIL, OPT_FORCE, OPT_SYMBOLS, OPT_NO_SYMBOLS, OPT_LINES, OPT_SIGNATURES,
	OPT_TABLE, OPT_TABLES, OPT_TABLE_STACKS, OPT_REPORT, OPT_NO_BUILTIN
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [OPTIONS] FILE...\n"
		"Print the events of Windows ETW trace files (.etl), merged in time order.\n"
		"\n"
		"Options:\n"
		"  -f, --format=FORMAT   output format, one of:\n", progname);
	writer_help(f, 26);
	fprintf(f,
		"  -i, --info            print the trace information instead of events\n"
		"      --stats           print events and bytes per provider and event name, decoding\n"
		"                        counts, time span and losses instead of events\n"
		"      --providers       print each provider with its name source and event count; with\n"
		"                        no FILE, the providers etldump can decode: built in and given\n"
		"      --processes       print the processes that the kernel events describe\n"
		"      --table=NAME      print an analysis table instead of events: processes, threads,\n"
		"                        images, cpu-samples, cpu-usage, disk-io, file-io, network, gc,\n"
		"                        exceptions, jit, hard-faults (-f text, csv or jsonl; docs/TABLES.md)\n"
		"      --tables          list the tables and their columns, and exit\n"
		"      --table-stacks    with --table=cpu-samples: a stack column\n"
		"      --report[=html]   print a one-page summary: CPU, disk, files, network, GC, losses;\n"
		"                        html: one self-contained page with charts and a flame graph\n"
		"  -o, --output=FILE     write to FILE instead of standard output\n"
		"  -O, --output-dir=DIR  one output per input in DIR: DIR/NAME.EXT, NAME the input's file\n"
		"                        name (NAME-2.EXT, ... when inputs share one); never over a file\n"
		"                        there (unless --force), through a link, or over an input\n"
		"      --force           with -O, overwrite outputs already there\n"
		"\n"
		"Filters (docs/FILTERS.md; values of one option or'ed, options and'ed, globs and names\n"
		"without regard to case; --table and --report take the time window and the processes):\n"
		"  -p, --provider=P      provider GUID, name or glob (repeatable)\n"
		"  -e, --event=NAME      event name or glob, e.g. 'Windows Kernel/Process/*' (repeatable)\n"
		"      --filter=EXPR     a filter expression: '@pid = 4 and FileName = *.dll', fields or\n"
		"                        @provider, @name, @process, @id, @pid, @time... compared with =, !=,\n"
		"                        <, >, <=, >=, &, &=, joined by and, or, not, ( ) (--where: the same)\n"
		"      --id=LIST         event ids, e.g. 1,5-9\n"
		"      --opcode=LIST     opcodes\n"
		"      --level=N         level at most N (1 critical ... 5 verbose)\n"
		"      --keywords-any=M  keyword mask: any bit set\n"
		"      --keywords-all=M  keyword mask: all bits set\n"
		"      --pid=LIST        process ids: the header's, else the one the payload names (a\n"
		"                        sample's or an I/O's thread's; docs/TABLES.md)\n"
		"      --process=NAME    process image name or glob, e.g. 'chrome*' (repeatable; from\n"
		"                        the trace's kernel process events)\n"
		"      --tid=LIST        thread ids\n"
		"      --cpu=LIST        processors\n"
		"      --since=T         from T: UTC like 2024-01-02T03:04:05Z, or after the start: 1.5s, 250ms\n"
		"      --until=T         before T (same forms; T itself excluded)\n"
		"\n");
	fprintf(f,
		"Other options:\n"
		"      --order=ORDER     time (default: all CPUs and files merged by time) or file\n"
		"  -m, --manifest=PATH   load provider manifests from a file or directory (repeatable);\n"
		"                        ETLDUMP_MANIFEST_PATH may list more, separated by ':'; they win\n"
		"                        over the built-in descriptions (--providers lists both)\n"
		"      --no-builtin-manifests  decode only with what is given and what the trace holds\n"
		"      --tmf=PATH        decode WPP messages with a TMF file or a folder of GUID.tmf files\n"
		"                        (repeatable); ETLDUMP_TMF_PATH may list more, separated by ':'\n"
		"  -n, --count=N         stop after N events\n"
		"  -j, --threads=N       decode and format with up to N threads (0 = one per processor when\n"
		"                        the inputs hold 4 MB or more); the output is the same (default: 1)\n"
		"      --raw             do not decode payloads: show header fields and payload hex\n"
		"      --no-maps         print values that a value or bit map names as numbers\n"
		"      --csv-fields=HOW  CSV properties: joined (default: one 'fields' column) or columns\n"
		"                        (one column per property of the first event; use with -e)\n"
		"      --time=MODE       times in text and CSV: utc (default), local (this machine's zone),\n"
		"                        relative (ms since the trace start) or raw (the record's time stamp)\n"
		"      --symbols=PATH    look for PDB files in PATH: a folder (flat or a symbol store) or a\n"
		"                        symbol path like _NT_SYMBOL_PATH (local stores only; nothing is\n"
		"                        downloaded); repeatable; ETLDUMP_SYMBOLS and _NT_SYMBOL_PATH add more\n"
		"      --no-symbols      stack frames as module!+offset only (no .NET methods, no PDBs)\n"
		"      --lines           add source lines to frames: module!Function+0x1a (file.c:123)\n"
		"      --signatures      add .NET methods' argument lists to frames\n"
		"      --derive          add derived fields to kernel events (elapsed times, file names\n"
		"                        through file keys, build times, drive-letter paths), marked derived\n"
		"      --payload         show every event's payload in hex (default: only where it is not\n"
		"                        decoded whole: undecoded, partly decoded, bytes left over)\n"
		"      --payload-bytes=N show at most N payload bytes in text output (default 64; 0 = none, -1 = all)\n"
		"  -q, --quiet           do not print damage diagnostics (the exit status still tells)\n"
		"  -h, --help            show this help and exit\n"
		"  -V, --version         show the version of etldump and its libraries and exit\n"
		"\n"
		"FILE may be '-' for standard input.\n"
		"\n"
		"Exit status: 0 all input read cleanly; 1 damaged or unsupported data was skipped\n"
		"(everything intact was still printed); 2 usage error; 3 an input could not be opened\n"
		"or read; 4 out of memory.\n");
}

/* -f FORMAT */
static int set_format(struct options *o, const char *name)
{
	o->writer = writer_find(name);
	if (!o->writer) {
		char names[256];
		writer_names(names, sizeof(names));
		fprintf(stderr, "%s: unknown format '%s' (%s)\n", progname, name, names);
		return EXIT_USAGE;
	}
	return -1;
}

static int set_time_mode(struct options *o, const char *v)
{
	static const char *const modes[] = { "utc", "local", "relative", "raw" };
	int i;

	for (i = 0; i < 4; i++)
		if (strcmp(v, modes[i]) == 0) {
			o->time_mode = i;
			return -1;
		}
	fprintf(stderr, "%s: unknown time mode '%s' (utc, local, relative, raw)\n", progname, v);
	return EXIT_USAGE;
}

static int set_order(struct options *o, const char *v)
{
	if (strcmp(v, "time") == 0)
		o->order = ETL_ORDER_TIME;
	else if (strcmp(v, "file") == 0)
		o->order = ETL_ORDER_FILE;
	else {
		fprintf(stderr, "%s: unknown order '%s' (time, file)\n", progname, v);
		return EXIT_USAGE;
	}
	return -1;
}

static int set_threads(struct options *o, const char *v)
{
	char *end;
	uint64_t n;

	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno || *end || !*v || v[0] == '-' || n > 64) {
		fprintf(stderr, "%s: --threads wants a number from 0 to 64, not '%s'\n", progname, v);
		return EXIT_USAGE;
	}
	o->threads_auto = n == 0;
	if (n == 0) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		n = cpus < 1 ? 1 : cpus > 64 ? 64 : (uint64_t)cpus;
	}
	o->threads = (unsigned)n;
	return -1;
}

static int set_count(struct options *o, const char *v)
{
	char *end;

	errno = 0;
	o->max_events = strtoull(v, &end, 10);
	if (errno || *end || v[0] == '-' || o->max_events == 0) {
		fprintf(stderr, "%s: --count wants a positive number, not '%s'\n", progname, v);
		return EXIT_USAGE;
	}
	return -1;
}

static int set_payload_bytes(struct options *o, const char *v)
{
	char *end;
	long long pb = strtoll(v, &end, 10);

	if (*end || pb < -1) {
		fprintf(stderr, "%s: --payload-bytes wants a number >= -1\n", progname);
		return EXIT_USAGE;
	}
	o->max_payload = pb < 0 ? SIZE_MAX : (size_t)pb;
	return -1;
}

/* The edits between a and b (case ignored), at most 63 characters of each. */
static unsigned edits(const char *a, const char *b)
{
	unsigned prev[64], row[64];
	size_t n = strlen(a) < 63 ? strlen(a) : 63, m = strlen(b) < 63 ? strlen(b) : 63, i, j;

	for (j = 0; j <= m; j++)
		prev[j] = (unsigned)j;
	for (i = 1; i <= n; i++) {
		row[0] = (unsigned)i;
		for (j = 1; j <= m; j++) {
			unsigned sub = prev[j - 1] + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
			unsigned best = prev[j] + 1 < row[j - 1] + 1 ? prev[j] + 1 : row[j - 1] + 1;
			row[j] = sub < best ? sub : best;
		}
		memcpy(prev, row, (m + 1) * sizeof(*row));
	}
	return prev[m];
}

/* --table=NAME: one of the library's tables; else the closest names. */
static int set_table(struct options *o, const char *v)
{
	size_t i, n = 0;
	unsigned best = UINT32_MAX;

	for (i = 0; i < etl_table_kind_count(); i++) {
		if (strcmp(v, etl_table_kind_name(i)) == 0) {
			o->table = etl_table_kind_name(i);
			return -1;
		}
		if (edits(v, etl_table_kind_name(i)) < best)
			best = edits(v, etl_table_kind_name(i));
	}
	fprintf(stderr, "%s: no table '%s'", progname, v);
	for (i = 0; best <= 3 + strlen(v) / 4 && i < etl_table_kind_count(); i++)
		if (edits(v, etl_table_kind_name(i)) == best)
			fprintf(stderr, "%s'%s'", n++ ? " or " : " (did you mean ", etl_table_kind_name(i));
	fprintf(stderr, "%s; --tables lists them\n", n ? "?)" : "");
	return EXIT_USAGE;
}

static int set_report(struct options *o, const char *v)
{
	if (!v || strcmp(v, "text") == 0)
		o->report = REPORT_TEXT;
	else if (strcmp(v, "html") == 0)
		o->report = REPORT_HTML;
	else {
		fprintf(stderr, "%s: --report=%s: text or html\n", progname, v);
		return EXIT_USAGE;
	}
	return -1;
}

/* The filter options; -1 (go on) or EXIT_USAGE with the message printed. */
static int set_filter(struct options *o, int c, const char *v)
{
	static const struct {
		int c;
		enum sel_kind k;
	} map[] = {
		{ 'p', SEL_PROVIDER }, { 'e', SEL_EVENT }, { OPT_PROCESS, SEL_PROCESS }, { OPT_ID, SEL_ID },
		{ OPT_OPCODE, SEL_OPCODE }, { OPT_PID, SEL_PID }, { OPT_TID, SEL_TID }, { OPT_CPU, SEL_CPU },
		{ OPT_LEVEL, SEL_LEVEL }, { OPT_KEYWORDS_ANY, SEL_KEYWORDS_ANY },
		{ OPT_KEYWORDS_ALL, SEL_KEYWORDS_ALL }, { OPT_SINCE, SEL_SINCE }, { OPT_UNTIL, SEL_UNTIL },
		{ OPT_WHERE, SEL_FILTER },
	};
	char err[300];
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]) && map[i].c != c; i++)
		;
	if (selection_add(&o->sel, map[i].k, v, err, sizeof(err)) == 0)
		return -1;
	fprintf(stderr, "%s: %s\n", progname, err);
	return EXIT_USAGE;
}

static char **argv_now; /* (for the messages of take_option) */

/* The filter of the filter options; -1 to go on, else EXIT_USAGE with the message printed. */
static int compile_selection(struct options *o)
{
	char err[300];

	if (selection_compile(&o->sel, err, sizeof(err)) == 0)
		return -1;
	fprintf(stderr, "%s: %s\n", progname, err);
	return EXIT_USAGE;
}

/* One option; -1 to go on, else the exit status. */
static int take_option(struct options *o, int c, const char *v)
{
	switch (c) {
	case 'f': return set_format(o, v);
	case 'i': o->info = 1; return -1;
	case 'm':
		if (o->nmanifests < MAX_MANIFESTS)
			o->manifests[o->nmanifests++] = v;
		return -1;
	case OPT_TMF:
		if (o->ntmf < MAX_MANIFESTS)
			o->tmf[o->ntmf++] = v;
		return -1;
	case OPT_SYMBOLS:
		if (o->nsymbols < MAX_MANIFESTS)
			o->symbols[o->nsymbols++] = v;
		return -1;
	case OPT_NO_SYMBOLS: o->no_symbols = 1; return -1;
	case OPT_NO_BUILTIN: o->no_builtin = 1; return -1;
	case OPT_LINES: o->lines = 1; return -1;
	case OPT_SIGNATURES: o->signatures = 1; return -1;
	case OPT_ORDER: return set_order(o, v);
	case 'j': return set_threads(o, v);
	case 'n': return set_count(o, v);
	case OPT_PAYLOAD_BYTES: return set_payload_bytes(o, v);
	case 'q': o->quiet = 1; return -1;
	case OPT_RAW: o->raw = 1; return -1;
	case OPT_PAYLOAD: o->all_payloads = 1; return -1;
	case OPT_NO_MAPS: o->no_maps = 1; return -1;
	case OPT_DERIVE: o->derive = 1; return -1;
	case OPT_TIME: return set_time_mode(o, v);
	case OPT_CSV_FIELDS:
		if (strcmp(v, "columns") != 0 && strcmp(v, "joined") != 0) {
			fprintf(stderr, "%s: --csv-fields is joined or columns, not '%s'\n", progname, v);
			return EXIT_USAGE;
		}
		o->csv_columns = v[0] == 'c';
		return -1;
	case OPT_STATS: o->stats = 1; return -1;
	case OPT_TABLE: return set_table(o, v);
	case OPT_TABLES: o->list_tables = 1; return -1;
	case OPT_TABLE_STACKS: o->table_stacks = 1; return -1;
	case OPT_REPORT: return set_report(o, v);
	case OPT_PROVIDERS: o->providers = 1; return -1;
	case OPT_PROCESSES: o->processes = 1; return -1;
	case 'o': o->output = v; return -1;
	case 'O': o->outdir = v; return -1;
	case OPT_FORCE: o->force = 1; return -1;
	case 'h': usage(stdout); return EXIT_OK;
	case 'V':
		printf("etldump %s\n%s\n", etl_version_string(), etl_version_details());
		return EXIT_OK;
	case 'p': case 'e': case OPT_WHERE: case OPT_PROCESS: case OPT_ID: case OPT_OPCODE: case OPT_PID: case OPT_TID: case OPT_CPU:
	case OPT_SINCE: case OPT_UNTIL: case OPT_LEVEL: case OPT_KEYWORDS_ANY: case OPT_KEYWORDS_ALL:
		return set_filter(o, c, v);
	case ':':
		fprintf(stderr, "%s: option '%s' needs a value (try --help)\n", progname, argv_now[optind - 1]);
		return EXIT_USAGE;
	default:
		if (optopt && optopt < 256)
			fprintf(stderr, "%s: unknown option '-%c' (try --help)\n", progname, optopt);
		else
			fprintf(stderr, "%s: unknown option '%s' (try --help)\n", progname, argv_now[optind - 1]);
		return EXIT_USAGE;
	}
}

int parse_options(int argc, char **argv, struct options *o, int *first_input)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "info", no_argument, NULL, 'i' },
		{ "order", required_argument, NULL, OPT_ORDER },
		{ "count", required_argument, NULL, 'n' },
		{ "manifest", required_argument, NULL, 'm' },
		{ "tmf", required_argument, NULL, OPT_TMF },
		{ "payload-bytes", required_argument, NULL, OPT_PAYLOAD_BYTES },
		{ "quiet", no_argument, NULL, 'q' },
		{ "raw", no_argument, NULL, OPT_RAW },
		{ "payload", no_argument, NULL, OPT_PAYLOAD },
		{ "no-maps", no_argument, NULL, OPT_NO_MAPS },
		{ "derive", no_argument, NULL, OPT_DERIVE },
		{ "time", required_argument, NULL, OPT_TIME },
		{ "csv-fields", required_argument, NULL, OPT_CSV_FIELDS },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "table", required_argument, NULL, OPT_TABLE },
		{ "tables", no_argument, NULL, OPT_TABLES },
		{ "table-stacks", no_argument, NULL, OPT_TABLE_STACKS },
		{ "report", optional_argument, NULL, OPT_REPORT },
		{ "providers", no_argument, NULL, OPT_PROVIDERS },
		{ "processes", no_argument, NULL, OPT_PROCESSES },
		{ "output", required_argument, NULL, 'o' },
		{ "output-dir", required_argument, NULL, 'O' },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "provider", required_argument, NULL, 'p' },
		{ "event", required_argument, NULL, 'e' },
		{ "filter", required_argument, NULL, OPT_WHERE },
		{ "where", required_argument, NULL, OPT_WHERE },
		{ "process", required_argument, NULL, OPT_PROCESS },
		{ "id", required_argument, NULL, OPT_ID },
		{ "opcode", required_argument, NULL, OPT_OPCODE },
		{ "level", required_argument, NULL, OPT_LEVEL },
		{ "keywords-any", required_argument, NULL, OPT_KEYWORDS_ANY },
		{ "keywords-all", required_argument, NULL, OPT_KEYWORDS_ALL },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "cpu", required_argument, NULL, OPT_CPU },
		{ "since", required_argument, NULL, OPT_SINCE },
		{ "until", required_argument, NULL, OPT_UNTIL },
		{ "threads", required_argument, NULL, 'j' },
		{ "symbols", required_argument, NULL, OPT_SYMBOLS },
		{ "no-symbols", no_argument, NULL, OPT_NO_SYMBOLS },
		{ "no-builtin-manifests", no_argument, NULL, OPT_NO_BUILTIN },
		{ "lines", no_argument, NULL, OPT_LINES },
		{ "signatures", no_argument, NULL, OPT_SIGNATURES },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->writer = writer_find("text");
	o->order = ETL_ORDER_TIME;
	o->max_payload = 64;
	o->threads = 1;
	argv_now = argv;
	opterr = 0; /* (the messages are ours: one line each) */
	while ((c = getopt_long(argc, argv, ":e:f:ij:m:n:o:O:p:qhV", longopts, NULL)) != -1) {
		int rc = take_option(o, c, optarg);
		if (rc >= 0)
			return rc;
	}
	if (o->list_tables) {
		tables_list(o);
		return EXIT_OK;
	}
	if (optind >= argc && o->providers) {
		o->list_providers = 1; /* (after the manifests are loaded: etldump.c) */
		*first_input = optind;
		return -1;
	}
	if (optind >= argc) {
		fprintf(stderr, "%s: no input file (try --help)\n", progname);
		return EXIT_USAGE;
	}
	*first_input = optind;
	return compile_selection(o);
}

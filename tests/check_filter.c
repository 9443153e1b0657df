/*
 * check_filter.c - the library's filter (docs/FILTERS.md): its syntax and its
 * messages, each field's meaning against a predicate written out by hand on
 * the showcase trace, one case rule, the three-valued answer and what is
 * decided without decoding, the reader that skips what the filter rules out,
 * the names of patterns that matched nothing, and the selection the tables
 * and the report take (time window, processes) on traces whose answers are
 * known: the tables scenario, and in the corpus part the x86 PerfView trace.
 *
 * SPDX-License-Identifier: MIT
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "etlw.h"
#include "parts.h"
#include "scenario.h"

static const char *corpus_dir = "../shared/corpus";

/* The scenarios' start (2022-06-18T04:26:40Z) as a FILETIME, and ms after it. */
#define FT0 ((1655526400ull + 11644473600ull) * 10000000ull)
#define MS(x) (FT0 + (uint64_t)((x) * 10000.0 + 0.5))

static struct etl_filter *filter(const char *text)
{
	struct etl_filter *f = NULL;
	char err[200];

	ck_assert_msg(etl_filter_new(text, &f, err, sizeof(err)) == ETL_OK, "%s: %s", text, err);
	return f;
}

static uint8_t *showcase(size_t *len)
{
	struct etlw_opts o;
	uint8_t *d = NULL;

	etlw_default_opts(&o);
	ck_assert_int_eq(scen_build_showcase(&o, 0, &d, len), 0);
	return d;
}

static struct etl_reader *open_bytes(const uint8_t *d, size_t len)
{
	struct etl_reader *r = etl_reader_new();

	ck_assert_int_eq(etl_reader_open_memory(r, d, len, "t"), ETL_OK);
	return r;
}

/* ---- syntax ---- */

START_TEST(syntax_errors_say_what_and_where)
{
	static const struct {
		const char *text, *says;
	} bad[] = {
		{ "@id = x", "a header number wants a number, a range like 5-9 or a list like 1,5-9 at character 8" },
		{ "@bogus = 1", "an unknown @field" },
		{ "@time = 5s", "@time takes <, <=, > or >= at character 11" },
		{ "@time > soon", "@time wants a UTC time" },
		{ "(@id = 1", "a ')' is expected at character 9" },
		{ "@id = 1 and", "a field name is expected at character 12" },
		{ "a = \"x", "a quote is not closed" },
		{ "@keywords & zz", "& and &= take a header number" },
		{ "Size & 4", "& and &= take a header number" },
		{ "@id = 1 @id = 2", "and, or or the end is expected at character 9" },
		{ "@id 5", "a comparison (=, !=, <, >, <=, >=, &, &=) is expected at character 5" },
		{ "@pid = 9-3", "a header number wants a number" },
		{ "x = nan", NULL }, /* (text: a property that reads "nan") */
	};
	struct etl_filter *f;
	char err[200];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int st = etl_filter_new(bad[i].text, &f, err, sizeof(err));
		if (!bad[i].says) {
			ck_assert_int_eq(st, ETL_OK);
			etl_filter_free(f);
			continue;
		}
		ck_assert_msg(st == ETL_E_FORMAT && !f, "%s was taken", bad[i].text);
		ck_assert_msg(strstr(err, bad[i].says) != NULL, "%s: '%s'", bad[i].text, err);
		ck_assert_msg(strncmp(err, "filter: ", 8) == 0, "%s", err);
	}
	/* nesting is bounded; the empty filter takes everything */
	{
		char deep[300];
		memset(deep, '(', 100);
		strcpy(deep + 100, "@id = 1");
		ck_assert_int_eq(etl_filter_new(deep, &f, err, sizeof(err)), ETL_E_FORMAT);
		ck_assert_ptr_nonnull(strstr(err, "nested too deep"));
	}
	f = filter("  ");
	ck_assert_uint_eq(etl_filter_parts(f), 0);
	ck_assert_str_eq(etl_filter_text(f), "  ");
	etl_filter_free(f);
	ck_assert_int_eq(etl_filter_new(NULL, &f, err, sizeof(err)), ETL_E_MISUSE);
}
END_TEST

/* ---- every field against a predicate written out ---- */

struct seen {
	const char *provider, *name, *process;
	uint32_t pid;
	int decoded;
};

typedef int (*pred_fn)(const struct etl_event *ev, const struct seen *s);

static int p_web(const struct etl_event *ev, const struct seen *s)
{
	(void)ev;
	return s->provider && strcasecmp(s->provider, "Contoso.Web") == 0;
}
static int p_kernel_proc(const struct etl_event *ev, const struct seen *s)
{
	(void)ev;
	return s->name && strncasecmp(s->name, "Windows Kernel/Process/", 23) == 0;
}
static int p_pid(const struct etl_event *ev, const struct seen *s)
{
	(void)ev;
	return s->pid == 600 || (s->pid >= 400 && s->pid <= 500);
}
static int p_process(const struct etl_event *ev, const struct seen *s)
{
	(void)ev;
	return s->process && strncasecmp(s->process, "contoso", 7) == 0;
}
static int p_time(const struct etl_event *ev, const struct seen *s)
{
	(void)s;
	return etl_event_filetime(ev) >= MS(5) && etl_event_filetime(ev) < MS(30);
}
static int p_not_web(const struct etl_event *ev, const struct seen *s)
{
	return !p_web(ev, s);
}
static int p_mixed(const struct etl_event *ev, const struct seen *s)
{
	return (etl_event_level(ev) <= 4 && etl_event_cpu(ev) == 0 && p_time(ev, s)) || etl_event_opcode(ev) == 1;
}

/* The events of the showcase trace f selects, and those pred does, counted side by side. */
static void same_as(const uint8_t *d, size_t len, const char *text, pred_fn pred, unsigned want)
{
	struct etl_reader *r = open_bytes(d, len);
	struct etl_filter *f = filter(text);
	const struct etl_event *ev;
	unsigned by_filter = 0, by_hand = 0;

	while (etl_reader_next(r, &ev) == ETL_OK) {
		const struct etl_decoded *dec = NULL;
		const struct etl_process *p = etl_reader_event_process(r, ev);
		struct seen s;
		int m = etl_filter_match(f, r, ev);
		ck_assert_int_eq(etl_reader_decode(r, ev, &dec), ETL_OK);
		s.provider = etl_decoded_provider_name(dec);
		s.name = etl_decoded_name(dec);
		s.process = p ? etl_process_image_name(p) : NULL;
		s.pid = etl_reader_event_pid(r, ev);
		if (m == ETL_FILTER_NEEDS_DECODING)
			m = etl_filter_match_decoded(f, r, ev, dec);
		ck_assert_int_eq(m, etl_filter_match_decoded(f, r, ev, dec)); /* (both answers agree) */
		by_filter += m == 1;
		by_hand += pred(ev, &s) != 0;
	}
	ck_assert_msg(by_filter == by_hand && by_hand == want, "%s: %u by the filter, %u by hand, %u wanted", text,
		      by_filter, by_hand, want);
	etl_filter_free(f);
	etl_reader_free(r);
}

START_TEST(fields_mean_what_they_say)
{
	size_t len;
	uint8_t *d = showcase(&len);

	same_as(d, len, "@provider = CONTOSO.web", p_web, 4);
	same_as(d, len, "@provider = contoso.*", p_web, 4);
	same_as(d, len, "not @provider = contoso.w?b", p_not_web, 26);
	same_as(d, len, "@name = 'windows kernel/process/*'", p_kernel_proc, 7);
	same_as(d, len, "@name = \"windows kernel/process/*\"", p_kernel_proc, 7);
	same_as(d, len, "@pid = 600,400-500", p_pid, 23);
	same_as(d, len, "@process = CONTOSO*", p_process, 10);
	same_as(d, len, "@time >= +5ms and @time < 2022-06-18T04:26:40.03Z", p_time, 12);
	same_as(d, len, "(@level <= 4 and @cpu = 0 and @time >= 5ms and @time < +0.03s) or @opcode = 1", p_mixed, 13);
	free(d);
}
END_TEST

/* A provider glob costs a decoding once per GUID; @id decides alone where it can; the reader with
 * the filter delivers exactly what the header terms leave, and counts what it skipped. */
START_TEST(decided_without_decoding_where_it_can)
{
	size_t len;
	uint8_t *d = showcase(&len);
	struct etl_reader *r = open_bytes(d, len);
	struct etl_filter *f = filter("@provider = contoso.web");
	const struct etl_event *ev;
	struct etl_guid guids[32];
	unsigned asked = 0, n = 0, n2 = 0, delivered = 0, nguids = 0, i;

	while (etl_reader_next(r, &ev) == ETL_OK) {
		int m = etl_filter_match(f, r, ev);
		for (i = 0; i < nguids && !etl_guid_equal(&guids[i], etl_event_provider(ev)); i++)
			;
		if (i == nguids && nguids < 32)
			guids[nguids++] = *etl_event_provider(ev);
		n++;
		if (m == ETL_FILTER_NEEDS_DECODING) {
			const struct etl_decoded *dec;
			asked++;
			ck_assert_int_eq(etl_reader_decode(r, ev, &dec), ETL_OK);
			(void)etl_filter_match_decoded(f, r, ev, dec);
		}
	}
	ck_assert_uint_eq(n, 30);
	/* once per GUID (each kernel group's, Contoso.Web's), but for Contoso-Backup's two events: with
	 * no manifest they have no provider name to remember */
	ck_assert_uint_eq(nguids, 11);
	ck_assert_uint_eq(asked, nguids + 1);
	etl_reader_free(r);
	etl_filter_free(f);

	f = filter("@id = 0 or @name = nothing");
	r = open_bytes(d, len);
	while (etl_reader_next(r, &ev) == ETL_OK)
		if (etl_event_id(ev) == 0)
			ck_assert_int_eq(etl_filter_match(f, r, ev), 1); /* (yes before decoding) */
	etl_reader_free(r);
	etl_filter_free(f);

	/* the same events with the reader skipping (and reading nothing past a window) */
	for (i = 0; i < 2; i++) {
		static const char *const text[2] = { "@pid = 600", "@pid = 600 and @time >= +42ms and @time < +49ms" };
		static const unsigned want[2] = { 10, 7 };
		f = filter(text[i]);
		r = open_bytes(d, len);
		for (n2 = 0; etl_reader_next(r, &ev) == ETL_OK;)
			n2 += etl_filter_match(f, r, ev) == 1;
		etl_reader_free(r);
		r = open_bytes(d, len);
		ck_assert_int_eq(etl_reader_set_filter(r, f), ETL_OK);
		for (delivered = 0; etl_reader_next(r, &ev) == ETL_OK; delivered++)
			ck_assert_int_eq(etl_filter_match(f, r, ev), 1);
		ck_assert_uint_eq(delivered, n2);
		ck_assert_uint_eq(delivered, want[i]);
		ck_assert_uint_eq(etl_reader_count(r, ETL_COUNT_EVENTS), delivered);
		if (i == 0)
			ck_assert_uint_eq(etl_reader_count(r, ETL_COUNT_EVENTS_FILTERED), 30 - delivered);
		else
			ck_assert_uint_gt(etl_reader_count(r, ETL_COUNT_EVENTS_BEFORE_WINDOW), 0);
		if (i == 0) {
			etl_reader_free(r);
			etl_filter_free(f);
		}
	}
	ck_assert_int_eq(etl_reader_set_filter(r, f), ETL_E_MISUSE); /* (after the first event) */
	etl_reader_free(r);
	etl_filter_free(f);
	free(d);
}
END_TEST

START_TEST(patterns_that_matched_nothing_are_named)
{
	size_t len;
	uint8_t *d = showcase(&len);
	struct etl_reader *r = open_bytes(d, len);
	struct etl_filter *f = filter("@provider = Contso.Web or @process = contoso.ex or @name = *Process/Start "
				      "or @provider = nothing-like-it");
	const struct etl_event *ev;
	const char *field, *near[3];

	while (etl_reader_next(r, &ev) == ETL_OK) {
		const struct etl_decoded *dec;
		if (etl_filter_match(f, r, ev) == ETL_FILTER_NEEDS_DECODING) {
			ck_assert_int_eq(etl_reader_decode(r, ev, &dec), ETL_OK);
			(void)etl_filter_match_decoded(f, r, ev, dec);
		}
	}
	ck_assert_str_eq(etl_filter_unmatched(f, 0, &field), "Contso.Web");
	ck_assert_str_eq(field, "provider");
	ck_assert_uint_eq(etl_filter_closest(f, 0, near, 3), 1);
	ck_assert_str_eq(near[0], "Contoso.Web");
	ck_assert_str_eq(etl_filter_unmatched(f, 1, &field), "contoso.ex");
	ck_assert_str_eq(field, "process");
	ck_assert_uint_ge(etl_filter_closest(f, 1, near, 3), 1);
	ck_assert_str_eq(near[0], "contoso.exe");
	ck_assert_str_eq(etl_filter_unmatched(f, 2, &field), "nothing-like-it"); /* (@name matched) */
	ck_assert_uint_eq(etl_filter_closest(f, 2, near, 3), 0);
	ck_assert_ptr_null(etl_filter_unmatched(f, 3, &field));
	etl_reader_free(r);
	etl_filter_free(f);
	free(d);
}
END_TEST

/* ---- what analyses take ---- */

START_TEST(window_and_processes_of_a_filter)
{
	size_t len;
	uint8_t *d = showcase(&len);
	struct etl_reader *r = open_bytes(d, len);
	struct etl_filter *f = filter("@time >= +5ms and @time < +10ms and (@pid = 100 or @process = w*) and @id = 3");
	uint64_t from, to;

	ck_assert_uint_eq(etl_filter_parts(f), ETL_FILTER_TIME | ETL_FILTER_PROCESS | ETL_FILTER_OTHER);
	ck_assert_int_eq(etl_filter_match(f, r, NULL), ETL_E_MISUSE);
	ck_assert_int_eq(etl_filter_window(f, r, 0, &from, &to), ETL_OK);
	ck_assert_uint_eq(from, MS(5));
	ck_assert_uint_eq(to, MS(10) - 1);
	ck_assert_int_eq(etl_filter_process_selected(f, 100, "x.exe"), 1);
	ck_assert_int_eq(etl_filter_process_selected(f, 7, "WORKER.EXE"), 1);
	ck_assert_int_eq(etl_filter_process_selected(f, 7, "x.exe"), 0);
	ck_assert_int_eq(etl_filter_process_selected(f, ETL_ID_NONE, NULL), 0);
	etl_filter_free(f);
	f = filter("@time > +5ms and @time < +5ms");
	ck_assert_int_eq(etl_filter_window(f, r, 0, &from, &to), ETL_END);
	etl_filter_free(f);
	f = filter("@id = 3 or @time > +5ms"); /* (a time under "or" is no window) */
	ck_assert_uint_eq(etl_filter_parts(f), ETL_FILTER_OTHER);
	ck_assert_int_eq(etl_filter_window(f, r, 0, &from, &to), ETL_OK);
	ck_assert_uint_eq(from, 0);
	ck_assert_uint_eq(to, UINT64_MAX);
	ck_assert_int_eq(etl_filter_process_selected(f, 1, NULL), 1);
	etl_filter_free(f);
	etl_reader_free(r);
	free(d);
}
END_TEST

static const struct etl_table *tables64_table(const char *filter_text, const char *name, struct etl_tables **T,
					      struct etl_reader **r, struct etl_filter **f, uint8_t **d)
{
	struct etlw_opts o;
	size_t len;
	const char *one[1] = { name };

	etlw_default_opts(&o);
	o.ncpu = 1;
	ck_assert_int_eq(scen_build_tables(&o, d, &len), 0);
	*r = open_bytes(*d, len);
	*f = filter(filter_text);
	ck_assert_int_eq(etl_tables_new(*r, one, 1, 0, NULL, NULL, T), ETL_OK);
	ck_assert_int_eq(etl_tables_set_filter(*T, *f), ETL_OK);
	{
		const struct etl_event *ev;
		while (etl_reader_next(*r, &ev) == ETL_OK)
			ck_assert_int_eq(etl_tables_add(*T, ev), ETL_OK);
	}
	ck_assert_int_eq(etl_tables_finish(*T), ETL_OK);
	return etl_tables_get(*T, name);
}

static void done(struct etl_tables *T, struct etl_reader *r, struct etl_filter *f, uint8_t *d)
{
	etl_tables_free(T);
	etl_reader_free(r);
	etl_filter_free(f);
	free(d);
}

static uint64_t cell_u64(const struct etl_table *t, size_t row, const char *col)
{
	return etl_table_u64(t, row, etl_table_column_index(t, col));
}

/* The tables scenario's CPU: slices 10-12 ms (pid 100), 12-15 ms (200), 15 ms to the end (0);
 * samples at 6, 7, 8 ms (100) and 9 ms (200), 0.5 ms each. */
START_TEST(tables_take_the_window_and_the_processes)
{
	struct etl_tables *T;
	struct etl_reader *r;
	struct etl_filter *f;
	uint8_t *d;
	const struct etl_table *t = tables64_table("@time >= +11ms and @time < +14ms", "cpu-usage", &T, &r, &f, &d);
	size_t ms = etl_table_column_index(t, "cpu_usage");

	ck_assert_uint_eq(etl_table_row_count(t), 2); /* (cut to the window; the third starts after it) */
	ck_assert_uint_eq(cell_u64(t, 0, "switch_in_time"), MS(11));
	ck_assert_uint_eq(cell_u64(t, 0, "switch_out_time"), MS(12));
	ck_assert_double_eq_tol(etl_table_double(t, 0, ms), 1.0, 1e-9);
	ck_assert_uint_eq(cell_u64(t, 1, "switch_in_time"), MS(12));
	ck_assert_uint_eq(cell_u64(t, 1, "switch_out_time"), MS(14));
	ck_assert_double_eq_tol(etl_table_double(t, 0, ms) + etl_table_double(t, 1, ms), 3.0, 1e-9); /* the window */
	done(T, r, f, d);

	t = tables64_table("@time >= +6ms and @time < +9ms", "cpu-samples", &T, &r, &f, &d);
	ck_assert_uint_eq(etl_table_row_count(t), 3);
	ck_assert_uint_eq(cell_u64(t, 2, "time"), MS(8));
	done(T, r, f, d);

	t = tables64_table("@pid = 200", "cpu-samples", &T, &r, &f, &d);
	ck_assert_uint_eq(etl_table_row_count(t), 2); /* 9 and 60 ms */
	done(T, r, f, d);

	t = tables64_table("@process = WORKER*", "processes", &T, &r, &f, &d);
	ck_assert_uint_eq(etl_table_row_count(t), 1);
	ck_assert_str_eq(etl_table_text(t, 0, etl_table_column_index(t, "image")), "worker.exe");
	done(T, r, f, d);

	t = tables64_table("@time >= +1ms and @time < +2ms", "processes", &T, &r, &f, &d);
	ck_assert_uint_eq(etl_table_row_count(t), 1); /* app.exe was running; worker.exe started at 5 ms */
	done(T, r, f, d);
}
END_TEST

static int collect(void *ctx, const void *data, size_t size)
{
	FILE *out = ctx;

	return fwrite(data, 1, size, out) == size ? 0 : -1;
}

START_TEST(report_states_its_selection)
{
	size_t len;
	uint8_t *d = showcase(&len);
	struct etl_reader *r = open_bytes(d, len);
	struct etl_filter *f = filter("@time >= +5ms and @process = contoso*");
	struct etl_report *rep;
	const struct etl_event *ev;
	char *html = NULL;
	size_t n = 0;
	FILE *out = open_memstream(&html, &n);

	ck_assert_int_eq(etl_report_new(r, 0, &rep), ETL_OK);
	ck_assert_int_eq(etl_report_set_filter(rep, f), ETL_OK);
	while (etl_reader_next(r, &ev) == ETL_OK)
		ck_assert_int_eq(etl_report_add(rep, ev), ETL_OK);
	ck_assert_int_eq(etl_report_set_filter(rep, f), ETL_E_MISUSE); /* (after the first event) */
	ck_assert_int_eq(etl_report_write_html(rep, collect, out), ETL_OK);
	fclose(out);
	ck_assert_ptr_nonnull(strstr(html, "Selection: <code>@time &gt;= +5ms and @process = contoso*</code>"));
	free(html);
	etl_report_free(rep);
	etl_reader_free(r);
	etl_filter_free(f);
	free(d);
}
END_TEST

/* ---- the corpus ---- */

/* perfview_net: Test.x86.exe (3644) runs one core flat out; in one second of its run, its samples
 * are about 1000 ms of CPU, and a provider glob in any case selects what its exact name does. */
START_TEST(a_second_of_a_busy_process)
{
	char path[1024];
	struct etl_reader *r = etl_reader_new();
	struct etl_filter *f = filter("@time >= +5s and @time < +6s and @process = TEST.X86.EXE");
	const char *one[1] = { "cpu-samples" };
	struct etl_tables *T;
	const struct etl_table *t;
	const struct etl_event *ev;
	double ms = 0;
	size_t i, w;

	snprintf(path, sizeof(path), "%s/etl/perfview_net.4.5.2.x86.etl", corpus_dir);
	ck_assert_int_eq(etl_reader_open_path(r, path), ETL_OK);
	ck_assert_int_eq(etl_tables_new(r, one, 1, 0, NULL, NULL, &T), ETL_OK);
	ck_assert_int_eq(etl_tables_set_filter(T, f), ETL_OK);
	while (etl_reader_next(r, &ev) == ETL_OK)
		ck_assert_int_eq(etl_tables_add(T, ev), ETL_OK);
	etl_tables_finish(T);
	t = etl_tables_get(T, "cpu-samples");
	w = etl_table_column_index(t, "weight");
	for (i = 0; i < etl_table_row_count(t); i++) {
		ck_assert_uint_eq(cell_u64(t, i, "pid"), 3644);
		ms += etl_table_double(t, i, w);
	}
	ck_assert_uint_eq(etl_table_row_count(t), 955);
	ck_assert_double_eq_tol(ms, 955.0, 1e-6);
	etl_tables_free(T);
	etl_reader_free(r);
	etl_filter_free(f);
}
END_TEST

static unsigned count(const char *path, const char *text, int push)
{
	struct etl_reader *r = etl_reader_new();
	struct etl_filter *f = filter(text);
	const struct etl_event *ev;
	unsigned n = 0;

	ck_assert_int_eq(etl_reader_open_path(r, path), ETL_OK);
	if (push)
		ck_assert_int_eq(etl_reader_set_filter(r, f), ETL_OK);
	while (etl_reader_next(r, &ev) == ETL_OK) {
		int m = etl_filter_match(f, r, ev);
		if (m == ETL_FILTER_NEEDS_DECODING) {
			const struct etl_decoded *d;
			(void)etl_reader_decode(r, ev, &d);
			m = etl_filter_match_decoded(f, r, ev, d);
		}
		n += m == 1;
	}
	etl_reader_free(r);
	etl_filter_free(f);
	return n;
}

START_TEST(one_case_rule_and_the_same_count_pushed_down)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/etl/perfview_net.4.5.2.x86.etl", corpus_dir);
	/* (the three .NET runtime providers: Rundown 27,173, the runtime 11,608, Private 521) */
	ck_assert_uint_eq(count(path, "@provider = microsoft-windows-dotnetruntime*", 0), 39302);
	ck_assert_uint_eq(count(path, "@provider = MICROSOFT-WINDOWS-DOTNETRUNTIME*", 1), 39302);
	ck_assert_uint_eq(count(path, "@provider = Microsoft-Windows-DotNETRuntime", 1), 11608);
	ck_assert_uint_eq(count(path, "@time >= +5s and @time < +6s", 1), count(path, "@time >= +5s and @time < +6s", 0));
	ck_assert_uint_eq(count(path, "@time >= +5s and @time < +6s", 0), 14015);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("filter");
	TCase *tc = tcase_create("unit"), *tcc = tcase_create("corpus");
	char probe[1024];

	if (argc > 1)
		corpus_dir = argv[1];
	tcase_set_timeout(tc, 120);
	tcase_set_timeout(tcc, 300);
	tcase_add_test(tc, syntax_errors_say_what_and_where);
	tcase_add_test(tc, fields_mean_what_they_say);
	tcase_add_test(tc, decided_without_decoding_where_it_can);
	tcase_add_test(tc, patterns_that_matched_nothing_are_named);
	tcase_add_test(tc, window_and_processes_of_a_filter);
	tcase_add_test(tc, tables_take_the_window_and_the_processes);
	tcase_add_test(tc, report_states_its_selection);
	tcase_add_test(tcc, a_second_of_a_busy_process);
	tcase_add_test(tcc, one_case_rule_and_the_same_count_pushed_down);
	suite_add_tcase(s, tc);
	snprintf(probe, sizeof(probe), "%s/etl/perfview_net.4.5.2.x86.etl", corpus_dir);
	return run_part(s, tcc, probe);
}

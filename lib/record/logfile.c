/*
 * logfile.c - the logfile-header event: TRACE_LOGFILE_HEADER and the two
 * names after it (format reference 2.1-2.2).
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "record/record.h"
#include "util/cursor.h"

void etl__trace_info_clear(struct etl_trace_info *t)
{
	size_t i;

	etl__free(t->name);
	etl__free(t->tz_std_name);
	etl__free(t->tz_dl_name);
	etl__free(t->logger_name);
	etl__free(t->log_file_name);
	for (i = 0; i < t->other_member_count; i++)
		etl__free(t->other_members[i]);
	etl__free(t->other_members);
	memset(t, 0, sizeof(*t));
}

/* A WCHAR[32] time-zone name. */
static char *tz_name(struct etl_cursor *c)
{
	const uint8_t *p = cur_take(c, 64);
	return p ? etl__utf16_to_utf8(p, 32, NULL) : NULL;
}

int etl__logfile_parse(const uint8_t *buf, size_t fill, struct etl_trace_info *t,
		       struct etl_diag *d)
{
	struct etl_event ev;
	struct etl_cursor c;
	size_t adv, used;
	unsigned ptr;
	int st;

	st = etl__record_parse(buf, fill, ETL_BUFFER_HEADER_SIZE, 8, &ev, &adv, d);
	if (st == ETL_END) {
		etl__diag_set(d, ETL_E_FORMAT, ETL_BUFFER_HEADER_SIZE, "header buffer holds no logfile-header record");
		return ETL_E_FORMAT;
	}
	if (st != ETL_OK)
		return st;
	if ((ev.kind != ETL_HEADER_SYSTEM) || ev.hook_id != 0) {
		etl__diag_set(d, ETL_E_FORMAT, ETL_BUFFER_HEADER_SIZE,
			      "first record is not the logfile header (a system header with HookId 0)");
		return ETL_E_FORMAT;
	}
	ptr = ev.ptr_size;
	cur_init(&c, ev.payload, ev.payload_len);
	t->buffer_size = cur_u32(&c);
	t->os_major = cur_u8(&c);
	t->os_minor = cur_u8(&c);
	t->layout_major = cur_u8(&c);
	t->layout_minor = cur_u8(&c);
	t->os_build = cur_u32(&c);
	t->cpu_count = cur_u32(&c);
	t->end_time = cur_u64(&c);
	t->timer_resolution = cur_u32(&c);
	t->maximum_file_size = cur_u32(&c);
	t->log_file_mode = cur_u32(&c);
	t->buffers_written = cur_u32(&c);
	t->start_buffers = cur_u32(&c);
	t->pointer_size = cur_u32(&c);
	t->events_lost = cur_u32(&c);
	t->cpu_speed_mhz = cur_u32(&c);
	/* LoggerName / LogFileName pointer slots: clock sources from Windows 7 on. */
	t->timer_source = (uint32_t)cur_ptr(&c, ptr);
	t->perf_counter_source = (uint32_t)cur_ptr(&c, ptr);
	t->tz_bias = (int32_t)cur_u32(&c);
	t->tz_std_name = tz_name(&c);
	cur_skip(&c, 16); /* StandardDate */
	t->tz_std_bias = (int32_t)cur_u32(&c);
	t->tz_dl_name = tz_name(&c);
	cur_skip(&c, 16); /* DaylightDate */
	t->tz_dl_bias = (int32_t)cur_u32(&c);
	cur_skip(&c, 4); /* padding: the next field is 8-byte aligned */
	t->boot_time = cur_u64(&c);
	t->perf_freq = cur_u64(&c);
	t->start_time = cur_u64(&c);
	t->reserved_flags = cur_u32(&c);
	t->buffers_lost = cur_u32(&c);
	if (!cur_ok(&c)) {
		etl__diag_set(d, ETL_E_TRUNCATED, ETL_BUFFER_HEADER_SIZE,
			      "logfile header: payload of %zu bytes is shorter than TRACE_LOGFILE_HEADER (%u bytes)",
			      ev.payload_len, ptr == 4 ? 0x110u : 0x118u);
		return ETL_E_TRUNCATED;
	}
	if ((ptr == 4 && c.pos != 0x110) || (ptr == 8 && c.pos != 0x118)) {
		etl__diag_set(d, ETL_E_FORMAT, ETL_BUFFER_HEADER_SIZE, "logfile header: internal layout error");
		return ETL_E_FORMAT;
	}
	if ((!t->tz_std_name || !t->tz_dl_name)) {
		etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
		return ETL_E_NOMEM;
	}
	/* Two NUL-terminated UTF-16 names follow; either may be missing in damaged files. */
	t->logger_name = etl__utf16_to_utf8(ev.payload + c.pos, cur_left(&c) / 2, &used);
	if (!t->logger_name)
		goto nomem;
	cur_skip(&c, used * 2);
	t->log_file_name = etl__utf16_to_utf8(ev.payload + c.pos, cur_left(&c) / 2, &used);
	if (!t->log_file_name)
		goto nomem;
	t->start_raw = ev.ts_raw;
	if (t->pointer_size != 4 && t->pointer_size != 8)
		t->pointer_size = ptr;
	return ETL_OK;
nomem:
	etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
	return ETL_E_NOMEM;
}

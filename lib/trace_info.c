/*
 * trace_info.c - accessors of the per-input trace information.
 *
 * SPDX-License-Identifier: MIT
 */
#include "internal.h"

uint64_t etl_trace_info_file_size(const struct etl_trace_info *t) { return t->file_size; }
uint32_t etl_trace_info_buffer_size(const struct etl_trace_info *t) { return t->buffer_size; }
uint32_t etl_trace_info_os_major(const struct etl_trace_info *t) { return t->os_major; }
uint32_t etl_trace_info_os_minor(const struct etl_trace_info *t) { return t->os_minor; }
uint32_t etl_trace_info_layout_major(const struct etl_trace_info *t) { return t->layout_major; }
uint32_t etl_trace_info_layout_minor(const struct etl_trace_info *t) { return t->layout_minor; }
uint32_t etl_trace_info_os_build(const struct etl_trace_info *t) { return t->os_build; }
uint32_t etl_trace_info_cpu_count(const struct etl_trace_info *t) { return t->cpu_count; }
uint64_t etl_trace_info_start_time(const struct etl_trace_info *t) { return t->start_time; }
uint64_t etl_trace_info_end_time(const struct etl_trace_info *t) { return t->end_time; }
uint64_t etl_trace_info_boot_time(const struct etl_trace_info *t) { return t->boot_time; }
uint32_t etl_trace_info_timer_resolution(const struct etl_trace_info *t) { return t->timer_resolution; }
uint32_t etl_trace_info_maximum_file_size(const struct etl_trace_info *t) { return t->maximum_file_size; }
uint64_t etl_trace_info_perf_freq(const struct etl_trace_info *t) { return t->perf_freq; }
uint32_t etl_trace_info_cpu_speed_mhz(const struct etl_trace_info *t) { return t->cpu_speed_mhz; }
uint32_t etl_trace_info_pointer_size(const struct etl_trace_info *t) { return t->pointer_size; }
uint32_t etl_trace_info_log_file_mode(const struct etl_trace_info *t) { return t->log_file_mode; }
uint32_t etl_trace_info_buffers_written(const struct etl_trace_info *t) { return t->buffers_written; }
uint32_t etl_trace_info_events_lost(const struct etl_trace_info *t) { return t->events_lost; }
uint32_t etl_trace_info_buffers_lost(const struct etl_trace_info *t) { return t->buffers_lost; }
uint32_t etl_trace_info_timer_source(const struct etl_trace_info *t) { return t->timer_source; }
uint32_t etl_trace_info_perf_counter_source(const struct etl_trace_info *t) { return t->perf_counter_source; }
int32_t etl_trace_info_tz_bias(const struct etl_trace_info *t) { return t->tz_bias; }
uint32_t etl_trace_info_compression_format(const struct etl_trace_info *t) { return t->compression_format; }
int32_t etl_trace_info_tz_standard_bias(const struct etl_trace_info *t) { return t->tz_std_bias; }
int32_t etl_trace_info_tz_daylight_bias(const struct etl_trace_info *t) { return t->tz_dl_bias; }
uint64_t etl_trace_info_start_timestamp_raw(const struct etl_trace_info *t) { return t->start_raw; }
const char *etl_trace_info_name(const struct etl_trace_info *t) { return t->name ? t->name : ""; }
const char *etl_trace_info_tz_standard_name(const struct etl_trace_info *t) { return t->tz_std_name ? t->tz_std_name : ""; }
const char *etl_trace_info_tz_daylight_name(const struct etl_trace_info *t) { return t->tz_dl_name ? t->tz_dl_name : ""; }
const char *etl_trace_info_logger_name(const struct etl_trace_info *t) { return t->logger_name ? t->logger_name : ""; }
const char *etl_trace_info_log_file_name(const struct etl_trace_info *t) { return t->log_file_name ? t->log_file_name : ""; }
const char *etl_trace_info_container(const struct etl_trace_info *t) { return t->container ? t->container : ""; }
size_t etl_trace_info_other_member_count(const struct etl_trace_info *t) { return t->other_member_count; }

enum etl_clock etl_trace_info_clock_type(const struct etl_trace_info *t)
{
	switch (t->reserved_flags) {
	case 1: return ETL_CLOCK_QPC;
	case 2: return ETL_CLOCK_SYSTEM_TIME;
	case 3: return ETL_CLOCK_CPU_CYCLES;
	default: return ETL_CLOCK_UNKNOWN;
	}
}

const char *etl_trace_info_other_member(const struct etl_trace_info *t, size_t i)
{
	return i < t->other_member_count ? t->other_members[i] : NULL;
}

const char *etl_clock_name(enum etl_clock c)
{
	switch (c) {
	case ETL_CLOCK_QPC: return "qpc";
	case ETL_CLOCK_SYSTEM_TIME: return "system-time";
	case ETL_CLOCK_CPU_CYCLES: return "cpu-cycles";
	default: return "unknown";
	}
}

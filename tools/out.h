/*
 * out.h - etldump's output buffer: every byte of data etldump writes goes
 * through here, then to stdout in large blocks.
 *
 * stdio's printf parses its format for every call and locks the stream for
 * every putchar; a trace converts into tens of millions of short fields, so
 * the formatters append to this buffer instead and the few places that must
 * see stdout's state call out_flush() first.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETLDUMP_OUT_H
#define ETLDUMP_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define OUT_BUFFER_SIZE (1u << 16)

/* Where the output goes when it is not stdout: a growing block of memory (a batch of
 * events formatted by a worker thread, see etldump's --threads).  The formatters write
 * straight into it: the window (out_buffer.data) is its free end. */
struct out_sink {
	char *data;
	size_t len, cap;
};

struct out_buffer {
	size_t len;            /* bytes in the window */
	int failed;            /* a write to stdout failed, or the sink could not grow */
	int err;               /* the errno of the first failed write to stdout (0: none) */
	struct out_sink *sink; /* NULL: stdout */
	char *data;            /* the window: OUT_BUFFER_SIZE bytes, own or the sink's free end */
	char own[OUT_BUFFER_SIZE];
};

/* One per thread: the formatters of each worker write to their own. */
extern _Thread_local struct out_buffer out_buf;

/* Sets up the calling thread's buffer (before its first output). */
void out_thread_init(void);
/* Writes what is buffered to stdout (fwrite) or commits it to the sink; sets
 * out_buf.failed on error. */
void out_flush(void);
/* From now on, output goes to k (appended after its len bytes), or to stdout for NULL; what
 * was buffered before goes where it was going. */
void out_set_sink(struct out_sink *k);

/* Appends bytes; a block larger than the buffer goes straight through. */
void out_mem_slow(const void *p, size_t n);

static inline void out_mem(const void *p, size_t n)
{
	if (n <= OUT_BUFFER_SIZE - out_buf.len) {
		memcpy(out_buf.data + out_buf.len, p, n);
		out_buf.len += n;
	} else {
		out_mem_slow(p, n);
	}
}

static inline void out_char(char c)
{
	if (out_buf.len == OUT_BUFFER_SIZE)
		out_flush();
	out_buf.data[out_buf.len++] = c;
}

static inline void out_cstr(const char *s)
{
	out_mem(s, strlen(s));
}

/* A string literal, without strlen. */
#define OUT_LIT(s) out_mem("" s, sizeof(s) - 1)

/* s escaped as in a JSON string (without quotes) into dst; its length, or SIZE_MAX when it does
 * not fit in cap bytes. */
size_t out_json_escape(const char *s, char *dst, size_t cap);

void out_u64(uint64_t v);
void out_i64(int64_t v);
/* The same text as out_u64, faster for numbers whose digits above the last nine seldom change
 * from one call to the next on a thread (times). */
void out_u64_near(uint64_t v);
/* A signed time in nanoseconds, as out_i64 writes it. */
static inline void out_time_ns(int64_t v)
{
	if (v >= 0)
		out_u64_near((uint64_t)v);
	else
		out_i64(v);
}
/* x as printf's "%.3f" writes it (quickly where x is near a whole number of thousandths). */
void out_fixed3(double x);
/* Lower-case hex digits of n bytes. */
void out_hex(const uint8_t *p, size_t n);
/* A number in lower-case hex without leading zeros (no 0x). */
void out_x64(uint64_t v);
/* A number as 16 lower-case hex digits (no 0x). */
void out_hex16(uint64_t v);
/* A FILETIME as etl_filetime_format writes it (the date and time of each second made once per
 * thread and second, the 100 ns digits every time). */
void out_filetime(uint64_t ft);
/* The body of a JSON string (no quotes) for UTF-8 text: " \ and controls escaped. */
void out_json_str(const char *s);
/* The same, faster for short strings written again and again from the same place (field and
 * module names): the bodies of the last ones are kept per thread. */
void out_json_name(const char *s);
/* printf into the buffer (for the cold paths). */
void out_printf(const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;

#endif

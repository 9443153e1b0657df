/*
 * etlw.c - the test trace writer (see etlw.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "etlw.h"

#define HDR 0x48u

struct bytes {
	uint8_t *p;
	size_t len, cap;
};

struct cpubuf {
	uint8_t *p;   /* buffer_size bytes */
	size_t fill;  /* from HDR */
	uint64_t last_ts;
	int used;
};

struct etlw {
	struct etlw_opts o;
	struct cpubuf *cpus;
	struct bytes data; /* flushed data buffers, in flush order */
	uint64_t seq;
	uint32_t nbuf;
	uint64_t max_ts;
	int failed;
	FILE *out;         /* streaming mode */
	uint64_t out_len;  /* data bytes written to out */
};

static int grow(struct bytes *b, size_t more)
{
	if (b->cap - b->len < more) {
		size_t ncap = b->cap ? b->cap : 4096;
		uint8_t *n;
		while (ncap - b->len < more)
			ncap *= 2;
		n = realloc(b->p, ncap);
		if (!n)
			return -1;
		b->p = n;
		b->cap = ncap;
	}
	return 0;
}

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { put16(p, (uint16_t)v); put16(p + 2, (uint16_t)(v >> 16)); }
static void put64(uint8_t *p, uint64_t v) { put32(p, (uint32_t)v); put32(p + 4, (uint32_t)(v >> 32)); }
void etlw_put16(uint8_t *p, uint16_t v) { put16(p, v); }
void etlw_put32(uint8_t *p, uint32_t v) { put32(p, v); }
void etlw_put64(uint8_t *p, uint64_t v) { put64(p, v); }
void etlw_put_guid(uint8_t *p, const struct etl_guid *g)
{
	put32(p, g->data1);
	put16(p + 4, g->data2);
	put16(p + 6, g->data3);
	memcpy(p + 8, g->data4, 8);
}

void etlw_default_opts(struct etlw_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->ptr_size = 8;
	o->buffer_size = 4096;
	o->ncpu = 2;
	o->clock = 1;
	o->perf_freq = 10000000;
	o->cpu_mhz = 3000;
	o->start_ft = 133000000000000000ULL; /* 2022-06-15 */
	o->start_ts = 1000000000;
	o->os_build = 19045;
}

static uint32_t header_buffer_size(const struct etlw_opts *o)
{
	return o->compress && o->buffer_size > 1024 ? 1024 : o->buffer_size;
}

struct etlw *etlw_new_file(const struct etlw_opts *o, FILE *f)
{
	struct etlw *w = etlw_new(o);

	if (w) {
		w->out = f;
		if (fseek(f, (long)header_buffer_size(o), SEEK_SET) != 0) {
			etlw_free(w);
			return NULL;
		}
	}
	return w;
}

struct etlw *etlw_new(const struct etlw_opts *o)
{
	struct etlw *w = calloc(1, sizeof(*w));
	unsigned i;

	if (!w)
		return NULL;
	w->o = *o;
	w->cpus = calloc(o->ncpu ? o->ncpu : 1, sizeof(*w->cpus));
	if (!w->cpus) {
		free(w);
		return NULL;
	}
	for (i = 0; i < o->ncpu; i++) {
		w->cpus[i].p = malloc(o->buffer_size);
		if (!w->cpus[i].p) {
			etlw_free(w);
			return NULL;
		}
		memset(w->cpus[i].p, 0xFF, o->buffer_size);
		w->cpus[i].fill = HDR;
	}
	w->max_ts = o->start_ts;
	return w;
}

void etlw_free(struct etlw *w)
{
	unsigned i;

	if (!w)
		return;
	for (i = 0; i < w->o.ncpu; i++)
		free(w->cpus[i].p);
	free(w->cpus);
	free(w->data.p);
	free(w);
}

static void buffer_header(struct etlw *w, uint8_t *p, uint32_t size, uint32_t fill, uint64_t ts,
			  uint64_t seq, unsigned cpu, uint16_t flags, uint16_t type, uint32_t state)
{
	memset(p, 0, HDR);
	put32(p + 0x00, size);
	put32(p + 0x04, fill);
	put32(p + 0x08, fill);
	put64(p + 0x10, ts);
	put64(p + 0x18, seq);
	if (w->o.old_cpu_field) {
		p[0x28] = (uint8_t)cpu;
		p[0x29] = 0x08;
	} else {
		put16(p + 0x28, (uint16_t)cpu);
		flags |= 0x20;
	}
	put16(p + 0x2A, 0x12);
	put32(p + 0x2C, state);
	put32(p + 0x30, fill);
	put16(p + 0x34, flags);
	put16(p + 0x36, type);
}

static int flush_cpu(struct etlw *w, unsigned cpu)
{
	struct cpubuf *c = &w->cpus[cpu];
	uint32_t bs = w->o.buffer_size;

	if (c->fill == HDR)
		return 0;
	w->seq++;
	if (!w->o.compress) {
		if (grow(&w->data, bs))
			return -1;
		buffer_header(w, c->p, bs, (uint32_t)c->fill, c->last_ts, w->seq, cpu, 0x01, 0, 3);
		memcpy(w->data.p + w->data.len, c->p, bs);
		w->data.len += bs;
	} else {
		size_t cap = c->fill * 2 + 64, clen;
		if (grow(&w->data, HDR + cap))
			return -1;
		clen = etlw_xpress_compress(c->p + HDR, c->fill - HDR, w->data.p + w->data.len + HDR, cap);
		if (clen == 0)
			return -1;
		buffer_header(w, w->data.p + w->data.len, (uint32_t)(HDR + clen), (uint32_t)c->fill,
			      c->last_ts, w->seq, cpu, 0x41, 0, 3);
		w->data.len += HDR + clen;
	}
	w->nbuf++;
	memset(c->p, 0xFF, bs);
	c->fill = HDR;
	if (w->out) {
		if (fwrite(w->data.p, 1, w->data.len, w->out) != w->data.len)
			return -1;
		w->out_len += w->data.len;
		w->data.len = 0;
	}
	return 0;
}

/* Reserves len bytes (aligned) in the CPU's buffer; flushes it when full. */
static uint8_t *reserve(struct etlw *w, unsigned cpu, size_t len, uint64_t ts)
{
	struct cpubuf *c;
	size_t al = (len + 7) & ~(size_t)7;
	uint8_t *p;

	if (w->failed || cpu >= w->o.ncpu || al > w->o.buffer_size - HDR) {
		w->failed = 1;
		return NULL;
	}
	c = &w->cpus[cpu];
	if (c->fill + al > w->o.buffer_size && flush_cpu(w, cpu)) {
		w->failed = 1;
		return NULL;
	}
	p = c->p + c->fill;
	memset(p, 0, al);
	c->fill += al;
	c->last_ts = ts;
	if (ts > w->max_ts)
		w->max_ts = ts;
	return p;
}

int etlw_system(struct etlw *w, unsigned cpu, int compact, uint8_t version, uint16_t hook,
		uint32_t tid, uint32_t pid, uint64_t ts, const void *payload, size_t len)
{
	size_t h = compact ? 0x18 : 0x20, n = h + len;
	uint8_t *p;
	uint8_t type = (uint8_t)((compact ? 3 : 1) + (w->o.ptr_size == 8));

	if (n > 0xFFFF || !(p = reserve(w, cpu, n, ts)))
		return -1;
	put16(p, version);
	p[2] = type;
	p[3] = 0xC0;
	put16(p + 4, (uint16_t)n);
	put16(p + 6, hook);
	put32(p + 8, tid);
	put32(p + 12, pid);
	put64(p + 16, ts);
	if (!compact) {
		put32(p + 24, 11);
		put32(p + 28, 22);
	}
	if (len)
		memcpy(p + h, payload, len);
	return 0;
}

int etlw_perfinfo(struct etlw *w, unsigned cpu, uint8_t version, uint16_t hook, uint64_t ts,
		  const uint64_t *pmc, unsigned npmc, const uint64_t *pebs, const void *payload,
		  size_t len)
{
	size_t n = 0x10 + (pebs ? 8 : 0) + 8 * (size_t)npmc + len, off = 0x10;
	uint8_t *p;
	unsigned i;

	if (npmc > 7 || n > 0xFFFF || !(p = reserve(w, cpu, n, ts)))
		return -1;
	put16(p, (uint16_t)(version | npmc << 8 | (pebs ? 0x8000 : 0)));
	p[2] = w->o.ptr_size == 8 ? 0x11 : 0x10;
	p[3] = 0xC0;
	put16(p + 4, (uint16_t)n);
	put16(p + 6, hook);
	put64(p + 8, ts);
	if (pebs) {
		put64(p + off, *pebs);
		off += 8;
	}
	for (i = 0; i < npmc; i++, off += 8)
		put64(p + off, pmc[i]);
	if (len)
		memcpy(p + off, payload, len);
	return 0;
}

int etlw_classic(struct etlw *w, unsigned cpu, const struct etlw_classic *c, const void *payload,
		 size_t len)
{
	size_t h = c->instance ? 0x48 : 0x30, n = h + len;
	uint8_t *p;

	if (n > 0xFFFF || !(p = reserve(w, cpu, n, c->ts)))
		return -1;
	put16(p, (uint16_t)n);
	p[2] = c->instance ? (w->o.ptr_size == 8 ? 0x15 : 0x0B) : (w->o.ptr_size == 8 ? 0x14 : 0x0A);
	p[3] = 0xC0;
	p[4] = c->type;
	p[5] = c->level;
	put16(p + 6, c->version);
	put32(p + 8, c->tid);
	put32(p + 12, c->pid);
	put64(p + 16, c->ts);
	etlw_put_guid(p + 24, &c->guid);
	put32(p + 40, 5);
	put32(p + 44, 6);
	if (c->instance) {
		put32(p + 48, c->instance_id);
		put32(p + 52, c->parent_instance_id);
		etlw_put_guid(p + 56, &c->parent_guid);
	}
	if (len)
		memcpy(p + h, payload, len);
	return 0;
}

int etlw_event(struct etlw *w, unsigned cpu, const struct etlw_event *e,
	       const struct etlw_ext *ext, unsigned next, const void *payload, size_t len)
{
	size_t n = 0x50 + len, off = 0x50;
	unsigned i;
	uint8_t *p;

	for (i = 0; i < next; i++)
		n += (8 + (size_t)ext[i].len + 7) & ~(size_t)7;
	if (n > 0xFFFF || !(p = reserve(w, cpu, n, e->ts)))
		return -1;
	put16(p, (uint16_t)n);
	p[2] = w->o.ptr_size == 8 ? 0x13 : 0x12;
	p[3] = 0xC0;
	put16(p + 4, next ? 1 : 0);
	put16(p + 6, e->property);
	put32(p + 8, e->tid);
	put32(p + 12, e->pid);
	put64(p + 16, e->ts);
	etlw_put_guid(p + 24, &e->provider);
	put16(p + 40, e->id);
	p[42] = e->version;
	p[43] = e->channel;
	p[44] = e->level;
	p[45] = e->opcode;
	put16(p + 46, e->task);
	put64(p + 48, e->keywords);
	put32(p + 56, 7);
	put32(p + 60, 8);
	etlw_put_guid(p + 64, &e->activity);
	for (i = 0; i < next; i++) {
		size_t isz = (8 + (size_t)ext[i].len + 7) & ~(size_t)7;
		put16(p + off, (uint16_t)isz);
		put16(p + off + 2, ext[i].type);
		put16(p + off + 4, i + 1 < next ? 1 : 0);
		put16(p + off + 6, ext[i].len);
		memcpy(p + off + 8, ext[i].data, ext[i].len);
		off += isz;
	}
	if (len)
		memcpy(p + off, payload, len);
	return 0;
}

int etlw_message(struct etlw *w, unsigned cpu, const struct etlw_message *m, const void *args,
		 size_t len)
{
	size_t n = 8, off = 8;
	uint16_t o = m->options;
	uint8_t *p;

	n += (o & 1) ? 4 : 0;
	n += (o & 4) ? 4 : (o & 2) ? 16 : 0;
	n += (o & 8) ? 8 : 0;
	n += (o & 0x20) ? 8 : 0;
	n += len;
	if (n > 0xFFFF || !(p = reserve(w, cpu, n, (o & 8) ? m->ts : w->cpus[cpu < w->o.ncpu ? cpu : 0].last_ts)))
		return -1;
	put16(p, (uint16_t)n);
	p[2] = 0;
	p[3] = 0x90;
	put16(p + 4, m->number);
	put16(p + 6, o);
	if (o & 1) {
		put32(p + off, m->sequence);
		off += 4;
	}
	if (o & 4) {
		put32(p + off, m->component_id);
		off += 4;
	} else if (o & 2) {
		etlw_put_guid(p + off, &m->guid);
		off += 16;
	}
	if (o & 8) {
		put64(p + off, m->ts);
		off += 8;
	}
	if (o & 0x20) {
		put32(p + off, m->tid);
		put32(p + off + 4, m->pid);
		off += 8;
	}
	if (len)
		memcpy(p + off, args, len);
	return 0;
}

int etlw_raw(struct etlw *w, unsigned cpu, const void *bytes, size_t len)
{
	uint8_t *p = reserve(w, cpu, len, cpu < w->o.ncpu ? w->cpus[cpu].last_ts : 0);

	if (!p)
		return -1;
	memcpy(p, bytes, len);
	return 0;
}

static size_t put_utf16(uint8_t *p, const char *s)
{
	size_t i = 0;
	for (; s[i]; i++)
		put16(p + 2 * i, (uint16_t)(unsigned char)s[i]);
	put16(p + 2 * i, 0);
	return 2 * (i + 1);
}

int etlw_finish(struct etlw *w, uint8_t **out, size_t *out_len)
{
	const struct etlw_opts *o = &w->o;
	uint32_t hsize = header_buffer_size(o);
	unsigned ptr = o->ptr_size, i;
	size_t lh = ptr == 4 ? 0x110 : 0x118, t, rec, fill, saved;
	uint8_t *f, *h, *pl;
	uint64_t scale_num, scale_den, end_ft;

	for (i = 0; i < o->ncpu; i++)
		if (flush_cpu(w, i))
			w->failed = 1;
	if (w->failed)
		return -1;
	f = malloc(hsize + (w->out ? 0 : w->data.len));
	if (!f)
		return -1;
	memset(f, 0xFF, hsize);
	h = f;
	/* logfile-header record */
	rec = 0x20 + lh + 2 * (strlen("libetl test") + 1) + 2 * (strlen("C:\\fixture.etl") + 1);
	pl = h + HDR;
	memset(pl, 0, (rec + 7) & ~(size_t)7);
	put16(pl, 2);
	pl[2] = ptr == 8 ? 2 : 1;
	pl[3] = 0xC0;
	put16(pl + 4, (uint16_t)rec);
	put16(pl + 6, 0);
	put32(pl + 8, 100);
	put32(pl + 12, 4);
	put64(pl + 16, o->start_ts);
	pl += 0x20;
	switch (o->clock) {
	case 2: scale_num = 1; scale_den = 1; break;
	case 3: scale_num = 10; scale_den = o->cpu_mhz; break;
	default: scale_num = 10000000; scale_den = o->perf_freq; break;
	}
	end_ft = o->start_ft + (w->max_ts - o->start_ts) * scale_num / scale_den;
	put32(pl + 0x00, o->buffer_size);
	pl[4] = 10; pl[5] = 0; pl[6] = o->compress ? 2 : 1; pl[7] = o->compress ? 0 : 5;
	put32(pl + 0x08, o->os_build);
	put32(pl + 0x0C, o->ncpu);
	put64(pl + 0x10, end_ft);
	put32(pl + 0x18, 156250);
	put32(pl + 0x1C, 100);
	put32(pl + 0x20, o->compress ? 0x04010001u : 0x1u);
	put32(pl + 0x24, w->nbuf + 1);
	put32(pl + 0x28, 1);
	put32(pl + 0x2C, ptr);
	put32(pl + 0x30, 0);
	put32(pl + 0x34, o->cpu_mhz);
	t = 0x38;
	if (ptr == 4) { put32(pl + t, 5); put32(pl + t + 4, 7); t += 8; }
	else { put64(pl + t, 5); put64(pl + t + 8, 7); t += 16; }
	put32(pl + t, 480);                       /* Bias */
	put_utf16(pl + t + 4, "@tzres.dll,-212");
	put32(pl + t + 0x54, 0);
	put_utf16(pl + t + 0x58, "@tzres.dll,-211");
	put32(pl + t + 0xA8, (uint32_t)-60);
	t += 0xAC + 4;
	put64(pl + t, o->start_ft - 36000000000ULL); /* boot an hour before */
	put64(pl + t + 8, o->perf_freq);
	put64(pl + t + 16, o->start_ft);
	put32(pl + t + 24, o->clock);
	put32(pl + t + 28, 0);
	t += 32;
	t += put_utf16(pl + t, "libetl test");
	put_utf16(pl + t, "C:\\fixture.etl");
	fill = HDR + ((rec + 7) & ~(size_t)7);
	saved = fill;
	if (o->header_extra) {
		/* a PartitionInfo record past SavedOffset, as Windows 10 writes at stop */
		uint8_t *q = h + fill;
		memset(q, 0, 0x50);
		put16(q, 2);
		q[2] = ptr == 8 ? 2 : 1;
		q[3] = 0xC0;
		put16(q + 4, 0x50);
		put16(q + 6, 0x0050);
		put64(q + 16, o->start_ts);
		fill += 0x50;
	}
	buffer_header(w, h, hsize, (uint32_t)fill, 0, 0, 0, 0x01, 4, 3);
	put32(h + 4, (uint32_t)saved);
	if (w->out) {
		int bad = fseek(w->out, 0, SEEK_SET) != 0 || fwrite(f, 1, hsize, w->out) != hsize ||
			  fflush(w->out) != 0;
		free(f);
		*out = NULL;
		*out_len = hsize + w->out_len;
		return bad ? -1 : 0;
	}
	memcpy(f + hsize, w->data.p, w->data.len);
	*out = f;
	*out_len = hsize + w->data.len;
	return 0;
}

/* ---- MS-XCA Plain LZ77 compression ([MS-XCA] 2.3), greedy with a hash of 3 bytes ---- */

size_t etlw_xpress_compress(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
	enum { HBITS = 13, MAXDIST = 8192 };
	int32_t head[1 << HBITS];
	size_t ip = 0, op = 0, flag_pos = 0, nibble = 0;
	uint32_t flags = 0;
	unsigned count = 0;

#define NEED(k) do { if (cap - op < (k)) return 0; } while (0)
	for (size_t i = 0; i < (1u << HBITS); i++)
		head[i] = -1;
	while (ip < n) {
		size_t best = 0, dist = 0;

		if (count == 0) {
			NEED(4);
			flag_pos = op;
			op += 4;
			flags = 0;
		}
		if (n - ip >= 3) {
			uint32_t hv = ((uint32_t)in[ip] << 16 | (uint32_t)in[ip + 1] << 8 | in[ip + 2]) * 2654435761u >> (32 - HBITS);
			int32_t cand = head[hv];
			head[hv] = (int32_t)ip;
			if (cand >= 0 && ip - (size_t)cand <= MAXDIST) {
				size_t l = 0;
				while (ip + l < n && in[(size_t)cand + l] == in[ip + l])
					l++;
				if (l >= 3) {
					best = l;
					dist = ip - (size_t)cand;
				}
			}
		}
		if (best == 0) {
			NEED(1);
			out[op++] = in[ip++];
			flags <<= 1;
		} else {
			size_t len = best - 3;
			uint32_t tok = (uint32_t)(dist - 1) << 3;

			flags = flags << 1 | 1;
			NEED(2);
			if (len < 7) {
				out[op] = (uint8_t)(tok | len);
				out[op + 1] = (uint8_t)((tok | len) >> 8);
				op += 2;
			} else {
				out[op] = (uint8_t)(tok | 7);
				out[op + 1] = (uint8_t)((tok | 7) >> 8);
				op += 2;
				len -= 7;
				if (nibble == 0) {
					NEED(1);
					nibble = op;
					out[op++] = (uint8_t)(len < 15 ? len : 15);
				} else {
					out[nibble] |= (uint8_t)((len < 15 ? len : 15) << 4);
					nibble = 0;
				}
				if (len >= 15) {
					len -= 15;
					if (len < 255) {
						NEED(1);
						out[op++] = (uint8_t)len;
					} else {
						NEED(1);
						out[op++] = 255;
						len += 15 + 7;
						if (len < 65536) {
							NEED(2);
							out[op] = (uint8_t)len;
							out[op + 1] = (uint8_t)(len >> 8);
							op += 2;
						} else {
							NEED(6);
							out[op] = 0;
							out[op + 1] = 0;
							out[op + 2] = (uint8_t)len;
							out[op + 3] = (uint8_t)(len >> 8);
							out[op + 4] = (uint8_t)(len >> 16);
							out[op + 5] = (uint8_t)(len >> 24);
							op += 6;
						}
					}
				}
			}
			ip += best;
		}
		if (++count == 32) {
			out[flag_pos] = (uint8_t)flags;
			out[flag_pos + 1] = (uint8_t)(flags >> 8);
			out[flag_pos + 2] = (uint8_t)(flags >> 16);
			out[flag_pos + 3] = (uint8_t)(flags >> 24);
			count = 0;
		}
	}
	if (count) {
		flags = (flags << (32 - count)) | ((1u << (32 - count)) - 1);
		out[flag_pos] = (uint8_t)flags;
		out[flag_pos + 1] = (uint8_t)(flags >> 8);
		out[flag_pos + 2] = (uint8_t)(flags >> 16);
		out[flag_pos + 3] = (uint8_t)(flags >> 24);
	}
#undef NEED
	return op ? op : (cap >= 4 ? (out[0] = out[1] = out[2] = out[3] = 0xFF, 4) : 0);
}

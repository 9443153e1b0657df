/*
 * names.c - the names every decoder gives the events it decodes (and the
 * registry the ones nothing decodes), in PerfView's shape, and the small
 * formatter they are made with.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "decode/decoders.h"

/*
 * Names and reasons are built for every event, so this is a small formatter
 * of its own rather than vsnprintf: it knows %s, %u, %04x and %% (the
 * attribute lets the compiler check the arguments), and cuts at 511 bytes.
 */
const char *etl__decode_printf(struct etl_decoded *d, const char *fmt, ...)
{
	static const char hex[] = "0123456789abcdef";
	char tmp[512];
	size_t n = 0;
	va_list ap;

	va_start(ap, fmt);
	for (; *fmt && n < sizeof(tmp) - 1; fmt++) {
		char num[12];
		size_t k = sizeof(num);
		const char *piece;
		size_t len;

		if (*fmt != '%') {
			tmp[n++] = *fmt;
			continue;
		}
		fmt++;
		if (*fmt == 's') {
			piece = va_arg(ap, const char *);
			if (!piece)
				piece = "(null)";
			len = strlen(piece);
		} else if (*fmt == 'u') {
			unsigned v = va_arg(ap, unsigned);
			do {
				num[--k] = (char)('0' + v % 10);
				v /= 10;
			} while (v);
			piece = num + k;
			len = sizeof(num) - k;
		} else if (fmt[0] == '0' && fmt[1] == '4' && fmt[2] == 'x') {
			unsigned v = va_arg(ap, unsigned);
			unsigned digits = 0;
			fmt += 2;
			do {
				num[--k] = hex[v & 15];
				v >>= 4;
				digits++;
			} while (v || digits < 4);
			piece = num + k;
			len = sizeof(num) - k;
		} else {
			piece = "%"; /* %% (and nothing else is used) */
			len = 1;
			if (!*fmt)
				break;
		}
		if (len > sizeof(tmp) - 1 - n)
			len = sizeof(tmp) - 1 - n;
		memcpy(tmp + n, piece, len);
		n += len;
	}
	va_end(ap);
	return etl__arena_strndup(&d->arena, tmp, n);
}

/* "a/b", or "a/b/c" when c is not NULL, in d's arena: what arena_printf makes of the same pieces,
 * with one allocation and a copy of each piece (a manifest event's name, made for every event). */
static const char *join(struct etl_decoded *d, const char *a, const char *b, const char *c)
{
	/* a missing piece ("(null)") or a name past arena_printf's cut: arena_printf's own text */
	size_t la = a ? strlen(a) : SIZE_MAX, lb = b ? strlen(b) : SIZE_MAX, lc = c ? strlen(c) : 0;
	size_t n = la + 1 + lb + (c ? 1 + lc : 0); /* (wraps only where a piece is over 511 too) */
	char *o;

	if (la > 511 || lb > 511 || lc > 511 || n > 511)
		return c ? etl__decode_printf(d, "%s/%s/%s", a, b, c) : etl__decode_printf(d, "%s/%s", a, b);
	o = etl__arena_alloc(&d->arena, n + 1);
	if (!o)
		return NULL;
	memcpy(o, a, la);
	o[la] = '/';
	memcpy(o + la + 1, b, lb);
	if (c) {
		o[la + 1 + lb] = '/';
		memcpy(o + la + 2 + lb, c, lc);
	}
	o[n] = 0;
	return o;
}

/* PerfView's shape: Provider/Task/Opcode, Provider/Task when the opcode is 0 (Info). */
void etl__decode_name_manifest(struct etl_decoded *out, const struct etl_event *ev)
{
	if (out->task_name && ev->opcode != 0 && out->opcode_name)
		out->name = join(out, out->provider_name, out->task_name, out->opcode_name);
	else if (out->task_name)
		out->name = join(out, out->provider_name, out->task_name, NULL);
	else if (ev->opcode != 0 && out->opcode_name)
		out->name = etl__decode_printf(out, "%s/EventID(%u)/%s", out->provider_name, ev->id, out->opcode_name);
	else
		out->name = etl__decode_printf(out, "%s/EventID(%u)", out->provider_name, ev->id);
}

void etl__decode_take_names(struct etl_decoded *out, const struct etl_mevent *m)
{
	out->provider_name = etl__manifest_provider_name(m->provider);
	out->task_name = m->task_name;
	out->opcode_name = m->opcode_name;
	out->level_name = m->level_name;
	out->channel_name = m->channel_name;
	out->keywords_name = m->keywords_name;
	out->message_template = m->message;
}

void etl__decode_name_undecoded(struct etl_decoded *d, const struct etl_event *ev)
{
	char g[ETL_GUID_STRING_SIZE];
	const char *group;

	if (ev->kind != ETL_HEADER_SYSTEM && ev->kind != ETL_HEADER_COMPACT && ev->kind != ETL_HEADER_PERFINFO)
		etl_guid_format(&ev->provider, g);
	switch (ev->kind) {
	case ETL_HEADER_SYSTEM: case ETL_HEADER_COMPACT: case ETL_HEADER_PERFINFO:
		group = etl_kernel_group_name(ev->hook_id >> 8);
		d->provider_name = "Windows Kernel";
		d->task_name = group;
		if (group)
			d->name = etl__decode_printf(d, "Windows Kernel/%s/Opcode(%u)", group, ev->opcode);
		else
			d->name = etl__decode_printf(d, "Windows Kernel/Group(%u)/Opcode(%u)", ev->hook_id >> 8, ev->opcode);
		d->reason = etl__decode_printf(d, "no built-in layout for kernel hook 0x%04x version %u", ev->hook_id,
					 ev->version);
		break;
	case ETL_HEADER_EVENT:
		d->name = etl__decode_printf(d, "{%s}/EventID(%u)", g, ev->id);
		d->reason = etl__decode_printf(d, "no schema for provider {%s} event %u version %u", g, ev->id,
					 ev->version);
		break;
	case ETL_HEADER_MESSAGE:
		d->name = etl__decode_printf(d, "{%s}/Message(%u)", g, ev->id);
		d->reason = "WPP message: its format needs the provider's TMF files";
		break;
	default:
		d->name = etl__decode_printf(d, "{%s}/Opcode(%u)", g, ev->opcode);
		d->reason = etl__decode_printf(d, "no schema for event class {%s} opcode %u version %u", g, ev->opcode,
					 ev->version);
		break;
	}
}

/*
 * charts.c - the report's SVG charts, written whole by the library (the
 * page's script only adds hover and zoom): stacked areas of the top series
 * of a timeline with "other" for the rest, small multiples, bar charts.
 *
 * Every coordinate goes through etl__report_num (finite, bounded); a chart of no data
 * is never drawn (the sections say there is none).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "report/report.h"

#define W 960.0
#define H 220.0
#define LEFT 64.0
#define BOTTOM 22.0
#define TOP_PAD 8.0

/* A round step for an axis whose top is max, about 4 steps. */
static double axis_step(double max)
{
	double step = 1;

	if (max <= 0)
		return 1;
	while (step * 4 < max)
		step *= 10;
	while (step / 2 * 4 >= max && step > 1e-9)
		step /= 2;
	return step;
}

static void value_text(char *b, size_t cap, double v, const char *unit)
{
	if (strcmp(unit, "bytes/s") == 0 || strcmp(unit, "bytes") == 0) {
		char t[32];
		snprintf(b, cap, "%s%s", etl__report_bytes(v, t, sizeof(t)), unit[5] ? "/s" : "");
	} else if (v >= 1e6) {
		snprintf(b, cap, "%.3gM %s", v / 1e6, unit);
	} else if (v >= 1e4) {
		snprintf(b, cap, "%.3gk %s", v / 1e3, unit);
	} else if (v >= 100) {
		snprintf(b, cap, "%.0f %s", v, unit);
	} else {
		snprintf(b, cap, "%.3g %s", v, unit);
	}
}

/* Axes: y gridlines with labels up to max, x labels in seconds from the clock's start. */
static void axes(struct rb_out *o, const struct rb_clock *c, size_t nb, double max, const char *unit)
{
	double step = axis_step(max), y, secs = (double)c->width * (double)nb / 1e7, xs = axis_step(secs), t;
	char b[64];

	for (y = 0; y <= max * 1.0001 && max > 0; y += step) {
		double py = H - BOTTOM - (H - BOTTOM - TOP_PAD) * y / max;
		etl__report_str(o, "<line class=\"grid\" x1=\"");
		etl__report_num(o, LEFT);
		etl__report_str(o, "\" x2=\"");
		etl__report_num(o, W);
		etl__report_str(o, "\" y1=\"");
		etl__report_num(o, py);
		etl__report_str(o, "\" y2=\"");
		etl__report_num(o, py);
		etl__report_str(o, "\"/><text class=\"ax\" x=\"");
		etl__report_num(o, LEFT - 4);
		etl__report_str(o, "\" y=\"");
		etl__report_num(o, py + 4);
		etl__report_str(o, "\" text-anchor=\"end\">");
		value_text(b, sizeof(b), y, unit);
		etl__report_text(o, b);
		etl__report_str(o, "</text>\n");
	}
	for (t = 0; t <= secs * 1.0001 && secs > 0; t += xs) {
		double px = LEFT + (W - LEFT) * t / secs;
		etl__report_str(o, "<text class=\"ax\" x=\"");
		etl__report_num(o, px);
		etl__report_str(o, "\" y=\"");
		etl__report_num(o, H - 6);
		etl__report_str(o, "\" text-anchor=\"middle\">");
		etl__report_printf(o, xs >= 1 ? "%.0f s" : "%.3g s", t);
		etl__report_str(o, "</text>\n");
	}
}

/* The y of a value. */
static double y_of(double v, double max)
{
	return max > 0 ? H - BOTTOM - (H - BOTTOM - TOP_PAD) * v / max : H - BOTTOM;
}

static double x_of(size_t b, size_t nb)
{
	return LEFT + (W - LEFT) * (double)b / (double)nb;
}

static void point(struct rb_out *o, const char *cmd, double x, double y)
{
	etl__report_str(o, cmd);
	etl__report_num(o, x);
	etl__report_str(o, " ");
	etl__report_num(o, y);
}

/* A stepped edge through values v[0, nb): left to right from a move (forward), or right to left
 * continuing the path; a point only where the value changes. */
static void step_edge(struct rb_out *o, const double *v, size_t nb, double max, int forward)
{
	size_t i, b;

	for (i = 0; i < nb; i++) {
		b = forward ? i : nb - 1 - i;
		if (i == 0) {
			point(o, forward ? "M" : "L", x_of(forward ? b : b + 1, nb), y_of(v[b], max));
		} else if (v[b] != v[forward ? b - 1 : b + 1]) {
			double x = x_of(forward ? b : b + 1, nb);
			point(o, "L", x, y_of(v[forward ? b - 1 : b + 1], max));
			point(o, "L", x, y_of(v[b], max));
		}
	}
	point(o, "L", x_of(forward ? nb : 0, nb), y_of(v[forward ? nb - 1 : 0], max));
}

/* The value of series s (or of the rest, s NULL: total minus the top ones) in bin b. */
static double bin_value(struct rb_series *const *v, size_t n, size_t top, size_t k, size_t b)
{
	double x = 0;
	size_t i;

	if (k < top)
		return v[k]->bin[b];
	for (i = top; i < n; i++)
		x += v[i]->bin[b];
	return x;
}

static void legend(struct rb_out *o, struct rb_series *const *v, size_t n, size_t top, const char *unit)
{
	size_t k;
	char b[64];

	etl__report_str(o, "<ul class=\"legend\">");
	for (k = 0; k < top + (n > top ? 1 : 0); k++) {
		double total = 0;
		size_t i;
		const char *name = k < top ? v[k]->name : "other";
		for (i = k; i < (k < top ? k + 1 : n); i++)
			total += v[i]->total;
		etl__report_str(o, "<li><span class=\"sw\" style=\"background:");
		etl__report_colour(o, name, 0);
		etl__report_str(o, "\"></span>");
		etl__report_text(o, name);
		value_text(b, sizeof(b), total, unit);
		etl__report_str(o, " <span class=\"dim\">");
		etl__report_text(o, b);
		etl__report_str(o, "</span></li>");
	}
	etl__report_str(o, "</ul>\n");
}

void etl__report_chart_stacked(struct rb_out *o, const struct rb_line *l, const char *unit, int per_second)
{
	size_t n, nb = l->clock->used ? l->clock->used : 1, top, k, b;
	struct rb_series **v = etl__report_line_sorted(l, &n);
	double *base, *top_y, max = 0, secs = (double)l->clock->width / 1e7, scale = per_second ? 1 / secs : 1;
	char yunit[32];

	if (!v)
		return;
	top = n > RB_TOP + 1 ? RB_TOP : n;
	base = etl__calloc(nb, sizeof(*base));
	top_y = etl__calloc(nb, sizeof(*top_y));
	if (!base || !top_y) {
		etl__free(base);
		etl__free(top_y);
		etl__free(v);
		return;
	}
	for (b = 0; b < nb; b++) {
		double sum = 0;
		for (k = 0; k < n; k++)
			sum += v[k]->bin[b];
		if (sum * scale > max)
			max = sum * scale;
	}
	snprintf(yunit, sizeof(yunit), "%s%s", unit, per_second ? "/s" : "");
	etl__report_str(o, "<svg class=\"chart\" viewBox=\"0 0 960 220\" preserveAspectRatio=\"none\">\n");
	axes(o, l->clock, nb, max, yunit);
	for (k = 0; k < top + (n > top ? 1 : 0); k++) {
		const char *name = k < top ? v[k]->name : "other";
		etl__report_str(o, "<path class=\"area\" fill=\"");
		etl__report_colour(o, name, 0);
		etl__report_str(o, "\" d=\"");
		for (b = 0; b < nb; b++)
			top_y[b] = base[b] + bin_value(v, n, top, k, b) * scale;
		step_edge(o, top_y, nb, max, 1);
		step_edge(o, base, nb, max, 0);
		etl__report_str(o, "Z\"><title>");
		etl__report_text(o, name);
		etl__report_str(o, "</title></path>\n");
		for (b = 0; b < nb; b++)
			base[b] += bin_value(v, n, top, k, b) * scale;
	}
	etl__report_str(o, "</svg>\n");
	legend(o, v, n, top, unit);
	etl__free(top_y);
	etl__free(base);
	etl__free(v);
}

void etl__report_chart_multiples(struct rb_out *o, const struct rb_line *l, size_t max)
{
	size_t n, nb = l->clock->used ? l->clock->used : 1, k, b;
	struct rb_series **v = etl__report_line_sorted(l, &n);
	double secs = (double)l->clock->width / 1e7;

	if (!v)
		return;
	etl__report_str(o, "<div class=\"multiples\">\n");
	for (k = 0; k < n && k < max; k++) {
		double peak = 0;
		for (b = 0; b < nb; b++)
			if (v[k]->bin[b] > peak)
				peak = v[k]->bin[b];
		etl__report_str(o, "<figure><figcaption>");
		etl__report_text(o, v[k]->name);
		etl__report_printf(o, " <span class=\"dim\">%.0f events, peak %.0f/s</span></figcaption>", v[k]->total,
			  secs > 0 ? peak / secs : 0);
		etl__report_str(o, "<svg viewBox=\"0 0 200 40\" preserveAspectRatio=\"none\"><polyline class=\"spark\" points=\"");
		for (b = 0; b < nb; b++) {
			etl__report_num(o, 200.0 * ((double)b + 0.5) / (double)nb);
			etl__report_str(o, ",");
			etl__report_num(o, peak > 0 ? 38 - 36 * v[k]->bin[b] / peak : 38);
			etl__report_str(o, " ");
		}
		etl__report_str(o, "\"/></svg></figure>\n");
	}
	etl__report_str(o, "</div>\n");
	if (n > max)
		etl__report_printf(o, "<p class=\"note\">and %zu more providers (the table below lists them all).</p>\n", n - max);
	etl__free(v);
}

void etl__report_chart_bars(struct rb_out *o, const char *const *labels, const double *v, size_t n, const char *unit)
{
	double max = 0, bw;
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] > max)
			max = v[i];
	if (!n || max <= 0)
		return;
	bw = (W - LEFT) / (double)n;
	etl__report_str(o, "<svg class=\"chart\" viewBox=\"0 0 960 220\" preserveAspectRatio=\"none\">\n");
	for (i = 0; i < n; i++) {
		double h = (H - BOTTOM - TOP_PAD) * v[i] / max;
		etl__report_str(o, "<rect class=\"bar\" x=\"");
		etl__report_num(o, LEFT + bw * (double)i + 1);
		etl__report_str(o, "\" y=\"");
		etl__report_num(o, H - BOTTOM - h);
		etl__report_str(o, "\" width=\"");
		etl__report_num(o, bw - 2 > 1 ? bw - 2 : 1);
		etl__report_str(o, "\" height=\"");
		etl__report_num(o, h);
		etl__report_str(o, "\"><title>");
		etl__report_text(o, labels[i]);
		etl__report_printf(o, ": %.0f %s</title></rect>\n", v[i], unit);
		etl__report_str(o, "<text class=\"ax\" x=\"");
		etl__report_num(o, LEFT + bw * ((double)i + 0.5));
		etl__report_str(o, "\" y=\"");
		etl__report_num(o, H - 6);
		etl__report_str(o, "\" text-anchor=\"middle\">");
		etl__report_text(o, labels[i]);
		etl__report_str(o, "</text>\n");
	}
	etl__report_printf(o, "<text class=\"ax\" x=\"%.0f\" y=\"14\" text-anchor=\"end\">%.0f %s</text>\n", LEFT - 4, max, unit);
	etl__report_str(o, "</svg>\n");
}

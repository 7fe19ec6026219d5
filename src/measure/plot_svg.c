/* plot.svg: bandwidth of the headline phase (gpu on cuda, e2e on cpu), in the backend's unit
 * (TB/s, GB/s), against the row length N on a log2 axis, one series per kernel and dtype, with
 * each ceiling's best bandwidth as a horizontal line.
 * Hand-written SVG: no dependencies, readable in any browser. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/measure.h"

#define WIDTH 960
#define HEIGHT 540
#define LEFT 80
#define RIGHT 250 /* room for the legend */
#define TOP 50
#define BOTTOM 70

/* 18 distinct colours: six kernels in up to three dtypes get a colour each. */
static const char *const colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                                     "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
                                     "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173",
                                     "#000000", "#3182bd", "#e6550d"};
#define N_COLORS (sizeof colors / sizeof colors[0])

typedef struct point {
	double x, y; /* in pixels */
	int64_t rows, cols;
} point;

typedef struct axes {
	double x_lo, x_hi, y_hi;          /* y in the backend's bandwidth unit */
	const rr__backend_report *report; /* the unit: GB/s on cpu, TB/s on cuda */
} axes;

/* A TB/s figure in the axes' unit. */
static double bw(const axes *a, double tbps)
{
	return rr__report_bandwidth(a->report, tbps);
}

static double px(const axes *a, double x)
{
	return LEFT + (x - a->x_lo) / (a->x_hi - a->x_lo) * (WIDTH - LEFT - RIGHT);
}

static double py(const axes *a, double y)
{
	return HEIGHT - BOTTOM - y / a->y_hi * (HEIGHT - TOP - BOTTOM);
}

static void xml_text(rr__buf *buf, const char *text)
{
	for (const char *c = text; *c; c++) {
		switch (*c) {
		case '&':
			rr__buf_printf(buf, "&amp;");
			break;
		case '<':
			rr__buf_printf(buf, "&lt;");
			break;
		case '>':
			rr__buf_printf(buf, "&gt;");
			break;
		case '"':
			rr__buf_printf(buf, "&quot;");
			break;
		default:
			rr__buf_append(buf, c, 1);
		}
	}
}

static int plotted(const rr__row_result *row, rr__phase_id phase)
{
	return row->state == RR_ROW_MEASURED && row->phases[phase].available &&
	       row->phases[phase].tbps > 0 && row->cols > 0;
}

/* A "nice" tick step (1, 2 or 5 times a power of ten) giving about five ticks up to `top`. */
static double tick_step(double top)
{
	double raw = top / 5, power = pow(10, floor(log10(raw)));
	double steps[] = {1, 2, 5, 10};
	for (int i = 0; i < 4; i++)
		if (steps[i] * power >= raw)
			return steps[i] * power;
	return 10 * power;
}

static void draw_axes(rr__buf *buf, const axes *a, const char *phase, const char *device)
{
	double bottom = HEIGHT - BOTTOM, right = WIDTH - RIGHT;
	rr__buf_printf(buf,
	               "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
	               "stroke=\"#444\"/>\n",
	               LEFT, TOP, WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
	double step = tick_step(a->y_hi);
	for (double y = 0; y <= a->y_hi * 1.0001; y += step)
		rr__buf_printf(buf,
		               "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		               "stroke=\"#ddd\"/><text x=\"%d\" y=\"%.1f\" "
		               "text-anchor=\"end\">%g</text>\n",
		               LEFT, py(a, y), right, py(a, y), LEFT - 6, py(a, y) + 4, y);
	for (int k = (int)ceil(a->x_lo); k <= (int)floor(a->x_hi); k++) {
		double n = ldexp(1, k);
		char label[32];
		if (k >= 20)
			snprintf(label, sizeof label, "%gM", n / 1048576);
		else if (k >= 10)
			snprintf(label, sizeof label, "%gK", n / 1024);
		else
			snprintf(label, sizeof label, "%g", n);
		rr__buf_printf(buf,
		               "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" "
		               "stroke=\"#eee\"/><text x=\"%.1f\" y=\"%.1f\" "
		               "text-anchor=\"middle\">%s</text>\n",
		               px(a, k), TOP, px(a, k), bottom, px(a, k), bottom + 18, label);
	}
	rr__buf_printf(buf,
	               "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">row length N "
	               "(log2 axis)</text>\n",
	               (LEFT + right) / 2, HEIGHT - 20);
	rr__buf_printf(buf,
	               "<text transform=\"translate(22 %.1f) rotate(-90)\" "
	               "text-anchor=\"middle\">%s (%s phase, minimal bytes / median)</text>\n",
	               (TOP + bottom) / 2, a->report->bandwidth_unit, phase);
	rr__buf_printf(buf,
	               "<text x=\"%d\" y=\"30\" font-size=\"16\">rowreduce bench: bandwidth "
	               "against row length (",
	               LEFT);
	xml_text(buf, device);
	rr__buf_printf(buf, ")</text>\n");
}

/* The ceiling's best bandwidth over its phases, the same divisor as the fraction of ceiling. */
static void draw_ceiling(rr__buf *buf, const axes *a, const rr__results *results, rr__ceiling_id id,
                         const char *color)
{
	double tbps;
	int best = rr__ceiling_best(&results->ceilings[id], &tbps);
	if (!results->info.ceilings_requested || best < 0)
		return;
	double y = py(a, bw(a, tbps));
	rr__buf_printf(buf,
	               "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" "
	               "stroke-width=\"1.5\" stroke-dasharray=\"8 4\"/><text x=\"%d\" "
	               "y=\"%.1f\" fill=\"%s\" text-anchor=\"end\">%s ceiling %.3g "
	               "%s (best, %s phase)</text>\n",
	               LEFT, y, WIDTH - RIGHT, y, color, WIDTH - RIGHT - 6, y - 5, color,
	               rr__ceiling_name(id), bw(a, tbps), a->report->bandwidth_unit,
	               rr__phase_name((rr__phase_id)best));
}

static const char *dash_for(rr_dtype dtype)
{
	return dtype == RR_F32    ? ""
	       : dtype == RR_BF16 ? " stroke-dasharray=\"6 3\""
	                          : " stroke-dasharray=\"2 3\"";
}

static int same_series(const rr__row_result *a, const rr__row_result *b)
{
	return a->dtype == b->dtype && strcmp(a->kernel, b->kernel) == 0;
}

static int compare_points(const void *a, const void *b)
{
	const point *p = a, *q = b;
	return p->cols < q->cols ? -1 : p->cols > q->cols;
}

/* One series: markers at every point, a line in order of N through the largest M at each N. */
static void draw_series(rr__buf *buf, const axes *a, const rr__results *results, int first,
                        rr__phase_id phase, const char *color, int legend_slot)
{
	const rr__row_result *head = &results->rows[first];
	point *line = malloc((size_t)results->n_rows * sizeof *line);
	int n_line = 0;
	for (int i = first; i < results->n_rows; i++) {
		const rr__row_result *row = &results->rows[i];
		if (!plotted(row, phase) || !same_series(row, head))
			continue;
		double x = px(a, log2((double)row->cols)),
		       y = py(a, bw(a, row->phases[phase].tbps));
		rr__buf_printf(buf, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>",
		               x, y, color);
		xml_text(buf, row->kernel);
		rr__buf_printf(buf, " %s %lldx%lld: %.3g %s</title></circle>\n",
		               rr_dtype_name(row->dtype), (long long)row->rows,
		               (long long)row->cols, bw(a, row->phases[phase].tbps),
		               a->report->bandwidth_unit);
		int at = 0;
		while (line && at < n_line && line[at].cols != row->cols)
			at++;
		if (!line || (at < n_line && line[at].rows >= row->rows))
			continue;
		line[at] = (point){.x = x, .y = y, .rows = row->rows, .cols = row->cols};
		if (at == n_line)
			n_line++;
	}
	if (line && n_line > 1) {
		qsort(line, (size_t)n_line, sizeof *line, compare_points);
		rr__buf_printf(buf, "<polyline points=\"");
		for (int i = 0; i < n_line; i++)
			rr__buf_printf(buf, "%s%.1f,%.1f", i ? " " : "", line[i].x, line[i].y);
		rr__buf_printf(buf, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s/>\n",
		               color, dash_for(head->dtype));
	}
	free(line);
	double ly = TOP + 20 + 20 * legend_slot, lx = WIDTH - RIGHT + 8;
	rr__buf_printf(buf,
	               "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
	               "stroke-width=\"2\"%s/><text x=\"%.1f\" y=\"%.1f\">",
	               lx, ly, lx + 28, ly, color, dash_for(head->dtype), lx + 34, ly + 4);
	xml_text(buf, head->kernel);
	rr__buf_printf(buf, " %s</text>\n", rr_dtype_name(head->dtype));
}

/* The first row of each (kernel, dtype) series, in order of appearance. */
static int is_series_head(const rr__results *results, int i, rr__phase_id phase)
{
	if (!plotted(&results->rows[i], phase))
		return 0;
	for (int j = 0; j < i; j++)
		if (plotted(&results->rows[j], phase) &&
		    same_series(&results->rows[j], &results->rows[i]))
			return 0;
	return 1;
}

static axes fit_axes(const rr__results *results, rr__phase_id phase)
{
	axes a = {
	    .x_lo = INFINITY, .x_hi = -INFINITY, .y_hi = 0, .report = rr__results_report(results)};
	for (int i = 0; i < results->n_rows; i++) {
		const rr__row_result *row = &results->rows[i];
		if (!plotted(row, phase))
			continue;
		double x = log2((double)row->cols);
		a.x_lo = x < a.x_lo ? x : a.x_lo;
		a.x_hi = x > a.x_hi ? x : a.x_hi;
		double y = bw(&a, row->phases[phase].tbps);
		a.y_hi = y > a.y_hi ? y : a.y_hi;
	}
	for (int c = 0; c < RR__CEILING_COUNT; c++) {
		double tbps;
		if (results->info.ceilings_requested &&
		    rr__ceiling_best(&results->ceilings[c], &tbps) >= 0 && bw(&a, tbps) > a.y_hi)
			a.y_hi = bw(&a, tbps);
	}
	if (!isfinite(a.x_lo)) {
		a.x_lo = 7;
		a.x_hi = 17;
	}
	a.x_lo = floor(a.x_lo) - 0.5;
	a.x_hi = ceil(a.x_hi) + 0.5;
	a.y_hi = a.y_hi > 0 ? a.y_hi * 1.12 : 1;
	return a;
}

rr_status rr__results_write_svg(const rr__results *results, const char *path)
{
	rr__phase_id phase = rr__results_headline_phase(results);
	axes a = fit_axes(results, phase);
	rr__buf buf = {0};
	rr__buf_printf(&buf,
	               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
	               "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
	               "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
	               WIDTH, HEIGHT, WIDTH, HEIGHT);
	draw_axes(&buf, &a, rr__phase_name(phase), results->info.device_description);
	int series = 0;
	for (int i = 0; i < results->n_rows; i++)
		if (is_series_head(results, i, phase)) {
			draw_series(&buf, &a, results, i, phase, colors[series % N_COLORS],
			            series + 2);
			series++;
		}
	if (series == 0)
		rr__buf_printf(&buf,
		               "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">no timed "
		               "configuration to plot</text>\n",
		               (LEFT + WIDTH - RIGHT) / 2, (TOP + HEIGHT - BOTTOM) / 2);
	draw_ceiling(&buf, &a, results, RR_CEILING_COPY, "#c00000");
	draw_ceiling(&buf, &a, results, RR_CEILING_READ, "#e08000");
	rr__buf_printf(&buf, "</svg>\n");
	if (buf.failed) {
		rr__buf_free(&buf);
		return rr__fail(RR_ERR_NOMEM, "out of memory drawing '%s'", path);
	}
	rr_status status = rr__write_file_atomic(path, buf.data, buf.length);
	rr__buf_free(&buf);
	return status;
}

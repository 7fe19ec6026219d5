/* results.md: the tables a person reads (per kernel, dtype and shape: plan, µs per operation for
 * each phase as median [min–max] in µs, ms or s, bandwidth in the backend's unit (TB/s on cuda,
 * GB/s on cpu), fraction of the ceiling, validated output elements), the ceilings,
 * the device and the command line. Every number is a copy of one in results.json. */
#include <stdio.h>
#include <string.h>

#include "measure/measure.h"

/* "median [min–max]" in the median's unit (µs, ms or s), or "—" for an unavailable phase. */
static void phase_cell(rr__buf *buf, const rr__phase_result *phase)
{
	if (!phase->available) {
		rr__buf_printf(buf, " — |");
		return;
	}
	char median[32], low[32], high[32];
	rr__format_duration(phase->median_us, 0, 1, median, sizeof median);
	rr__format_duration(phase->min_us, phase->median_us, 0, low, sizeof low);
	rr__format_duration(phase->max_us, phase->median_us, 0, high, sizeof high);
	rr__buf_printf(buf, " %s [%s–%s] |", median, low, high);
}

/* Text inside a table cell: pipes and line breaks would break the table. */
static void cell_text(rr__buf *buf, const char *text)
{
	for (const char *c = text; *c; c++) {
		if (*c == '|')
			rr__buf_append(buf, "\\|", 2);
		else if (*c == '\n')
			rr__buf_append(buf, " ", 1);
		else
			rr__buf_append(buf, c, 1);
	}
}

/* Phases worth a column: available in at least one row or ceiling. */
static void used_phases(const rr__results *results, int used[RR__PHASE_COUNT])
{
	for (int p = 0; p < RR__PHASE_COUNT; p++) {
		used[p] = 0;
		for (int i = 0; i < results->n_rows; i++)
			used[p] |= results->rows[i].phases[p].available;
		for (int c = 0; c < RR__CEILING_COUNT; c++)
			used[p] |= results->ceilings[c].measured &&
			           results->ceilings[c].phases[p].available;
	}
}

static void header(rr__buf *buf, const rr__results *results)
{
	const rr__run_info *info = &results->info;
	const rr__device_properties *d = &info->device;
	rr__buf_printf(buf, "# rowreduce bench\n\n");
	rr__buf_printf(buf, "- command: `%s`\n", info->command_line ? info->command_line : "");
	rr__buf_printf(buf, "- started %s on `%s`, took %.1f s; rowreduce %s (commit %s)\n",
	               info->start_time, info->host, info->wall_seconds, info->version,
	               info->git_commit);
	rr__buf_printf(buf, "- device: %s; backend %s", info->device_description, info->backend);
	if (d->cc_major)
		rr__buf_printf(buf, "; compute capability %d.%d", d->cc_major, d->cc_minor);
	if (d->driver_version[0])
		rr__buf_printf(buf, "; driver %s", d->driver_version);
	if (d->compiler_version[0])
		rr__buf_printf(buf, "; kernel compiler %s", d->compiler_version);
	const rr__backend_report *report = rr__results_report(results);
	rr__buf_printf(buf,
	               "\n- protocol: %d samples per phase of about %g ms each, after %g ms "
	               "of warm-up; %s %s; plan %s\n",
	               info->samples, info->sample_ms, info->warmup_ms, report->cache_words,
	               info->l2_cold ? "cold (buffer sets rotated past twice its size)" : "hot",
	               info->plan_request[0] ? info->plan_request : "auto");
	rr__buf_printf(buf,
	               "- times per operation, median [min–max] over the samples, in the "
	               "median's unit; %s = minimal bytes / median of the %s phase; \"of "
	               "ceiling\" divides it by the ceiling's best %s over all its phases (copy "
	               "for kernels writing a row, read otherwise)%s%s; \"validated\" counts "
	               "output elements within tolerance / compared, over every buffer set\n\n",
	               report->bandwidth_unit, rr__phase_name(rr__results_headline_phase(results)),
	               report->bandwidth_unit, report->ceiling_note ? ", " : "",
	               report->ceiling_note ? report->ceiling_note : "");
}

static void ceilings_table(rr__buf *buf, const rr__results *results, const int used[])
{
	rr__buf_printf(buf, "## Ceilings\n\n");
	if (!results->info.ceilings_requested) {
		rr__buf_printf(buf, "Not measured (--no-ceilings).\n\n");
		return;
	}
	rr__buf_printf(buf, "| ceiling | what | bytes |");
	for (int p = 0; p < RR__PHASE_COUNT; p++)
		if (used[p])
			rr__buf_printf(buf, " %s |", rr__phase_name((rr__phase_id)p));
	rr__buf_printf(buf, " best %s | best phase |\n|---|---|---:|",
	               rr__results_report(results)->bandwidth_unit);
	for (int p = 0; p < RR__PHASE_COUNT; p++)
		if (used[p])
			rr__buf_printf(buf, "---:|");
	rr__buf_printf(buf, "---:|---|\n");
	for (int c = 0; c < RR__CEILING_COUNT; c++) {
		const rr__ceiling_result *ceiling = &results->ceilings[c];
		rr__buf_printf(buf, "| %s | ", rr__ceiling_name((rr__ceiling_id)c));
		if (!ceiling->measured) {
			rr__buf_printf(buf, "not measured: ");
			cell_text(buf, ceiling->error);
			rr__buf_printf(buf, " | |");
			for (int p = 0; p < RR__PHASE_COUNT; p++)
				if (used[p])
					rr__buf_printf(buf, " |");
			rr__buf_printf(buf, " | |\n");
			continue;
		}
		cell_text(buf, ceiling->description);
		rr__buf_printf(buf, " | %lld |", (long long)ceiling->bytes);
		for (int p = 0; p < RR__PHASE_COUNT; p++)
			if (used[p])
				phase_cell(buf, &ceiling->phases[p]);
		double best_tbps;
		int best = rr__ceiling_best(ceiling, &best_tbps);
		if (best >= 0)
			rr__buf_printf(buf, " %.3g | %s |\n",
			               rr__report_bandwidth(rr__results_report(results), best_tbps),
			               rr__phase_name((rr__phase_id)best));
		else
			rr__buf_printf(buf, " — | — |\n");
	}
	rr__buf_printf(buf, "\n");
}

/* Output elements within tolerance / compared, over every buffer set (run counts one set). */
static void validated_cell(rr__buf *buf, const rr__row_result *row)
{
	rr__buf_printf(buf, " %lld/%lld", (long long)row->validation.validated,
	               (long long)row->validation.total);
	if (row->buffer_sets > 1)
		rr__buf_printf(buf, " (%d buffer sets)", row->buffer_sets);
	rr__buf_printf(buf, " |\n");
}

static void row_line(rr__buf *buf, const rr__row_result *row, const int used[],
                     rr__phase_id headline, const rr__backend_report *report)
{
	rr__buf_printf(buf, "| %s | %s | %lldx%lld | `%s` |", row->kernel,
	               rr_dtype_name(row->dtype), (long long)row->rows, (long long)row->cols,
	               row->plan[0] ? row->plan : "-");
	if (row->state != RR_ROW_MEASURED) {
		const rr__validation_summary *v = &row->validation;
		rr__buf failure = {0};
		if (row->state == RR_ROW_INVALID)
			rr__buf_printf(&failure,
			               "INVALID, not timed: output %s set %d row %lld col %lld got "
			               "%.9g, expected %.9g (tolerance %.3g)",
			               v->failed_output, v->failed_set, (long long)v->failed_row,
			               (long long)v->failed_col, v->failed_got, v->failed_expected,
			               v->failed_tolerance);
		else
			rr__buf_printf(&failure, "ERROR, not timed: %s", row->error);
		rr__buf_printf(buf, " ");
		cell_text(buf, failure.data ? failure.data : "");
		rr__buf_free(&failure);
		rr__buf_printf(buf, " |");
		int cells = 0;
		for (int p = 0; p < RR__PHASE_COUNT; p++)
			cells += used[p];
		for (int c = 1; c < cells; c++)
			rr__buf_printf(buf, " |");
		rr__buf_printf(buf, " | |");
		validated_cell(buf, row);
		return;
	}
	for (int p = 0; p < RR__PHASE_COUNT; p++)
		if (used[p])
			phase_cell(buf, &row->phases[p]);
	const rr__phase_result *main_phase = &row->phases[headline];
	if (main_phase->available)
		rr__buf_printf(buf, " %.3g |", rr__report_bandwidth(report, main_phase->tbps));
	else
		rr__buf_printf(buf, " — |");
	if (main_phase->available && main_phase->fraction >= 0)
		rr__buf_printf(buf, " %.3g (%s) |", main_phase->fraction,
		               rr__ceiling_name(row->ceiling));
	else
		rr__buf_printf(buf, " — |");
	validated_cell(buf, row);
}

static void results_table(rr__buf *buf, const rr__results *results, const int used[])
{
	rr__phase_id headline = rr__results_headline_phase(results);
	int any = 0;
	for (int p = 0; p < RR__PHASE_COUNT; p++)
		any |= used[p];
	int used_fixed[RR__PHASE_COUNT];
	memcpy(used_fixed, used, sizeof used_fixed);
	if (!any)
		used_fixed[headline] = 1; /* keep the table's shape when nothing was timed */
	rr__buf_printf(buf, "## Results\n\n| kernel | dtype | MxN | plan |");
	for (int p = 0; p < RR__PHASE_COUNT; p++)
		if (used_fixed[p])
			rr__buf_printf(buf, " %s |", rr__phase_name((rr__phase_id)p));
	rr__buf_printf(buf, " %s (%s) | of ceiling | validated elements |\n|---|---|---|---|",
	               rr__results_report(results)->bandwidth_unit, rr__phase_name(headline));
	for (int p = 0; p < RR__PHASE_COUNT; p++)
		if (used_fixed[p])
			rr__buf_printf(buf, "---:|");
	rr__buf_printf(buf, "---:|---:|---:|\n");
	for (int i = 0; i < results->n_rows; i++)
		row_line(buf, &results->rows[i], used_fixed, headline, rr__results_report(results));
	int valid = 0;
	for (int i = 0; i < results->n_rows; i++)
		valid += results->rows[i].state == RR_ROW_MEASURED;
	rr__buf_printf(buf,
	               "\n%d of %d configurations validated in full against the float64 "
	               "reference and timed.\n",
	               valid, results->n_rows);
}

rr_status rr__results_format_md(const rr__results *results, rr__buf *buf)
{
	int used[RR__PHASE_COUNT];
	used_phases(results, used);
	header(buf, results);
	results_table(buf, results, used);
	rr__buf_printf(buf, "\n");
	ceilings_table(buf, results, used);
	if (buf->failed)
		return rr__fail(RR_ERR_NOMEM, "out of memory formatting results.md");
	return RR_OK;
}

rr_status rr__results_write_md(const rr__results *results, const char *path)
{
	rr__buf buf = {0};
	rr_status status = rr__results_format_md(results, &buf);
	if (status == RR_OK)
		status = rr__write_file_atomic(path, buf.data ? buf.data : "", buf.length);
	rr__buf_free(&buf);
	return status;
}

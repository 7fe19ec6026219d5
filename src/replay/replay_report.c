/* The replay's statistics and its results.md, both from the results.json tree: per side and
 * phase the median of per-round medians, per workload the median of paired per-round ratios,
 * their range, an optional bootstrap interval and a verdict that never calls a range reaching
 * 1.0 a win. The replay writes what this computes; verify recomputes it on a copy. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/replay.h"

/* ---------------------------------------------------------------- small tree helpers */

static json_t *number(double value)
{
	return isfinite(value) ? json_real(value) : json_null();
}

static json_t *numbers(const double *values, size_t n)
{
	json_t *array = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(array, number(values[i]));
	return array;
}

/* Reads an array of numbers into a new buffer of *n values; NULL when it is not one. */
static double *read_numbers(const json_t *array, size_t *n)
{
	*n = json_array_size(array);
	double *values = malloc((*n ? *n : 1) * sizeof *values);
	for (size_t i = 0; values && i < *n; i++) {
		const json_t *v = json_array_get(array, i);
		if (!json_is_number(v)) {
			free(values);
			return NULL;
		}
		values[i] = json_number_value(v);
	}
	return json_is_array(array) ? values : (free(values), NULL);
}

static json_int_t integer_at(const json_t *object, const char *key)
{
	return json_integer_value(json_object_get(object, key));
}

/* ---------------------------------------------------------------- statistics */

/* One side's phase: round_p50_us and median_of_round_p50s_us from samples_us. */
static rr_status summarize_side_phase(json_t *phase, const char *where)
{
	if (!json_is_true(json_object_get(phase, "available")))
		return RR_OK;
	json_int_t rounds = integer_at(phase, "rounds");
	json_int_t per_round = integer_at(phase, "samples_per_round");
	size_t n = 0;
	double *samples = read_numbers(json_object_get(phase, "samples_us"), &n);
	if (!samples || rounds < 1 || per_round < 1 || (size_t)(rounds * per_round) != n) {
		free(samples);
		return rr__fail(RR_ERR_PARSE,
		                "%s: samples_us holds %zu samples, not rounds x samples_per_round "
		                "(%lld x %lld)",
		                where, n, (long long)rounds, (long long)per_round);
	}
	double *p50s = malloc((size_t)rounds * sizeof *p50s);
	if (!p50s) {
		free(samples);
		return rr__fail(RR_ERR_NOMEM, "out of memory for round medians");
	}
	double median = rr__stats_round_p50s(samples, (size_t)rounds, (size_t)per_round, p50s);
	json_object_set_new(phase, "round_p50_us", numbers(p50s, (size_t)rounds));
	json_object_set_new(phase, "median_of_round_p50s_us", number(median));
	free(samples);
	free(p50s);
	return RR_OK;
}

static const char *verdict(double low, double high)
{
	if (low > 1)
		return "candidate faster";
	if (high < 1)
		return "reference faster";
	return "not demonstrated";
}

typedef struct bootstrap_protocol {
	json_int_t resamples;
	double confidence;
	uint64_t seed;
} bootstrap_protocol;

/* A workload's phase: paired per-round ratios (reference / candidate time), their median,
 * range, bootstrap interval and verdict. */
static rr_status summarize_pair(json_t *entry, const json_t *reference, const json_t *candidate,
                                const bootstrap_protocol *bootstrap)
{
	int available = json_is_true(json_object_get(reference, "available")) &&
	                json_is_true(json_object_get(candidate, "available"));
	json_object_clear(entry);
	json_object_set_new(entry, "available", json_boolean(available));
	if (!available)
		return RR_OK;
	size_t na = 0, nb = 0;
	double *a = read_numbers(json_object_get(reference, "round_p50_us"), &na);
	double *b = read_numbers(json_object_get(candidate, "round_p50_us"), &nb);
	double *ratios = malloc((na ? na : 1) * sizeof *ratios);
	rr_status status = RR_OK;
	if (!a || !b || !ratios || na != nb || na == 0) {
		status = rr__fail(RR_ERR_PARSE, "the two sides do not hold the same rounds");
		goto done;
	}
	double median = rr__stats_paired_ratio(a, b, na, ratios);
	double low = rr__stats_min(ratios, na), high = rr__stats_max(ratios, na);
	json_object_set_new(
	    entry, "reference_us",
	    number(json_number_value(json_object_get(reference, "median_of_round_p50s_us"))));
	json_object_set_new(
	    entry, "candidate_us",
	    number(json_number_value(json_object_get(candidate, "median_of_round_p50s_us"))));
	json_object_set_new(entry, "ratios", numbers(ratios, na));
	json_object_set_new(entry, "ratio_median", number(median));
	json_object_set_new(entry, "ratio_min", number(low));
	json_object_set_new(entry, "ratio_max", number(high));
	json_t *interval = json_null();
	if (bootstrap->resamples > 0) {
		double lo = 0, hi = 0;
		status =
		    rr__stats_bootstrap_median(ratios, na, (size_t)bootstrap->resamples,
		                               bootstrap->confidence, bootstrap->seed, &lo, &hi);
		if (status != RR_OK)
			goto done;
		interval = json_pack("{s:o, s:o}", "lo", number(lo), "hi", number(hi));
	}
	json_object_set_new(entry, "bootstrap", interval);
	json_object_set_new(entry, "verdict", json_string(verdict(low, high)));
done:
	free(a);
	free(b);
	free(ratios);
	return status;
}

static bootstrap_protocol read_bootstrap(const json_t *root)
{
	const json_t *b = json_object_get(json_object_get(root, "protocol"), "bootstrap");
	bootstrap_protocol p = {0, 0.95, 1};
	if (json_is_object(b)) {
		p.resamples = integer_at(b, "resamples");
		p.confidence = json_number_value(json_object_get(b, "confidence"));
		p.seed = (uint64_t)integer_at(b, "seed");
	}
	return p;
}

static rr_status summarize_rows(json_t *rows)
{
	for (size_t i = 0; i < json_array_size(rows); i++) {
		json_t *phases = json_object_get(json_array_get(rows, i), "phases");
		const char *name;
		json_t *phase;
		json_object_foreach(phases, name, phase)
		{
			char where[96];
			snprintf(where, sizeof where, "rows[%zu].phases.%s", i, name);
			rr_status status = summarize_side_phase(phase, where);
			if (status != RR_OK)
				return status;
		}
	}
	return RR_OK;
}

rr_status rr__replay_summarize(json_t *root)
{
	json_t *rows = json_object_get(root, "rows");
	json_t *replay = json_object_get(root, "replay");
	const char *headline = json_string_value(json_object_get(replay, "headline_phase"));
	json_t *workloads = json_object_get(replay, "workloads");
	bootstrap_protocol bootstrap = read_bootstrap(root);
	rr_status status = summarize_rows(rows);
	int counts[4] = {0, 0, 0, 0}; /* candidate faster, reference faster, neither, unmeasured */
	for (size_t w = 0; status == RR_OK && w < json_array_size(workloads); w++) {
		json_t *workload = json_array_get(workloads, w);
		const json_t *sides[2];
		for (int s = 0; s < 2; s++) {
			json_int_t row = integer_at(
			    json_object_get(workload, s ? "candidate" : "reference"), "row");
			sides[s] = json_object_get(json_array_get(rows, (size_t)row), "phases");
		}
		json_t *phases = json_object_get(workload, "phases");
		if (!json_is_object(phases) || !sides[0] || !sides[1])
			return rr__fail(RR_ERR_PARSE, "replay.workloads[%zu] names no rows to pair",
			                w);
		for (int p = 0; status == RR_OK && p < RR__PHASE_COUNT; p++) {
			const char *name = rr__phase_name((rr__phase_id)p);
			json_t *entry = json_object();
			status = summarize_pair(entry, json_object_get(sides[0], name),
			                        json_object_get(sides[1], name), &bootstrap);
			json_object_set_new(phases, name, entry);
		}
		const char *v = json_string_value(
		    json_object_get(json_object_get(phases, headline ? headline : ""), "verdict"));
		counts[!v                                   ? 3
		       : strcmp(v, "candidate faster") == 0 ? 0
		       : strcmp(v, "reference faster") == 0 ? 1
		                                            : 2]++;
	}
	json_t *summary = json_object_get(root, "summary");
	if (status == RR_OK && json_is_object(summary)) {
		json_object_set_new(summary, "workloads",
		                    json_integer((json_int_t)json_array_size(workloads)));
		json_object_set_new(summary, "candidate_faster", json_integer(counts[0]));
		json_object_set_new(summary, "reference_faster", json_integer(counts[1]));
		json_object_set_new(summary, "not_demonstrated", json_integer(counts[2]));
		json_object_set_new(summary, "not_measured", json_integer(counts[3]));
		json_object_set_new(
		    summary, "skipped",
		    json_integer((json_int_t)json_array_size(json_object_get(replay, "skipped"))));
	}
	return status;
}

/* ---------------------------------------------------------------- results.md */

static const char *text_at(const json_t *object, const char *key)
{
	const char *text = json_string_value(json_object_get(object, key));
	return text ? text : "";
}

static void format_us(char *out, size_t size, double us)
{
	const char *format = us >= 1000 ? "%.0f" : us >= 100 ? "%.1f" : us >= 10 ? "%.2f" : "%.3f";
	snprintf(out, size, format, us);
}

static void header(rr__buf *buf, const json_t *root)
{
	const json_t *replay = json_object_get(root, "replay");
	const json_t *protocol = json_object_get(root, "protocol");
	const json_t *versions = json_object_get(root, "versions");
	rr__buf_printf(buf, "# rowreduce replay\n\n- command: `%s`\n",
	               text_at(root, "command_line"));
	rr__buf_printf(buf, "- started %s on `%s`, took %.1f s; rowreduce %s (commit %s)\n",
	               text_at(root, "start_time"), text_at(root, "host"),
	               json_number_value(json_object_get(root, "wall_seconds")),
	               text_at(versions, "rowreduce"), text_at(versions, "git_commit"));
	rr__buf_printf(buf, "- device: %s; backend %s\n",
	               text_at(json_object_get(root, "device"), "description"),
	               text_at(root, "backend"));
	const char *sides[] = {"reference", "candidate"};
	for (int s = 0; s < 2; s++) {
		const json_t *side = json_object_get(replay, sides[s]);
		rr__buf_printf(
		    buf, "- %s (%s): `%s`, measured %s, copied to `%s` (SHA-256 %.16s…)\n",
		    sides[s], s ? "B" : "A", text_at(side, "path"), text_at(side, "start_time"),
		    text_at(side, "copy"), text_at(side, "sha256"));
	}
	const json_t *l2 = json_object_get(protocol, "l2");
	const json_t *workloads = json_object_get(replay, "workloads");
	json_int_t blocks = 0;
	for (size_t w = 0; w < json_array_size(workloads); w++)
		if (integer_at(json_array_get(workloads, w), "block") + 1 > blocks)
			blocks = integer_at(json_array_get(workloads, w), "block") + 1;
	rr__buf_printf(
	    buf,
	    "- protocol: %lld rounds, each running every workload of a block (%lld block(s): "
	    "workloads whose buffers fit in memory together) before the next round; a workload's "
	    "two sides ran as ABBA (even rounds) or BAAB (odd rounds), each position %lld samples "
	    "per phase of about %g ms after %g ms of warm-up; L2 %s; plans frozen from the "
	    "inputs\n",
	    (long long)integer_at(protocol, "rounds"), (long long)blocks,
	    (long long)integer_at(protocol, "samples"),
	    json_number_value(json_object_get(protocol, "sample_ms")),
	    json_number_value(json_object_get(protocol, "warmup_ms")), text_at(l2, "mode"));
	const json_t *limit = json_object_get(protocol, "time_limit_s");
	const json_t *requested = json_object_get(protocol, "rounds_requested");
	if (json_is_number(limit))
		rr__buf_printf(buf,
		               "- time limit: %g s; %lld of %lld requested rounds ran (workloads a "
		               "limit left out are listed as not replayed)\n",
		               json_number_value(limit), (long long)integer_at(protocol, "rounds"),
		               (long long)json_integer_value(requested));
	size_t differences = json_array_size(json_object_get(replay, "differences"));
	if (differences)
		rr__buf_printf(
		    buf,
		    "- rebuilt with --allow-rebuild: %zu recorded hash(es) differ from this "
		    "build (listed in results.json, replay.differences)\n",
		    differences);
	else
		rr__buf_printf(buf, "- every kernel text, generated source and library hash equals "
		                    "the recorded one\n");
	rr__buf_printf(buf, "- µs per operation: the median over rounds of each round's median; "
	                    "speed-up = reference µs / candidate µs paired per round, median "
	                    "[min–max] over the rounds; a range that reaches 1.0 is \"not "
	                    "demonstrated\", never a win\n\n");
}

static void ratio_cell(rr__buf *buf, const json_t *entry)
{
	rr__buf_printf(buf, " %.3f [%.3f–%.3f] |",
	               json_number_value(json_object_get(entry, "ratio_median")),
	               json_number_value(json_object_get(entry, "ratio_min")),
	               json_number_value(json_object_get(entry, "ratio_max")));
}

static void workload_line(rr__buf *buf, const json_t *root, const json_t *workload,
                          const char *phase, int bootstrap)
{
	const json_t *rows = json_object_get(root, "rows");
	const json_t *side_rows[2];
	for (int s = 0; s < 2; s++)
		side_rows[s] = json_array_get(
		    rows, (size_t)integer_at(
		              json_object_get(workload, s ? "candidate" : "reference"), "row"));
	rr__buf_printf(buf, "| %s | %s | %lldx%lld | `%s` | `%s` |", text_at(workload, "kernel"),
	               text_at(workload, "dtype"), (long long)integer_at(workload, "M"),
	               (long long)integer_at(workload, "N"), text_at(side_rows[0], "plan"),
	               text_at(side_rows[1], "plan"));
	const json_t *entry = json_object_get(json_object_get(workload, "phases"), phase);
	if (json_is_true(json_object_get(entry, "available"))) {
		char a[32], b[32];
		format_us(a, sizeof a, json_number_value(json_object_get(entry, "reference_us")));
		format_us(b, sizeof b, json_number_value(json_object_get(entry, "candidate_us")));
		rr__buf_printf(buf, " %s | %s |", a, b);
		ratio_cell(buf, entry);
		const json_t *interval = json_object_get(entry, "bootstrap");
		if (bootstrap && json_is_object(interval))
			rr__buf_printf(buf, " %.3f–%.3f |",
			               json_number_value(json_object_get(interval, "lo")),
			               json_number_value(json_object_get(interval, "hi")));
		else if (bootstrap)
			rr__buf_printf(buf, " — |");
		rr__buf_printf(buf, " %s |", text_at(entry, "verdict"));
	} else {
		rr__buf_printf(buf, " — | — | — |%s not measured |", bootstrap ? " — |" : "");
	}
	for (int s = 0; s < 2; s++) {
		const json_t *v = json_object_get(side_rows[s], "validation");
		rr__buf_printf(buf, "%s%lld/%lld", s ? " · " : " ",
		               (long long)integer_at(v, "validated"),
		               (long long)integer_at(v, "total"));
	}
	rr__buf_printf(buf, " |\n");
}

static void phase_table(rr__buf *buf, const json_t *root, const char *phase, int bootstrap)
{
	const json_t *workloads = json_object_get(json_object_get(root, "replay"), "workloads");
	int any = 0;
	for (size_t w = 0; w < json_array_size(workloads); w++)
		any |= json_is_true(json_object_get(
		    json_object_get(json_object_get(json_array_get(workloads, w), "phases"), phase),
		    "available"));
	if (!any)
		return;
	rr__buf_printf(buf,
	               "## Phase %s\n\n| kernel | dtype | MxN | reference plan | candidate plan | "
	               "reference %s µs | candidate %s µs | %s speed-up [min–max] |",
	               phase, phase, phase, phase);
	if (bootstrap)
		rr__buf_printf(buf, " %s bootstrap interval |", phase);
	rr__buf_printf(
	    buf, " %s verdict | validated (A · B) |\n|---|---|---|---|---|---:|---:|---:|", phase);
	rr__buf_printf(buf, "%s---|---:|\n", bootstrap ? "---:|" : "");
	for (size_t w = 0; w < json_array_size(workloads); w++)
		workload_line(buf, root, json_array_get(workloads, w), phase, bootstrap);
	rr__buf_printf(buf, "\n");
}

static void skipped_table(rr__buf *buf, const json_t *replay)
{
	const json_t *skipped = json_object_get(replay, "skipped");
	if (json_array_size(skipped) == 0)
		return;
	rr__buf_printf(buf,
	               "## Not replayed\n\n| kernel | dtype | MxN | why |\n|---|---|---|---|\n");
	for (size_t i = 0; i < json_array_size(skipped); i++) {
		const json_t *s = json_array_get(skipped, i);
		rr__buf_printf(buf, "| %s | %s | %lldx%lld | %s |\n", text_at(s, "kernel"),
		               text_at(s, "dtype"), (long long)integer_at(s, "M"),
		               (long long)integer_at(s, "N"), text_at(s, "reason"));
	}
	rr__buf_printf(buf, "\n");
}

rr_status rr__replay_format_md(const json_t *root, rr__buf *buf)
{
	const json_t *replay = json_object_get(root, "replay");
	const char *headline = text_at(replay, "headline_phase");
	int bootstrap = integer_at(json_object_get(json_object_get(root, "protocol"), "bootstrap"),
	                           "resamples") > 0;
	header(buf, root);
	const json_t *summary = json_object_get(root, "summary");
	rr__buf_printf(buf,
	               "%lld workloads replayed; in the %s phase the candidate is faster in %lld, "
	               "the reference in %lld, neither is demonstrated in %lld, %lld could not be "
	               "measured; %lld not replayed.\n\n",
	               (long long)integer_at(summary, "workloads"), headline,
	               (long long)integer_at(summary, "candidate_faster"),
	               (long long)integer_at(summary, "reference_faster"),
	               (long long)integer_at(summary, "not_demonstrated"),
	               (long long)integer_at(summary, "not_measured"),
	               (long long)integer_at(summary, "skipped"));
	phase_table(buf, root, headline, bootstrap);
	for (int p = 0; p < RR__PHASE_COUNT; p++)
		if (strcmp(rr__phase_name((rr__phase_id)p), headline) != 0)
			phase_table(buf, root, rr__phase_name((rr__phase_id)p), bootstrap);
	skipped_table(buf, replay);
	if (buf->failed)
		return rr__fail(RR_ERR_NOMEM, "out of memory formatting the replay's results.md");
	return RR_OK;
}

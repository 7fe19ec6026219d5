/* A results set through the public API (rr_bench, rowreduce_measure.h): the run's provenance,
 * the ceilings, each benchmarked program (with its source captured on request) or build error,
 * and the three files written at the end. What `rowreduce bench` drives. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/measure.h"

struct rr_bench {
	rr_device *device;
	rr__bench_options options;
	rr__results results;
	double start;
};

rr_status rr_bench_prepare_dir(const char *dir, int sources)
{
	char path[4200];
	if (!dir || !*dir)
		return rr__fail(RR_ERR_INVALID_ARG, "no results folder given");
	rr_status status = rr__mkdir_p(dir);
	if (status != RR_OK)
		return rr__fail_context(status, "'%s' cannot be used", dir);
	snprintf(path, sizeof path, "%s/.rowreduce-write-probe", dir);
	status = rr__write_file_atomic(path, "", 0);
	if (status != RR_OK)
		return rr__fail_context(status, "'%s' is not writable", dir);
	unlink(path);
	snprintf(path, sizeof path, "%s/sources", dir);
	if (sources && (status = rr__mkdir_p(path)) != RR_OK)
		return rr__fail_context(status, "cannot create '%s'", path);
	return RR_OK;
}

rr_status rr_bench_open(rr_device *device, const rr_bench_options *options, int argc, char **argv,
                        rr_bench **out)
{
	if (!device || !options || !out || options->samples < 1)
		return rr__fail(RR_ERR_INVALID_ARG,
		                "rr_bench_open needs a device, options with samples >= 1 and an "
		                "output");
	rr_bench *bench = calloc(1, sizeof *bench);
	if (!bench)
		return rr__fail(RR_ERR_NOMEM, "out of memory for a results set");
	bench->device = device;
	bench->start = rr__now();
	bench->options = (rr__bench_options){.measure = {.samples = options->samples,
	                                                 .sample_ms = options->sample_ms,
	                                                 .warmup_ms = options->warmup_ms,
	                                                 .on_phase = options->on_phase,
	                                                 .on_phase_context = options->context},
	                                     .l2_cold = options->cold != 0,
	                                     .l2_bytes = rr__bench_l2_bytes(device),
	                                     .seed = options->seed};
	rr__run_info *info = &bench->results.info;
	rr__run_info_collect(info, device, argc, argv);
	info->samples = options->samples;
	info->sample_ms = options->sample_ms;
	info->warmup_ms = options->warmup_ms;
	info->seed = options->seed;
	info->l2_cold = bench->options.l2_cold;
	info->l2_bytes_used = bench->options.l2_bytes;
	snprintf(info->plan_request, sizeof info->plan_request, "%s",
	         options->plan ? options->plan : "auto");
	*out = bench;
	return RR_OK;
}

void rr_bench_ceilings(rr_bench *bench)
{
	bench->results.info.ceilings_requested = 1;
	rr__bench_ceilings(bench->device, &bench->options, bench->results.ceilings);
}

const char *rr_bench_ceiling_error(const rr_bench *bench, int i, const char **name)
{
	if (i < 0 || i >= RR__CEILING_COUNT)
		return "no such ceiling";
	if (name)
		*name = rr__ceiling_name((rr__ceiling_id)i);
	const rr__ceiling_result *ceiling = &bench->results.ceilings[i];
	if (!bench->results.info.ceilings_requested)
		return "not requested";
	return ceiling->measured ? NULL : ceiling->error;
}

static void outcome(const rr__row_result *r, rr_bench_row *row)
{
	if (!row)
		return;
	memset(row, 0, sizeof *row);
	row->state = r->state == RR_ROW_MEASURED  ? RR_BENCH_MEASURED
	             : r->state == RR_ROW_INVALID ? RR_BENCH_INVALID
	                                          : RR_BENCH_ERROR;
	snprintf(row->error, sizeof row->error, "%s", r->error);
	const rr__validation_summary *v = &r->validation;
	snprintf(row->failed_output, sizeof row->failed_output, "%s", v->failed_output);
	row->failed_set = v->failed_set;
	row->failed_row = v->failed_row;
	row->failed_col = v->failed_col;
	row->failed_got = v->failed_got;
	row->failed_expected = v->failed_expected;
	row->failed_tolerance = v->failed_tolerance;
}

/* capture_dir/sources/<kernel>-<dtype>-<M>x<N>.<suffix>, recorded relative to capture_dir. */
static void capture_source(rr_bench *bench, const char *capture_dir, rr_program *program,
                           rr__row_result *row)
{
	char path[4400];
	snprintf(row->source_file, sizeof row->source_file, "sources/%s-%s-%lldx%lld.%s",
	         row->kernel, rr_dtype_name(row->dtype), (long long)row->rows, (long long)row->cols,
	         bench->device->ops->report.source_suffix);
	snprintf(path, sizeof path, "%s/%s", capture_dir, row->source_file);
	const char *source = rr_program_source(program);
	if (rr__write_file_atomic(path, source, strlen(source)) != RR_OK) {
		fprintf(stderr, "rowreduce: %s\n", rr_last_error());
		row->source_file[0] = 0;
	}
}

rr_status rr_bench_program(rr_bench *bench, rr_program *program, int64_t rows,
                           const char *capture_dir, rr_bench_row *row)
{
	if (!bench || !program || rows < 1)
		return rr__fail(RR_ERR_INVALID_ARG,
		                "rr_bench_program needs a program and rows >= 1");
	rr__row_result *r = rr__results_add_row(&bench->results);
	if (!r)
		return RR_ERR_NOMEM;
	rr_status status = rr__bench_program(bench->device, program, rows, &bench->options, r);
	if (capture_dir)
		capture_source(bench, capture_dir, program, r);
	outcome(r, row);
	return status;
}

rr_status rr_bench_add_error(rr_bench *bench, const rr_kernel *kernel, rr_dtype dtype, int64_t rows,
                             int64_t cols, const char *message)
{
	rr__row_result *r = rr__results_add_row(&bench->results);
	if (!r)
		return RR_ERR_NOMEM;
	snprintf(r->kernel, sizeof r->kernel, "%s", rr_kernel_name(kernel));
	snprintf(r->kernel_hash, sizeof r->kernel_hash, "%s", rr_kernel_source_hash(kernel));
	r->dtype = dtype;
	r->rows = rows;
	r->cols = cols;
	r->bytes_min = rr__bytes_min(kernel, dtype, rows, cols);
	r->ceiling = rr__kernel_writes_row(kernel) ? RR_CEILING_COPY : RR_CEILING_READ;
	r->state = RR_ROW_ERROR;
	snprintf(r->error, sizeof r->error, "%s", message ? message : "");
	for (int p = 0; p < RR__PHASE_COUNT; p++)
		rr__phase_result_unavailable(&r->phases[p], "not built");
	return RR_OK;
}

rr_status rr_bench_write(rr_bench *bench, const char *dir)
{
	char path[4200];
	const char *names[] = {"results.json", "results.md", "plot.svg"};
	rr_status (*writers[])(const rr__results *, const char *) = {
	    rr__results_write_json, rr__results_write_md, rr__results_write_svg};
	bench->results.info.wall_seconds = rr__now() - bench->start;
	rr__results_apply_ceilings(&bench->results);
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		rr_status status = writers[i](&bench->results, path);
		if (status != RR_OK)
			return status;
	}
	return RR_OK;
}

void rr_bench_close(rr_bench *bench)
{
	if (!bench)
		return;
	rr__results_free(&bench->results);
	free(bench);
}

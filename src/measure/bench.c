/* Benchmarking one configuration end to end: buffer sets (one, or rotated past twice the L2),
 * poisoned outputs, validation of every set in full against the float64 reference, then the
 * timing phases; and the two ceilings (the backend's copy and a read-only pass) of the same run.
 * What the ceilings are and how they are worded is the backend's report (backend.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/measure.h"
#include "validate/validate.h"

#define SET_ALIGN 256               /* every buffer of every set starts on this boundary */
#define MAX_SETS ((int64_t)1 << 18) /* bounds the rotation for tiny shapes */
#define FALLBACK_CACHE_BYTES ((int64_t)64 << 20)

/* ---------------------------------------------------------------- bytes and sizes */

int64_t rr__bytes_min(const rr_kernel *kernel, rr_dtype dtype, int64_t rows, int64_t cols)
{
	int64_t element = (int64_t)rr_dtype_size(dtype), total = 0;
	for (int k = 0; k < rr_kernel_num_inputs(kernel); k++) {
		rr_io_info io;
		if (rr_kernel_input(kernel, k, &io) != RR_OK)
			continue;
		switch (io.kind) {
		case RR_KIND_ROW:
			total += rows * cols * element;
			break;
		case RR_KIND_COL:
			total += cols * element;
			break; /* read once, not once per row */
		case RR_KIND_ROWSCALAR:
			total += rows * element;
			break;
		case RR_KIND_INDEX:
			total += rows * (int64_t)rr_dtype_size(RR_I64);
			break;
		case RR_KIND_PARAM:
			break;
		}
	}
	for (int j = 0; j < rr_kernel_num_outputs(kernel); j++) {
		rr_io_info io;
		if (rr_kernel_output(kernel, j, &io) != RR_OK)
			continue;
		total += (io.kind == RR_KIND_ROW ? rows * cols : rows) * element;
	}
	return total;
}

int rr__kernel_writes_row(const rr_kernel *kernel)
{
	for (int j = 0; j < rr_kernel_num_outputs(kernel); j++) {
		rr_io_info io;
		if (rr_kernel_output(kernel, j, &io) == RR_OK && io.kind == RR_KIND_ROW)
			return 1;
	}
	return 0;
}

int64_t rr__bench_l2_bytes(rr_device *device)
{
	rr__device_properties properties;
	int64_t fixed = device->ops->report.cold_cache_bytes;
	if (fixed > 0)
		return fixed;
	if (device->ops->properties && device->ops->properties(device, &properties) == RR_OK &&
	    properties.l2_bytes > 0)
		return properties.l2_bytes;
	rr__clear_error();
	return FALLBACK_CACHE_BYTES; /* a device that does not say */
}

static size_t align_up(size_t bytes)
{
	return (bytes + SET_ALIGN - 1) / SET_ALIGN * SET_ALIGN;
}

/* ---------------------------------------------------------------- buffer sets */

typedef struct buffer_sets {
	rr_device *device;
	rr_program *program;
	const rr_kernel *kernel;
	int64_t rows, cols;
	int64_t sets;
	rr__host_inputs host;
	char *input_base[RR_MAX_IO]; /* NULL for params */
	size_t input_stride[RR_MAX_IO];
	char *output_base[RR_MAX_IO];
	size_t output_bytes[RR_MAX_IO], output_stride[RR_MAX_IO];
	rr_arg args[RR_MAX_IO]; /* rewritten for every launch: launches copy their arguments */
	void *outputs[RR_MAX_IO];
} buffer_sets;

static void sets_free(buffer_sets *b)
{
	for (int k = 0; k < RR_MAX_IO; k++) {
		rr_device_free(b->device, b->input_base[k]);
		rr_device_free(b->device, b->output_base[k]);
	}
	rr__inputs_free(&b->host);
}

/* One device allocation of `sets` strides filled from `host` (each stride a copy of `bytes`
 * of it), or, when host is NULL, poisoned with the dtype's NaN pattern. */
static rr_status upload_replicated(buffer_sets *b, char **base, size_t stride, const void *host,
                                   size_t bytes, rr_dtype dtype)
{
	size_t total = stride * (size_t)b->sets;
	rr_status status = rr_device_alloc(b->device, total, (void **)base);
	if (status != RR_OK)
		return rr__fail_context(status, "cannot allocate %lld buffer sets (%zu bytes)",
		                        (long long)b->sets, total);
	char *staging = calloc(1, total);
	if (!staging)
		return rr__fail(RR_ERR_NOMEM, "out of host memory staging %zu bytes", total);
	for (int64_t s = 0; s < b->sets; s++) {
		if (host)
			memcpy(staging + (size_t)s * stride, host, bytes);
		else
			rr__poison(staging + (size_t)s * stride, dtype,
			           (int64_t)(bytes / rr_dtype_size(dtype)));
	}
	status = rr_device_upload(b->device, *base, staging, total);
	free(staging);
	return status;
}

static rr_status sets_create(buffer_sets *b, uint64_t seed)
{
	const rr_kernel *kernel = b->kernel;
	rr_status status =
	    rr__inputs_make(kernel, b->rows, b->cols, b->program->dtype, seed, NULL, &b->host);
	for (int k = 0; status == RR_OK && k < b->host.count; k++) {
		b->args[k] = b->host.args[k];
		if (!b->host.owned[k])
			continue;
		b->input_stride[k] = align_up(b->host.bytes[k]);
		status =
		    upload_replicated(b, &b->input_base[k], b->input_stride[k], b->host.owned[k],
		                      b->host.bytes[k], b->host.args[k].dtype);
	}
	for (int j = 0; status == RR_OK && j < kernel->n_outputs; j++) {
		b->output_bytes[j] = (size_t)rr__output_elements(kernel, j, b->rows, b->cols) *
		                     rr_dtype_size(b->program->dtype);
		b->output_stride[j] = align_up(b->output_bytes[j]);
		status = upload_replicated(b, &b->output_base[j], b->output_stride[j], NULL,
		                           b->output_bytes[j], b->program->dtype);
	}
	return status;
}

static rr_status launch_set(void *context, int64_t iteration, void *stream)
{
	buffer_sets *b = context;
	int64_t set = iteration % b->sets;
	for (int k = 0; k < b->host.count; k++)
		if (b->input_base[k])
			b->args[k].data = b->input_base[k] + (size_t)set * b->input_stride[k];
	for (int j = 0; j < b->kernel->n_outputs; j++)
		b->outputs[j] = b->output_base[j] + (size_t)set * b->output_stride[j];
	return rr_program_launch(b->program, b->rows, b->args, b->outputs, stream);
}

/* ---------------------------------------------------------------- validation of every set */

static void merge_report(rr__validation_summary *summary, const rr__validation *report, int set)
{
	for (int j = 0; j < report->total; j++) {
		const rr__output_check *check = &report->outputs[j];
		summary->total += check->elements;
		summary->validated += check->elements - check->failures;
		if (check->max_abs_error > summary->max_abs_error)
			summary->max_abs_error = check->max_abs_error;
		if (check->max_rel_error > summary->max_rel_error)
			summary->max_rel_error = check->max_rel_error;
		if (check->failures == 0 || !summary->valid)
			continue;
		summary->valid = 0;
		summary->failed_set = set;
		snprintf(summary->failed_output, sizeof summary->failed_output, "%s", check->name);
		summary->failed_row = check->first_row;
		summary->failed_col = check->first_col;
		summary->failed_got = check->first_got;
		summary->failed_expected = check->first_want;
		summary->failed_tolerance =
		    check->first_allowed; /* the reference's bound included */
	}
}

/* Launches each set once over its poisoned outputs, then compares every element of every set
 * with the reference (the sets hold the same inputs, so one reference serves them all). */
static rr_status validate_sets(buffer_sets *b, rr__validation_summary *summary)
{
	memset(summary, 0, sizeof *summary);
	summary->valid = 1;
	rr_status status = RR_OK;
	for (int64_t s = 0; s < b->sets && status == RR_OK; s++)
		status = launch_set(b, s, NULL);
	if (status == RR_OK)
		status = rr_device_synchronize(b->device);
	if (status != RR_OK)
		return rr__fail_context(status, "while running the validation launches");
	char *host[RR_MAX_IO] = {0};
	for (int j = 0; j < b->kernel->n_outputs && status == RR_OK; j++) {
		size_t total = b->output_stride[j] * (size_t)b->sets;
		host[j] = malloc(total);
		status = host[j]
		             ? rr_device_download(b->device, host[j], b->output_base[j], total)
		             : rr__fail(RR_ERR_NOMEM, "out of host memory for %zu bytes", total);
	}
	for (int64_t s = 0; s < b->sets && status == RR_OK; s++) {
		void *outputs[RR_MAX_IO];
		for (int j = 0; j < b->kernel->n_outputs; j++)
			outputs[j] = host[j] + (size_t)s * b->output_stride[j];
		rr__validation report;
		status = rr__validate_outputs(b->kernel, b->rows, b->cols, b->program->dtype,
		                              &b->host, outputs, NULL, &report);
		if (status == RR_ERR_VALIDATION || status == RR_OK) {
			merge_report(summary, &report, (int)s);
			status = RR_OK;
		}
	}
	for (int j = 0; j < RR_MAX_IO; j++)
		free(host[j]);
	return status;
}

/* ---------------------------------------------------------------- one configuration */

static void describe_row(rr__row_result *row, rr_program *program, int64_t rows)
{
	const rr_kernel *kernel = program->kernel;
	snprintf(row->kernel, sizeof row->kernel, "%s", rr_kernel_name(kernel));
	snprintf(row->kernel_hash, sizeof row->kernel_hash, "%s", rr_kernel_source_hash(kernel));
	row->dtype = program->dtype;
	row->rows = rows;
	row->cols = program->cols;
	rr_layout_format(rr_program_layout(program), row->plan, sizeof row->plan);
	snprintf(row->source_hash, sizeof row->source_hash, "%s", rr_program_source_hash(program));
	snprintf(row->binary_hash, sizeof row->binary_hash, "%s", rr_program_binary_hash(program));
	row->bytes_min = rr__bytes_min(kernel, program->dtype, rows, program->cols);
	row->ceiling = rr__kernel_writes_row(kernel) ? RR_CEILING_COPY : RR_CEILING_READ;
	for (int p = 0; p < RR__PHASE_COUNT; p++)
		rr__phase_result_unavailable(&row->phases[p], "not timed");
}

/* One set, or enough identical sets that the rotation's working set exceeds twice the L2. A set
 * holds exactly the kernel's minimal bytes (each input once, each output once). */
static int64_t choose_sets(int64_t bytes_per_set, const rr__bench_options *options)
{
	if (!options->l2_cold)
		return 1;
	int64_t sets = 2 * options->l2_bytes / (bytes_per_set > 0 ? bytes_per_set : 1) + 1;
	return sets > MAX_SETS ? MAX_SETS : sets;
}

static rr_status row_error(rr__row_result *row, rr_status status)
{
	row->state = RR_ROW_ERROR;
	snprintf(row->error, sizeof row->error, "%s", rr_last_error());
	return status;
}

struct rr__bench_session {
	buffer_sets sets;
	int64_t bytes_min;
};

rr_status rr__bench_session_open(rr_device *device, rr_program *program, int64_t rows,
                                 const rr__bench_options *options, rr__row_result *row,
                                 rr__bench_session **out)
{
	*out = NULL;
	describe_row(row, program, rows);
	rr__bench_session *session = calloc(1, sizeof *session);
	if (!session)
		return row_error(row, rr__fail(RR_ERR_NOMEM, "out of memory for a bench session"));
	buffer_sets *b = &session->sets;
	*b = (buffer_sets){.device = device,
	                   .program = program,
	                   .kernel = program->kernel,
	                   .rows = rows,
	                   .cols = program->cols,
	                   .sets = choose_sets(row->bytes_min, options)};
	session->bytes_min = row->bytes_min;
	row->buffer_sets = (int)b->sets;
	rr_status status = sets_create(b, options->seed);
	row->working_set_bytes = row->bytes_min * b->sets;
	if (status == RR_OK)
		status = validate_sets(b, &row->validation);
	if (status != RR_OK || !row->validation.valid) {
		rr__bench_session_close(session);
		if (status != RR_OK)
			return row_error(row, status);
		row->state = RR_ROW_INVALID;
		for (int p = 0; p < RR__PHASE_COUNT; p++)
			rr__phase_result_unavailable(&row->phases[p],
			                             "not timed: the output failed validation");
		return RR_OK;
	}
	*out = session;
	return RR_OK;
}

rr_status rr__bench_session_measure(rr__bench_session *session, const rr__measure_config *config,
                                    rr__phase_result phases[RR__PHASE_COUNT])
{
	buffer_sets *b = &session->sets;
	rr__workload workload = {.launch = launch_set, .context = b, .rotation = b->sets};
	return rr__measure_phases(b->device, config, &workload, session->bytes_min, phases);
}

void rr__bench_session_close(rr__bench_session *session)
{
	if (!session)
		return;
	sets_free(&session->sets);
	free(session);
}

rr_status rr__bench_program(rr_device *device, rr_program *program, int64_t rows,
                            const rr__bench_options *options, rr__row_result *row)
{
	rr__bench_session *session = NULL;
	rr_status status = rr__bench_session_open(device, program, rows, options, row, &session);
	if (status != RR_OK || !session)
		return status;
	status = rr__bench_session_measure(session, &options->measure, row->phases);
	rr__bench_session_close(session);
	if (status != RR_OK)
		return row_error(row, status);
	row->state = RR_ROW_MEASURED;
	return RR_OK;
}

/* ---------------------------------------------------------------- ceilings */

#define MIN_CEILING_BYTES ((size_t)16 << 20)

/* Finite, non-zero f32 values: untouched host pages would be read from the shared zero page,
 * which is faster than memory. */
static rr_status fill_device(rr_device *device, char *dst, size_t bytes)
{
	size_t chunk = bytes < MIN_CEILING_BYTES ? bytes : MIN_CEILING_BYTES;
	float *staging = malloc(chunk);
	if (!staging)
		return rr__fail(RR_ERR_NOMEM, "out of host memory for %zu bytes", chunk);
	for (size_t i = 0; i < chunk / sizeof(float); i++)
		staging[i] = 1.0f + (float)(i % 1021) * 1e-3f;
	rr_status status = RR_OK;
	for (size_t at = 0; at < bytes && status == RR_OK; at += chunk)
		status = rr_device_upload(device, dst + at, staging,
		                          bytes - at < chunk ? bytes - at : chunk);
	free(staging);
	return status;
}

/* Halves `*bytes` until both buffers together fit in half the device memory and allocate. */
static rr_status alloc_pair(rr_device *device, size_t *bytes, size_t second_bytes_divisor,
                            void **first, void **second)
{
	rr__device_properties properties;
	if (device->ops->properties && device->ops->properties(device, &properties) == RR_OK &&
	    properties.memory_bytes > 0)
		while (*bytes > MIN_CEILING_BYTES &&
		       (int64_t)(*bytes + *bytes / second_bytes_divisor) >
		           properties.memory_bytes / 2)
			*bytes /= 2;
	for (;;) {
		rr_status status = rr_device_alloc(device, *bytes, first);
		if (status == RR_OK) {
			status = rr_device_alloc(device, *bytes / second_bytes_divisor, second);
			if (status == RR_OK)
				return RR_OK;
			rr_device_free(device, *first);
			*first = NULL;
		}
		if (*bytes / 2 < MIN_CEILING_BYTES)
			return rr__fail_context(status, "cannot allocate the ceiling's buffers");
		*bytes /= 2;
	}
}

typedef struct copy_context {
	rr_device *device;
	void *dst, *src;
	size_t bytes;
} copy_context;

static rr_status launch_copy(void *context, int64_t iteration, void *stream)
{
	copy_context *c = context;
	return c->device->ops->copy(c->device, c->dst, c->src, c->bytes, stream);
}

static rr_status measure_copy(rr_device *device, const rr__bench_options *options,
                              rr__ceiling_result *ceiling)
{
	if (!device->ops->copy)
		return rr__fail(RR_ERR_UNSUPPORTED, "the %s backend has no device copy",
		                device->ops->name);
	copy_context c = {.device = device, .bytes = (size_t)device->ops->report.copy_bytes};
	rr_status status = alloc_pair(device, &c.bytes, 1, &c.src, &c.dst);
	if (status == RR_OK)
		status = fill_device(device, c.src, c.bytes);
	ceiling->bytes = 2 * (int64_t)c.bytes;
	snprintf(ceiling->description, sizeof ceiling->description,
	         "%s of %zu MiB (the backend's copy); bytes counted: read + written (2 x %zu MiB)",
	         device->ops->report.copy_words, c.bytes >> 20, c.bytes >> 20);
	rr__workload workload = {.launch = launch_copy, .context = &c};
	if (status == RR_OK)
		status = rr__measure_phases(device, &options->measure, &workload, ceiling->bytes,
		                            ceiling->phases);
	rr_device_free(device, c.src);
	rr_device_free(device, c.dst);
	return status;
}

typedef struct read_context {
	rr_program *program;
	int64_t rows;
	rr_arg input;
	void *output;
} read_context;

static rr_status launch_read(void *context, int64_t iteration, void *stream)
{
	read_context *r = context;
	return rr_program_launch(r->program, r->rows, &r->input, &r->output, stream);
}

typedef struct pass_context {
	rr_device *device;
	void *src;
	size_t bytes;
} pass_context;

static rr_status launch_pass(void *context, int64_t iteration, void *stream)
{
	pass_context *r = context;
	return r->device->ops->read_pass(r->device, r->src, r->bytes, stream);
}

/* The backend's own memory-bound read pass over the read ceiling's matrix size. */
static rr_status measure_read_pass(rr_device *device, const rr__bench_options *options,
                                   rr__ceiling_result *ceiling)
{
	const rr__backend_report *report = &device->ops->report;
	pass_context r = {.device = device,
	                  .bytes = (size_t)(report->read_rows * report->read_cols) * sizeof(float)};
	void *spare = NULL;
	rr_status status = alloc_pair(device, &r.bytes, (size_t)report->read_cols, &r.src, &spare);
	rr_device_free(device, spare); /* the pair's second buffer: the pass writes nothing */
	if (status == RR_OK)
		status = fill_device(device, r.src, r.bytes);
	char how[256] = "";
	device->ops->read_pass_words(device, how, sizeof how);
	ceiling->rows = (int64_t)(r.bytes / sizeof(float)) / report->read_cols;
	ceiling->cols = report->read_cols;
	ceiling->bytes = (int64_t)r.bytes;
	snprintf(ceiling->description, sizeof ceiling->description,
	         "read-only pass over %zu MiB of f32: %.200s; bytes counted: read only",
	         r.bytes >> 20, how);
	rr__workload workload = {.launch = launch_pass, .context = &r};
	if (status == RR_OK)
		status = rr__measure_phases(device, &options->measure, &workload, ceiling->bytes,
		                            ceiling->phases);
	rr_device_free(device, r.src);
	return status;
}

/* The built-in sum (one row input, one row-scalar output) over a large f32 matrix, for
 * backends without a read pass of their own. */
static rr_status measure_read(rr_device *device, const rr__bench_options *options,
                              rr__ceiling_result *ceiling)
{
	if (device->ops->read_pass && device->ops->read_pass_words)
		return measure_read_pass(device, options, ceiling);
	int64_t cols = device->ops->report.read_cols, rows = device->ops->report.read_rows;
	size_t bytes = (size_t)(rows * cols) * sizeof(float);
	rr_kernel *kernel = NULL;
	read_context r = {.input = {.dtype = RR_F32}};
	void *input = NULL;
	rr_status status = rr_kernel_load_builtin("sum", &kernel);
	if (status == RR_OK)
		status = alloc_pair(device, &bytes, (size_t)cols, &input, &r.output);
	r.rows = (int64_t)(bytes / sizeof(float)) / cols;
	r.input.data = input;
	if (status == RR_OK)
		status = fill_device(device, input, bytes);
	if (status == RR_OK)
		status = rr_program_build(device, kernel, RR_F32, r.rows, cols, NULL, &r.program);
	char plan[160] = "";
	if (r.program)
		rr_layout_format(rr_program_layout(r.program), plan, sizeof plan);
	ceiling->rows = r.rows;
	ceiling->cols = cols;
	ceiling->bytes = r.rows * cols * (int64_t)sizeof(float);
	snprintf(
	    ceiling->description, sizeof ceiling->description,
	    "read-only pass: the built-in sum over a %lldx%lld f32 matrix (plan %.150s); bytes "
	    "counted: read only (the %lld row sums written are not counted)",
	    (long long)r.rows, (long long)cols, plan, (long long)r.rows);
	rr__workload workload = {.launch = launch_read, .context = &r};
	if (status == RR_OK)
		status = rr__measure_phases(device, &options->measure, &workload, ceiling->bytes,
		                            ceiling->phases);
	rr_program_free(r.program);
	rr_kernel_free(kernel);
	rr_device_free(device, input);
	rr_device_free(device, r.output);
	return status;
}

void rr__bench_ceilings(rr_device *device, const rr__bench_options *options,
                        rr__ceiling_result ceilings[RR__CEILING_COUNT])
{
	for (int c = 0; c < RR__CEILING_COUNT; c++) {
		rr__ceiling_result *ceiling = &ceilings[c];
		for (int p = 0; p < RR__PHASE_COUNT; p++)
			rr__phase_result_unavailable(&ceiling->phases[p], "not measured");
		rr_status status = c == RR_CEILING_COPY ? measure_copy(device, options, ceiling)
		                                        : measure_read(device, options, ceiling);
		ceiling->measured = status == RR_OK;
		if (status != RR_OK)
			snprintf(ceiling->error, sizeof ceiling->error, "%s", rr_last_error());
	}
}

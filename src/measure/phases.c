/* Timing phases (DESIGN.md §7): warm-up, batch calibration, then gpu / gpu_graph / e2e / single
 * samples, each taken separately and never derived from another. A phase the backend cannot
 * time is recorded unavailable with its reason, never estimated. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/measure.h"

#define MAX_BATCH ((int64_t)1 << 22)
#define MAX_GRAPH_BATCH 4096     /* launches captured in one graph; more are replays of it */
#define MAX_GRAPH_ROTATION 32768 /* most launches a graph may hold to cover a cold rotation */
#define MAX_SINGLE ((int64_t)20000)

const char *rr__phase_name(rr__phase_id phase)
{
	switch (phase) {
	case RR_PHASE_GPU:
		return "gpu";
	case RR_PHASE_GPU_GRAPH:
		return "gpu_graph";
	case RR_PHASE_E2E:
		return "e2e";
	case RR_PHASE_SINGLE:
		return "single";
	case RR_PHASE_SINGLE_GPU:
		return "single_gpu";
	}
	return "?";
}

void rr__phase_result_free(rr__phase_result *phase)
{
	free(phase->samples_us);
	phase->samples_us = NULL;
	phase->n_samples = 0;
}

void rr__phase_result_unavailable(rr__phase_result *phase, const char *reason)
{
	rr__phase_result_free(phase);
	phase->available = 0;
	phase->batch = 0;
	phase->median_us = phase->min_us = phase->max_us = phase->tbps = 0;
	phase->fraction = -1;
	snprintf(phase->reason, sizeof phase->reason, "%s", reason);
}

rr_status rr__phase_result_set_samples(rr__phase_result *phase, const double *samples, int n)
{
	rr__phase_result_free(phase);
	phase->samples_us = malloc((size_t)(n > 0 ? n : 1) * sizeof *phase->samples_us);
	if (!phase->samples_us)
		return rr__fail(RR_ERR_NOMEM, "out of memory for %d samples", n);
	if (n > 0)
		memcpy(phase->samples_us, samples, (size_t)n * sizeof *samples);
	phase->n_samples = n;
	phase->available = 1;
	phase->reason[0] = 0;
	return RR_OK;
}

void rr__phase_result_summarize(rr__phase_result *phase, int64_t bytes)
{
	phase->fraction = -1;
	if (!phase->available || phase->n_samples == 0) {
		phase->median_us = phase->min_us = phase->max_us = phase->tbps = 0;
		return;
	}
	size_t n = (size_t)phase->n_samples;
	phase->median_us = rr__stats_median(phase->samples_us, n);
	phase->min_us = rr__stats_min(phase->samples_us, n);
	phase->max_us = rr__stats_max(phase->samples_us, n);
	phase->tbps =
	    bytes > 0 && phase->median_us > 0 ? (double)bytes / phase->median_us / 1e6 : 0;
}

/* ---------------------------------------------------------------- one measurement session */

typedef struct session {
	rr_device *device;
	const rr__backend_ops *ops;
	const rr__workload *workload;
	const rr__measure_config *config;
	void *stream;
	void *start, *end; /* events, NULL when the backend has none */
	int64_t iteration; /* running launch counter: rotates the buffer sets */
	int64_t batch;
	double per_op_seconds; /* from calibration */
} session;

static rr_status launch_one(session *s, void *stream)
{
	return s->workload->launch(s->workload->context, s->iteration++, stream);
}

static rr_status sync_device(session *s)
{
	return s->ops->synchronize ? s->ops->synchronize(s->device) : RR_OK;
}

static rr_status launch_many(session *s, int64_t count, void *stream)
{
	for (int64_t i = 0; i < count; i++) {
		rr_status status = launch_one(s, stream);
		if (status != RR_OK)
			return status;
	}
	return RR_OK;
}

/* Doubling chunks of launches until the warm-up time has passed, at least two chunks ran and
 * one took half a sample; one operation's time is the fastest chunk's per launch (a noise spike
 * only makes a chunk slower), and the batch is sized from it to the sample target. */
static rr_status warm_up_and_calibrate(session *s)
{
	double warmup = s->config->warmup_ms * 1e-3, target = s->config->sample_ms * 1e-3;
	double begin = rr__now();
	int64_t chunk = 1;
	int chunks = 0, long_enough = 0;
	s->per_op_seconds = INFINITY;
	for (;;) {
		double t0 = rr__now();
		rr_status status = launch_many(s, chunk, s->stream);
		if (status == RR_OK)
			status = sync_device(s);
		if (status != RR_OK)
			return status;
		double took = rr__now() - t0;
		if (took / (double)chunk < s->per_op_seconds)
			s->per_op_seconds = took / (double)chunk;
		chunks++;
		long_enough |= took >= target / 2 || chunk >= MAX_BATCH;
		if (rr__now() - begin >= warmup && long_enough && chunks >= 2)
			break;
		if (took < target && chunk < MAX_BATCH)
			chunk *= 2;
	}
	double ideal = s->per_op_seconds > 0 ? target / s->per_op_seconds : (double)MAX_BATCH;
	s->batch = ideal < 1 ? 1 : ideal > (double)MAX_BATCH ? MAX_BATCH : (int64_t)llround(ideal);
	return RR_OK;
}

static void announce(session *s, rr__phase_id phase)
{
	if (s->config->on_phase)
		s->config->on_phase(s->config->on_phase_context, rr__phase_name(phase));
}

static rr_status event_elapsed_us(session *s, double *us)
{
	float ms = 0;
	rr_status status = s->ops->event_elapsed_ms(s->device, s->start, s->end, &ms);
	*us = (double)ms * 1000.0;
	return status;
}

/* Ends a sample begun by recording the start event: records the end event, waits and reads
 * the microseconds between them (0 when a step fails). An earlier failure in `status` skips
 * every step and comes back as it is. */
static rr_status end_sample(session *s, rr_status status, double *us)
{
	*us = 0;
	if (status == RR_OK)
		status = s->ops->event_record(s->device, s->end, s->stream);
	if (status == RR_OK)
		status = sync_device(s);
	if (status == RR_OK)
		status = event_elapsed_us(s, us);
	return status;
}

static rr_status time_gpu(session *s, double *samples)
{
	for (int i = 0; i < s->config->samples; i++) {
		rr_status status = s->ops->event_record(s->device, s->start, s->stream);
		if (status == RR_OK)
			status = launch_many(s, s->batch, s->stream);
		double us;
		status = end_sample(s, status, &us);
		if (status != RR_OK)
			return status;
		samples[i] = us / (double)s->batch;
	}
	return RR_OK;
}

static rr_status capture_graph(session *s, int64_t launches, void **graph)
{
	void *capture = s->stream;
	rr_status status = s->ops->graph_begin(s->device, &capture);
	if (status != RR_OK)
		return status;
	rr_status launched = launch_many(s, launches, capture);
	status = s->ops->graph_end(s->device, capture, graph);
	return launched != RR_OK ? launched : status;
}

/* Launches one graph holds: the batch (at most MAX_GRAPH_BATCH), raised to a whole number of
 * buffer rotations so a replay never finds the previous replay's buffers in the L2. 0 when a
 * rotation is too long for one graph. */
static int64_t graph_launches(const session *s)
{
	int64_t captured = s->batch < MAX_GRAPH_BATCH ? s->batch : MAX_GRAPH_BATCH;
	int64_t rotation = s->workload->rotation;
	if (rotation <= 1)
		return captured;
	if (rotation > MAX_GRAPH_ROTATION)
		return 0;
	return (captured + rotation - 1) / rotation * rotation;
}

/* The batch captured once and replayed enough times per sample to fill the sample target. */
static rr_status time_graph(session *s, double *samples, int64_t *batch_out)
{
	int64_t captured = graph_launches(s);
	int64_t replays = (s->batch + captured - 1) / captured;
	void *graph = NULL;
	rr_status status = capture_graph(s, captured, &graph);
	if (status != RR_OK)
		return status;
	status = s->ops->graph_launch(s->device, graph, s->stream); /* warm the graph */
	if (status == RR_OK)
		status = sync_device(s);
	for (int i = 0; status == RR_OK && i < s->config->samples; i++) {
		status = s->ops->event_record(s->device, s->start, s->stream);
		for (int64_t r = 0; status == RR_OK && r < replays; r++)
			status = s->ops->graph_launch(s->device, graph, s->stream);
		double us;
		status = end_sample(s, status, &us);
		samples[i] = us / (double)(captured * replays);
	}
	s->ops->graph_destroy(s->device, graph);
	*batch_out = captured * replays;
	return status;
}

static rr_status time_e2e(session *s, double *samples)
{
	for (int i = 0; i < s->config->samples; i++) {
		double t0 = rr__now();
		rr_status status = launch_many(s, s->batch, s->stream);
		if (status == RR_OK)
			status = sync_device(s);
		if (status != RR_OK)
			return status;
		samples[i] = (rr__now() - t0) * 1e6 / (double)s->batch;
	}
	return RR_OK;
}

/* One launch and a synchronize, `count` times; host wall µs into host[], event µs into gpu[]
 * when the backend has events. */
static rr_status single_launches(session *s, int64_t count, double *host, double *gpu)
{
	for (int64_t k = 0; k < count; k++) {
		double t0 = rr__now();
		rr_status status =
		    gpu ? s->ops->event_record(s->device, s->start, s->stream) : RR_OK;
		if (status == RR_OK)
			status = launch_one(s, s->stream);
		if (status == RR_OK && gpu)
			status = s->ops->event_record(s->device, s->end, s->stream);
		if (status == RR_OK)
			status = sync_device(s);
		host[k] = (rr__now() - t0) * 1e6;
		if (status == RR_OK && gpu)
			status = event_elapsed_us(s, &gpu[k]);
		if (status != RR_OK)
			return status;
	}
	return RR_OK;
}

/* Each sample is the p50 of `count` single launches, sized so a sample takes about the target
 * time (a single launch costs more than one operation of a batch: it pays the sync). */
static rr_status time_single(session *s, int with_events, double *host_samples, double *gpu_samples,
                             int64_t *count_out)
{
	double probe[3], probe_gpu[3];
	rr_status status = single_launches(s, 3, probe, with_events ? probe_gpu : NULL);
	if (status != RR_OK)
		return status;
	double each = rr__stats_median(probe, 3) * 1e-6;
	double ideal = each > 0 ? s->config->sample_ms * 1e-3 / each : (double)MAX_SINGLE;
	int64_t count = ideal < 1 ? 1 : ideal > (double)MAX_SINGLE ? MAX_SINGLE : (int64_t)ideal;
	double *host = malloc((size_t)count * sizeof *host);
	double *gpu = with_events ? malloc((size_t)count * sizeof *gpu) : NULL;
	if (!host || (with_events && !gpu)) {
		free(host);
		free(gpu);
		return rr__fail(RR_ERR_NOMEM, "out of memory for %lld single-launch times",
		                (long long)count);
	}
	for (int i = 0; status == RR_OK && i < s->config->samples; i++) {
		status = single_launches(s, count, host, gpu);
		host_samples[i] = rr__stats_median(host, (size_t)count);
		if (gpu)
			gpu_samples[i] = rr__stats_median(gpu, (size_t)count);
	}
	free(host);
	free(gpu);
	*count_out = count;
	return status;
}

/* ---------------------------------------------------------------- all phases */

static int has_events(const rr__backend_ops *ops)
{
	return ops->event_create && ops->event_destroy && ops->event_record &&
	       ops->event_elapsed_ms;
}

static int has_graphs(const rr__backend_ops *ops)
{
	return ops->graph_begin && ops->graph_end && ops->graph_launch && ops->graph_destroy;
}

static rr_status store(rr__phase_result *phase, const double *samples, int n, int64_t batch,
                       int64_t bytes)
{
	rr_status status = rr__phase_result_set_samples(phase, samples, n);
	phase->batch = batch;
	rr__phase_result_summarize(phase, bytes);
	return status;
}

static rr_status run_phases(session *s, int64_t bytes, rr__phase_result *phases, double *buffer,
                            double *second)
{
	int n = s->config->samples, events = s->start != NULL;
	const char *backend = s->ops->name;
	char why[192];
	rr_status status = RR_OK;
	if (events) {
		announce(s, RR_PHASE_GPU);
		status = time_gpu(s, buffer);
		if (status != RR_OK)
			return rr__fail_context(status, "while timing the gpu phase");
		store(&phases[RR_PHASE_GPU], buffer, n, s->batch, bytes);
	} else {
		snprintf(why, sizeof why, "the %s backend has no device timers", backend);
		rr__phase_result_unavailable(&phases[RR_PHASE_GPU], why);
	}
	if (events && has_graphs(s->ops) && graph_launches(s) == 0) {
		snprintf(
		    why, sizeof why,
		    "a cold-L2 rotation of %lld buffer sets is longer than the %d launches one "
		    "graph may hold",
		    (long long)s->workload->rotation, MAX_GRAPH_ROTATION);
		rr__phase_result_unavailable(&phases[RR_PHASE_GPU_GRAPH], why);
	} else if (events && has_graphs(s->ops)) {
		announce(s, RR_PHASE_GPU_GRAPH);
		int64_t batch = 0;
		status = time_graph(s, buffer, &batch);
		if (status != RR_OK)
			return rr__fail_context(status, "while timing the gpu_graph phase");
		store(&phases[RR_PHASE_GPU_GRAPH], buffer, n, batch, bytes);
	} else {
		snprintf(why, sizeof why, "the %s backend has no %s", backend,
		         events ? "graphs" : "device timers or graphs");
		rr__phase_result_unavailable(&phases[RR_PHASE_GPU_GRAPH], why);
	}
	announce(s, RR_PHASE_E2E);
	status = time_e2e(s, buffer);
	if (status != RR_OK)
		return rr__fail_context(status, "while timing the e2e phase");
	store(&phases[RR_PHASE_E2E], buffer, n, s->batch, bytes);
	announce(s, RR_PHASE_SINGLE);
	int64_t count = 0;
	status = time_single(s, events, buffer, second, &count);
	if (status != RR_OK)
		return rr__fail_context(status, "while timing the single phase");
	store(&phases[RR_PHASE_SINGLE], buffer, n, count, bytes);
	if (events) {
		store(&phases[RR_PHASE_SINGLE_GPU], second, n, count, bytes);
	} else {
		snprintf(why, sizeof why, "the %s backend has no device timers", backend);
		rr__phase_result_unavailable(&phases[RR_PHASE_SINGLE_GPU], why);
	}
	return RR_OK;
}

rr_status rr__measure_phases(rr_device *device, const rr__measure_config *config,
                             const rr__workload *workload, int64_t bytes,
                             rr__phase_result phases[RR__PHASE_COUNT])
{
	if (config->samples < 1 || !(config->sample_ms > 0) || !(config->warmup_ms >= 0))
		return rr__fail(RR_ERR_INVALID_ARG,
		                "measurement needs samples >= 1, sample-ms > 0 and warmup-ms >= 0 "
		                "(got %d, %g, %g)",
		                config->samples, config->sample_ms, config->warmup_ms);
	session s = {.device = device, .ops = device->ops, .workload = workload, .config = config};
	for (int p = 0; p < RR__PHASE_COUNT; p++)
		rr__phase_result_unavailable(&phases[p], "not measured");
	double *buffer = malloc((size_t)config->samples * sizeof *buffer);
	double *second = malloc((size_t)config->samples * sizeof *second);
	rr_status status =
	    buffer && second ? RR_OK : rr__fail(RR_ERR_NOMEM, "out of memory for samples");
	if (status == RR_OK && s.ops->stream_create && s.ops->stream_destroy)
		status = s.ops->stream_create(device, &s.stream);
	if (status == RR_OK && has_events(s.ops)) {
		status = s.ops->event_create(device, &s.start);
		if (status == RR_OK)
			status = s.ops->event_create(device, &s.end);
	}
	if (status == RR_OK)
		status = warm_up_and_calibrate(&s);
	if (status == RR_OK)
		status = run_phases(&s, bytes, phases, buffer, second);
	if (s.start)
		s.ops->event_destroy(device, s.start);
	if (s.end)
		s.ops->event_destroy(device, s.end);
	if (s.stream)
		s.ops->stream_destroy(device, s.stream);
	free(buffer);
	free(second);
	return status;
}

/* Backends are tables of function pointers (rr__backend_ops) filled with labelled initializers.
 * Adding a backend touches one folder and one line in backend/registry.c. Optional entries
 * (timers, graphs) may be NULL: the measurement module then records those phases unavailable. */
#ifndef RR_BACKEND_H
#define RR_BACKEND_H

#include "layout/layout.h"
#include "layout/realise.h"
#include "util/util.h"

#define RR_BACKEND_OPS_VERSION 2

/* What results.json records about the device and its toolchain ("" when unknown). */
typedef struct rr__device_properties {
	char name[128];         /* "NVIDIA H200", or the CPU model */
	char uuid[64];          /* GPU-xxxxxxxx-...; "" on cpu */
	int cc_major, cc_minor; /* 0 on cpu */
	int multiprocessors;    /* SMs, or online CPUs */
	int64_t memory_bytes;
	int64_t l2_bytes;
	int sm_clock_mhz; /* current clocks at the time of the call, 0 if unknown */
	int mem_clock_mhz;
	char driver_version[64];    /* "580.159.04" / CUDA driver API version; "" on cpu */
	char compiler_version[128]; /* "NVRTC 13.0" or the first line of `cc --version` */
} rr__device_properties;

/* How reports speak of a backend and what its ceilings are: data, so the measurement code and
 * the tool never tell backends apart by name. */
typedef struct rr__backend_report {
	const char *copy_words;    /* the copy ceiling: "device-to-device copy", "memory copy" */
	const char *cache_words;   /* the cache cold mode rotates past: "L2", "last-level cache" */
	const char *source_suffix; /* a captured generated source: "cu", "c" */
	/* The unit reports print bandwidth in and its size in bytes per µs: TB/s = 1e6 B/µs,
	 * GB/s = 1e3 B/µs. results.json always records TB/s ("tbps"). */
	const char *bandwidth_unit;
	double bandwidth_bytes_per_us;
	int headline_on_device; /* 1: the headline phase is device events (gpu), 0: host (e2e) */
	/* Why "of ceiling" divides by the ceiling's best phase, when the backend has a reason to
	 * state (a graph's memcpy node is slower than a stream memcpy); NULL otherwise. */
	const char *ceiling_note;
	int64_t copy_bytes;           /* the copy ceiling's size, halved until it fits */
	int64_t read_rows, read_cols; /* the read ceiling's f32 matrix (the built-in sum's) */
	/* The cache size cold mode sizes against: > 0 always this; 0 the device's own L2. */
	int64_t cold_cache_bytes;
	/* 1: several devices, chosen by ordinal (the tuner runs a worker per GPU); 0: one. */
	int numbered_devices;
} rr__backend_report;

typedef struct rr__backend_ops {
	int version; /* RR_BACKEND_OPS_VERSION */
	const char *name;
	rr__backend_report report;
	/* The target a named architecture ("sm_90") presents without a device; NULL arch: the
	 * backend's own target when it needs no device (cpu), else RR_ERR_NO_DEVICE. */
	rr_status (*target_for_arch)(const char *arch, rr__target *out);
	/* Optional: compiles generated source for `arch` without loading it, as a check (see
	 * rr_source_compile_check); source NULL only checks that the compiler is there. */
	rr_status (*compile_check)(const char *arch, const char *source, int *local_memory);
	/* Probes the backend and fills device->impl, device->target and device->name.
	 * RR_ERR_NO_DEVICE with a sentence when it is absent (no GPU, driver or compiler). */
	rr_status (*open)(rr_device *device);
	void (*close)(rr_device *device);
	/* Generates the source of program->kernel under program->layout (legal, complete) into
	 * *source (the plan as a comment on top). */
	rr_status (*emit)(rr_device *device, const rr_program *program, rr__buf *source);
	/* Compiles program->source, loads it, sets program->module and program->binary_hash. */
	rr_status (*compile)(rr_device *device, rr_program *program);
	void (*unload)(rr_device *device, rr_program *program);
	/* Launches over `rows` rows (see rr_program_launch). */
	rr_status (*launch)(rr_device *device, rr_program *program, int64_t rows,
	                    const rr_arg *inputs, void *const *outputs, void *stream);
	rr_status (*alloc)(rr_device *device, size_t bytes, void **out);
	void (*free)(rr_device *device, void *ptr);
	rr_status (*upload)(rr_device *device, void *dst, const void *src, size_t bytes);
	rr_status (*download)(rr_device *device, void *dst, const void *src, size_t bytes);
	/* Device-to-device copy of `bytes` (the copy ceiling; on cpu over all its threads). */
	rr_status (*copy)(rr_device *device, void *dst, const void *src, size_t bytes,
	                  void *stream);
	rr_status (*synchronize)(rr_device *device);
	/* Optional: the read ceiling, a memory-bound pass over `bytes` of finite f32 values that
	 * the compiler vectorises (never a rowreduce kernel), with a sentence on how it reads for
	 * the ceiling's description. NULL: the read ceiling is the built-in sum over
	 * report.read_rows x report.read_cols. */
	rr_status (*read_pass)(rr_device *device, const void *src, size_t bytes, void *stream);
	void (*read_pass_words)(rr_device *device, char *out, size_t size);

	rr_status (*properties)(rr_device *device, rr__device_properties *out);

	/* Optional: device timers (events) on a stream. */
	rr_status (*event_create)(rr_device *device, void **event);
	void (*event_destroy)(rr_device *device, void *event);
	rr_status (*event_record)(rr_device *device, void *event, void *stream);
	rr_status (*event_elapsed_ms)(rr_device *device, void *start, void *end, float *ms);
	/* Optional: capture the launches issued on `stream` between begin and end into a graph. */
	rr_status (*graph_begin)(rr_device *device, void **stream);
	rr_status (*graph_end)(rr_device *device, void *stream, void **graph);
	rr_status (*graph_launch)(rr_device *device, void *graph, void *stream);
	void (*graph_destroy)(rr_device *device, void *graph);
	/* Optional: a stream of the backend's own for timing (NULL = default stream). */
	rr_status (*stream_create)(rr_device *device, void **stream);
	void (*stream_destroy)(rr_device *device, void *stream);
} rr__backend_ops;

struct rr_device {
	const rr__backend_ops *ops;
	void *impl;
	rr__target target;
	char name[256];
};

struct rr_program {
	rr_device *device;
	const rr_kernel *kernel;
	rr_dtype dtype;
	int64_t cols;
	rr_layout layout; /* complete and legal */
	/* What the layout means here, worked out once when the program is planned: the emitter
	 * and the launcher read it. */
	rr__realisation realisation;
	char *source;
	char source_hash[65];
	char binary_hash[65];
	void *module; /* the backend's loaded code */
	rr_plan_stats plan_stats;
};

/* The registered backends, NULL-terminated, in the order "auto" tries them. */
extern const rr__backend_ops *const rr__backends[];
extern const rr__backend_ops rr__cpu_backend;
extern const rr__backend_ops rr__cuda_backend;

/* The registered backend named `name`, or NULL: the one place backend names are compared. */
const rr__backend_ops *rr__backend_find(const char *name);

#endif

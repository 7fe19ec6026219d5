/* Backends are tables of function pointers (rr__backend_ops) filled with labelled initializers.
 * Adding a backend touches one folder and one line in backend/registry.c. Optional entries
 * (timers, graphs) may be NULL: the measurement module then records those phases unavailable. */
#ifndef RR_BACKEND_H
#define RR_BACKEND_H

#include "layout/layout.h"
#include "util/util.h"

#define RR_BACKEND_OPS_VERSION 1

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

typedef struct rr__backend_ops {
	int version; /* RR_BACKEND_OPS_VERSION */
	const char *name;
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
	/* Device-to-device copy of `bytes` (the ceiling kernels use it). */
	rr_status (*copy)(rr_device *device, void *dst, const void *src, size_t bytes,
	                  void *stream);
	rr_status (*synchronize)(rr_device *device);

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

#endif

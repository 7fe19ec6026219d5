/* The targets a plan is made for (DESIGN.md §10): what a backend's device can do, in one place.
 * The CPU backend's target and the per-architecture table of CUDA parts live here; a live GPU
 * overrides the table's numbers with its own attributes. */
#ifndef RR_TARGET_TARGET_H
#define RR_TARGET_TARGET_H

#include <stddef.h>
#include <stdint.h>

#include "rowreduce.h"

/* What kind of machine a target is: the cost model has one branch per kind. */
typedef enum rr__target_kind {
	RR_TARGET_CPU = 1, /* workers run one after another on SIMD lanes of one thread */
	RR_TARGET_GPU      /* workers are threads of a block, groups spread over SMs */
} rr__target_kind;

/* What a backend can do; the legality check compares a plan against it. */
typedef struct rr__target {
	const char *backend;  /* "cpu" or "cuda": for messages only, never compared */
	rr__target_kind kind; /* 0 is no kind: a target is filled by the functions below */
	/* Kept values between rounds may be computed values (h = x + r) rather than the row
	 * inputs below them: the CUDA emitter keeps those, the C emitter keeps the inputs. */
	int keeps_derived_values;
	int max_workers;        /* most threads in one group (1024 on CUDA) */
	int warp_size;          /* 32 on CUDA; the CPU backend simulates the same tree */
	int register_slots;     /* most private slots a worker may hold (register budget) */
	int64_t smem_per_group; /* shared memory one group may use, bytes */
	int has_clusters;       /* thread-block clusters (sm_90) */
	int max_cluster;        /* most blocks in a cluster (8 portable, 16 on sm_90 opted in) */
	int multiprocessors;    /* SMs, or CPU threads */
	int64_t l2_bytes;
	int cc_major, cc_minor; /* compute capability; 0 on cpu */
} rr__target;

/* The target the CPU backend presents. */
void rr__target_cpu(rr__target *target);
/* Row bytes (inputs read and outputs written) from which a CPU launch does not stay in the
 * last-level cache (32 MiB a core complex on the development machine): it writes its row
 * outputs past the caches (backend/cpu.c), and the cost model counts it as bound by memory. */
#define RR_CPU_STREAM_BYTES (32.0 * 1024 * 1024)

/* Rows split over threads (codegen/c_emit.h's rr_cpu_row_part, backend/cpu.c's split_rows):
 * sources for rows of RR_CPU_PARTS_MIN_N elements or more can run a row in two parts, and a
 * launch splits its last rows where a row has RR_CPU_SPLIT_ROW_BYTES of row arrays (inputs
 * and outputs) or more, RR_CPU_SPLIT_WRITTEN_ROW_BYTES where the kernel writes rows: shorter,
 * the parts' start (a sleeping thread woken) and meetings cost more than half a row (sum f32,
 * one row: 1.19-1.27 of the time at 131072 elements, 0.78 at 262144; rmsnorm f32 from NumPy
 * arrays, 16 bytes into a line, calls 0.5 ms apart: one row of 131073 1.6 times the whole
 * row's time, 500000 1.05, 2000000 0.85; bench/NOTES.md, session 40). Each part's span of a
 * chunk is half of W * V values: the planner prefers spans of RR_CPU_PART_SPAN_BYTES where a
 * launch splits rows that it writes (plan.c). */
#define RR_CPU_PARTS_MIN_N 16384
#define RR_CPU_SPLIT_ROW_BYTES (1024.0 * 1024.0)
#define RR_CPU_SPLIT_WRITTEN_ROW_BYTES (8.0 * 1024.0 * 1024.0)
#define RR_CPU_PART_SPAN_BYTES 2048

/* The target of a named CUDA architecture ("sm_90", "sm_80", ...) as the emitter and the
 * legality check see it without a device: threads, warp, register budget, opt-in shared memory
 * per block, clusters, and the SM count and L2 of the usual part (H200 for sm_90).
 * RR_ERR_INVALID_ARG for a name that is not sm_XY. */
rr_status rr__target_for_cuda_arch(const char *arch, rr__target *out);

/* "sm_90" for a target's compute capability. */
void rr__target_cuda_arch_name(const rr__target *target, char *out, size_t size);

#endif

/* The CUDA C emitter: one plan (kernel, dtype, N, layout) as readable CUDA C for NVRTC, with N
 * baked in so every loop over a worker's chunks is fully unrolled, and the launch geometry the
 * backend needs to run it. Nothing here needs a GPU. */
#ifndef RR_CODEGEN_CUDA_EMIT_H
#define RR_CODEGEN_CUDA_EMIT_H

#include <stdint.h>

#include "backend/backend.h"

/* Where values kept between rounds live. */
typedef enum rr__cuda_keep {
	RR_CUDA_KEEP_NONE = 0, /* single phase, or S=reread: nothing is kept */
	RR_CUDA_KEEP_REGS,     /* private register arrays, indexed by unrolled constants */
	RR_CUDA_KEEP_SMEM      /* dynamic shared memory, each worker's own packs */
} rr__cuda_keep;

/* How a program is launched; computed from the plan alone, identical for emit and launch. */
typedef struct rr__cuda_geometry {
	int threads;        /* W·R per block */
	int rows_per_group; /* R */
	int blocks_per_row; /* C: a cluster of C blocks shares one row */
	int persistent;     /* grid G=persistent: blocks loop over row groups */
	int elem_bytes;
	int access_bytes;  /* bytes per global access in the vectorised entry */
	int has_vec_entry; /* 0 when access_bytes == elem_bytes: the scalar entry only */
	int64_t segment;   /* elements per block of a cluster (N when C = 1) */
	rr__cuda_keep keep;
	int kept_values;       /* elem values kept between rounds */
	int64_t dynamic_smem;  /* bytes of dynamic shared memory per block */
	int static_smem;       /* bytes of the reduction scratch (static shared memory) */
	char entry_vec[96];    /* "rr_softmax_vec" */
	char entry_scalar[96]; /* "rr_softmax_scalar" */
} rr__cuda_geometry;

/* The geometry of program->layout (complete) on `target`. */
rr_status rr__cuda_geometry_of(const rr_program *program, const rr__target *target,
                               rr__cuda_geometry *out);

/* 1 when every row, col and row-output array is aligned to the vectorised entry's access
 * width, so the launcher may run it; 0 when the scalar entry must run (or there is no other). */
int rr__cuda_vec_allowed(const rr_program *program, const rr__cuda_geometry *geometry,
                         const rr_arg *inputs, void *const *outputs);

/* Appends the CUDA C of program (kernel, dtype f32/bf16/f16, cols, complete legal layout) for
 * `target`. The source defines the two entries of the geometry with the arguments: one pointer
 * per row/col/rowscalar/index input and a float per param (kernel input order), one pointer per
 * output, then `long long rows`. Compiled by a host C++ compiler instead (no __CUDA_ARCH__),
 * with tests/cuda_sim.h included first, it also defines `extern "C" void rr_sim_entry(int vec,
 * void **params)` for the tests' CPU simulation. */
rr_status rr__cuda_emit(const rr_program *program, const rr__target *target, rr__buf *out);

#endif

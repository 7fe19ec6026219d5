/* The CUDA C emitter: one realised plan (kernel, dtype, N, layout) as readable CUDA C for NVRTC,
 * with N baked in so every loop over a worker's chunks is fully unrolled. The launch geometry
 * is the realisation's (layout/realise.h). Nothing here needs a GPU. */
#ifndef RR_CODEGEN_CUDA_EMIT_H
#define RR_CODEGEN_CUDA_EMIT_H

#include <stdint.h>

#include "codegen/common.h"

/* Appends the CUDA C of the request (dtype f32/bf16/f16, 1 <= cols <= 2^30, complete legal
 * layout) for its target. The source defines the realisation's two entries (entry_vec only when
 * has_vec_entry) with the arguments: one pointer per row/col/rowscalar/index input and a float
 * per param (kernel input order), one pointer per output, then `long long rows`. Compiled by a
 * host C++ compiler instead (no __CUDA_ARCH__), with tests/cuda_sim.h included first, it also
 * defines `extern "C" void rr_sim_entry(int vec, void **params)` for the tests' CPU
 * simulation. */
rr_status rr__cuda_emit(const rr__emit_request *request, rr__buf *out);

#endif

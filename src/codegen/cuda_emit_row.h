/* The per-row half of the CUDA C emitter (cuda_emit_row.c: the phases, the loads, the
 * accumulation, the cross-worker tree and the outputs); the emitter state is in
 * cuda_emit_state.h. */
#ifndef RR_CODEGEN_CUDA_EMIT_ROW_H
#define RR_CODEGEN_CUDA_EMIT_ROW_H

#include "codegen/cuda_emit_state.h"

/* Marks in em->eval the elem nodes evaluated in `phase`: from that phase's roots (reduction
 * operands, or row outputs in the output phase) down to inputs, stopping at kept values in
 * phases after the first; phase 1 also evaluates every kept value. */
void rr__cu_mark_phase(rr__cu_emitter *em, int phase);

/* The body of `template <bool VEC, int LEN> rr_row(...)`: one row (or one block's segment). */
void rr__cu_emit_row(rr__cu_emitter *em);

#endif

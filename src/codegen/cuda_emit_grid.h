/* S=grid in the CUDA C emitter (cuda_emit_grid.c): the pieces the frame (cuda_emit.c) and the
 * per-row code (cuda_emit_row.c) print when a row is split over co-resident grid blocks. */
#ifndef RR_CODEGEN_CUDA_EMIT_GRID_H
#define RR_CODEGEN_CUDA_EMIT_GRID_H

#include "codegen/cuda_emit_state.h"

/* 1 when the plan splits rows over the grid (the realisation's grid_split). */
int rr__cu_grid(const rr__cu_emitter *em);
/* WS_HEAD and WS_GROUP (nothing for other plans). */
void rr__cu_emit_grid_constants(rr__cu_emitter *em);
/* The "grid" section of device/grid.cuh (nothing for other plans). */
void rr__cu_emit_grid_helpers(rr__cu_emitter *em);
/* 1 where only row scalars follow the last round (sum, a loss): there the last block of a row
 * to arrive combines its C partials and writes the row's scalars (rr_owner), and the others
 * leave without waiting unless they have a row after this one (device/grid.cuh). On the H200
 * against every block waiting at the barrier (bench/NOTES.md session 29): cross_entropy 4x2097152
 * 0.97x the time in bf16, 0.99 in f32, sum on 2-16 rows 0.99-1.00. */
int rr__cu_grid_last_combines(const rr__cu_emitter *em);
/* One round's stage across the row's C blocks, after the block's own tree. */
void rr__cu_emit_grid_stage(rr__cu_emitter *em, int round);
/* S=grid's one barrier for two rounds (rr__realisation.grid_shift): the stage after round 2's
 * block tree up to round 1's combined sum, then round 2's combination once the row's mean is
 * known (the caller prints round 1's scalars between them). */
void rr__cu_emit_grid_shift_stage(rr__cu_emitter *em);
void rr__cu_emit_grid_shift_combine(rr__cu_emitter *em);
/* rr_main's first lines: the block's rank in its group and the group's workspace (gws). */
void rr__cu_emit_grid_main_prologue(rr__cu_emitter *em);

#endif

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
/* One round's stage across the row's C blocks, after the block's own tree. */
void rr__cu_emit_grid_stage(rr__cu_emitter *em, int round);
/* rr_main's first lines: the block's rank in its group and the group's workspace (gws). */
void rr__cu_emit_grid_main_prologue(rr__cu_emitter *em);

#endif

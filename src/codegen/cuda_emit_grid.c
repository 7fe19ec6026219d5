/* The CUDA C of S=grid, a row split over C co-resident blocks of a cooperative launch: the
 * constants of the workspace, each round's stage across the row's blocks (partials to the
 * workspace, the per-group barrier, the fixed tree of device/grid.cuh), and the pieces of the
 * entries that carry the workspace. The rest of the kernel is the cluster path's: each block
 * runs rr_row over its segment and keeps it on chip between rounds, or reads it again where
 * the realisation keeps nothing (a segment over the block's shared memory). */
#include <stdio.h>

#include "codegen/cuda_emit_grid.h"
#include "codegen/device_files.h"

int rr__cu_grid(const rr__cu_emitter *em)
{
	return em->geo->grid_split;
}

/* Whether warp 0 alone combines a row's C partials after the barrier (grid.cuh) and hands the
 * value to its block through shared memory, where every warp loading them made the C partials
 * an L2 hot spot. On the H200 (bench/NOTES.md session 28, ABBA against every warp combining):
 * C = 128 0.80-0.94x the time (sum, cross_entropy, rmsnorm, add_layernorm on 2-4 rows of 2-4
 * M), C = 64 0.90-0.99x but 1.02 for layernorm; at C = 32 cross_entropy and sum 0.95-0.99x
 * where softmax and layernorm, whose every thread waits for the value before its output
 * phase, took 1.01-1.07x; C = 8-16 0.99-1.02x. So from 64 blocks a row, and from 32 where
 * only row scalars (sum, a loss) are written after the barrier. */
static int output_phase(const rr__cu_emitter *em)
{
	return em->phases > em->rounds; /* row outputs after the last round */
}

static int grid_one_warp(const rr__cu_emitter *em)
{
	return em->C >= 64 || (em->C >= 32 && !output_phase(em));
}

int rr__cu_grid_last_combines(const rr__cu_emitter *em)
{
	return rr__cu_grid(em) && !output_phase(em);
}

void rr__cu_emit_grid_constants(rr__cu_emitter *em)
{
	if (!rr__cu_grid(em))
		return;
	rr__cu_line(em, 0,
	            "constexpr int WS_HEAD = %d;  /* workspace words of a group's barrier line */",
	            RR_GRID_HEAD_WORDS);
	rr__cu_line(em, 0,
	            "constexpr int WS_GROUP = %lld;  /* workspace words per row group: barrier, "
	            "then [parity][slot][block] partials */",
	            (long long)(em->geo->workspace_per_group / 4));
	rr__cu_line(
	    em, 0,
	    "constexpr bool RR_GRID_ONE_WARP = %s;  /* warp 0 alone combines the partials */",
	    grid_one_warp(em) ? "true" : "false");
}

void rr__cu_emit_grid_helpers(rr__cu_emitter *em)
{
	if (rr__cu_grid(em))
		rr__device_emit(em->out, "grid.cuh", "grid");
}

static void write_partial(rr__cu_emitter *em, int depth, const char *name, int slot)
{
	rr__cu_line(em, depth,
	            "cl[WS_HEAD + (parity * RED_SLOTS + %d) * C + blockIdx.x %% C] = %s;", slot,
	            name);
}

/* After the block's tree: thread 0 writes the block's partials of `round`, the group meets at
 * its barrier, and warp 0 combines the C partials for the block (every thread gets the row's
 * value through shared memory). */
void rr__cu_emit_grid_stage(rr__cu_emitter *em, int round)
{
	const rr_kernel *kernel = em->kernel;
	rr__cu_line(em, 1,
	            "/* across the row's C blocks of the grid, through the workspace (cl) */");
	rr__cu_line(em, 1, "if (threadIdx.x == 0) {");
	rr__cu_for_each_partial(em, round, 2, write_partial);
	rr__cu_line(em, 1, "}");
	int last = rr__cu_grid_last_combines(em) && round == em->rounds;
	int depth = last ? 2 : 1;
	if (last) {
		rr__cu_line(
		    em, 1,
		    "const bool rr_owner = rr_grid_arrive(reinterpret_cast<unsigned *>(cl), "
		    "row + (long long)(gridDim.x / C) < rows);");
		rr__cu_line(em, 1, "if (rr_owner) {");
	} else {
		rr__cu_line(em, 1, "rr_grid_sync(reinterpret_cast<unsigned *>(cl));");
	}
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (!rr__reduced_in(kernel, id, round))
			continue;
		int partner = kernel->analysis.online_partner[id];
		int slot = em->red_slot[id];
		if (partner >= 0)
			rr__cu_line(
			    em, depth,
			    "rr_grid_online(m%d, z%d, cl + WS_HEAD + (parity * RED_SLOTS + %d) "
			    "* C, cl + WS_HEAD + (parity * RED_SLOTS + %d) * C, parity * RED_SLOTS "
			    "+ %d);",
			    id, partner, slot, slot + 1, slot);
		else
			rr__cu_line(
			    em, depth,
			    "acc%d = rr_grid_reduce<%d>(cl + WS_HEAD + (parity * RED_SLOTS + "
			    "%d) * C, parity * RED_SLOTS + %d);",
			    id, (int)kernel->nodes[id].reduce, slot, slot);
	}
	if (last)
		rr__cu_line(em, 1, "}");
}

/* The variance shift's stage (rr__realisation.grid_shift), after round 2's block tree: thread
 * 0 writes S_b, Q_b, T_b and c_b; the scope shift_open (cuda_emit_row.c) opened closes; the
 * row's blocks meet once, and round 1's sum is combined as rr__cu_emit_grid_stage does. */
void rr__cu_emit_grid_shift_stage(rr__cu_emitter *em)
{
	const rr__variance_shift *v = &em->shift;
	rr__cu_line(em, 1,
	            "/* across the row's C blocks of the grid, through the workspace (cl): S_b, "
	            "Q_b, T_b and c_b, one barrier */");
	rr__cu_line(em, 1, "if (threadIdx.x == 0) {");
	char name[32];
	snprintf(name, sizeof name, "acc%d", v->sum);
	write_partial(em, 2, name, em->red_slot[v->sum]);
	rr__cu_for_each_partial(em, 2, 2, write_partial);
	write_partial(em, 2, "rr_cb", em->t_slot + 1);
	rr__cu_line(em, 1, "}");
	rr__cu_line(em, 1, "} /* c_b's scope */");
	rr__cu_line(em, 1, "rr_grid_sync(reinterpret_cast<unsigned *>(cl));");
	rr__cu_line(em, 1,
	            "acc%d = rr_grid_reduce<0>(cl + WS_HEAD + (parity * RED_SLOTS + %d) * C, "
	            "parity * RED_SLOTS + %d);",
	            v->sum, em->red_slot[v->sum], em->red_slot[v->sum]);
}

/* Round 2's sum of squares about the row's mean s<c> (defined by then) from the blocks' Q_b,
 * T_b and c_b. */
void rr__cu_emit_grid_shift_combine(rr__cu_emitter *em)
{
	const rr__variance_shift *v = &em->shift;
	int q = em->red_slot[v->sq], t = em->t_slot;
	rr__cu_line(em, 1,
	            "acc%d = rr_grid_shifted(cl + WS_HEAD + (parity * RED_SLOTS + %d) * C, cl + "
	            "WS_HEAD + (parity * RED_SLOTS + %d) * C, cl + WS_HEAD + (parity * RED_SLOTS + "
	            "%d) * C, s%d, parity * RED_SLOTS + %d);",
	            v->sq, q, t, t + 1, v->c, q);
}

void rr__cu_emit_grid_main_prologue(rr__cu_emitter *em)
{
	rr__cu_line(em, 1, "const int rank = (int)(blockIdx.x %% C); /* the block's segment */");
	rr__cu_line(em, 1,
	            "float *const gws = a.ws + (long long)(blockIdx.x / C) * WS_GROUP; /* the "
	            "group's workspace */");
}

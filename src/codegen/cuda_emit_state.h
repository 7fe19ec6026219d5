/* The CUDA C emitter's state and the helpers every part of it prints with (cuda_emit_state.c):
 * below the frame (cuda_emit.c), the per-row code (cuda_emit_row.c) and S=grid's pieces
 * (cuda_emit_grid.c), so those point down to it and never at one another in a circle. */
#ifndef RR_CODEGEN_CUDA_EMIT_STATE_H
#define RR_CODEGEN_CUDA_EMIT_STATE_H

#include "codegen/common.h"
#include "lang/ir.h"

typedef struct rr__cu_emitter {
	rr__buf *out;
	const rr_kernel *kernel;
	const rr_layout *layout;
	const rr__target *target;
	rr_dtype dtype;
	const rr__realisation *geo; /* every decision the plan implies */
	int W, V, U, R, C;
	int64_t n;
	/* Copied from the realisation, for short names in the emitting code. */
	int rounds; /* reduction rounds */
	int phases; /* rounds, plus the output phase when there are row outputs */
	int row_outputs;
	int warps;          /* warps per row when W > 32, else 1 */
	int red_slots;      /* partial values combined across workers per row, over all rounds */
	const int *offsets; /* the fixed tree (rr__tree_offsets) */
	int n_offsets;
	short red_slot[RR_MAX_NODES];     /* first scratch slot of a reduction (a pair two) */
	unsigned char kept[RR_MAX_NODES]; /* elem values kept from phase 1 to later phases */
	int keep_ordinal[RR_MAX_NODES];
	unsigned char eval[RR_MAX_NODES]; /* scratch: elem nodes evaluated in the current phase */
	int head; /* emitting the head's pack: width HS, kept values in kh<id>[], strided access */
	int flat; /* every load of a phase issued before any use (rr__cu_emit_row's flat rows) */
	int short_rows; /* rr__realisation_short_rows: no loop over groups, loads flat,
	                 * stores predicated */
	/* A flat row's inputs loaded in round 1 (ld<id>_1, hl<id>_1): later phases read them
	 * there instead of loading them again. */
	unsigned char flat_first[RR_MAX_NODES];
	int shifted_cols; /* col inputs read by shifted aligned blocks (rr_load_shifted) */
	int col_copies;   /* ... from the launch's per-phase copies instead (col_copies) */
	int plain;  /* emitting the body of rows without a head (h = 0: all of it, or !HEADED) */
	int body;   /* emitting a body's packs, of either entry (not the head's) */
	int tail_loads; /* k > 0: the headed tail chunk whose packs tl<id>_<k> were loaded early */
	int head_loaded; /* emitting the head's values from hd<id>, loaded before the body */
	/* Round 1's online pairs are deferred in the headed entry's body too (cuda_emit_row.c,
	 * headed_defers): the head's loads come first and its accumulation after the body. */
	int headed_defer;
	int staged; /* emitting complete chunks whose raw kept packs were copied asynchronously */
	/* Kept exponentials (cuda_emit_row.c, kexp_of): the online max node, its input x
	 * (kept), x - max and exp(x - max); kexp_max -1 where the kernel has none. */
	int kexp_max, kexp_x, kexp_sub, kexp_t;
	/* t's one use in the output phase where that is t / s, s a reduced value: the kept array
	 * times ks * (1 / s), one multiply an element (cuda_emit_row.c, kexp_of); else -1. */
	int kexp_div;
	/* S=grid's one barrier for two rounds (rr__realisation.grid_shift): the kernel's variance
	 * shift, sq = -1 where the plan has none; t_slot the partial slot of T_b. */
	rr__variance_shift shift;
	int t_slot;
} rr__cu_emitter;

/* Appends one line at `depth` tabs. */
void rr__cu_line(rr__cu_emitter *em, int depth, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Whether the blocks of a row are a cluster that combines through mailboxes
 * (rr__cluster_mailbox). */
int rr__cu_mailbox(const rr__cu_emitter *em);

/* Calls `fn(em, depth, variable, slot)` on every partial of `round`, in node order. */
void rr__cu_for_each_partial(rr__cu_emitter *em, int round, int depth,
                             void (*fn)(rr__cu_emitter *, int, const char *, int));

#endif

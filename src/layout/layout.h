/* The layout (DESIGN.md §4): the ownership map, its inverse, slot bounds, and legality that
 * fails closed with a named reason before any cost is computed. */
#ifndef RR_LAYOUT_H
#define RR_LAYOUT_H

#include <stdint.h>

#include "lang/ir.h"
#include "target/target.h"

/* Why a layout was rejected. */
typedef enum rr__illegal {
	RR_LEGAL = 0,
	RR_ILLEGAL_WIDTH_NOT_POW2,    /* W is not a power of two */
	RR_ILLEGAL_WIDTH_OVER_DEVICE, /* W·R exceeds the device's threads per group */
	RR_ILLEGAL_VEC,               /* V not in {1,2,4,8,16} */
	RR_ILLEGAL_UNROLL,            /* U not in 1..8 */
	RR_ILLEGAL_ROWS,              /* R < 1 or R > 1 with more than one block per row */
	RR_ILLEGAL_SLOTS_OVER_BUDGET, /* private slots over the register budget */
	RR_ILLEGAL_SMEM_OVER_LIMIT,   /* shared memory over the device limit */
	RR_ILLEGAL_EXACT_REASSOC,     /* an exact reduction would be reassociated (W > 1 etc.) */
	RR_ILLEGAL_NO_CLUSTER,        /* clusters on a device without them, or over its size */
	RR_ILLEGAL_STORAGE,           /* a storage mode this backend or kernel cannot use */
	RR_ILLEGAL_INCOMPLETE /* a field left 0 or AUTO: the check needs a complete layout */
} rr__illegal;

/* A sentence naming the reason, e.g. "W = 3 is not a power of two (allowed: 1, 2, 4, ..., 1024)".
 */
const char *rr__illegal_name(rr__illegal reason);

/* Private slots per worker: floor(N/(W*V))*V + min(N % (W*V), V). */
int64_t rr__slot_bound(int64_t n, int workers, int vec);

/* Complete packs (all V elements valid) of worker `worker`, and whether it has a partial pack. */
int64_t rr__complete_packs(int64_t n, int workers, int vec, int worker);
int rr__has_partial_pack(int64_t n, int workers, int vec, int worker);

/* Ownership map: logical element of (chunk, worker, element), and the inverse. */
static inline int64_t rr__owned_index(int64_t chunk, int worker, int element, int workers, int vec)
{
	return (chunk * workers + worker) * vec + element;
}
static inline void rr__owner_of(int64_t i, int workers, int vec, int64_t *chunk, int *worker,
                                int *element)
{
	*element = (int)(i % vec);
	*worker = (int)((i / vec) % workers);
	*chunk = i / ((int64_t)workers * vec);
}

/* The fixed cross-worker tree: the xor offsets applied, in order, to combine W workers'
 * partials (butterfly within a warp from the largest offset down, then across warps from the
 * largest warp offset down). Returns how many offsets were written to offsets[] (<= 16). Both
 * backends apply exactly this sequence, so one plan's sum is bitwise the same on each. */
int rr__tree_offsets(int workers, int warp_size, int offsets[16]);

/* The part of a row one block holds: the whole row when blocks == 1, else ceil(N/C) rounded
 * up to whole 16-byte units (and whole packs of V), so every block's packs stay aligned. */
int64_t rr__block_segment(int64_t cols, int blocks, int vec, int elem_bytes);

/* Shared memory, in bytes, one group of `layout` needs to keep `kept` row values per element
 * in f32 (whole chunks of W·V lanes for each of its R rows, over the block's segment), plus the
 * reduction scratch (double-buffered, `partials` per row per warp and, with C > 1, per
 * cluster). The realisation's smem_bytes; nothing else calls it. */
int64_t rr__layout_smem_bytes(int partials, int64_t cols, int elem_bytes, const rr_layout *layout,
                              int warp_size, int kept);

/* Per input, how many phases read it (rounds 1..rounds, then the output phase), into
 * phases_read[]; returns how many row inputs are read in more than one phase: the rows a plan
 * must keep (regs, smem, cluster) or read again (reread). Uses kernel->analysis. */
int rr__layout_kept_inputs(const rr_kernel *kernel, int phases_read[RR_MAX_IO]);

/* Private slots a worker may keep under `layout`: the target's budget, and on a GPU no more
 * than a block of W·R threads can hold in the 64 Ki registers of a multiprocessor with 40
 * registers per thread left for addresses, loads in flight and accumulators (W·R = 1024
 * leaves 24 slots; ptxas spilled layernorm at 32). */
int rr__register_slots(const rr__target *target, const rr_layout *layout);

/* 1 when every field is set (what rr__layout_check and rr__realise need). */
int rr__layout_is_complete(const rr_layout *layout);

/* Checks `layout` (all fields set, none 0) for `kernel` at row length `cols` and element type
 * `dtype` against `target`, reading the layout's realisation (layout/realise.h). RR_LEGAL or
 * the first reason found; detail gets a sentence. */
rr__illegal rr__layout_check(const rr_kernel *kernel, int64_t cols, rr_dtype dtype,
                             const rr_layout *layout, const rr__target *target, char *detail,
                             size_t detail_size);
/* rr__layout_check with the kernel's facts on target worked out before (NULL: on each call). */
struct rr__kernel_facts;
rr__illegal rr__layout_check_with(const rr_kernel *kernel, const struct rr__kernel_facts *facts,
                                  int64_t cols, rr_dtype dtype, const rr_layout *layout,
                                  const rr__target *target, char *detail, size_t detail_size);

#endif

/* The layout (DESIGN.md §4): the ownership map, its inverse, slot bounds, and legality that
 * fails closed with a named reason before any cost is computed. */
#ifndef RR_LAYOUT_H
#define RR_LAYOUT_H

#include <stdint.h>

#include "lang/ir.h"
#include "layout/realise.h"
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
	RR_ILLEGAL_SERIAL_LENGTH,     /* one accumulator adds more elements than its dtype allows */
	RR_ILLEGAL_INCOMPLETE, /* a field left 0 or AUTO: the check needs a complete layout */
	RR_ILLEGAL_GRID_SPLIT  /* S=grid where the backend or layout cannot split a row */
} rr__illegal;

/* A sentence naming the reason, e.g. "W = 3 is not a power of two (allowed: 1, 2, 4, ..., 1024)".
 */
const char *rr__illegal_name(rr__illegal reason);

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

/* The head (DESIGN.md §4). A row (or a cluster block's segment of it) of `len` elements whose
 * first element lies at byte address `address` starts with h elements up to its first
 * `align_bytes` boundary (align_bytes = the realisation's access_bytes = min(V·size, 16)):
 *   h = min(len, ((align_bytes - address % align_bytes) % align_bytes) / elem_bytes)
 * so 0 <= h < a, a = align_bytes / elem_bytes <= V. With no vector entry a = 1 and h = 0, and
 * the map below is the plain one. The extended map:
 *   head element j < h: worker = W - 1 - j % W, head step t = j / W  (the last workers, whose
 *                       body share is the smallest)
 *   body element      i = h + (chunk * W + worker) * V + element     (valid iff i < len)
 *   private slot      = chunk * V + element, body elements only
 * inverse of i: i < h is the head (worker = W - 1 - i % W, t = i / W); otherwise b = i - h and
 *   element = b % V, worker = (b / V) % W, chunk = b / (W * V)
 * The head takes no private slot: a phase after the first reads its elements again (at most
 * ceil((a - 1) / W) per worker, from cache), so the slot bound stays
 * floor(len/(W*V))*V + min(len % (W*V), V) (rr__slot_bound of len bounds that of len - h).
 * Order: every worker adds its head elements (t ascending) first, then its body slots in
 * order, on both backends, so one plan's sum stays bitwise the same on each. The serial length
 * (elements one worker adds) is rr__serial_length. */
int rr__head_length(uintptr_t address, int align_bytes, int elem_bytes, int64_t len);
/* ceil((a - 1) / W): the most head elements one worker handles (0 when a = 1). */
int rr__head_slots(int align_elems, int workers);
/* Head elements of `worker` when the head is h long. */
int64_t rr__head_count(int64_t h, int workers, int worker);

/* Where logical element i of a row with head h lives: is_head, worker, and either the head
 * step (in *chunk, *element = 0) or the body's chunk and element. */
static inline void rr__owner_of_headed(int64_t i, int64_t h, int workers, int vec, int *is_head,
                                       int64_t *chunk, int *worker, int *element)
{
	*is_head = i < h;
	if (i < h) {
		*worker = workers - 1 - (int)(i % workers);
		*chunk = i / workers;
		*element = 0;
		return;
	}
	rr__owner_of(i - h, workers, vec, chunk, worker, element);
}
/* The logical element of a head step t of `worker`, or of a body (chunk, element). */
static inline int64_t rr__owned_index_headed(int is_head, int64_t h, int64_t chunk, int worker,
                                             int element, int workers, int vec)
{
	return is_head ? chunk * workers + (workers - 1 - worker)
	               : h + rr__owned_index(chunk, worker, element, workers, vec);
}

/* 1 when every field is set (what rr__layout_check and rr__realise need). */
int rr__layout_is_complete(const rr_layout *layout);

/* Checks `layout` (all fields set, none 0) for `kernel` at row length `cols` and element type
 * `dtype` against `target`, reading the layout's realisation (layout/realise.h). RR_LEGAL or
 * the first reason found; detail gets a sentence. */
rr__illegal rr__layout_check(const rr_kernel *kernel, int64_t cols, rr_dtype dtype,
                             const rr_layout *layout, const rr__target *target, char *detail,
                             size_t detail_size);
/* rr__layout_check with the kernel's facts on target worked out before (NULL: on each call). */
rr__illegal rr__layout_check_with(const rr_kernel *kernel, const rr__kernel_facts *facts,
                                  int64_t cols, rr_dtype dtype, const rr_layout *layout,
                                  const rr__target *target, char *detail, size_t detail_size);

/* S=grid's part of the check (layout_grid.c): the shape fields (a GPU, C in 2..1024, a power
 * of two or not, W >= 32, G=persistent), then whether the C blocks of one row can all be
 * resident at once (a cooperative launch needs it). RR_LEGAL or the reason, with a sentence in
 * detail. */
rr__illegal rr__check_grid_shape(const rr_layout *layout, const rr__target *target, char *detail,
                                 size_t detail_size);
rr__illegal rr__check_grid_resident(const rr__realisation *r, const rr__target *target,
                                    char *detail, size_t detail_size);

#endif

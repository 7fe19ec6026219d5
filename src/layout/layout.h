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
	RR_ILLEGAL_INCOMPLETE /* a field left 0 or AUTO: the check needs a complete layout */
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

#endif

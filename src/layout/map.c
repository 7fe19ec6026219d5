/* The ownership map's arithmetic (DESIGN.md §4, documented in layout.h): a worker's complete
 * and partial packs, and the per-row head. Legality (layout.c) and the realisation record
 * (realise.c) both count with it. */
#include <stdint.h>

#include "layout/layout.h"

static int64_t ceil_div(int64_t a, int64_t b)
{
	return (a + b - 1) / b;
}

int64_t rr__complete_packs(int64_t n, int workers, int vec, int worker)
{
	int64_t packs = n / vec; /* pack p = chunk * W + worker covers [p*V, p*V + V) */
	if (packs <= worker)
		return 0;
	return ceil_div(packs - worker, workers);
}

int rr__has_partial_pack(int64_t n, int workers, int vec, int worker)
{
	return n % vec != 0 && (n / vec) % workers == worker;
}

int rr__head_length(uintptr_t address, int align_bytes, int elem_bytes, int64_t len)
{
	if (align_bytes <= elem_bytes || elem_bytes < 1)
		return 0;
	uintptr_t a = (uintptr_t)align_bytes;
	int64_t h = (int64_t)((a - address % a) % a) / elem_bytes;
	return (int)(h < len ? h : len);
}

int rr__head_slots(int align_elems, int workers)
{
	return align_elems > 1 ? (int)ceil_div(align_elems - 1, workers) : 0;
}

int64_t rr__head_count(int64_t h, int workers, int worker)
{
	int64_t first = workers - 1 - worker; /* its first head element */
	return first < h ? (h - first + workers - 1) / workers : 0;
}

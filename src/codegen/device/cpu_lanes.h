/* Rows as lanes, for the cpu backend's W = 1 plans on short rows (src/codegen/c_emit_lanes.c):
 * L consecutive rows (a block) are the L lanes of a vector, and each lane runs its row's whole
 * kernel in the plan's element order. A block's N * L elements are row-major in memory and
 * element-major in the lanes (the vector of element i holds it for each row): lane permutes
 * move them between the two orders in registers.
 * A block of fewer rows than L, or of rows of another length than the plan's, goes lane by
 * lane. */
#ifndef RR_CODEGEN_DEVICE_CPU_LANES_H
#define RR_CODEGEN_DEVICE_CPU_LANES_H

//@ stand-in
/* What the emitted source defines before this section: here only so the file compiles on its
 * own. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#define L 4
typedef float vf __attribute__((vector_size(L * 4)));
typedef int32_t vi __attribute__((vector_size(L * 4)));
typedef float io_t;
static inline float load_io(const io_t *p, int64_t i)
{
	return p[i];
}
static inline io_t store_io(float v)
{
	return v;
}
static inline vf rr_load_f32(const float *p)
{
	vf v;
	memcpy(&v, p, sizeof v);
	return v;
}
static inline vf rr_vsplat(float s)
{
	return (vf){0} + s;
}
static inline vf rr_vselect(vi mask, vf a, vf b)
{
	return (vf)((mask & (vi)a) | (~mask & (vi)b));
}
static inline void rr_store_f32(float *p, vf v)
{
	memcpy(p, &v, sizeof v);
}
#define load_packed rr_load_f32
#define store_packed rr_store_f32

//@ rows
static inline vi rr_lane_numbers(void)
{
	vi n = {0};
	for (int l = 0; l < L; l++)
		n[l] = l;
	return n;
}

/* Element i of a block of rows of N elements, L * N row-major values in the N vectors c
 * (c[q] lane r is value q * L + r): lane l is value l * N + i, lane (l * N + i) % L of vector
 * (l * N + i) / L. One two-vector lane permute and one blend for each pair of vectors it draws
 * from (all N of them at N <= L), constants at the plan's N. Gathers took 13 cycles each on
 * Zen 4 (softmax f32 100000x2, one thread: 4.98 ns a row, 0.52 without them;
 * bench/lab/s61-cpu/notes.md). */
static inline vf rr_rows_pick(const vf *c, int64_t N, int64_t i)
{
	const vi p = rr_lane_numbers() * (int32_t)N + (int32_t)i, from = p / L;
	const int64_t first = i / L, last = ((L - 1) * N + i) / L;
	vf v = rr_vsplat(0.0f);
#pragma GCC unroll 16
	for (int64_t q = first; q <= last; q += 2) {
		const vi at = p - (int32_t)(q * L); /* 0 .. 2L - 1 where from is q or q + 1 */
		const vf both = q + 1 <= last ? __builtin_shuffle(c[q], c[q + 1], at)
		                              : __builtin_shuffle(c[q], at & (L - 1));
		v = q == first && q + 1 >= last
		        ? both
		        : rr_vselect((from == (int32_t)q) | (from == (int32_t)(q + 1)), both, v);
	}
	return v;
}

/* The inverse: vector q of the block's N * L row-major values from the element vectors y
 * (y[i] lane l is row l's element i): lane r is value p = q * L + r, row p / N's element
 * p % N. */
static inline vf rr_rows_unpick(const vf *y, int64_t N, int64_t q)
{
	const vi p = rr_lane_numbers() + (int32_t)(q * L), row = p / (int32_t)N,
	         element = p % (int32_t)N;
	vf v = rr_vsplat(0.0f);
#pragma GCC unroll 16
	for (int64_t i = 0; i < N; i += 2) {
		const vf both = i + 1 < N
		                    ? __builtin_shuffle(y[i], y[i + 1],
		                                        row + ((element == (int32_t)(i + 1)) & L))
		                    : __builtin_shuffle(y[i], row);
		v = N <= 2 ? both
		           : rr_vselect((element == (int32_t)i) | (element == (int32_t)(i + 1)),
		                        both, v);
	}
	return v;
}

/* Element i of the first `live` rows of N elements at p, lane by lane (the other lanes 0). */
static inline vf rr_rows_load_lanes(const io_t *p, int64_t N, int64_t i, int live)
{
	vf v = rr_vsplat(0.0f);
	for (int l = 0; l < live; l++)
		v[l] = load_io(p, l * N + i);
	return v;
}

static inline void rr_rows_store_lanes(io_t *p, int64_t N, int64_t i, int live, vf v)
{
	for (int l = 0; l < live; l++)
		p[l * N + i] = store_io(v[l]);
}

/* One value a row (a rowscalar input) of the first `live` rows at p; L of them at once where
 * the block is whole. */
static inline vf rr_rows_scalar_in(const io_t *p, int live)
{
	if (live == L)
		return load_packed(p);
	return rr_rows_load_lanes(p, 1, 0, live);
}

static inline void rr_rows_scalar_out(io_t *p, int live, vf v)
{
	if (live == L)
		store_packed(p, v);
	else
		rr_rows_store_lanes(p, 1, 0, live, v);
}

/* The functions of one float that a kernel applies to a row's scalars, lane by lane: the
 * calls the per-row code makes, so each row's scalars keep their bits. */
static inline vf rr_rows_expf(vf x)
{
	for (int l = 0; l < L; l++)
		x[l] = expf(x[l]);
	return x;
}

static inline vf rr_rows_logf(vf x)
{
	for (int l = 0; l < L; l++)
		x[l] = logf(x[l]);
	return x;
}

static inline vf rr_rows_tanhf(vf x)
{
	for (int l = 0; l < L; l++)
		x[l] = tanhf(x[l]);
	return x;
}

static inline vf rr_rows_fmaxf(vf a, vf b)
{
	for (int l = 0; l < L; l++)
		a[l] = fmaxf(a[l], b[l]);
	return a;
}

static inline vf rr_rows_fminf(vf a, vf b)
{
	for (int l = 0; l < L; l++)
		a[l] = fminf(a[l], b[l]);
	return a;
}
//@ end
#endif

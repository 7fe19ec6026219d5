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
#define RR_ROWS_TRANSPOSE_MIN_N 8

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

/* Row l of a block of rows of N <= L elements (c as in rr_rows_pick): lane e is value l * N + e
 * (e < N; the lanes past the row hold the next values or others). One two-vector permute, none
 * where the row starts a vector. */
static inline vf rr_rows_row(const vf *c, int64_t N, int64_t l)
{
	const int64_t q = l * N / L;
	const vi at = rr_lane_numbers() + (int32_t)(l * N - q * L); /* 0 .. 2L - 1 */
	return q + 1 < N ? __builtin_shuffle(c[q], c[q + 1], at)
	                 : __builtin_shuffle(c[q], at & (L - 1));
}

/* The L x L transposition of a[0 .. L - 1] in place: a[j] lane k goes to a[k] lane j. Stage d
 * (L / 2, ..., 2, 1) swaps bit d of the vector with bit d of the lane: vectors j and j + d
 * (bit d of j clear) exchange their lanes with bit d set and clear, two two-vector permutes a
 * pair, L log2(L) a transposition. */
static inline void rr_rows_transpose(vf *a)
{
	const vi lane = rr_lane_numbers();
#pragma GCC unroll 16
	for (int d = L / 2; d >= 1; d /= 2) {
		const vi high = (lane & d) != 0; /* all ones where lane k has bit d set */
		const vi low_at = lane + (high & (L - d)), high_at = lane + d + (high & (L - d));
#pragma GCC unroll 16
		for (int j = 0; j < L; j++) {
			if (j & d)
				continue;
			/* a[j] lane k: x[k], or y[k - d] where k has bit d; a[j + d]: x[k + d], or
			 * y[k] where k has bit d */
			const vf x = a[j], y = a[j + d];
			a[j] = __builtin_shuffle(x, y, low_at);
			a[j + d] = __builtin_shuffle(x, y, high_at);
		}
	}
}

/* The element vectors e[0 .. N - 1] (e[i] lane l: row l's element i) of a whole block's N
 * row-major vectors c: rows of RR_ROWS_TRANSPOSE_MIN_N .. L elements (the emitter's define,
 * layout/realise.h) as L rows (one permute each) and a transposition, L + L log2(L) permutes
 * a block where rr_rows_pick takes N^2 (softmax f32, one thread, ns a row: N = 12 7.5
 * against 16.9, N = 16 9.1 against 24.9); other rows by rr_rows_pick. */
static inline void rr_rows_to_elements(vf *e, const vf *c, int64_t N)
{
	if (N < RR_ROWS_TRANSPOSE_MIN_N || N > L) {
#pragma GCC unroll 16
		for (int64_t i = 0; i < N; i++)
			e[i] = rr_rows_pick(c, N, i);
		return;
	}
	vf a[L];
#pragma GCC unroll 16
	for (int l = 0; l < L; l++)
		a[l] = rr_rows_row(c, N, l);
	rr_rows_transpose(a);
#pragma GCC unroll 16
	for (int64_t i = 0; i < N; i++)
		e[i] = a[i];
}

/* Vector q of the block's row-major values from its rows a[l] (lane e: row l's element e, as
 * rr_rows_row): lane r is value p = q * L + r, row p / N's element p % N; a pair of rows a
 * two-vector permute, the pairs a blend (rows of 9 or more elements: at most three rows). */
static inline vf rr_rows_unrow(const vf *a, int64_t N, int64_t q)
{
	const vi p = rr_lane_numbers() + (int32_t)(q * L), row = p / (int32_t)N,
	         element = p % (int32_t)N;
	const int64_t first = q * L / N, last = (q * L + L - 1) / N;
	vf v = rr_vsplat(0.0f);
#pragma GCC unroll 16
	for (int64_t k = first; k <= last; k += 2) {
		const vf both = k + 1 <= last
		                    ? __builtin_shuffle(a[k], a[k + 1],
		                                        element + ((row == (int32_t)(k + 1)) & L))
		                    : __builtin_shuffle(a[k], element);
		v = k == first && k + 1 >= last
		        ? both
		        : rr_vselect((row == (int32_t)k) | (row == (int32_t)(k + 1)), both, v);
	}
	return v;
}

/* The inverse of rr_rows_to_elements: a whole block's N row-major vectors from the element
 * vectors y[0 .. N - 1], stored at out by store_packed. */
static inline void rr_rows_store_elements(io_t *out, const vf *y, int64_t N)
{
	if (N < RR_ROWS_TRANSPOSE_MIN_N || N > L) {
#pragma GCC unroll 16
		for (int64_t q = 0; q < N; q++)
			store_packed(out + q * L, rr_rows_unpick(y, N, q));
		return;
	}
	vf a[L];
#pragma GCC unroll 16
	for (int l = 0; l < L; l++)
		a[l] = l < N ? y[l] : rr_vsplat(0.0f);
	rr_rows_transpose(a);
#pragma GCC unroll 16
	for (int64_t q = 0; q < N; q++)
		store_packed(out + q * L, rr_rows_unrow(a, N, q));
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

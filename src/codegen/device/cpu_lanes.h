/* Rows as lanes, for the cpu backend's W = 1 plans on short rows (src/codegen/c_emit_lanes.c):
 * L consecutive rows (a block) are the L lanes of a vector, and each lane runs its row's whole
 * kernel in the plan's element order. A block's N * L elements are row-major in memory and
 * element-major in the lanes (the vector of element i holds it for each row): gathers move
 * them between the two orders, from the rows themselves (f32) or from an f32 copy (16-bit).
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
static inline void rr_store_f32(float *p, vf v)
{
	memcpy(p, &v, sizeof v);
}
#define load_packed rr_load_f32
#define store_packed rr_store_f32

//@ rows
/* Lane l: p[at[l]], at[l] >= 0. One gather instruction where the target has it. */
static inline vf rr_rows_gather_at(const float *p, vi at)
{
#if defined(__AVX512F__) && L == 16
	return (vf)_mm512_i32gather_ps((__m512i)at, p, 4);
#elif defined(__AVX2__) && L == 8
	return (vf)_mm256_i32gather_ps(p, (__m256i)at, 4);
#else
	vf v = {0};
	for (int l = 0; l < L; l++)
		v[l] = p[at[l]];
	return v;
#endif
}

/* Element i of the block's rows of N elements at p (lane l: p[l * N + i]), L * N < 2^31:
 * one vector load where the rows are one element long. */
static inline vf rr_rows_gather(const float *p, int64_t N, int64_t i)
{
	if (N == 1)
		return rr_load_f32(p + i);
	vi at = {0};
	for (int l = 0; l < L; l++)
		at[l] = (int32_t)(l * N + i);
	return rr_rows_gather_at(p, at);
}

/* Vector q of the block's N * L row-major elements (q < N) from the element-major values y
 * (y[i] lane l is row l's element i, the floats of y in that order): element p = q * L + r is
 * row p / N's element p % N. */
static inline vf rr_rows_gather_out(const vf *y, int64_t N, int64_t q)
{
	if (N == 1)
		return y[q];
	vi at = {0};
	for (int r = 0; r < L; r++) {
		const int32_t p = (int32_t)(q * L + r);
		at[r] = (int32_t)(p % N * L + p / N);
	}
	return rr_rows_gather_at((const float *)y, at);
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

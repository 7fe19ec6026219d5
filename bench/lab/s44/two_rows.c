/* Session 44 CPU probe: what two rows interleaved would save on short softmax bf16 rows.
 * One hand-written softmax over bf16 rows (AVX-512 BF16; max, exp with a degree-3 polynomial,
 * sum, scale, round to bf16), run a row at a time (one_row) and two rows at a time, every
 * statement twice over independent rows (two_rows). The same arithmetic per row, so the
 * outputs agree bit for bit; what differs is only how much of one row's latency (the trees,
 * the reciprocal) the other row's work can hide.
 *   cc -O3 -march=native -o /tmp/two_rows bench/lab/s44/two_rows.c -lm
 *   /tmp/two_rows M N REPS     (rows in cache: M x N bf16 a few hundred KiB) */
#define _GNU_SOURCE
#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NMAX 4096

static inline __m512 widen(const uint16_t *p)
{
	return _mm512_castsi512_ps(
	    _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256((const void *)p)), 16));
}

static inline float hmax(__m512 v)
{
	v = _mm512_max_ps(v, _mm512_shuffle_f32x4(v, v, 0x4e));
	v = _mm512_max_ps(v, _mm512_shuffle_f32x4(v, v, 0xb1));
	v = _mm512_max_ps(v, _mm512_permute_ps(v, 0x4e));
	v = _mm512_max_ps(v, _mm512_permute_ps(v, 0xb1));
	return _mm512_cvtss_f32(v);
}

static inline float hsum(__m512 v)
{
	v = _mm512_add_ps(v, _mm512_shuffle_f32x4(v, v, 0x4e));
	v = _mm512_add_ps(v, _mm512_shuffle_f32x4(v, v, 0xb1));
	v = _mm512_add_ps(v, _mm512_permute_ps(v, 0x4e));
	v = _mm512_add_ps(v, _mm512_permute_ps(v, 0xb1));
	return _mm512_cvtss_f32(v);
}

/* exp(x) for x <= 0: 2^k exp(r), exp(r) of degree 3 (enough for bf16 outputs) */
static inline __m512 vexp(__m512 x)
{
	x = _mm512_max_ps(x, _mm512_set1_ps(-87.0f));
	const __m512 k = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504f)), 8);
	const __m512 r = _mm512_fnmadd_ps(k, _mm512_set1_ps(0.693147181f), x);
	__m512 p = _mm512_fmadd_ps(r, _mm512_set1_ps(0.166666667f), _mm512_set1_ps(0.5f));
	p = _mm512_fmadd_ps(r, p, _mm512_set1_ps(1.0f));
	p = _mm512_fmadd_ps(r, p, _mm512_set1_ps(1.0f));
	return _mm512_scalef_ps(p, k);
}

static inline void store_bf16(uint16_t *p, __m512 v)
{
	_mm256_storeu_si256((void *)p, (__m256i)_mm512_cvtneps_pbh(v));
}

static void one_row(const uint16_t *x, uint16_t *y, int n)
{
	float e[NMAX];
	__m512 m0 = _mm512_set1_ps(-INFINITY), m1 = m0;
	for (int i = 0; i < n; i += 32) {
		m0 = _mm512_max_ps(m0, widen(x + i));
		m1 = _mm512_max_ps(m1, widen(x + i + 16));
	}
	const __m512 m = _mm512_set1_ps(hmax(_mm512_max_ps(m0, m1)));
	__m512 s0 = _mm512_setzero_ps(), s1 = s0;
	for (int i = 0; i < n; i += 32) {
		const __m512 a = vexp(_mm512_sub_ps(widen(x + i), m));
		const __m512 b = vexp(_mm512_sub_ps(widen(x + i + 16), m));
		_mm512_storeu_ps(e + i, a);
		_mm512_storeu_ps(e + i + 16, b);
		s0 = _mm512_add_ps(s0, a);
		s1 = _mm512_add_ps(s1, b);
	}
	const __m512 inv = _mm512_set1_ps(1.0f / hsum(_mm512_add_ps(s0, s1)));
	for (int i = 0; i < n; i += 16)
		store_bf16(y + i, _mm512_mul_ps(_mm512_loadu_ps(e + i), inv));
}

static void two_rows(const uint16_t *x, const uint16_t *u, uint16_t *y, uint16_t *v, int n)
{
	float e[NMAX], f[NMAX];
	__m512 m0 = _mm512_set1_ps(-INFINITY), m1 = m0, q0 = m0, q1 = m0;
	for (int i = 0; i < n; i += 32) {
		m0 = _mm512_max_ps(m0, widen(x + i));
		q0 = _mm512_max_ps(q0, widen(u + i));
		m1 = _mm512_max_ps(m1, widen(x + i + 16));
		q1 = _mm512_max_ps(q1, widen(u + i + 16));
	}
	const __m512 m = _mm512_set1_ps(hmax(_mm512_max_ps(m0, m1)));
	const __m512 q = _mm512_set1_ps(hmax(_mm512_max_ps(q0, q1)));
	__m512 s0 = _mm512_setzero_ps(), s1 = s0, t0 = s0, t1 = s0;
	for (int i = 0; i < n; i += 32) {
		const __m512 a = vexp(_mm512_sub_ps(widen(x + i), m));
		const __m512 c = vexp(_mm512_sub_ps(widen(u + i), q));
		const __m512 b = vexp(_mm512_sub_ps(widen(x + i + 16), m));
		const __m512 d = vexp(_mm512_sub_ps(widen(u + i + 16), q));
		_mm512_storeu_ps(e + i, a);
		_mm512_storeu_ps(f + i, c);
		_mm512_storeu_ps(e + i + 16, b);
		_mm512_storeu_ps(f + i + 16, d);
		s0 = _mm512_add_ps(s0, a);
		t0 = _mm512_add_ps(t0, c);
		s1 = _mm512_add_ps(s1, b);
		t1 = _mm512_add_ps(t1, d);
	}
	const __m512 inv = _mm512_set1_ps(1.0f / hsum(_mm512_add_ps(s0, s1)));
	const __m512 jnv = _mm512_set1_ps(1.0f / hsum(_mm512_add_ps(t0, t1)));
	for (int i = 0; i < n; i += 16) {
		store_bf16(y + i, _mm512_mul_ps(_mm512_loadu_ps(e + i), inv));
		store_bf16(v + i, _mm512_mul_ps(_mm512_loadu_ps(f + i), jnv));
	}
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: %s M N REPS (N a multiple of 32, at most %d)\n", argv[0], NMAX);
		return 2;
	}
	const int M = atoi(argv[1]) & ~1, N = atoi(argv[2]), reps = atoi(argv[3]);
	if (M < 2 || N < 32 || N % 32 || N > NMAX || reps < 1) {
		fprintf(stderr, "bad M, N or REPS\n");
		return 2;
	}
	uint16_t *x = aligned_alloc(64, (size_t)M * N * 2), *y1 = aligned_alloc(64, (size_t)M * N * 2),
	         *y2 = aligned_alloc(64, (size_t)M * N * 2);
	srand(1);
	for (size_t i = 0; i < (size_t)M * N; i++) {
		float f = 4.0f * ((float)rand() / (float)RAND_MAX - 0.5f);
		uint32_t b;
		memcpy(&b, &f, 4);
		x[i] = (uint16_t)(b >> 16);
	}
	double best[2] = {1e30, 1e30}, ratio_sum = 0;
	int faster = 0;
	for (int r = 0; r < reps; r++) {
		double t[2];
		for (int q = 0; q < 2; q++) {
			const int which = (r & 1) ? 1 - q : q;
			const double t0 = now();
			if (which == 0)
				for (int row = 0; row < M; row++)
					one_row(x + (size_t)row * N, y1 + (size_t)row * N, N);
			else
				for (int row = 0; row < M; row += 2)
					two_rows(x + (size_t)row * N, x + (size_t)(row + 1) * N,
					         y2 + (size_t)row * N, y2 + (size_t)(row + 1) * N, N);
			t[which] = now() - t0;
		}
		for (int k = 0; k < 2; k++)
			best[k] = t[k] < best[k] ? t[k] : best[k];
		ratio_sum += t[1] / t[0];
		faster += t[1] < t[0];
	}
	printf("%dx%d: one row at a time %.1f ns a row, two %.1f (best); two/one mean %.3f, "
	       "two faster in %d of %d; outputs %s\n",
	       M, N, best[0] / M * 1e9, best[1] / M * 1e9, ratio_sum / reps, faster, reps,
	       memcmp(y1, y2, (size_t)M * N * 2) ? "DIFFER" : "the same");
	return 0;
}

/* Lab: what a software prefetch costs a bf16 row sum on this CPU. One thread, M rows of N bf16
 * (rows in L2 or L3 by size), two 8-lane accumulators (the W=16 plan's), 16 elements a step.
 * Variants: 0 no prefetch; 1 prefetch a vector (the emitted loop), D bytes ahead; 2 one a line
 * (steps unrolled by two: 64 bytes); 3 as 1 with prefetchnta; 4 one a line via a branch.
 * Build: gcc -O3 -march=native -o pf pf.c ; usage: pf M N D ROUNDS */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}
static inline __m256 ld(const uint16_t *p)
{
	const __m256i both = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)p));
	const __m256i hh = _mm256_setr_epi8(-1, -1, 0, 1, -1, -1, 2, 3, -1, -1, 4, 5, -1, -1, 6, 7,
	                                    -1, -1, 8, 9, -1, -1, 10, 11, -1, -1, 12, 13, -1, -1, 14,
	                                    15);
	return _mm256_castsi256_ps(_mm256_shuffle_epi8(both, hh));
}
float out[1 << 16]; /* read at the end, so that no sum is dropped */
__attribute__((noinline)) static void run(int var, const uint16_t *x, int64_t M, int64_t N,
                                          int64_t D)
{
	for (int64_t r = 0; r < M; r++) {
		const uint16_t *p = x + r * N;
		__m256 a0 = _mm256_setzero_ps(), a1 = a0;
		if (var == 0) {
			for (int64_t i = 0; i < N; i += 16) {
				a0 = _mm256_add_ps(a0, ld(p + i));
				a1 = _mm256_add_ps(a1, ld(p + i + 8));
			}
		} else if (var == 1 || var == 3) {
			for (int64_t i = 0; i < N; i += 16) {
				if (var == 1) {
					__builtin_prefetch((const char *)(p + i) + D);
					a0 = _mm256_add_ps(a0, ld(p + i));
					__builtin_prefetch((const char *)(p + i + 8) + D);
					a1 = _mm256_add_ps(a1, ld(p + i + 8));
				} else {
					_mm_prefetch((const char *)(p + i) + D, _MM_HINT_NTA);
					a0 = _mm256_add_ps(a0, ld(p + i));
					_mm_prefetch((const char *)(p + i + 8) + D, _MM_HINT_NTA);
					a1 = _mm256_add_ps(a1, ld(p + i + 8));
				}
			}
		} else if (var == 2) {
			for (int64_t i = 0; i < N; i += 32) {
				__builtin_prefetch((const char *)(p + i) + D);
				a0 = _mm256_add_ps(a0, ld(p + i));
				a1 = _mm256_add_ps(a1, ld(p + i + 8));
				a0 = _mm256_add_ps(a0, ld(p + i + 16));
				a1 = _mm256_add_ps(a1, ld(p + i + 24));
			}
		} else {
			for (int64_t i = 0; i < N; i += 16) {
				if ((((uintptr_t)(p + i) + D) & 63) < 32)
					__builtin_prefetch((const char *)(p + i) + D);
				a0 = _mm256_add_ps(a0, ld(p + i));
				a1 = _mm256_add_ps(a1, ld(p + i + 8));
			}
		}
		__m256 s = _mm256_add_ps(a0, a1);
		out[r & 0xffff] = s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7];
	}
}
int main(int argc, char **argv)
{
	int64_t M = atoll(argv[1]), N = atoll(argv[2]), D = atoll(argv[3]);
	int rounds = atoi(argv[4]);
	uint16_t *x = aligned_alloc(4096, (size_t)(M * N * 2 + 65536 + 4095) / 4096 * 4096);
	for (int64_t j = 0; j < M * N + 32768; j++)
		x[j] = (uint16_t)(0x3f80 + (j & 63));
	static double t[5][200];
	const double ghz = 3.15;
	int reps = (int)(2e7 / (M * N)) + 1;
	for (int r = 0; r < rounds; r++)
		for (int q = 0; q < 10; q++) {
			int v = q < 5 ? q : 9 - q;
			double t0 = now();
			for (int k = 0; k < reps; k++)
				run(v, x, M, N, D);
			double d = (now() - t0) / reps;
			t[v][r] = q < 5 ? d : 0.5 * (t[v][r] + d);
		}
	const char *names[5] = {"none", "a vector", "a line (unrolled)", "a vector nta",
	                        "a line (branch)"};
	for (int v = 0; v < 5; v++) {
		double s[200];
		memcpy(s, t[v], rounds * sizeof *s);
		for (int i = 0; i < rounds; i++)
			for (int j = i + 1; j < rounds; j++)
				if (s[j] < s[i]) { double z = s[i]; s[i] = s[j]; s[j] = z; }
		double m = s[rounds / 2];
		fprintf(stderr, "%s", out[7] == 1.5f ? " " : "");
		printf("%-20s %9.2f us (%.2f-%.2f)  %.3f cyc/el\n", names[v], m * 1e6, s[0] * 1e6,
		       s[rounds - 1] * 1e6, m * ghz * 1e9 / (M * N));
	}
	return 0;
}

/* Read bandwidth of two threads summing 64 MiB of f32 (session 41 CPU lab): what a sum can reach
 * on this machine, by strategy. cc -O3 -march=native -pthread readbw.c -o readbw
 * ./readbw MODE ACCS PREFETCH_BYTES HUGE ROWLEN   MODE 0: each thread a contiguous half, row by row;
 * 1: rows handed out alternately (thread t takes rows t, t+2, ...). */
#define _GNU_SOURCE
#include <immintrin.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static float *data;
static size_t total, rowlen;
static int mode, accs, pf;
static pthread_barrier_t bar;
static volatile float sink[2];

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static float sum_row(const float *p, size_t n)
{
	__m512 a[8];
	for (int k = 0; k < 8; k++)
		a[k] = _mm512_setzero_ps();
	size_t i = 0;
	if (accs == 1)
		for (; i + 16 <= n; i += 16) {
			if (pf)
				_mm_prefetch((const char *)(p + i) + pf, _MM_HINT_T0);
			a[0] = _mm512_add_ps(a[0], _mm512_loadu_ps(p + i));
		}
	else if (accs == 2)
		for (; i + 32 <= n; i += 32) {
			if (pf)
				_mm_prefetch((const char *)(p + i) + pf, _MM_HINT_T0), _mm_prefetch((const char *)(p + i) + pf + 64, _MM_HINT_T0);
			a[0] = _mm512_add_ps(a[0], _mm512_loadu_ps(p + i));
			a[1] = _mm512_add_ps(a[1], _mm512_loadu_ps(p + i + 16));
		}
	else
		for (; i + 64 <= n; i += 64) {
			if (pf)
				for (int k = 0; k < 4; k++)
					_mm_prefetch((const char *)(p + i) + pf + 64 * k, _MM_HINT_T0);
			for (int k = 0; k < 4; k++)
				a[k] = _mm512_add_ps(a[k], _mm512_loadu_ps(p + i + 16 * k));
		}
	for (int k = 1; k < 8; k++)
		a[0] = _mm512_add_ps(a[0], a[k]);
	return _mm512_reduce_add_ps(a[0]);
}

static double best[2];
static void *worker(void *arg)
{
	int t = (int)(intptr_t)arg;
	size_t rows = total / rowlen;
	for (int rep = 0; rep < 30; rep++) {
		pthread_barrier_wait(&bar);
		double t0 = now();
		float s = 0;
		if (mode == 0)
			for (size_t r = t * rows / 2; r < (t + 1) * rows / 2; r++)
				s += sum_row(data + r * rowlen, rowlen);
		else
			for (size_t r = t; r < rows; r += 2)
				s += sum_row(data + r * rowlen, rowlen);
		sink[t] = s;
		pthread_barrier_wait(&bar);
		double dt = now() - t0;
		if (t == 0 && (rep == 0 || dt < best[0]))
			best[0] = dt;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	mode = atoi(argv[1]);
	accs = atoi(argv[2]);
	pf = atoi(argv[3]);
	int huge = atoi(argv[4]);
	rowlen = (size_t)atol(argv[5]);
	total = (64u << 20) / 4;
	size_t bytes = total * 4 + (2u << 20);
	data = aligned_alloc(2u << 20, bytes);
	if (huge)
		madvise(data, bytes, MADV_HUGEPAGE);
	else
		madvise(data, bytes, MADV_NOHUGEPAGE);
	data += huge == 2 ? 4 : 0; /* 16 bytes in, as NumPy */
	for (size_t i = 0; i < total; i++)
		data[i] = (float)(i % 7);
	pthread_barrier_init(&bar, NULL, 2);
	pthread_t th[2];
	for (int t = 0; t < 2; t++)
		pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
	for (int t = 0; t < 2; t++)
		pthread_join(th[t], NULL);
	printf("mode %d accs %d pf %d huge %d row %zu: %.1f us %.1f GB/s\n", mode, accs, pf, huge,
	       rowlen, best[0] * 1e6, total * 4 / best[0] / 1e9);
	return 0;
}

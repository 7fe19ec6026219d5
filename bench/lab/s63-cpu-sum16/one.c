/* Lab: one thread, rr_cpu_kernel of each SO over M x N rows (in cache when small), REPS calls a
 * sample, samples interleaved A B .. B A; prints median ns an element and cycles an element at
 * GHZ (default 3.15, this VM's clock by an imul chain, s63-cpu-softmax/notes.md).
 * Usage: one M N ELEMENT_BYTES ROUNDS SO... ; build: gcc -O2 -o one one.c -ldl */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
typedef void (*kernel_fn)(int64_t, int64_t, int64_t, const void *const *, const double *,
                          void *const *, float *, int);
static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}
static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}
int main(int argc, char **argv)
{
	int64_t M = atoll(argv[1]), N = atoll(argv[2]);
	int es = atoi(argv[3]), rounds = atoi(argv[4]), n = argc - 5;
	double ghz = getenv("GHZ") ? atof(getenv("GHZ")) : 3.15;
	void *x = aligned_alloc(4096, (size_t)(M * N * es + 4096) / 4096 * 4096);
	srand(1);
	for (int64_t j = 0; j < M * N; j++) {
		float v = (float)(rand() % 6000) / 1000.0f - 3.0f;
		if (es == 4)
			((float *)x)[j] = v;
		else {
			uint32_t b;
			memcpy(&b, &v, 4);
			((uint16_t *)x)[j] = (uint16_t)((b + 0x7fff + ((b >> 16) & 1)) >> 16);
		}
	}
	kernel_fn k[16];
	void *out[16];
	for (int s = 0; s < n; s++) {
		void *h = dlopen(argv[5 + s], RTLD_NOW | RTLD_LOCAL);
		if (!h) { fprintf(stderr, "%s\n", dlerror()); return 1; }
		k[s] = (kernel_fn)dlsym(h, "rr_cpu_kernel");
		out[s] = calloc((size_t)M, 8);
	}
	float *scratch = aligned_alloc(64, 1 << 20);
	double target = 0.01; /* 10 ms a sample */
	int reps = 1;
	for (;;) {
		double t0 = now();
		for (int r = 0; r < reps; r++) k[0](0, M, N, (const void *const *)&x, NULL, &out[0], scratch, 0);
		if (now() - t0 > target / 4) { reps = (int)(reps * target / (now() - t0)) + 1; break; }
		reps *= 2;
	}
	static double t[16][400];
	for (int r = 0; r < rounds; r++) {
		for (int pass = 0; pass < 2; pass++)
			for (int q = 0; q < n; q++) {
				int s = pass ? n - 1 - q : q;
				double t0 = now();
				for (int i = 0; i < reps; i++)
					k[s](0, M, N, (const void *const *)&x, NULL, &out[s], scratch, 0);
				double d = (now() - t0) / reps;
				t[s][r] = pass ? 0.5 * (t[s][r] + d) : d;
			}
	}
	for (int s = 0; s < n; s++) {
		if (memcmp(out[s], out[0], (size_t)M * (size_t)es))
			printf("%s: outputs DIFFER from the first's\n", argv[5 + s]);
		double lo = t[s][0], hi = t[s][0];
		for (int r = 0; r < rounds; r++) { lo = t[s][r] < lo ? t[s][r] : lo; hi = t[s][r] > hi ? t[s][r] : hi; }
		qsort(t[s], rounds, sizeof(double), cmp);
		double m = t[s][rounds / 2];
		printf("%-40s %9.2f us (%.2f-%.2f)  %.3f ns/el  %.2f cyc/el  %.2f el/cyc\n", argv[5 + s],
		       m * 1e6, lo * 1e6, hi * 1e6, m * 1e9 / (M * N), m * ghz * 1e9 / (M * N), (M * N) / (m * ghz * 1e9));
	}
	return 0;
}

/* Lab driver (session 61): times one generated cpu source's rr_cpu_kernel on one thread, rows
 * M x N of random f32/bf16 in [-3, 3] (index 0), best of 20 launches. Usage:
 * drive SO M N ELEMENT_BYTES INPUTS OUTPUTS */
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

int main(int argc, char **argv)
{
	if (argc < 7)
		return 2;
	void *h = dlopen(argv[1], RTLD_NOW);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	kernel_fn k = (kernel_fn)dlsym(h, "rr_cpu_kernel");
	int64_t (*scratch_floats)(int64_t) = (int64_t(*)(int64_t))dlsym(h, "rr_cpu_scratch_floats");
	const int64_t M = atoll(argv[2]), N = atoll(argv[3]);
	const int es = atoi(argv[4]), nin = atoi(argv[5]), nout = atoi(argv[6]);
	const void *in[8];
	void *out[8];
	double params[8] = {1e-5, 1e-5, 1e-5, 1e-5, 1e-5, 1e-5, 1e-5, 1e-5};
	for (int i = 0; i < nin; i++) {
		uint16_t *p = malloc((size_t)(M * N + 64) * 4);
		float *f = (float *)p;
		for (int64_t j = 0; j < M * N * 2; j++)
			p[j] = (uint16_t)(0x3f00 + rand() % 0x100);
		if (es == 4)
			for (int64_t j = 0; j < M * N; j++)
				f[j] = (float)(rand() % 6000) / 1000.0f - 3.0f + 0.0001f;
		in[i] = p;
	}
	for (int j = 0; j < nout; j++)
		out[j] = calloc((size_t)(M * N + 64), 4);
	/* the per-row code's kept rows (session 61: per-row W = 4 plans beside the lanes) */
	float *scratch = calloc((size_t)(scratch_floats ? scratch_floats(N) : 0) + 64, 4);
	double best = 1e9;
	for (int r = 0; r < 20; r++) {
		double t0 = now();
		k(0, M, N, in, params, out, scratch, 0);
		double t = now() - t0;
		best = t < best ? t : best;
	}
	printf("%.1f us  %.2f ns/row\n", best * 1e6, best * 1e9 / M);
	return 0;
}

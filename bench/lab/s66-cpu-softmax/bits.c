/* Lab check (session 66, CPU): two generated softmax f32 sources (base, new) give the same
 * output bytes. Rows by family (row % 8): 0 the CLI's values (uniform [-3, 3], never zero),
 * 1 uniform [-100, 100] (x - m under -86.5: not ranged), 2 family 0 with one -inf, 3 family 0
 * with NaNs of odd payloads (quiet, both signs), 4 all NaN, 5 m and values at m - 86.5, just
 * above and just below it, 6 family 0 with one +inf, 7 [-40, 40] (ranged, wide exponents).
 * Each .so runs every row on one thread, streamed and not (its `stream` argument).
 * Usage: bits M N BASE.so NEW.so; prints "same" or the first differing element, exit 1.
 * Build: gcc -O2 -o bits bits.c -ldl -lm */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*kernel_fn)(int64_t, int64_t, int64_t, const void *const *, const double *,
                          void *const *, float *, int);
typedef int64_t (*floats_fn)(int64_t);

static float from_bits(uint32_t b)
{
	float f;
	memcpy(&f, &b, 4);
	return f;
}

static float uniform(float lo, float hi)
{
	return lo + (hi - lo) * (float)rand() / (float)RAND_MAX;
}

static void fill_row(float *x, int64_t n, int64_t row)
{
	for (int64_t j = 0; j < n; j++) {
		float v = (float)(rand() % 6000) / 1000.0f - 3.0f + 0.0001f;
		x[j] = v;
	}
	const int64_t at = rand() % n, at2 = rand() % n;
	switch (row % 9) {
	case 1:
		for (int64_t j = 0; j < n; j++)
			x[j] = uniform(-100.0f, 100.0f);
		break;
	case 2:
		x[at] = -INFINITY;
		break;
	case 3:
		x[at] = from_bits((row & 8 ? 0xffc00000u : 0x7fc00000u) |
		                  (uint32_t)(rand() & 0x3fffff) | 1u);
		break;
	case 4:
		for (int64_t j = 0; j < n; j++)
			x[j] = from_bits(0x7fc001ffu);
		break;
	case 5:
		x[at] = 3.0f;
		x[at2] = 3.0f - 86.5f;
		x[rand() % n] = nextafterf(3.0f - 86.5f, 0.0f);
		if (row % 16 == 13)
			x[rand() % n] = nextafterf(3.0f - 86.5f, -INFINITY);
		break;
	case 6:
		x[at] = INFINITY;
		break;
	case 7:
		for (int64_t j = 0; j < n; j++)
			x[j] = uniform(-40.0f, 40.0f);
		break;
	case 8:
		x[at] = from_bits(0x7fc00000u | (uint32_t)(rand() & 0x3fffff) | 1u);
		x[at2] = from_bits(0xffc001ffu);
		break;
	}
}

int main(int argc, char **argv)
{
	if (argc != 5)
		return 2;
	const int64_t M = atoll(argv[1]), N = atoll(argv[2]);
	float *x = malloc((size_t)(M * N) * 4);
	srand(66);
	for (int64_t r = 0; r < M; r++)
		fill_row(x + r * N, N, r);
	float *out[2][2];
	for (int s = 0; s < 2; s++) {
		void *h = dlopen(argv[3 + s], RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			fprintf(stderr, "%s\n", dlerror());
			return 2;
		}
		kernel_fn kern = (kernel_fn)dlsym(h, "rr_cpu_kernel");
		floats_fn sf = (floats_fn)dlsym(h, "rr_cpu_scratch_floats");
		const int64_t floats = (sf ? sf(N) : 0) + 64;
		float *scratch = aligned_alloc(64, (size_t)(floats * 4 + 63) / 64 * 64);
		memset(scratch, 0, (size_t)floats * 4);
		for (int stream = 0; stream < 2; stream++) {
			out[s][stream] = aligned_alloc(64, (size_t)(M * N * 4 + 63) / 64 * 64);
			memset(out[s][stream], 0xa5, (size_t)(M * N) * 4);
			const void *in[1] = {x};
			void *o[1] = {out[s][stream]};
			double params[1] = {0};
			kern(0, M, N, in, params, o, scratch, stream);
		}
	}
	int bad = 0, payloads = 0;
	for (int stream = 0; stream < 2; stream++)
		if (memcmp(out[0][stream], out[1][stream], (size_t)(M * N) * 4) != 0) {
			for (int64_t i = 0; i < M * N; i++)
				if (memcmp(&out[0][stream][i], &out[1][stream][i], 4) != 0) {
					if (i / N % 9 == 8 && isnan(out[0][stream][i]) &&
					    isnan(out[1][stream][i])) {
						payloads++;
						continue;
					}
					uint32_t b0, b1;
					memcpy(&b0, &out[0][stream][i], 4);
					memcpy(&b1, &out[1][stream][i], 4);
					printf("%sx%s stream %d: differs at row %ld col %ld: %.9g vs %.9g (%08x %08x)\n",
					       argv[1], argv[2], stream, (long)(i / N), (long)(i % N),
					       (double)out[0][stream][i], (double)out[1][stream][i], b0, b1);
					bad = 1;
					break;
				}
		}
	if (!bad)
		printf("%sx%s same (streamed and not)%s\n", argv[1], argv[2],
		       payloads ? "; rows of two NaNs: another NaN's payload" : "");
	return bad;
}

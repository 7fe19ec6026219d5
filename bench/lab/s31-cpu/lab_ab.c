/* Lab driver (session 30, cpu; session 31 added cross_entropy; session 32 LAB_SCRATCH_PAGES): two builds of one emitted kernel (shared objects compiled from
 * `rowreduce emit` output with the backend's flags) called alternately on the same rows; the
 * minimum time of a call over `reps` calls, per round, and whether their outputs agree bit for
 * bit (both are timed writing the same output arrays, whose placement would otherwise differ:
 * two copies of one build measured 1.05 apart at DRAM; then each once into its own arrays).
 * Kernels: sum (session 35), softmax, rmsnorm, layernorm, add_layernorm, cross_entropy (inputs in the specs' order; the
 * sum and the loss row scalars, targets uniform in [0, N)).
 *   cc -O2 -o lab_ab lab_ab.c -ldl -lpthread -lm
 *   ./lab_ab A.so B.so KERNEL DTYPE(bf16|f32) M N REPS ROUNDS THREADS STREAM [SIGMA]
 * LAB_OFFSET (bytes past a line) places every row array (LAB_OUT_OFFSET, session 39, the outputs apart); LAB_OFFSET_B, in the paired mode, gives side
 * B copies of the inputs and outputs of its own at that offset (the same .so twice: the cost of a
 * placement). LAB_HUGE=1: arrays on huge pages (lab_alloc).
 * THREADS > 1 splits the rows into equal shares, one thread each (spawned per call). SIGMA < 0:
 * rows of sigma -SIGMA with special values put in by row (special_values): infinities, NaNs of
 * both signs and payloads, zeros of both signs, rows all -inf or all NaN, a row of one value. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

typedef void (*kernel_fn)(int64_t, int64_t, int64_t, const void *const *, const double *,
                          void *const *, float *, int);
typedef int64_t (*scratch_fn)(int64_t);

/* LAB_HUGE=1: the arrays on transparent huge pages where the kernel gives them (NumPy asks
 * for them on arrays of 4 MiB and more); else ordinary pages. */
static void *lab_alloc(size_t bytes)
{
	const size_t huge = 2u << 20;
	const int want = getenv("LAB_HUGE") && atoi(getenv("LAB_HUGE"));
	void *p = aligned_alloc(want ? huge : 64, (bytes + huge - 1) / huge * huge);
	if (want)
		madvise(p, (bytes + huge - 1) / huge * huge, MADV_HUGEPAGE);
	return p;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

typedef struct call {
	kernel_fn fn;
	int64_t begin, end, N;
	const void *const *in;
	const double *params;
	void *const *out;
	float *scratch;
	int stream;
} call;

static void *run_call(void *arg)
{
	call *c = arg;
	c->fn(c->begin, c->end, c->N, c->in, c->params, c->out, c->scratch, c->stream);
	return NULL;
}

static uint64_t state = 88172645463325252ull;
static double uniform(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return ((state >> 11) + 0.5) / 9007199254740992.0;
}

static void fill(void *p, int64_t n, int bf16, double sigma, double mean)
{
	for (int64_t i = 0; i < n; i++) {
		double g = sqrt(-2 * log(uniform())) * cos(6.283185307179586 * uniform());
		float f = (float)(mean + sigma * g);
		if (bf16) {
			uint32_t b;
			memcpy(&b, &f, 4);
			((uint16_t *)p)[i] = (uint16_t)((b + 0x7fff + ((b >> 16) & 1)) >> 16);
		} else {
			((float *)p)[i] = f;
		}
	}
}

/* Row r of M x N 16-bit or f32 values gets the special values of case r % 12. */
static void special_values(void *p, int64_t M, int64_t N, int bf16)
{
	static const uint32_t specials[] = {0xff800000u, 0x7f800000u, 0x7fc00000u, 0xffc00000u,
	                                    0x7f810000u, 0xff810000u, 0x80000000u, 0x00000000u,
	                                    0xc2b00000u, 0x42c80000u, 0x7fff0000u, 0xc3000000u};
	for (int64_t r = 0; r < M; r++) {
		const int64_t c = r % 12;
		for (int64_t k = 0; k < N; k++) {
			uint32_t bits = 0;
			int set = 0;
			if (c < 8 && (k * 7 + r) % 97 == 0)
				bits = specials[(k + c) % 12], set = 1;
			else if (c == 8)
				bits = 0xff800000u, set = 1; /* all -inf */
			else if (c == 9)
				bits = 0x7fc00000u, set = 1; /* all NaN */
			else if (c == 10)
				bits = (k & 1) ? 0x80000000u : 0x00000000u, set = 1; /* zeros */
			else if (c == 11 && k % 5 == 0)
				bits = specials[8 + (k / 5) % 4], set = 1; /* -88, 100, NaN, -128 */
			if (!set)
				continue;
			if (bf16)
				((uint16_t *)p)[r * N + k] = (uint16_t)(bits >> 16);
			else
				memcpy((float *)p + r * N + k, &bits, 4);
		}
	}
}

static int both_nan(const void *a, const void *b, int bf16)
{
	if (bf16) {
		uint16_t x, y;
		memcpy(&x, a, 2);
		memcpy(&y, b, 2);
		return (x & 0x7fff) > 0x7f80 && (y & 0x7fff) > 0x7f80;
	}
	float x, y;
	memcpy(&x, a, 4);
	memcpy(&y, b, 4);
	return isnan(x) && isnan(y);
}

int main(int argc, char **argv)
{
	if (argc < 11) {
		fprintf(stderr, "usage: %s A.so B.so KERNEL DTYPE M N REPS ROUNDS THREADS STREAM "
		                "[SIGMA]\n", argv[0]);
		return 2;
	}
	const char *kernel = argv[3];
	const int bf16 = strcmp(argv[4], "bf16") == 0;
	const int64_t M = atoll(argv[5]), N = atoll(argv[6]);
	const int reps = atoi(argv[7]), threads = atoi(argv[9]);
	int rounds = atoi(argv[8]);
	const int stream = atoi(argv[10]);
	const double sigma = argc > 11 ? atof(argv[11]) : 2.0;
	const size_t es = bf16 ? 2 : 4;
	kernel_fn fn[2];
	scratch_fn sf[2];
	for (int k = 0; k < 2; k++) {
		void *h = dlopen(argv[1 + k], RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			fprintf(stderr, "%s\n", dlerror());
			return 1;
		}
		fn[k] = (kernel_fn)dlsym(h, "rr_cpu_kernel");
		sf[k] = (scratch_fn)dlsym(h, "rr_cpu_scratch_floats");
	}
	int n_rows_in = 1, n_cols = 0, n_out = 1, n_index = 0;
	if (strcmp(kernel, "layernorm") == 0)
		n_cols = 2;
	else if (strcmp(kernel, "rmsnorm") == 0)
		n_cols = 1;
	else if (strcmp(kernel, "add_layernorm") == 0)
		n_rows_in = 2, n_cols = 2, n_out = 2;
	else if (strcmp(kernel, "cross_entropy") == 0)
		n_index = 1;
	const int row_scalar = n_index || strcmp(kernel, "sum") == 0;
	const int64_t out_n = row_scalar ? M : M * N; /* the loss or the sum: one value a row */
	const void *in[8] = {0};
	const void *in_b[8] = {0}; /* LAB_OFFSET_B: side B's rows at another offset (paired mode) */
	double params[8] = {0};
	void *out[2][2];
	/* LAB_OFFSET: bytes the row arrays start past a 64-byte line (NumPy's arrays: 16) */
	const size_t offset = getenv("LAB_OFFSET") ? (size_t)atoi(getenv("LAB_OFFSET")) : 0;
	for (int k = 0; k < n_rows_in; k++) {
		void *p = (char *)lab_alloc((size_t)(M * N) * es + 128) + offset;
		fill(p, M * N, bf16, fabs(sigma), 0.0);
		if (sigma < 0)
			special_values(p, M, N, bf16);
		in[k] = p;
	}
	for (int k = 0; k < n_cols; k++) {
		void *p = aligned_alloc(64, (size_t)N * es + 64);
		fill(p, N, bf16, 0.5, k == 0 ? 1.0 : 0.0);
		in[n_rows_in + k] = p;
	}
	if (n_cols)
		params[n_rows_in + n_cols] = 1e-5;
	if (n_index) {
		int64_t *t = malloc(sizeof(int64_t) * (size_t)M);
		for (int64_t r = 0; r < M; r++)
			t[r] = (int64_t)(uniform() * (double)N) % N;
		in[n_rows_in] = t;
	}
	const int offset_b = getenv("LAB_OFFSET_B") ? atoi(getenv("LAB_OFFSET_B")) : -1;
	for (int k = 0; k < 8; k++)
		in_b[k] = in[k];
	for (int k = 0; k < n_rows_in && offset_b >= 0; k++) {
		void *p = (char *)lab_alloc((size_t)(M * N) * es + 128) + offset_b;
		memcpy(p, in[k], (size_t)(M * N) * es);
		in_b[k] = p;
	}
	void *out_b[2] = {0};
	/* LAB_OUT_B_SAME (session 44): side B writes A's outputs, its inputs alone at offset_b */
	const int out_b_same = getenv("LAB_OUT_B_SAME") != NULL;
	for (int j = 0; j < n_out && offset_b >= 0; j++)
		out_b[j] = (char *)lab_alloc((size_t)out_n * es + 128) + offset_b;
	for (int b = 0; b < 2; b++)
		for (int j = 0; j < n_out; j++)
			out[b][j] = (char *)lab_alloc((size_t)out_n * es + 128) +
			            (getenv("LAB_OUT_OFFSET") ? (size_t)atoi(getenv("LAB_OUT_OFFSET")) : offset);
	int64_t sc = sf[0](N) > sf[1](N) ? sf[0](N) : sf[1](N);
	float *scratch[16];
	for (int t = 0; t < threads; t++)
		/* LAB_SCRATCH_PAGES (session 32): as the pool places it, pages of its own, one spare */
		scratch[t] = getenv("LAB_SCRATCH_PAGES")
		                 ? aligned_alloc(4096, (size_t)((sc + 1023) / 1024 + 1) * 4096)
		                 : aligned_alloc(64, (size_t)(sc + 16) * 4);
	double best[2] = {1e30, 1e30};
	/* LAB_PAIRED: calls alternate A B B A ..., reps pairs a round; the median over all pairs
	 * of B/A, its quartiles, and the fraction of pairs with B faster: a slow spell of the VM
	 * weighs on both sides of a pair. */
	double *ratios = getenv("LAB_PAIRED") ? malloc(sizeof(double) * (size_t)(reps * rounds))
	                                      : NULL;
	double *times[2] = {malloc(sizeof(double) * (size_t)(reps * rounds + 1)),
	                    malloc(sizeof(double) * (size_t)(reps * rounds + 1))};
	for (int r = 0; ratios && r < rounds; r++)
		for (int i = 0; i < reps; i++) {
			double t[2];
			for (int q = 0; q < 2; q++) {
				const int b = (i & 1) ? 1 - q : q;
				pthread_t th[16];
				call c[16];
				double t0 = now();
				for (int u = 0; u < threads; u++) {
					/* both into the same outputs: their placement is no difference */
					c[u] = (call){fn[b], M * u / threads, M * (u + 1) / threads, N,
					              b && offset_b >= 0 ? in_b : in, params,
					              b && offset_b >= 0 && !out_b_same ? out_b : out[0], scratch[u], stream};
					pthread_create(&th[u], NULL, run_call, &c[u]);
				}
				for (int u = 0; u < threads; u++)
					pthread_join(th[u], NULL);
				t[b] = now() - t0;
				if (t[b] < best[b])
					best[b] = t[b];
			}
			ratios[r * reps + i] = t[1] / t[0];
			times[0][r * reps + i] = t[0];
			times[1][r * reps + i] = t[1];
		}
	if (ratios) {
		const int n = reps * rounds;
		int faster = 0;
		for (int i = 1; i < n; i++) /* insertion sort: a few hundred pairs */
			for (int j = i; j > 0 && ratios[j] < ratios[j - 1]; j--) {
				double x = ratios[j];
				ratios[j] = ratios[j - 1];
				ratios[j - 1] = x;
			}
		for (int i = 0; i < n; i++)
			faster += ratios[i] < 1;
		for (int b = 0; b < 2; b++) /* each side's median call */
			for (int i = 1; i < n; i++)
				for (int j = i; j > 0 && times[b][j] < times[b][j - 1]; j--) {
					double x = times[b][j];
					times[b][j] = times[b][j - 1];
					times[b][j - 1] = x;
				}
		printf("median call A %.1f us B %.1f us\n", times[0][n / 2] * 1e6, times[1][n / 2] * 1e6);
		printf("paired B/A over %d pairs: median %.3f, quartiles %.3f-%.3f, B faster in %d\n",
		       n, ratios[n / 2], ratios[n / 4], ratios[3 * n / 4], faster);
		rounds = 0;
		for (int b = 0; b < 2; b++) /* the outputs to compare */
			fn[b](0, M, N, in, params, out[b], scratch[0], stream);
	}
	for (int r = 0; r < rounds; r++) {
		for (int q = 0; q < 2; q++) {
			const int b = (r & 1) ? 1 - q : q; /* ABBA */
			double m = 1e30;
			for (int i = 0; i < reps; i++) {
				double t0 = now();
				if (threads == 1) {
					fn[b](0, M, N, in, params, out[0], scratch[0], stream);
				} else {
					pthread_t th[16];
					call c[16];
					for (int t = 0; t < threads; t++) {
						c[t] = (call){fn[b], M * t / threads, M * (t + 1) / threads,
						              N, in, params, out[0], scratch[t], stream};
						pthread_create(&th[t], NULL, run_call, &c[t]);
					}
					for (int t = 0; t < threads; t++)
						pthread_join(th[t], NULL);
				}
				double dt = now() - t0;
				if (dt < m)
					m = dt;
			}
			if (m < best[b])
				best[b] = m;
			printf("round %d %c %.1f us (%.3f ns/elem)\n", r, 'A' + b, m * 1e6,
			       m * 1e9 / (double)(M * N));
		}
	}
	for (int b = 0; b < 2 && rounds > 0; b++) /* timed into the same outputs; now apart */
		fn[b](0, M, N, in, params, out[b], scratch[0], stream);
	long diff = 0, nan_diff = 0; /* nan_diff: both NaN, other payloads */
	for (int j = 0; j < n_out; j++)
		for (int64_t i = 0; i < out_n; i++)
			if (memcmp((char *)out[0][j] + i * es, (char *)out[1][j] + i * es, es) != 0 &&
			    both_nan((char *)out[0][j] + i * es, (char *)out[1][j] + i * es, bf16))
				nan_diff++;
			else if (memcmp((char *)out[0][j] + i * es, (char *)out[1][j] + i * es, es) != 0 &&
			         diff++ < 3 && getenv("LAB_SHOW"))
				printf("output %d row %lld col %lld differs: %04x %04x\n", j, (long long)(i / N),
				       (long long)(i % N), ((uint16_t *)out[0][j])[i], ((uint16_t *)out[1][j])[i]);
	printf("best A %.1f us B %.1f us B/A %.3f; outputs differing: %ld (and %ld NaN payloads)\n",
	       best[0] * 1e6, best[1] * 1e6, best[1] / best[0], diff, nan_diff);
	return 0;
}

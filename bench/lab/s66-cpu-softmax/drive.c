/* Lab driver (session 62, CPU; session 63 prints the per-round ratios' range; session 66 their
 * quartiles too, after the range: session 64's drive.c otherwise): times generated cpu
 * sources' rr_cpu_kernel on two threads
 * (rows split in two halves, one call a thread and launch) against a 256 MiB memcpy over the
 * same two threads, all interleaved in one process: each round runs the copy, then every
 * configuration in order and again in reverse (A B .. B A). A configuration is
 * SO[:STREAM[:OFFSETS]], STREAM the kernel's `stream` argument (default 1), OFFSETS the byte
 * offsets modulo 4 KiB of its row inputs then row outputs, '/'-separated (default all 64, as
 * glibc places large blocks aligned to 64); each has its own buffers, the same input values.
 * Prints per configuration the median time, the median of its per-round ratio to the first,
 * its GB/s and that over the median copy GB/s; checks every configuration's outputs equal the
 * first's byte for byte. With NOCOPY set the copy runs once, before the first round, so
 * rows that fit stay in cache; with REPEAT=k each thread runs its rows k times a launch
 * (times and bytes are the launch's).
 * Usage: drive2 M N ELEMENT_BYTES ROW_INPUTS COLS ROW_OUTPUTS ROUNDS CONFIG...
 * Build: gcc -O2 -o drive2 drive2.c -ldl -lpthread */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef void (*kernel_fn)(int64_t, int64_t, int64_t, const void *const *, const double *,
                          void *const *, float *, int);
typedef int64_t (*floats_fn)(int64_t);

#define MAX_CONF 8
#define MAX_ROUNDS 400
typedef struct conf {
	kernel_fn kern;
	int stream;
	const void *in[8];
	void *out[8];
} conf;
static conf confs[MAX_CONF];
static int64_t M, N;
static double params[8] = {1e-5, 1e-5, 1e-5, 1e-5, 1e-5, 1e-5, 1e-5, 1e-5};
static float *scratch[2];
static char *copy_src, *copy_dst;
static size_t copy_bytes = (size_t)256 << 20;

static int repeat = 1; /* REPEAT=k: each thread calls the kernel k times a launch */
static pthread_barrier_t start, done;
static volatile int job; /* -1 copy, -2 quit, k configuration k */

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static void work(int t)
{
	if (job == -1) {
		size_t half = copy_bytes / 2;
		memcpy(copy_dst + t * half, copy_src + t * half, half);
		return;
	}
	const conf *c = &confs[job];
	int64_t lo = M * t / 2, hi = M * (t + 1) / 2;
	for (int k = 0; k < repeat; k++)
		c->kern(lo, hi, N, c->in, params, c->out, scratch[t], c->stream);
}

static void *helper(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_barrier_wait(&start);
		if (job == -2)
			return NULL;
		work(1);
		pthread_barrier_wait(&done);
	}
}

static double run(int j)
{
	job = j;
	double t0 = now();
	pthread_barrier_wait(&start);
	work(0);
	pthread_barrier_wait(&done);
	return now() - t0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(const double *v, int n)
{
	double *c = malloc(n * sizeof *c);
	memcpy(c, v, n * sizeof *c);
	qsort(c, n, sizeof *c, cmp);
	double m = n % 2 ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]);
	free(c);
	return m;
}

/* The q-quantile of v (nearest rank). */
static double quantile(const double *v, int n, double q)
{
	double *c = malloc(n * sizeof *c);
	memcpy(c, v, n * sizeof *c);
	qsort(c, n, sizeof *c, cmp);
	int k = (int)(q * (n - 1) + 0.5);
	double m = c[k];
	free(c);
	return m;
}

static void *placed(size_t bytes, int offset)
{
	char *base = aligned_alloc(4096, (bytes + 8191) / 4096 * 4096);
	memset(base, 0, (bytes + 8191) / 4096 * 4096);
	return base + offset;
}

int main(int argc, char **argv)
{
	if (argc < 9)
		return 2;
	M = atoll(argv[1]);
	N = atoll(argv[2]);
	const int es = atoi(argv[3]), nin = atoi(argv[4]), ncol = atoi(argv[5]),
	          nout = atoi(argv[6]);
	const int rounds = atoi(argv[7]) < MAX_ROUNDS ? atoi(argv[7]) : MAX_ROUNDS;
	repeat = getenv("REPEAT") ? atoi(getenv("REPEAT")) : 1;
	const int nconf = argc - 8;
	/* REF=k: ratios to configuration k (session 64: the first one, run right after the copy,
	 * ran 1-5 % slower than the same code later in the round; REF=1 with a dummy first) */
	const int ref = getenv("REF") ? atoi(getenv("REF")) : 0;
	const size_t row_bytes = (size_t)(M * N * es);
	srand(1);
	void *values[8];
	for (int i = 0; i < nin + ncol; i++) {
		int64_t n = i < nin ? M * N : N;
		void *p = placed((size_t)(n * es), 0);
		for (int64_t j = 0; j < n; j++) {
			float v = i < nin ? (float)(rand() % 6000) / 1000.0f - 3.0f + 0.0001f
			                  : 0.5f + (float)(rand() % 1000) / 1000.0f;
			if (es == 4) {
				((float *)p)[j] = v;
			} else {
				uint32_t b;
				memcpy(&b, &v, 4);
				((uint16_t *)p)[j] = (uint16_t)((b + 0x7fff + ((b >> 16) & 1)) >> 16);
			}
		}
		values[i] = p;
	}
	int64_t most = 0;
	for (int s = 0; s < nconf; s++) {
		char spec[512];
		snprintf(spec, sizeof spec, "%s", argv[8 + s]);
		char *colon = strchr(spec, ':');
		int offs[16];
		for (int k = 0; k < 16; k++)
			offs[k] = 64;
		confs[s].stream = 1;
		if (colon) {
			*colon = 0;
			confs[s].stream = atoi(colon + 1);
			char *o = strchr(colon + 1, ':');
			for (int k = 0; o && k < 16; k++) {
				offs[k] = atoi(o + 1);
				o = strchr(o + 1, '/');
			}
		}
		void *h = dlopen(spec, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			fprintf(stderr, "%s\n", dlerror());
			return 1;
		}
		confs[s].kern = (kernel_fn)dlsym(h, "rr_cpu_kernel");
		floats_fn sf = (floats_fn)dlsym(h, "rr_cpu_scratch_floats");
		int64_t f = sf ? sf(N) : 0;
		most = f > most ? f : most;
		for (int i = 0; i < nin; i++) {
			void *p = placed(row_bytes, offs[i]);
			memcpy(p, values[i], row_bytes);
			confs[s].in[i] = p;
		}
		for (int i = nin; i < nin + ncol; i++)
			confs[s].in[i] = values[i];
		for (int j = 0; j < nout; j++)
			confs[s].out[j] = placed(row_bytes, offs[nin + j]);
	}
	for (int t = 0; t < 2; t++) {
		scratch[t] = aligned_alloc(64, (size_t)((most + 64) * 4 + 63) / 64 * 64);
		memset(scratch[t], 0, (size_t)(most + 64) * 4);
	}
	copy_src = aligned_alloc(64, copy_bytes);
	copy_dst = aligned_alloc(64, copy_bytes);
	memset(copy_src, 1, copy_bytes);
	memset(copy_dst, 2, copy_bytes);
	pthread_barrier_init(&start, NULL, 2);
	pthread_barrier_init(&done, NULL, 2);
	pthread_t th;
	pthread_create(&th, NULL, helper, NULL);

	static double t[MAX_CONF][MAX_ROUNDS], tc[MAX_ROUNDS], ratio[MAX_CONF][MAX_ROUNDS];
	for (int w = 0; w < 3; w++) { /* warm-up */
		run(-1);
		for (int s = 0; s < nconf; s++)
			run(s);
	}
	for (int s = 1; s < nconf; s++)
		for (int j = 0; j < nout; j++)
			if (memcmp(confs[s].out[j], confs[0].out[j], row_bytes) != 0)
				printf("configuration %d: output %d DIFFERS from the first's\n", s, j);
	for (int r = 0; r < rounds; r++) {
		tc[r] = getenv("NOCOPY") && r > 0 ? tc[0] : run(-1); /* NOCOPY: in-cache rows */
		for (int s = 0; s < nconf; s++)
			t[s][r] = run(s);
		for (int s = nconf - 1; s >= 0; s--)
			t[s][r] = 0.5 * (t[s][r] + run(s));
		for (int s = 0; s < nconf; s++)
			ratio[s][r] = t[s][r] / t[ref][r];
	}
	const double copy_gbs = 2.0 * copy_bytes / median(tc, rounds) / 1e9;
	const double bytes = (double)(nin + nout) * row_bytes * repeat;
	printf("copy %.1f GB/s (median of %d rounds), row bytes %.0f MB\n", copy_gbs, rounds,
	       bytes / 1e6);
	for (int s = 0; s < nconf; s++) {
		double m = median(t[s], rounds);
		double lo = ratio[s][0], hi = ratio[s][0];
		for (int r = 1; r < rounds; r++) {
			lo = ratio[s][r] < lo ? ratio[s][r] : lo;
			hi = ratio[s][r] > hi ? ratio[s][r] : hi;
		}
		printf("%-44s %8.1f us  ratio %.3f (%.3f-%.3f, quartiles %.3f-%.3f)  %.1f GB/s  "
		       "%.2f of copy\n",
		       argv[8 + s], m * 1e6, median(ratio[s], rounds), lo, hi,
		       quantile(ratio[s], rounds, 0.25), quantile(ratio[s], rounds, 0.75),
		       bytes / m / 1e9, bytes / m / 1e9 / copy_gbs);
	}
	job = -2;
	pthread_barrier_wait(&start);
	pthread_join(th, NULL);
	return 0;
}

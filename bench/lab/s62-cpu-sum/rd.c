/* Lab (session 62, CPU sum): how fast two threads read f32 rows on this VM. A shared library
 * for rd.py (ctypes): hand-written AVX-512 row sums (1-8 accumulators, optional software
 * prefetch t0 or nta at a byte distance) and a generated source's rr_cpu_kernel, both on the
 * caller and one helper thread, rows split in two halves or dealt in blocks of k rows
 * (thread t takes blocks t, t + 2, ...). The helper spins between launches while a block of
 * launches runs (rd_active(1)) and sleeps otherwise, so that it leaves the cores to other
 * runtimes' threads between blocks.
 * Build: gcc -O3 -march=native -fPIC -shared -o rd.so rd.c -lpthread */
#define _GNU_SOURCE
#include <immintrin.h>
#include <sched.h>
#include <stdlib.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

typedef void (*kernel_fn)(int64_t, int64_t, int64_t, const void *const *, const double *,
                          void *const *, float *, int);

typedef struct job {
	int kind; /* 0 hand-written, 1 generated */
	int acc, pf, nta, block, stream;
	const float *x;
	float *out;
	int64_t M, N;
	kernel_fn kern;
	float *scratch[2];
} job;

static job current;
static atomic_ulong generation, finished;
static atomic_int active, quit;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static pthread_t helper_id;

#define SUM_BODY(A)                                                                            \
	for (int64_t r = r0; r < r1; r++) {                                                    \
		const float *p = x + r * N;                                                    \
		__m512 a[A];                                                                   \
		for (int k = 0; k < A; k++)                                                    \
			a[k] = _mm512_setzero_ps();                                            \
		for (int64_t i = 0; i < N; i += 16 * A) {                                      \
			for (int k = 0; k < A; k++) {                                          \
				if (pf && nta)                                                 \
					_mm_prefetch((const char *)(p + i + 16 * k) + pf,      \
					             _MM_HINT_NTA);                            \
				else if (pf)                                                   \
					_mm_prefetch((const char *)(p + i + 16 * k) + pf,      \
					             _MM_HINT_T0);                             \
				a[k] = _mm512_add_ps(a[k], _mm512_loadu_ps(p + i + 16 * k));   \
			}                                                                      \
		}                                                                              \
		for (int k = 1; k < A; k++)                                                    \
			a[0] = _mm512_add_ps(a[0], a[k]);                                      \
		out[r] = _mm512_reduce_add_ps(a[0]);                                           \
	}

static void sum1(const float *x, int64_t r0, int64_t r1, int64_t N, float *out, int pf, int nta)
{
	SUM_BODY(1)
}
static void sum2(const float *x, int64_t r0, int64_t r1, int64_t N, float *out, int pf, int nta)
{
	SUM_BODY(2)
}
static void sum4(const float *x, int64_t r0, int64_t r1, int64_t N, float *out, int pf, int nta)
{
	SUM_BODY(4)
}
static void sum8(const float *x, int64_t r0, int64_t r1, int64_t N, float *out, int pf, int nta)
{
	SUM_BODY(8)
}

static void rows(const job *j, int t, int64_t r0, int64_t r1)
{
	if (j->kind == 1) {
		const void *in[1] = {j->x};
		void *out[1] = {j->out};
		double params[1] = {0};
		j->kern(r0, r1, j->N, in, params, out, j->scratch[t], j->stream);
		return;
	}
	void (*f)(const float *, int64_t, int64_t, int64_t, float *, int, int) =
	    j->acc == 1 ? sum1 : j->acc == 2 ? sum2 : j->acc == 4 ? sum4 : sum8;
	f(j->x, r0, r1, j->N, j->out, j->pf, j->nta);
}

static double now_s(void);
static double busy[2]; /* seconds each thread worked, summed over launches */
static double lag[2], launch_t0; /* thread starts after the launch's start, summed */

static void work(int t)
{
	const job *j = &current;
	const double t0 = now_s();
	lag[t] += t0 - launch_t0;
	if (j->block <= 0) {
		rows(j, t, j->M * t / 2, j->M * (t + 1) / 2);
	} else {
		for (int64_t b = (int64_t)t * j->block; b < j->M; b += 2 * (int64_t)j->block)
			rows(j, t, b, b + j->block < j->M ? b + j->block : j->M);
	}
	busy[t] += now_s() - t0;
}

/* Each thread's busy seconds since the last call (the helper's after its launches). */
void rd_busy(double *out)
{
	out[0] = busy[0];
	out[1] = busy[1];
	out[2] = lag[0];
	out[3] = lag[1];
	busy[0] = busy[1] = lag[0] = lag[1] = 0;
}

/* PIN=1: the helper on CPU 1, the caller on CPU 0 while it launches. */
static int pinned(void)
{
	return getenv("PIN") && atoi(getenv("PIN"));
}

static void pin_to(int cpu, cpu_set_t *old)
{
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (old)
		sched_getaffinity(0, sizeof *old, old);
	sched_setaffinity(0, sizeof one, &one);
}

static void *helper(void *arg)
{
	(void)arg;
	if (pinned())
		pin_to(1, NULL);
	unsigned long seen = 0;
	for (;;) {
		unsigned long now;
		while ((now = atomic_load(&generation)) == seen && !atomic_load(&quit)) {
			if (atomic_load(&active)) {
				_mm_pause();
				continue;
			}
			pthread_mutex_lock(&lock);
			while (atomic_load(&generation) == seen && !atomic_load(&active) &&
			       !atomic_load(&quit))
				pthread_cond_wait(&wake, &lock);
			pthread_mutex_unlock(&lock);
		}
		if (atomic_load(&quit))
			return NULL;
		seen = now;
		work(1);
		atomic_store(&finished, now);
	}
}

int rd_start(void)
{
	return pthread_create(&helper_id, NULL, helper, NULL);
}

void rd_active(int on)
{
	pthread_mutex_lock(&lock);
	atomic_store(&active, on);
	pthread_cond_broadcast(&wake);
	pthread_mutex_unlock(&lock);
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Seconds for `iters` launches of the job (the helper must be active). */
static double launches(int iters)
{
	cpu_set_t old;
	if (pinned())
		pin_to(0, &old);
	double t0 = now_s();
	for (int k = 0; k < iters; k++) {
		launch_t0 = now_s();
		unsigned long g = atomic_fetch_add(&generation, 1) + 1;
		work(0);
		while (atomic_load(&finished) != g)
			_mm_pause();
	}
	const double seconds = now_s() - t0;
	if (pinned())
		sched_setaffinity(0, sizeof old, &old);
	return seconds;
}

double rd_hand(const float *x, int64_t M, int64_t N, float *out, int acc, int pf, int nta,
               int block, int iters)
{
	current = (job){.kind = 0, .acc = acc, .pf = pf, .nta = nta, .block = block, .x = x,
	                .out = out, .M = M, .N = N};
	return launches(iters);
}

double rd_gen(void *kern, const float *x, int64_t M, int64_t N, float *out, float *s0,
              float *s1, int stream, int block, int iters)
{
	current = (job){.kind = 1, .block = block, .x = x, .out = out, .M = M, .N = N,
	                .kern = (kernel_fn)kern, .stream = stream, .scratch = {s0, s1}};
	return launches(iters);
}

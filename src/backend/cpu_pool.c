/* The cpu backend's persistent thread pool (see cpu_pool.h). Threads wait for a generation
 * number to change, spinning briefly first (back-to-back launches then start without a
 * wake-up), then sleeping on a condition variable; the caller works too and waits for the
 * others the same way. Forked children start a pool of their own; exit joins the threads. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend/cpu_pool.h"

#define POOL_MAX_THREADS 512
/* Polling before a thread sleeps, timed: 20000 polls (meant as 50-100 µs) took 5.5 µs on the
 * Zen 4 VM, so the worker slept between a caller's back-to-back launches, and the next launch's
 * wake-up put it on the caller's CPU, preempting the caller (0.6-0.9 involuntary switches a
 * call): sum f32 4096x4096 from Python ran 1.22-1.41x the time of the same threads pinned
 * apart; polling 200 µs, 0.97-1.03 (bench/lab/s62-cpu-sum/notes.md). */
#define POOL_SPIN_NS 200000

typedef struct pool_job {
	rr__pool_fn fn;
	void *context;
	int64_t items, chunk;
	int participants;
	int each; /* rr__pool_run_each: fn(context, t, t, participants, scratch) once a thread */
	int64_t scratch_stride; /* floats between two threads' scratch */
} pool_job;

static struct {
	pthread_mutex_t launch_lock; /* one launch at a time; held across fork */
	pthread_mutex_t lock;        /* guards the waits below */
	pthread_cond_t wake, done;
	int threads; /* the caller and the workers started */
	int started; /* 0 until the first launch starts the workers */
	pthread_t ids[POOL_MAX_THREADS];
	atomic_ulong generation;
	atomic_int stop;
	atomic_int pending; /* workers not yet done with this generation */
	pool_job job;
	float *scratch;
	int64_t scratch_floats; /* allocated floats in all */
} pool = {
    .launch_lock = PTHREAD_MUTEX_INITIALIZER,
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .wake = PTHREAD_COND_INITIALIZER,
    .done = PTHREAD_COND_INITIALIZER,
};

/* Each participant's share of a launch, [next, end), handed out a chunk at a time from its
 * front, to its owner first and then to any thread done with its own (one line each). */
typedef struct pool_share {
	_Alignas(64) atomic_llong next; /* the share's first item not yet handed out */
	int64_t end;
} pool_share;
static pool_share shares[POOL_MAX_THREADS];

static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;
static atomic_long sleeps; /* times a worker went to sleep between launches */

long rr__pool_sleeps(void)
{
	return atomic_load(&sleeps);
}

static int64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void spin_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

int rr__pool_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > POOL_MAX_THREADS ? POOL_MAX_THREADS : (int)n;
}

/* A thread's own share first, then what is left of the others' (the next thread's first). */
static void run_chunks(const pool_job *job, int thread)
{
	float *scratch =
	    job->scratch_stride > 0 ? pool.scratch + job->scratch_stride * thread : NULL;
	if (job->each) {
		job->fn(job->context, thread, thread, job->participants, scratch);
		return;
	}
	for (int k = 0; k < job->participants; k++) {
		pool_share *share = &shares[(thread + k) % job->participants];
		for (;;) {
			int64_t begin = atomic_fetch_add(&share->next, job->chunk);
			if (begin >= share->end)
				break;
			int64_t end =
			    share->end - begin < job->chunk ? share->end : begin + job->chunk;
			job->fn(job->context, thread, begin, end, scratch);
		}
	}
}

static void *worker_main(void *arg)
{
	const int thread = (int)(intptr_t)arg;
	unsigned long seen = 0; /* the generation when the workers were started */
	for (;;) {
		unsigned long now = atomic_load(&pool.generation);
		for (const int64_t until = now_ns() + POOL_SPIN_NS;
		     now == seen && !atomic_load(&pool.stop) && now_ns() < until;
		     now = atomic_load(&pool.generation))
			spin_pause();
		if (now == seen) {
			atomic_fetch_add(&sleeps, 1);
			pthread_mutex_lock(&pool.lock);
			while ((now = atomic_load(&pool.generation)) == seen &&
			       !atomic_load(&pool.stop))
				pthread_cond_wait(&pool.wake, &pool.lock);
			pthread_mutex_unlock(&pool.lock);
		}
		if (atomic_load(&pool.stop))
			return NULL;
		seen = now;
		/* The job was written before the generation moved and stays put until every
		 * worker has counted itself done. */
		if (thread < pool.job.participants)
			run_chunks(&pool.job, thread);
		if (atomic_fetch_sub(&pool.pending, 1) == 1) {
			pthread_mutex_lock(&pool.lock);
			pthread_cond_signal(&pool.done);
			pthread_mutex_unlock(&pool.lock);
		}
	}
}

/* At exit: the workers are told to stop and joined, the scratch freed. */
static void pool_shutdown(void)
{
	pthread_mutex_lock(&pool.launch_lock);
	pthread_mutex_lock(&pool.lock);
	atomic_store(&pool.stop, 1);
	pthread_cond_broadcast(&pool.wake);
	pthread_mutex_unlock(&pool.lock);
	for (int t = 1; t < pool.threads; t++)
		pthread_join(pool.ids[t], NULL);
	pool.threads = 0;
	pool.started = 0;
	atomic_store(&pool.stop, 0);
	free(pool.scratch);
	pool.scratch = NULL;
	pool.scratch_floats = 0;
	pthread_mutex_unlock(&pool.launch_lock);
}

/* A fork waits for the launch in progress; the child has none of the parent's workers, so
 * it starts its own on its first launch (the scratch memory is its copy, kept). */
static void before_fork(void)
{
	pthread_mutex_lock(&pool.launch_lock);
}

static void after_fork_parent(void)
{
	pthread_mutex_unlock(&pool.launch_lock);
}

static void after_fork_child(void)
{
	pthread_mutex_init(&pool.lock, NULL);
	pthread_cond_init(&pool.wake, NULL);
	pthread_cond_init(&pool.done, NULL);
	pool.threads = 0;
	pool.started = 0;
	pthread_mutex_unlock(&pool.launch_lock);
}

static void install_hooks(void)
{
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
	atexit(pool_shutdown);
}

/* With launch_lock held: starts the workers once; those that fail to start are not waited for. */
static void start_workers(void)
{
	if (pool.started)
		return;
	pool.started = 1;
	int want = rr__pool_threads();
	pool.threads = 1;
	atomic_store(&pool.generation, 0);
	for (int t = 1; t < want; t++) {
		if (pthread_create(&pool.ids[t], NULL, worker_main, (void *)(intptr_t)t) != 0)
			break;
		pool.threads = t + 1;
	}
}

/* With launch_lock held: scratch for `threads` threads of `floats` each, each on pages of its
 * own with an unused page after them. Side by side, one thread's scratch ending where the next
 * one's begins, a kept row ran the second thread's half at 1.5x the first's: two threads,
 * layernorm bf16 1024x1024 W=16 S=regs (4 KiB of scratch a thread), thread 1's half 471-491 µs
 * where thread 0's scratch filled the page before its own, 250-313 with a page between (thread
 * 0's 261-371 either way; cpu-lab s23 two.c, bench/NOTES.md session 23). A core writing its
 * scratch from the start of a page to its end draws the next page's first lines in (a
 * next-page prefetch), and the other thread's stores take them back. */
#define SCRATCH_PAGE_FLOATS 1024 /* 4 KiB */
static rr_status reserve_scratch(int threads, int64_t floats, int64_t *stride)
{
	*stride = floats > 0 ? (floats + SCRATCH_PAGE_FLOATS - 1) / SCRATCH_PAGE_FLOATS *
	                               SCRATCH_PAGE_FLOATS +
	                           SCRATCH_PAGE_FLOATS
	                     : 0;
	int64_t total = *stride * threads;
	if (total <= pool.scratch_floats)
		return RR_OK;
	void *memory = NULL;
	if (posix_memalign(&memory, SCRATCH_PAGE_FLOATS * sizeof(float),
	                   (size_t)total * sizeof(float)) != 0)
		return rr__fail(RR_ERR_NOMEM, "out of memory for %lld private floats per thread",
		                (long long)floats);
	free(pool.scratch);
	pool.scratch = memory;
	pool.scratch_floats = total;
	return RR_OK;
}

static rr_status pool_run(int threads, int64_t items, int64_t chunk, int64_t scratch_floats,
                          rr__pool_fn fn, void *context, int each)
{
	if (items <= 0)
		return RR_OK;
	pthread_once(&hooks_once, install_hooks);
	pthread_mutex_lock(&pool.launch_lock);
	start_workers();
	int participants = threads < pool.threads ? threads : pool.threads;
	/* A thread without a chunk to take only delays the launch: the caller waits for it to
	 * wake and count itself done (17x257 in one chunk: 17-18 µs a launch where the waiting
	 * workers had gone to sleep, 1.5-5 µs on the caller alone). */
	const int64_t step = chunk < 1 ? 1 : chunk, chunks = (items + step - 1) / step;
	participants = chunks < participants ? (int)chunks : participants;
	participants = participants < 1 ? 1 : participants;
	int64_t stride = 0;
	rr_status status = reserve_scratch(participants, scratch_floats, &stride);
	if (status != RR_OK) {
		pthread_mutex_unlock(&pool.launch_lock);
		return status;
	}
	pool.job = (pool_job){.fn = fn,
	                      .context = context,
	                      .items = items,
	                      .chunk = chunk < 1 ? 1 : chunk,
	                      .participants = participants,
	                      .each = each,
	                      .scratch_stride = stride};
	/* Thread t's share is the t-th of `participants` equal spans: in launch after launch on
	 * the same rows a thread reads the rows it read the last time, from its own cache where
	 * they fit (bench/NOTES.md, session 18). */
	for (int t = 0; t < participants; t++) {
		shares[t].end = items * (t + 1) / participants;
		atomic_store(&shares[t].next, items * t / participants);
	}
	if (participants > 1) {
		atomic_store(&pool.pending, pool.threads - 1);
		pthread_mutex_lock(&pool.lock);
		atomic_fetch_add(&pool.generation, 1);
		pthread_cond_broadcast(&pool.wake);
		pthread_mutex_unlock(&pool.lock);
	}
	run_chunks(&pool.job, 0);
	if (participants > 1) {
		for (const int64_t until = now_ns() + POOL_SPIN_NS;
		     atomic_load(&pool.pending) > 0 && now_ns() < until;)
			spin_pause();
		pthread_mutex_lock(&pool.lock);
		while (atomic_load(&pool.pending) > 0)
			pthread_cond_wait(&pool.done, &pool.lock);
		pthread_mutex_unlock(&pool.lock);
	}
	pthread_mutex_unlock(&pool.launch_lock);
	return RR_OK;
}

rr_status rr__pool_run(int threads, int64_t items, int64_t chunk, int64_t scratch_floats,
                       rr__pool_fn fn, void *context)
{
	return pool_run(threads, items, chunk, scratch_floats, fn, context, 0);
}

rr_status rr__pool_run_each(int threads, int64_t scratch_floats, rr__pool_fn fn, void *context)
{
	return pool_run(threads, threads, 1, scratch_floats, fn, context, 1);
}

/* The cpu backend's thread pool (src/backend/cpu_pool.c): every item is handed out exactly
 * once, whatever the chunk and thread counts, while several host threads launch at once; each
 * thread's scratch is its own; a thread's share left by a stalled owner is run by the others; a
 * forked child gets a pool of its own. (Built with
 * -fsanitize=thread with cpu_pool.c, TSAN_OPTIONS=die_after_fork=0, it reports no race.) */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend/cpu_pool.h"
#include "harness.h"

#define ITEMS 5000

typedef struct job {
	atomic_int seen[ITEMS]; /* times each item was handed out */
	atomic_int bad_scratch; /* a thread's scratch found written by another */
	int64_t floats;
} job;

static void visit(void *context, int thread, int64_t begin, int64_t end, float *scratch)
{
	job *j = context;
	for (int64_t i = begin; i < end; i++) {
		atomic_fetch_add(&j->seen[i], 1);
		if (!scratch)
			continue;
		/* Mark the whole scratch as this thread's, then check nobody else wrote it. */
		for (int64_t k = 0; k < j->floats; k++)
			scratch[k] = (float)thread;
		for (int64_t k = 0; k < j->floats; k++)
			if (scratch[k] != (float)thread)
				atomic_fetch_add(&j->bad_scratch, 1);
	}
}

/* Runs one launch over `items` and returns how many items were not seen exactly once. */
static int run_once(int threads, int64_t items, int64_t chunk, int64_t floats)
{
	job *j = calloc(1, sizeof *j);
	if (!j)
		return -1;
	j->floats = floats;
	int wrong = rr__pool_run(threads, items, chunk, floats, visit, j) != RR_OK;
	for (int64_t i = 0; i < ITEMS; i++)
		wrong += atomic_load(&j->seen[i]) != (i < items ? 1 : 0);
	wrong += atomic_load(&j->bad_scratch);
	free(j);
	return wrong;
}

static void *host(void *arg)
{
	atomic_int *wrong = arg;
	for (int k = 0; k < 40; k++)
		atomic_fetch_add(
		    wrong, run_once(1 + k % 4, 1 + (k * 131) % ITEMS, 1 + k % 9, k % 3 ? 256 : 0));
	return NULL;
}

/* A launch of two threads whose second stalls in its first chunk until the caller has run an
 * item of the second's share: the caller, done with its own share, must take the rest of the
 * other's (a pool that kept each share to its owner fails here after the 10 s wait). */
typedef struct stall_job {
	atomic_int seen[ITEMS];
	atomic_int taken; /* items of share 1 run by thread 0 */
	atomic_int stalled;
} stall_job;

static void visit_stalling(void *context, int thread, int64_t begin, int64_t end, float *scratch)
{
	(void)scratch;
	stall_job *j = context;
	if (thread == 1 && atomic_exchange(&j->stalled, 1) == 0)
		for (int k = 0; k < 100000 && atomic_load(&j->taken) == 0; k++)
			usleep(100);
	for (int64_t i = begin; i < end; i++) {
		atomic_fetch_add(&j->seen[i], 1);
		if (thread == 0 && i >= ITEMS / 2)
			atomic_fetch_add(&j->taken, 1);
	}
}

static void test_stalled_share(void)
{
	if (rr__pool_threads() < 2)
		return;
	stall_job *j = calloc(1, sizeof *j);
	CHECK(j != NULL);
	if (!j)
		return;
	CHECK(rr__pool_run(2, ITEMS, 10, 0, visit_stalling, j) == RR_OK);
	int wrong = 0;
	for (int64_t i = 0; i < ITEMS; i++)
		wrong += atomic_load(&j->seen[i]) != 1;
	CHECKF(wrong == 0, "%d items not run exactly once", wrong);
	CHECKF(atomic_load(&j->taken) > 0, "the caller took none of the stalled thread's share");
	free(j);
}

/* Each thread's scratch starts on a page of its own, and between two threads' lies at least one
 * page that neither uses (cpu_pool.c: side by side, one thread's writes drew the other's lines
 * away): the threads' scratch addresses, for scratch of a few floats, of one page exactly and
 * of a little more. */
typedef struct where_job {
	_Atomic(uintptr_t) at[4]; /* each thread's scratch */
} where_job;

static void visit_where(void *context, int thread, int64_t begin, int64_t end, float *scratch)
{
	(void)begin;
	(void)end;
	where_job *j = context;
	if (thread < 4)
		atomic_store(&j->at[thread], (uintptr_t)scratch);
	usleep(1000); /* so that every thread gets a chunk */
}

static void test_scratch_pages(void)
{
	if (rr__pool_threads() < 2)
		return;
	static const int64_t floats[] = {5, 1024, 1100};
	for (size_t f = 0; f < sizeof floats / sizeof floats[0]; f++) {
		where_job j;
		memset(&j, 0, sizeof j);
		CHECK(rr__pool_run(2, 64, 1, floats[f], visit_where, &j) == RR_OK);
		const uintptr_t a = atomic_load(&j.at[0]), b = atomic_load(&j.at[1]);
		const uintptr_t pages = ((uintptr_t)floats[f] * sizeof(float) + 4095) / 4096;
		const uintptr_t apart = a > b ? a - b : b - a;
		CHECKF(a && b && a % 4096 == 0 && b % 4096 == 0 && apart >= (pages + 1) * 4096,
		       "%lld floats: scratch at 0x%lx and 0x%lx", (long long)floats[f],
		       (unsigned long)a, (unsigned long)b);
	}
}

/* Back-to-back launches 50 µs apart find the workers still polling, not asleep (cpu_pool.c's
 * POOL_SPIN_NS: a sleeping worker's wake-up could land on the caller's CPU): of 20 gaps, the
 * workers slept in fewer than half. An attempt during which the process was preempted (other
 * tests running beside this one) tells nothing, since a worker preempted past its polling sleeps
 * as it should: up to ten attempts, judged on the first that was not preempted. */
static void visit_nothing(void *context, int thread, int64_t begin, int64_t end, float *scratch)
{
	(void)context;
	(void)thread;
	(void)begin;
	(void)end;
	(void)scratch;
}

static double seconds_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static long preemptions(void)
{
	struct rusage u;
	return getrusage(RUSAGE_SELF, &u) == 0 ? u.ru_nivcsw : -1;
}

static void test_awake_between_launches(void)
{
	if (rr__pool_threads() < 2)
		return;
	CHECK(rr__pool_run(2, 2, 1, 0, visit_nothing, NULL) == RR_OK); /* workers started */
	for (int attempt = 0; attempt < 10; attempt++) {
		const long switched = preemptions();
		const long before = rr__pool_sleeps();
		for (int k = 0; k < 20; k++) {
			CHECK(rr__pool_run(2, 2, 1, 0, visit_nothing, NULL) == RR_OK);
			for (const double until = seconds_now() + 50e-6; seconds_now() < until;)
				;
		}
		const long slept = rr__pool_sleeps() - before;
		if (switched < 0 || preemptions() != switched)
			continue; /* preempted: inconclusive */
		CHECKF(slept < 10, "the workers slept %ld times between 20 launches 50 us apart",
		       slept);
		return;
	}
	printf("test_awake_between_launches: preempted in every attempt, not judged\n");
}

int main(void)
{
	test_awake_between_launches();
	test_stalled_share();
	test_scratch_pages();
	CHECK(rr__pool_threads() >= 1);
	static const int64_t chunks[] = {1, 3, 64, ITEMS, 10 * ITEMS};
	for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++)
		for (int threads = 1; threads <= 4; threads++)
			CHECKF(run_once(threads, ITEMS, chunks[c], 1000) == 0,
			       "threads %d chunk %lld", threads, (long long)chunks[c]);
	CHECK(run_once(2, 0, 1, 0) == 0); /* no items: returns at once */

	atomic_int wrong = 0;
	pthread_t ids[3];
	int started = 0;
	for (int t = 0; t < 3; t++)
		started += pthread_create(&ids[t], NULL, host, &wrong) == 0;
	for (int t = 0; t < started; t++)
		pthread_join(ids[t], NULL);
	CHECKF(started == 3 && atomic_load(&wrong) == 0,
	       "%d launches from 3 host threads went wrong", atomic_load(&wrong));

	pid_t pid = fork();
	if (pid == 0)
		_exit(run_once(2, ITEMS, 5, 64) == 0 ? 0 : 1);
	int status = 0;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0);
	CHECK(run_once(2, ITEMS, 5, 64) == 0); /* the parent's pool still works */
	return rr_test_finish("test_cpu_pool");
}

/* The cpu backend's thread pool: one per process, sized to the online CPUs, started on first
 * use and kept, so a launch hands rows to waiting threads instead of creating threads. Items
 * (rows, or a ceiling's spans) are split into one share a thread; each share is handed out in
 * chunks from its own counter, to its owner first and then to threads done with theirs. */
#ifndef RR_BACKEND_CPU_POOL_H
#define RR_BACKEND_CPU_POOL_H

#include <stdint.h>

#include "util/util.h"

/* Work on items [begin, end) by pool thread `thread` (0 is the caller), with `scratch` that
 * thread's private floats (NULL when none were asked for). */
typedef void (*rr__pool_fn)(void *context, int thread, int64_t begin, int64_t end, float *scratch);

/* Threads of the pool, the caller included: the online CPUs (at least 1, at most 512). */
int rr__pool_threads(void);

/* Times a pool thread has gone to sleep waiting for a launch (tests: back-to-back launches
 * find the workers awake). */
long rr__pool_sleeps(void);

/* Runs fn over items [0, items) in chunks of `chunk` items, on at most `threads` threads (the
 * caller one of them), each with at least `scratch_floats` private floats on pages of their
 * own, an unused page between two threads' (cpu_pool.c); returns when every item is done.
 * Launches from several host threads take turns. Fails (RR_ERR_NOMEM) only when the scratch
 * cannot grow; a pool thread that cannot be started leaves its share to the others. */
rr_status rr__pool_run(int threads, int64_t items, int64_t chunk, int64_t scratch_floats,
                       rr__pool_fn fn, void *context);

/* Runs fn(context, t, t, n, scratch) once on each of n threads t = 0..n-1 at the same time (n:
 * `threads`, fewer where fewer pool threads run), each call on its own thread with its own
 * scratch, none taken over by another thread: the calls may wait for each other (a row split
 * over threads). */
rr_status rr__pool_run_each(int threads, int64_t scratch_floats, rr__pool_fn fn, void *context);

#endif

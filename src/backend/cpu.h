/* What the cpu backend offers beyond its table in backend.h: the compile cache's location and
 * a count of compiler runs, so tests can see that a cached shared object is reused. */
#ifndef RR_BACKEND_CPU_H
#define RR_BACKEND_CPU_H

#include <stddef.h>

/* How many times this process ran the C compiler on generated source (cache misses). */
long rr__cpu_compiler_runs(void);
/* Launches of this process that ran rows split over threads in two or more parts. */
long rr__cpu_row_part_runs(void);

/* The folder holding the cached shared objects: $RR_CACHE_DIR/cpu, else
 * ~/.cache/rowreduce/cpu (created on first use). */
void rr__cpu_cache_dir(char *out, size_t size);

/* Whether two row outputs and a row input of one launch sit within RR_CPU_ALIAS_BYTES of each
 * other modulo 4 KiB (`inputs`, `outputs`: the row arrays' addresses; `n_in`, `n_out` of
 * them). Non-temporal stores of two output streams that near an input stream stall that
 * stream's loads on the 2-core Zen 3 machine by 4-14x (add_layernorm f32 1024x4096 on NumPy's
 * arrays, which put all four 16 bytes apart: 2.8 ms apart, 20-40 ms so); such a launch stores
 * through the caches (bench/NOTES.md, 2026-12-01 session 9). */
#define RR_CPU_ALIAS_BYTES 512
int rr__cpu_outputs_alias(const void *const *inputs, int n_in, void *const *outputs, int n_out);

#endif

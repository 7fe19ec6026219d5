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

/* Whether the CPU of /proc/cpuinfo's `vendor`, `family` and `model` stalls as above, so that
 * rr__cpu_outputs_alias turns streaming off: 1 but where measured otherwise. Zen 3 (family 25
 * model 1) stalled (session 9). An Intel Xeon (session 17) streamed faster at the aliased
 * placement too, 17.6 ms against 23.3 for add_layernorm f32 16384x1024 on one thread, 0.52-0.56
 * of the time on two (bench/results/2026-12-02-cpu-ab-alias-intel); its other generations are
 * unmeasured. Zen 4 (family 25 model 17, EPYC; models 0x10-0x1f, 0x60-0x7f and 0xa0-0xaf, the
 * same core, with it, unmeasured):
 * add_layernorm, two threads, streamed at NumPy's placement (all four arrays 16 bytes into a
 * page) in 0.69-0.75 of the ordinary stores' time for bf16 4096x4096, 0.79-0.83 for f32,
 * 0.81-0.85 for f32 1024x4096 and 0.78-0.87 for bf16 256x65536 (two runs); streamed, the
 * aliased placement took 0.96-1.15 of an unaliased one's time (bench/lab/s62-cpu). */
int rr__cpu_alias_stalls(const char *vendor, int family, int model);

#endif

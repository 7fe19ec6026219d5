/* What the cpu backend offers beyond its table in backend.h: the compile cache's location and
 * a count of compiler runs, so tests can see that a cached shared object is reused. */
#ifndef RR_BACKEND_CPU_H
#define RR_BACKEND_CPU_H

#include <stddef.h>

/* How many times this process ran the C compiler on generated source (cache misses). */
long rr__cpu_compiler_runs(void);

/* The folder holding the cached shared objects: $RR_CACHE_DIR/cpu, else
 * ~/.cache/rowreduce/cpu (created on first use). */
void rr__cpu_cache_dir(char *out, size_t size);

#endif

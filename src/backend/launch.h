/* How each backend launches a program, computed from the program's realisation alone
 * (layout/realise.h): exposed so a test can check that the launchers, the emitters, legality
 * and the cost model all read the same record. */
#ifndef RR_BACKEND_LAUNCH_H
#define RR_BACKEND_LAUNCH_H

#include <stdint.h>

#include "layout/realise.h"

/* One CUDA launch: blocks of `threads`, clusters of `cluster` blocks, the dynamic shared
 * memory, and the entry that runs. */
typedef struct rr__cuda_launch_shape {
	int64_t blocks;
	int threads;
	int cluster;     /* 1: no cluster */
	int workspace;   /* S=grid: the program's workspace is the kernel's last parameter */
	int cooperative; /* S=grid whose blocks wait for one another: a cooperative launch (a
	                  * row's blocks all resident); not where none waits (rr__cuda_launch_shape_of) */
	int64_t dynamic_smem;
	const char *entry; /* points into the realisation */
} rr__cuda_launch_shape;

/* The launch of `rows` rows: one group (C blocks) per R rows, at most `resident_groups` of
 * them on a persistent grid; the entry of kind `vec` (RR_ENTRY_*, rr__realisation_vec_allowed)
 * where the plan has it, else the scalar one.
 * RR_ERR_INVALID_ARG when the grid exceeds 2^31 - 1 blocks. */
rr_status rr__cuda_launch_shape_of(const rr__realisation *r, int64_t rows, int64_t resident_groups,
                                   int vec, rr__cuda_launch_shape *out);

/* Floats of private scratch one CPU thread needs: the kept values' slots of W workers, and
 * the values the C emitter's split keeps (rr__c_scratch_floats). */
int64_t rr__cpu_scratch_floats(const rr_kernel *kernel, const rr__realisation *r);

#endif

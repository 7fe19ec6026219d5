/* Shared expression emitter: both the C and the CUDA C emitters print node values with it, so
 * the arithmetic of a kernel is written once. Values are named by node id: scalar nodes
 * `s<id>`, elem nodes `e<id><suffix>` (the suffix tells apart the elements a worker holds). */
#ifndef RR_CODEGEN_EXPR_H
#define RR_CODEGEN_EXPR_H

#include "lang/ir.h"
#include "util/util.h"

typedef enum rr__flavor {
	RR_FLAVOR_C = 0, /* C11 with <math.h>: expf, 1.0f / sqrtf */
	RR_FLAVOR_CUDA,  /* CUDA C: expf, rsqrtf */
	RR_FLAVOR_C_VEC  /* elem values as vectors of device/cpu_vec.h: rr_vexp, rr_vmax, ... */
} rr__flavor;

/* Appends the right-hand side computing node `id` (an arithmetic, N or constant node) in float
 * from its operands' names. INPUT, REDUCE and GATHER nodes are the emitter's own business. */
void rr__emit_rhs(rr__buf *buf, const rr_kernel *kernel, int id, const char *elem_suffix,
                  rr__flavor flavor);
/* Appends a float literal that reads back as `value` exactly in float ("1.0e-06f"). */
void rr__emit_float(rr__buf *buf, double value);
/* The identity of a reduction ("0.0f", "-INFINITY", "INFINITY"). */
const char *rr__reduce_identity(rr__reduce reduce);

#endif

/* Validation (DESIGN.md §7): random inputs for a kernel, poisoned output buffers, and the full
 * comparison of a backend's outputs against the float64 reference, element by element.
 *
 * Tolerances. An element passes when |got - want| <= tiny + atol * scale + rtol * |want| + e,
 * where scale is the largest finite |want| over that output (at least 1e-30), tiny is the
 * spacing of the dtype's subnormals (f16 2^-24, bf16 2^-133, f32 2^-149): a value rounded to
 * the nearest subnormal errs by up to half of it, whatever the row's scale (an f16 softmax
 * output of 2^-23 against 1.475e-7 is correct), and e is the element's error bound from the
 * reference (rr__reference_run_bounds, ref/reference.h): the error an f32 evaluation of the
 * kernel's formula carries there, propagated to first order from every rounding, reductions'
 * included. An output computed from a reduced value is so allowed the error that value carries:
 * layernorm of a row whose values are close together multiplies the rounding of its mean by
 * rsqrt(var + eps), up to 316 for eps = 1e-5, an error no fixed rtol covers; e is small where the
 * output is well-conditioned, so a wrong value still fails there (a long sum is allowed its own
 * rounding, 8·√N·u·Σ|x|). e only widens what passes, so it is worked out (a second reference
 * run, with bounds, block by block of rows) only when some element fails without it. An
 * infinity passes only against the same infinity, a NaN only against a NaN (the defined answer
 * where inputs hold NaN or infinities, e.g. softmax of a row of -inf, as in PyTorch). A NaN in
 * the reference of all finite inputs is not compared: the kernel is undefined there
 * (RR_ERR_INVALID_ARG, "the reference is NaN ..."). Defaults by element type, set by the
 * rounding of one output value plus the f32 arithmetic of long rows (e covers what a
 * reduction's error becomes downstream):
 *   f32   rtol 1e-4   atol 1e-5
 *   f16   rtol 4e-3   atol 2e-3
 *   bf16  rtol 2e-2   atol 1.6e-2
 */
#ifndef RR_VALIDATE_H
#define RR_VALIDATE_H

#include <stdint.h>

#include "lang/ir.h"

/* Host copies of a kernel's inputs in launch order: args[k] for input k (arrays in the dtype,
 * index inputs int64, params with their value). */
typedef struct rr__host_inputs {
	int count;
	rr_arg args[RR_MAX_IO];
	void *owned[RR_MAX_IO]; /* the array behind args[k].data, NULL for params */
	size_t bytes[RR_MAX_IO];
} rr__host_inputs;

/* Rows per block of the validator's pass with error bounds (taken only where an element fails
 * without its bound): about this many elements, at least one row. */
#define RR__BOUND_BLOCK_ELEMENTS ((int64_t)1 << 20)

/* Fresh random inputs from `seed`: row and rowscalar values uniform in [-3, 3] with |v| >= 1e-3
 * (never zero, after rounding to the dtype), col values uniform in [0.5, 1.5], index values
 * uniform in [0, cols) as int64, params at their defaults unless `overrides` (NULL-terminated
 * "name=value" strings, may be NULL) names them. RR_ERR_INVALID_ARG for an unknown or malformed
 * override (the message lists the kernel's params), a bad shape or a dtype other than
 * f32/bf16/f16. RR_ERR_NOMEM, before anything is allocated, when a validated run of this shape
 * would not fit in the host memory available (rr__host_memory_available: the inputs and outputs
 * twice, as on the cpu backend where device buffers are host memory, plus the float64
 * reference of every output, or the blocks of reference and error bounds that replace it, and
 * one thread of the reference run's scratch rows). */
rr_status rr__inputs_make(const rr_kernel *kernel, int64_t rows, int64_t cols, rr_dtype dtype,
                          uint64_t seed, const char *const *overrides, rr__host_inputs *out);
void rr__inputs_free(rr__host_inputs *inputs);

/* Elements of output j for rows × cols (rows · cols for a row output, rows for a rowscalar). */
int64_t rr__output_elements(const rr_kernel *kernel, int j, int64_t rows, int64_t cols);
/* Fills `count` elements of `data` with a NaN bit pattern of the dtype, so an element a kernel
 * never wrote fails validation. */
void rr__poison(void *data, rr_dtype dtype, int64_t count);

typedef struct rr__tolerance {
	double rtol, atol;
	double tiny; /* absolute: the dtype's subnormal spacing */
} rr__tolerance;

/* The default tolerance of a dtype (the table above). */
rr__tolerance rr__tolerance_default(rr_dtype dtype);

/* What one output's comparison found. first_row is -1 when every element passed. */
typedef struct rr__output_check {
	char name[RR_MAX_NAME];
	int64_t elements, failures;
	double scale;                        /* largest |want| (>= 1e-30): atol's unit */
	double max_abs_error, max_rel_error; /* over the finite comparisons */
	int64_t first_row, first_col;
	double first_got, first_want;
	double first_bound; /* the reference's error bound e at the first failing element */
	double
	    first_allowed; /* the whole allowed error there: tiny + atol·scale + rtol·|want| + e */
} rr__output_check;

typedef struct rr__validation {
	rr__tolerance tolerance;
	int total;     /* outputs compared */
	int validated; /* outputs whose every element passed */
	rr__output_check outputs[RR_MAX_IO];
} rr__validation;

/* Computes the float64 reference of `kernel` on `inputs` and compares every element of every
 * output (host arrays in `dtype`). tolerance NULL = the dtype's default. Fills `report` in any
 * case; RR_ERR_VALIDATION (message naming the first failing element) when an output fails,
 * RR_ERR_INVALID_ARG when the reference is NaN although every input is finite (the message
 * names the element and the params), another status when the reference itself cannot run. */
rr_status rr__validate_outputs(const rr_kernel *kernel, int64_t rows, int64_t cols, rr_dtype dtype,
                               const rr__host_inputs *inputs, void *const *outputs,
                               const rr__tolerance *tolerance, rr__validation *report);

#endif

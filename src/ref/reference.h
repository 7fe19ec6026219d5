/* The float64 reference's internal door: the reference run (rr_reference_run, include/rowreduce.h)
 * with, on request, an absolute bound on the error an f32 evaluation of the same kernel carries
 * at every output element. Validation (src/validate) allows each element that bound on top of
 * its tolerance, so an output that is ill-conditioned with respect to a reduced value (layernorm
 * of a row whose values are close together amplifies the rounding of the mean by rsqrt(var +
 * eps)) is allowed the error that value carries, and a well-conditioned one is not.
 *
 * The bound e of every node is propagated to first order in the same pass, from the reference's
 * own formula (no rewrites: softmax's sum is sum(exp(x - m)) with the exact max), with u the unit
 * roundoff of f32, the arithmetic and accumulation type of every backend whatever the storage
 * dtype (src/codegen: "f32 arithmetic and accumulation"):
 *   inputs, gathered values                 e = 0 (exact in their storage dtype)
 *   consts, params, N                       e = |v - (float)v| (the kernels compute with floats)
 *   -a, abs(a)                              ea (exact)
 *   a + b, a - b                            ea + eb                         + u|r|
 *   a * b                                   |b|ea + |a|eb + ea·eb           + u|r|
 *   a / b                                   (ea + |r|eb) / |b|              + u|r|
 *   exp(a)                                  |r|ea                           + (6 + 2.4|a|)u|r|
 *                                           (+ 2^-126 where |r| <= 2^-126)
 *   log(a)                                  ea / |a|                        + 6u|r|
 *   sqrt(a)                                 min(ea / (2|r|), sqrt(ea))      + 6u|r|
 *   rsqrt(a)                                |r|ea / (2|a|)                  + 6u|r|
 *   tanh(a)                                 (1 - r²)ea                      + 6u|r|
 *   max(a, b), min(a, b)                    max(hi - r, r - lo), hi and lo the max (min) of
 *                                           the operands moved up by their e, and down: the
 *                                           selected operand's e, widened only when the other
 *                                           lies within the errors
 *   sum(t) over a row of n                  Σe_i + λ·√n·u·Σ|t_i|, λ = RR_REF_SUM_LAMBDA
 *   max(t), min(t)                          as max(a, b), over the row
 * The rounding terms: + - * / are correctly rounded (one rounding, u|r|); exp, log, sqrt, rsqrt
 * and tanh are allowed 3 ULP (6u|r|: the cpu backend's polynomials are within 3, CUDA's
 * rsqrtf, logf and tanhf within 2), exp another 1.2|a| ULP for CUDA's fast exponential, whose
 * error grows with its argument, and 2^-126 where the result is that small (CUDA flushes
 * it to zero). A sum's rounding is the probabilistic bound of a sum of n terms
 * rounded in f32 (n the row length, the longest accumulation chain any plan has): exceeded
 * with probability below 2·exp(-λ²/2) when the roundings are independent, and by far larger
 * than the error of the backends' tree of short chains. The bound of a value that is not finite
 * (and a bound that is not finite) is 0: the validator's inf/NaN rules decide those elements. */
#ifndef RR_REF_REFERENCE_H
#define RR_REF_REFERENCE_H

#include "lang/ir.h"

#define RR_REF_UNIT_ROUNDOFF 0x1p-24 /* f32 */
#define RR_REF_SUM_LAMBDA 8.0

/* rr_reference_run, and when `bounds` is not NULL the error bound of every output element in
 * bounds[j], shaped like outputs[j] (rows × cols doubles for a row output, rows for a
 * rowscalar). bounds NULL costs nothing over rr_reference_run. Same errors as rr_reference_run,
 * and RR_ERR_INVALID_ARG when bounds is given with a NULL array. */
rr_status rr__reference_run_bounds(const rr_kernel *kernel, int64_t rows, int64_t cols,
                                   const rr_arg *inputs, double *const *outputs,
                                   double *const *bounds);

/* The scratch of one thread of the reference run on rows of `cols` elements, in bytes: a row of
 * doubles for the broadcast and one for each elementwise node of the kernel, and one more for
 * each node's error bounds when `bounds`. The validator counts it before allocating anything. */
uint64_t rr__reference_scratch_bytes(const rr_kernel *kernel, int64_t cols, int bounds);

#endif

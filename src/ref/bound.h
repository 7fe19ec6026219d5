/* The error-bound rules of the float64 reference (the table in ref/reference.h), over rows:
 * reference.c calls them after computing a node's values. An operand is a pointer with a step,
 * 1 for a row of values, 0 for a scalar seen broadcast over the row. */
#ifndef RR_REF_BOUND_H
#define RR_REF_BOUND_H

#include <stdint.h>

#include "lang/ir.h"

typedef struct rr__bound_operand {
	const double *value, *bound;
	int64_t step; /* 1: a row, 0: a scalar */
} rr__bound_operand;

/* The representation error of v as the f32 a kernel computes with; 0 outside f32's range. */
double rr__bound_representation(double v);
/* bound[i] for r[i] = op(a[i]) (unary) or op(a[i], b[i]) (binary), i < n. */
void rr__bound_unary(rr__op op, double *bound, const double *r, rr__bound_operand a, int64_t n);
void rr__bound_binary(rr__op op, double *bound, const double *r, rr__bound_operand a,
                      rr__bound_operand b, int64_t n);
/* The bound of r = reduce(t[0..n)). */
double rr__bound_reduce(rr__reduce reduce, double r, rr__bound_operand t, int64_t n);

#endif

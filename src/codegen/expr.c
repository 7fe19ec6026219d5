/* Printing node arithmetic as C / CUDA C float expressions (see expr.h). */
#include <math.h>

#include "codegen/expr.h"

void rr__emit_float(rr__buf *buf, double value)
{
	float f = (float)value;
	if (isinf(f))
		rr__buf_printf(buf, f > 0 ? "INFINITY" : "(-INFINITY)");
	else if (isnan(f))
		rr__buf_printf(buf, "NAN");
	else
		rr__buf_printf(buf, "%.9ef", (double)f);
}

/* The suffix marking an operand of a vector function call (RR_FLAVOR_C_VEC), never printed. */
static const char vector_argument[] = "";

const char *rr__reduce_identity(rr__reduce reduce)
{
	switch (reduce) {
	case RR_REDUCE_SUM:
		return "0.0f";
	case RR_REDUCE_MAX:
		return "(-INFINITY)";
	case RR_REDUCE_MIN:
		return "INFINITY";
	}
	return "0.0f";
}

static void operand(rr__buf *buf, const rr_kernel *kernel, int id, const char *suffix)
{
	/* A scalar passed to a vector function is broadcast first (operators broadcast alone). */
	if (suffix == vector_argument && kernel->nodes[id].shape != RR_SHAPE_ELEM) {
		rr__buf_printf(buf, "rr_vsplat(");
		operand(buf, kernel, id, "");
		rr__buf_printf(buf, ")");
		return;
	}
	if (kernel->nodes[id].op == RR_OP_CONST)
		rr__emit_float(buf, kernel->nodes[id].value);
	else if (kernel->nodes[id].shape == RR_SHAPE_ELEM)
		rr__buf_printf(buf, "e%d%s", id, suffix);
	else
		rr__buf_printf(buf, "s%d", id);
}

void rr__emit_rhs(rr__buf *buf, const rr_kernel *kernel, int id, const char *elem_suffix,
                  rr__flavor flavor)
{
	const rr__node *node = &kernel->nodes[id];
	const char *fn = NULL;
	const int vec = flavor == RR_FLAVOR_C_VEC;
	switch (node->op) {
	case RR_OP_CONST:
		rr__emit_float(buf, node->value);
		return;
	case RR_OP_N:
		rr__buf_printf(buf, "(float)N");
		return;
	case RR_OP_NEG:
		rr__buf_printf(buf, "-");
		operand(buf, kernel, node->a, elem_suffix);
		return;
	case RR_OP_EXP:
		fn = vec ? "rr_vexp" : "expf";
		break;
	case RR_OP_LOG:
		fn = vec ? "rr_vlog" : "logf";
		break;
	case RR_OP_SQRT:
		fn = vec ? "rr_vsqrt" : "sqrtf";
		break;
	case RR_OP_ABS:
		fn = vec ? "rr_vabs" : "fabsf";
		break;
	case RR_OP_TANH:
		fn = vec ? "rr_vtanh" : "tanhf";
		break;
	case RR_OP_RSQRT:
		rr__buf_printf(buf, flavor == RR_FLAVOR_CUDA ? "rsqrtf("
		                    : vec                    ? "1.0f / rr_vsqrt("
		                                             : "1.0f / sqrtf(");
		operand(buf, kernel, node->a, elem_suffix);
		rr__buf_printf(buf, ")");
		return;
	case RR_OP_DIV:
		/* A row divided by a per-row scalar multiplies by its reciprocal: one division per
		 * row instead of one per element (the compiler hoists or shares 1.0f / s). */
		if (kernel->nodes[node->a].shape == RR_SHAPE_ELEM &&
		    kernel->nodes[node->b].shape == RR_SHAPE_SCALAR &&
		    kernel->nodes[node->b].op != RR_OP_CONST) {
			operand(buf, kernel, node->a, elem_suffix);
			rr__buf_printf(buf, " * (1.0f / s%d)", node->b);
			return;
		}
		/* fall through */
	case RR_OP_ADD:
	case RR_OP_SUB:
	case RR_OP_MUL:
		operand(buf, kernel, node->a, elem_suffix);
		rr__buf_printf(buf, " %s ", rr__op_name(node->op));
		operand(buf, kernel, node->b, elem_suffix);
		return;
	case RR_OP_MAX:
	case RR_OP_MIN:
		if (vec)
			rr__buf_printf(buf, node->op == RR_OP_MAX ? "rr_vmax(" : "rr_vmin(");
		else
			rr__buf_printf(buf, node->op == RR_OP_MAX ? "fmaxf(" : "fminf(");
		operand(buf, kernel, node->a, vec ? vector_argument : elem_suffix);
		rr__buf_printf(buf, ", ");
		operand(buf, kernel, node->b, vec ? vector_argument : elem_suffix);
		rr__buf_printf(buf, ")");
		return;
	case RR_OP_INPUT:
	case RR_OP_REDUCE:
	case RR_OP_GATHER:
		rr__buf_printf(buf, "/* node %d is loaded by the emitter */ 0.0f", id);
		return;
	}
	rr__buf_printf(buf, "%s(", fn);
	operand(buf, kernel, node->a, elem_suffix);
	rr__buf_printf(buf, ")");
}

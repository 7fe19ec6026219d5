/* The C emitter's rows as lanes: a W = 1 plan on short rows as L rows a vector, lane l running
 * row l's whole kernel in the plan's element order (device/cpu_lanes.h), where the per-row
 * code (c_emit.c) gives one lane work and the vector's others zeros. Each row's arithmetic is
 * the per-row code's, operation for operation (the same vector forms, cpu_vec.h's RR_FORM_L
 * = 1; its scalars through the same libm calls), so the outputs keep their bits. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "codegen/c_emit.h"
#include "codegen/common.h"
#include "codegen/device_files.h"
#include "codegen/expr.h"
#include "layout/realise.h"

typedef struct lanes_emitter {
	rr__buf *out;
	const rr_kernel *kernel;
	rr_dtype dtype;
	int rounds;
	int64_t cols;
	int cached; /* the exp(e - m) node the sum pass keeps for the output phase, or -1 */
	int phase;  /* emitting: 2 the pass of the sums, 3 the output phase, else 0 */
	unsigned char needed[RR_MAX_NODES];
} lanes_emitter;

static void line(lanes_emitter *em, int depth, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void line(lanes_emitter *em, int depth, const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	rr__emit_vline(em->out, depth, fmt, args);
	va_end(args);
}

/* A scalar value as a vector operand: a constant broadcast, others by name. */
static void scalar_ref(lanes_emitter *em, int id)
{
	const rr__node *node = &em->kernel->nodes[id];
	if (node->op == RR_OP_CONST) {
		rr__buf_printf(em->out, "rr_vsplat(");
		rr__emit_float(em->out, node->value);
		rr__buf_printf(em->out, ")");
	} else if (node->shape == RR_SHAPE_ELEM) {
		rr__buf_printf(em->out, "e%d", id);
	} else {
		rr__buf_printf(em->out, "s%d", id);
	}
}

/* fn(a, b) of node's two operands (max and min, as scalars or elements). */
static void call_of_two(lanes_emitter *em, const char *fn, const rr__node *node)
{
	rr__buf_printf(em->out, "%s(", fn);
	scalar_ref(em, node->a);
	rr__buf_printf(em->out, ", ");
	scalar_ref(em, node->b);
	rr__buf_printf(em->out, ")");
}

/* Scalar node id (one value a row, a lane each): + - * / and sqrt as vectors round alike; the
 * functions the per-row code calls from libm are called lane by lane. */
static void emit_scalar(lanes_emitter *em, int id)
{
	const rr_kernel *kernel = em->kernel;
	const rr__node *node = &kernel->nodes[id];
	const char *fn = NULL;
	switch (node->op) {
	case RR_OP_CONST:
		return; /* written as a literal where used */
	case RR_OP_GATHER:
		line(em, 1, "vf s%d = rr_vsplat(NAN); /* %s[%s], lane by lane */", id,
		     kernel->inputs[node->input].name, kernel->inputs[node->index].name);
		line(em, 1, "for (int l = 0; l < live; l++) {");
		line(em, 2, "const int64_t t = idx%d[l];", node->index);
		line(em, 2, "s%d[l] = t >= 0 && t < N ? load_io(in%d + l * N, t) : NAN;", id,
		     node->input);
		line(em, 1, "}");
		return;
	case RR_OP_N:
		line(em, 1, "const vf s%d = rr_vsplat((float)N);", id);
		return;
	case RR_OP_EXP:
		fn = "rr_rows_expf";
		break;
	case RR_OP_LOG:
		fn = "rr_rows_logf";
		break;
	case RR_OP_TANH:
		fn = "rr_rows_tanhf";
		break;
	case RR_OP_SQRT:
		fn = "rr_vsqrt";
		break;
	case RR_OP_ABS:
		fn = "rr_vabs";
		break;
	case RR_OP_RSQRT:
		fn = "1.0f / rr_vsqrt";
		break;
	case RR_OP_MAX:
	case RR_OP_MIN:
		rr__buf_printf(em->out, "\tconst vf s%d = ", id);
		call_of_two(em, node->op == RR_OP_MAX ? "rr_rows_fmaxf" : "rr_rows_fminf", node);
		rr__buf_printf(em->out, ";\n");
		return;
	case RR_OP_NEG:
	case RR_OP_ADD:
	case RR_OP_SUB:
	case RR_OP_MUL:
	case RR_OP_DIV:
		/* operators take a float operand beside a vector, as the per-row code's floats */
		rr__buf_printf(em->out, "\tconst vf s%d = ", id);
		if (kernel->nodes[node->a].op == RR_OP_CONST &&
		    (node->b < 0 || kernel->nodes[node->b].op == RR_OP_CONST)) {
			rr__buf_printf(em->out, "rr_vsplat(");
			rr__emit_rhs(em->out, kernel, id, "", RR_FLAVOR_C);
			rr__buf_printf(em->out, ");\n");
		} else {
			rr__emit_rhs(em->out, kernel, id, "", RR_FLAVOR_C);
			rr__buf_printf(em->out, ";\n");
		}
		return;
	case RR_OP_INPUT:
	case RR_OP_REDUCE:
		return; /* loaded at the block's start, or its accumulator */
	}
	rr__buf_printf(em->out, "\tconst vf s%d = %s(", id, fn);
	scalar_ref(em, node->a);
	rr__buf_printf(em->out, ");\n");
}

static void emit_scalars(lanes_emitter *em, int round)
{
	unsigned char ready[RR_MAX_NODES];
	if (rr__analysis_scalars_after(em->kernel, round, ready) == 0)
		return;
	for (int id = 0; id < em->kernel->n_nodes; id++)
		if (ready[id])
			emit_scalar(em, id);
}

/* The elem nodes marked in em->needed for element i, as vectors of the rows' element i. */
static void emit_elements(lanes_emitter *em, int depth)
{
	const rr_kernel *kernel = em->kernel;
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (!em->needed[id])
			continue;
		const rr__node *node = &kernel->nodes[id];
		const char *name = node->op == RR_OP_INPUT ? kernel->inputs[node->input].name : "";
		if (node->op == RR_OP_INPUT && kernel->inputs[node->input].kind == RR_KIND_COL) {
			line(em, depth, "const vf e%d = rr_vsplat(load_io(in%d, i)); /* %s */", id,
			     node->input, name);
			continue;
		}
		if (node->op == RR_OP_INPUT) {
			line(em, depth,
			     "const vf e%d = whole ? elems%d[i] : "
			     "rr_rows_load_lanes(in%d, N, i, live); /* %s */",
			     id, node->input, node->input, name);
			continue;
		}
		rr__emit_indent(em->out, depth);
		rr__buf_printf(em->out, "const vf e%d = ", id);
		if (id == em->cached && em->phase == 3)
			rr__buf_printf(em->out, "whole ? kept%d[i] : ", id);
		const char *form = rr__c_exp_form(kernel, em->dtype, id);
		if (form) {
			rr__buf_printf(em->out, "rr_vexp_nonpos%s(e%d)", form, node->a);
		} else if (node->op == RR_OP_MAX || node->op == RR_OP_MIN) {
			call_of_two(em, node->op == RR_OP_MAX ? "rr_vmax" : "rr_vmin", node);
		} else {
			rr__emit_rhs(em->out, kernel, id, "", RR_FLAVOR_C_VEC);
		}
		rr__buf_printf(em->out, ";\n");
		if (id == em->cached && em->phase == 2) {
			line(em, depth, "if (whole)");
			line(em, depth + 1, "kept%d[i] = e%d; /* for the output phase */", id, id);
		}
	}
}

/* The reduction that pass `pass` of round `round` accumulates for node id, or -1: pass 1 every
 * one of the round (an online pair's max as a max), pass 2 the pairs' sums of exp(e - m), as
 * the per-row code's split. */
static int in_pass(const rr_kernel *kernel, int id, int round, int pass)
{
	if (!rr__reduced_in(kernel, id, round))
		return -1;
	if (pass == 1)
		return id;
	return kernel->analysis.online_partner[id];
}

/* One pass over the rows' elements, each reduction in element order from its identity. */
static void emit_pass(lanes_emitter *em, int round, int pass)
{
	const rr_kernel *kernel = em->kernel;
	int any = 0;
	for (int id = 0; id < kernel->n_nodes; id++) {
		const int red = in_pass(kernel, id, round, pass);
		if (red < 0)
			continue;
		line(em, 1, "vf acc%d = rr_vsplat(%s); /* %s */", red,
		     rr__reduce_identity(kernel->nodes[red].reduce),
		     rr__reduce_name(kernel->nodes[red].reduce));
		any = 1;
	}
	if (!any)
		return;
	if (pass == 2) {
		memset(em->needed, 0, (size_t)kernel->n_nodes);
		for (int id = 0; id < kernel->n_nodes; id++) {
			const int red = in_pass(kernel, id, round, pass);
			if (red >= 0)
				em->needed[kernel->nodes[red].a] = 1;
		}
		rr__mark_operands(kernel, em->needed, NULL);
	} else {
		rr__analysis_elem_needs(kernel, round, em->needed);
	}
	line(em, 1, "#pragma GCC unroll 16");
	line(em, 1, "for (int64_t i = 0; i < N; i++) {");
	em->phase = pass == 2 ? 2 : 0;
	emit_elements(em, 2);
	em->phase = 0;
	for (int id = 0; id < kernel->n_nodes; id++) {
		const int red = in_pass(kernel, id, round, pass);
		if (red < 0)
			continue;
		const rr__node *node = &kernel->nodes[red];
		rr__emit_indent(em->out, 2);
		if (node->reduce == RR_REDUCE_SUM)
			rr__buf_printf(em->out, "acc%d = acc%d + ", red, red);
		else
			rr__buf_printf(
			    em->out, "acc%d = %s(acc%d, ", red,
			    node->reduce == RR_REDUCE_MAX ? "rr_vmax_acc" : "rr_vmin_acc", red);
		scalar_ref(em, node->a);
		rr__buf_printf(em->out, "%s;\n", node->reduce == RR_REDUCE_SUM ? "" : ")");
	}
	line(em, 1, "}");
	for (int id = 0; id < kernel->n_nodes; id++) {
		const int red = in_pass(kernel, id, round, pass);
		if (red >= 0)
			line(em, 1, "const vf s%d = acc%d;", red, red);
	}
}

static void emit_output_phase(lanes_emitter *em)
{
	const rr_kernel *kernel = em->kernel;
	int row_outputs = 0;
	for (int j = 0; j < kernel->n_outputs; j++)
		row_outputs += kernel->outputs[j].kind == RR_KIND_ROW;
	if (row_outputs > 0) {
		line(em, 1, "/* output phase: each row's elements in order */");
		rr__analysis_elem_needs(kernel, em->rounds + 1, em->needed);
		line(em, 1, "#pragma GCC unroll 16");
		line(em, 1, "for (int64_t i = 0; i < N; i++) {");
		em->phase = 3;
		emit_elements(em, 2);
		em->phase = 0;
		for (int j = 0; j < kernel->n_outputs; j++) {
			if (kernel->outputs[j].kind != RR_KIND_ROW)
				continue;
			rr__buf_printf(em->out, "\t\tif (whole)\n\t\t\ty%d[i] = ", j);
			scalar_ref(em, kernel->outputs[j].node);
			rr__buf_printf(em->out,
			               ";\n\t\telse\n\t\t\trr_rows_store_lanes(out%d, N, i, "
			               "live, ",
			               j);
			scalar_ref(em, kernel->outputs[j].node);
			rr__buf_printf(em->out, "); /* %s */\n", kernel->outputs[j].name);
		}
		line(em, 1, "}");
	}
	for (int j = 0; j < kernel->n_outputs; j++) {
		const rr__io *io = &kernel->outputs[j];
		if (io->kind == RR_KIND_ROW) {
			line(em, 0, "#if PLAN_N >= RR_ROWS_TRANSPOSE_MIN_N");
			line(em, 1, "if (whole) /* %s, row-major */", io->name);
			line(em, 2, "rr_rows_store_elements(out%d, y%d, N);", j, j);
			line(em, 0, "#else");
			line(em, 1, "for (int64_t q = 0; whole && q < N; q++) /* %s, row-major */",
			     io->name);
			line(em, 2, "store_packed(out%d + q * L, rr_rows_unpick(y%d, N, q));", j,
			     j);
			line(em, 0, "#endif");
		} else {
			rr__buf_printf(em->out, "\trr_rows_scalar_out(out%d, live, ", j);
			scalar_ref(em, io->node);
			rr__buf_printf(em->out, "); /* %s */\n", io->name);
		}
	}
}

static void emit_block_setup(lanes_emitter *em)
{
	const rr_kernel *kernel = em->kernel;
	for (int k = 0; k < kernel->n_inputs; k++) {
		const rr__io *io = &kernel->inputs[k];
		switch (io->kind) {
		case RR_KIND_ROW:
			line(em, 1,
			     "const io_t *in%d = (const io_t *)inputs[%d] + row0 * N; /* %s */", k,
			     k, io->name);
			line(em, 1, "vf rows%d[PLAN_N]; /* %s as f32, row-major, L a vector */", k,
			     io->name);
			line(em, 1, "for (int64_t q = 0; whole && q < N; q++)");
			line(em, 2, "rows%d[q] = load_packed(in%d + q * L);", k, k);
			line(em, 1, "vf elems%d[PLAN_N]; /* %s by element: lane l row l's */", k,
			     io->name);
			/* Shorter rows keep the permutes written out: through the call, GCC laid
			 * out layernorm f32 N = 7 otherwise, 7% slower on one thread. The #if
			 * lets a test move the bound (RR_ROWS_TRANSPOSE_MIN_N in RR_CFLAGS). */
			line(em, 0, "#if PLAN_N >= RR_ROWS_TRANSPOSE_MIN_N");
			line(em, 1, "if (whole)");
			line(em, 2, "rr_rows_to_elements(elems%d, rows%d, N);", k, k);
			line(em, 0, "#else");
			line(em, 1, "#pragma GCC unroll 16");
			line(em, 1, "for (int64_t i = 0; whole && i < N; i++)");
			line(em, 2, "elems%d[i] = rr_rows_pick(rows%d, N, i);", k, k);
			line(em, 0, "#endif");
			break;
		case RR_KIND_COL:
			line(em, 1, "const io_t *in%d = (const io_t *)inputs[%d]; /* %s: col */", k,
			     k, io->name);
			break;
		case RR_KIND_INDEX:
			line(em, 1,
			     "const int64_t *idx%d = (const int64_t *)inputs[%d] + row0; /* %s */",
			     k, k, io->name);
			break;
		case RR_KIND_ROWSCALAR:
			if (io->node >= 0)
				line(em, 1,
				     "const vf s%d = rr_rows_scalar_in((const io_t *)inputs[%d] + "
				     "row0, "
				     "live); /* %s */",
				     io->node, k, io->name);
			break;
		case RR_KIND_PARAM:
			if (io->node >= 0)
				line(em, 1, "const vf s%d = rr_vsplat((float)params[%d]); /* %s */",
				     io->node, k, io->name);
			break;
		}
	}
	if (em->cached >= 0)
		line(em, 1, "vf kept%d[PLAN_N]; /* exp(e - m) by element, from the sums' pass */",
		     em->cached);
	for (int j = 0; j < kernel->n_outputs; j++) {
		const rr__io *io = &kernel->outputs[j];
		line(em, 1, "io_t *out%d = (io_t *)outputs[%d] + row0%s; /* %s */", j, j,
		     io->kind == RR_KIND_ROW ? " * N" : "", io->name);
		if (io->kind == RR_KIND_ROW)
			line(em, 1, "vf y%d[PLAN_N]; /* by element, stored row-major at the end */",
			     j);
	}
}

static void emit_block(lanes_emitter *em)
{
	line(em, 0,
	     "/* Rows row0 .. row0 + live - 1 as lanes 0 .. live - 1 (the others compute on "
	     "zeros and store\n * nothing). whole: live == L and N == PLAN_N, the elements "
	     "move through lane permutes;\n * otherwise lane by lane. */");
	line(em, 0,
	     "static inline __attribute__((always_inline)) void rows_block(int64_t row0, "
	     "int64_t N, int live,\n\t\tint whole, const void *const *inputs, const double "
	     "*params, void *const *outputs)\n{");
	line(em, 1, "(void)params;");
	emit_block_setup(em);
	emit_scalars(em, 0);
	for (int round = 1; round <= em->rounds; round++) {
		line(em, 1, "/* round %d */", round);
		emit_pass(em, round, 1);
		emit_pass(em, round, 2);
		emit_scalars(em, round);
	}
	emit_output_phase(em);
	line(em, 0, "}\n");
}

static void emit_entry(lanes_emitter *em)
{
	line(em, 0,
	     "void rr_cpu_kernel(int64_t row_begin, int64_t row_end, int64_t N, const void "
	     "*const *inputs,\n\t\t   const double *params, void *const *outputs, float "
	     "*scratch, int stream)\n{");
	line(em, 1, "(void)scratch;");
	line(em, 1, "(void)stream; /* ordinary stores: a block's rows are written whole */");
	line(em, 1, "int64_t row = row_begin;");
	line(em, 1, "if (N == PLAN_N)");
	line(em, 2, "for (; row + L <= row_end; row += L)");
	line(em, 3, "rows_block(row, PLAN_N, L, 1, inputs, params, outputs);");
	line(em, 1, "for (; row < row_end; row += L) /* the rest (other N: all), lane by lane */");
	line(em, 2,
	     "rows_block(row, N, row_end - row < L ? (int)(row_end - row) : L, 0, inputs, "
	     "params,\n\t\t\t   outputs);");
	line(em, 0, "}\n");
	line(em, 0, "int64_t rr_cpu_scratch_floats(int64_t N)\n{\n\t(void)N;\n\treturn 0;\n}");
}

static void emit_header(lanes_emitter *em, const rr_layout *layout)
{
	char plan[256];
	rr_layout_format(layout, plan, sizeof plan);
	line(em, 0, "/* rowreduce: generated C for the cpu backend. Regenerate rather than edit.");
	line(em, 0, " *");
	line(em, 0, " * kernel   %s", em->kernel->name);
	line(em, 0, " * dtype    %s in memory, f32 arithmetic and accumulation",
	     rr_dtype_name(em->dtype));
	line(em, 0, " * plan     %s", plan);
	line(em, 0, " * rows     as lanes: L consecutive rows a vector, lane l runs row l's whole");
	line(em, 0,
	     " *          kernel in the plan's element order (W = 1: i = 0, 1, ..., N - 1) with "
	     "the");
	line(em, 0,
	     " *          per-row code's operations, so each row keeps its bits; a block of "
	     "fewer");
	line(em, 0, " *          than L rows (or rows of another N than PLAN_N), lane by lane");
	line(em, 0, " * rounds   %d", em->rounds);
	rr__emit_comment_reductions(em->out, em->kernel);
	line(em, 0,
	     " * split    an online pair's max, then its sum of exp(e - m), as the per-row "
	     "code's split");
	rr__emit_comment_kernel_text(em->out, em->kernel);
}

static void emit_prelude(lanes_emitter *em)
{
	rr__device_emit(em->out, "cpu_row.h", "includes");
	line(em, 0, "#define W 16 /* for cpu_vec.h's L, the target's f32 lanes (rows a block) */");
	line(em, 0, "#define V 1");
	line(em, 0, "#define PLAN_N %lld /* the realisation's row length: whole blocks */",
	     (long long)em->cols);
	line(em, 0,
	     "#define RR_FORM_L 1 /* the per-row code's forms of W = 1 (cpu_vec.h): its "
	     "bits */");
	line(em, 0,
	     "#ifndef RR_ROWS_TRANSPOSE_MIN_N /* rows of this many to L: a transposition */");
	line(em, 0, "#define RR_ROWS_TRANSPOSE_MIN_N %d\n#endif\n", RR_CPU_LANES_TRANSPOSE_MIN_N);
	rr__device_emit(em->out, "cpu_vec.h", "lanes");
	rr__device_emit(em->out, "cpu_vec.h", "intrinsics");
	rr__device_emit(em->out, "cpu_vec.h", "types");
	const char *type = "float", *load = "p[i]", *store = "v", *packed = "f32";
	if (em->dtype == RR_BF16 || em->dtype == RR_F16) {
		const int bf16 = em->dtype == RR_BF16;
		rr__device_emit(em->out, "convert16.h", "bits");
		rr__device_emit(em->out, "convert16.h", bf16 ? "bf16" : "f16");
		type = "uint16_t";
		load = bf16 ? "rr__bf16_to_float(p[i])" : "rr__f16_to_float(p[i])";
		store = bf16 ? "rr__bf16_from_float(v)" : "rr__f16_from_float(v)";
		packed = bf16 ? "bf16" : "f16";
	}
	line(em, 0, "typedef %s io_t;", type);
	line(em, 0, "static inline float load_io(const io_t *p, int64_t i)\n{\n\treturn %s;\n}",
	     load);
	line(em, 0, "static inline io_t store_io(float v)\n{\n\treturn %s;\n}\n", store);
	rr__device_emit(em->out, "cpu_vec.h", "packed_f32");
	if (em->dtype != RR_F32) {
		char section[32];
		rr__device_emit(em->out, "cpu_vec.h", "packed_16");
		snprintf(section, sizeof section, "packed_%s", packed);
		rr__device_emit(em->out, "cpu_vec.h", section);
	}
	line(em, 0, "#define load_packed rr_load_%s\n#define store_packed rr_store_%s\n", packed,
	     packed);
	rr__device_emit(em->out, "cpu_lanes.h", "rows");
	rr__buf_printf(em->out, "\n");
}

rr_status rr__c_emit_lanes(const rr__emit_request *request, rr__buf *out)
{
	lanes_emitter *em = calloc(1, sizeof *em);
	if (!em)
		return rr__fail(RR_ERR_NOMEM, "out of memory emitting kernel '%s'",
		                request->kernel->name);
	em->out = out;
	em->kernel = request->kernel;
	em->dtype = request->dtype;
	em->rounds = request->kernel->analysis.rounds;
	em->cols = request->realisation->cols;
	em->cached = rr__c_cached_node(request->kernel);
	emit_header(em, request->layout);
	emit_prelude(em);
	emit_block(em);
	emit_entry(em);
	free(em);
	if (out->failed)
		return rr__fail(RR_ERR_NOMEM, "out of memory emitting kernel '%s'",
		                request->kernel->name);
	return RR_OK;
}

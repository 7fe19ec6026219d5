/* The C emitter: one plan (kernel, dtype, layout) as readable C11 for the cpu backend. Each row
 * is processed the way the plan says a GPU group would: W workers visit their private slots in
 * slot order, then the fixed xor tree combines their partials, so sums match the GPU bit for bit.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "codegen/c_emit.h"
#include "codegen/common.h"
#include "codegen/device_files.h"
#include "codegen/expr.h"

typedef struct emitter {
	rr__buf *out;
	const rr_kernel *kernel;
	const rr_layout *layout;
	rr_dtype dtype;
	int rounds;
	int warp_size;
	/* read[r][k]: input k (row or col) is read in round r, 1..rounds + 1 (output phase). */
	unsigned char (*read)[RR_MAX_IO];
	/* Row inputs kept in private slots between rounds (storage regs): their ordinal in the
	 * scratch array, or -1; and the first round that reads them (loads and keeps). */
	int kept[RR_MAX_IO];
	int first_round[RR_MAX_IO];
	int n_kept;
	unsigned char needed[RR_MAX_NODES];
	const rr__realisation *r;
	int head; /* emitting the head's pack (element t * W + worker, slot t) */
} emitter;

static void line(emitter *em, int depth, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void line(emitter *em, int depth, const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	rr__emit_vline(em->out, depth, fmt, args);
	va_end(args);
}

/* The name of node `id`'s value inside the generated code: a literal, e<id> or s<id>. */
static void value_ref(emitter *em, int id)
{
	const rr__node *node = &em->kernel->nodes[id];
	if (node->op == RR_OP_CONST)
		rr__emit_float(em->out, node->value);
	else if (node->shape == RR_SHAPE_ELEM)
		rr__buf_printf(em->out, "e%d", id);
	else
		rr__buf_printf(em->out, "s%d", id);
}

/* ---------------------------------------------------------------- header comment */

static void emit_header(emitter *em, const int *offsets, int steps)
{
	const rr_kernel *kernel = em->kernel;
	char plan[256];
	rr_layout_format(em->layout, plan, sizeof plan);
	line(em, 0, "/* rowreduce: generated C for the cpu backend. Regenerate rather than edit.");
	line(em, 0, " *");
	line(em, 0, " * kernel   %s", kernel->name);
	line(em, 0, " * dtype    %s in memory, f32 arithmetic and accumulation",
	     rr_dtype_name(em->dtype));
	line(em, 0, " * plan     %s", plan);
	if (em->r->head_slots > 0) {
		line(
		    em, 0,
		    " * map      head: the h < %d elements before the row's first %d-byte boundary "
		    "(of its",
		    em->r->head_align, em->r->access_bytes);
		line(em, 0,
		     " *          first row array): element j = t * W + W - 1 - worker, t < HS = "
		     "%d, never kept;",
		     em->r->head_slots);
		line(em, 0,
		     " *          body: element i = h + (chunk * W + worker) * V + e, private "
		     "slot = chunk * V + e,");
	} else {
		line(em, 0,
		     " * map      element i = (chunk * W + worker) * V + e, private slot = chunk * "
		     "V + e,");
	}
	line(em, 0,
	     " *          valid iff i < N; complete packs unguarded, one guarded partial pack");
	rr__buf_printf(em->out, " * tree     xor offsets");
	for (int k = 0; k < steps; k++)
		rr__buf_printf(em->out, " %d", offsets[k]);
	line(em, 0, "%s (warp size %d)", steps ? "" : " none", em->warp_size);
	line(em, 0, " * rounds   %d", em->rounds);
	rr__emit_comment_reductions(em->out, kernel);
	for (int k = 0; k < kernel->n_inputs; k++)
		if (em->kept[k] >= 0)
			line(em, 0, " * storage  %s kept in private slots after round %d",
			     kernel->inputs[k].name, em->first_round[k]);
	rr__emit_comment_kernel_text(em->out, kernel);
}

/* ---------------------------------------------------------------- prelude */

/* load_io and store_io: f32 in memory as it is; the 16-bit types through the conversions of
 * device/convert16.h, the same code that util/dtype.c runs for the reference. */
static void emit_io_helpers(emitter *em)
{
	const char *type = "float", *load = "p[i]", *store = "v";
	if (em->dtype == RR_BF16 || em->dtype == RR_F16) {
		int bf16 = em->dtype == RR_BF16;
		rr__device_emit(em->out, "convert16.h", "bits");
		rr__device_emit(em->out, "convert16.h", bf16 ? "bf16" : "f16");
		line(em, 0, "/* %s in memory; conversions round to nearest even, NaN stays NaN. */",
		     bf16 ? "bfloat16" : "IEEE half");
		type = "uint16_t";
		load = bf16 ? "rr__bf16_to_float(p[i])" : "rr__f16_to_float(p[i])";
		store = bf16 ? "rr__bf16_from_float(v)" : "rr__f16_from_float(v)";
	}
	line(em, 0, "typedef %s io_t;", type);
	line(em, 0, "static inline float load_io(const io_t *p, int64_t i)\n{\n\treturn %s;\n}",
	     load);
	line(em, 0, "static inline io_t store_io(float v)\n{\n\treturn %s;\n}\n", store);
}

static void emit_prelude(emitter *em, const int *offsets, int steps)
{
	const rr_layout *layout = em->layout;
	rr__device_emit(em->out, "cpu_row.h", "includes");
	line(em, 0, "#define W %d /* workers per row */", layout->workers_per_row);
	line(em, 0, "#define V %d /* consecutive elements per worker access (a pack) */",
	     layout->vec);
	line(em, 0, "#define U %d /* chunks per loop iteration */", layout->unroll);
	line(em, 0, "#define R %d /* rows per group */", layout->rows_per_group);
	line(em, 0,
	     "#define HEAD_BYTES %d /* a row's head runs up to its first boundary of this */",
	     em->r->access_bytes);
	line(em, 0, "#define HS %d /* head elements per worker at most */", em->r->head_slots);
	line(em, 0,
	     "#define KEPT_INPUTS %d /* row inputs kept in private slots between rounds */\n",
	     em->n_kept);
	if (steps > 0) {
		rr__buf_printf(em->out, "static const int tree_offsets[%d] = {", steps);
		for (int k = 0; k < steps; k++)
			rr__buf_printf(em->out, "%s%d", k ? ", " : "", offsets[k]);
		line(em, 0, "};\n");
	}
	emit_io_helpers(em);
	rr__device_emit(em->out, "cpu_row.h", "slots");
}

/* ---------------------------------------------------------------- one row */

static void emit_row_setup(emitter *em)
{
	const rr_kernel *kernel = em->kernel;
	for (int k = 0; k < kernel->n_inputs; k++) {
		const rr__io *io = &kernel->inputs[k];
		switch (io->kind) {
		case RR_KIND_ROW:
			line(em, 1,
			     "const io_t *in%d = (const io_t *)inputs[%d] + row * N; /* %s: row */",
			     k, k, io->name);
			break;
		case RR_KIND_COL:
			line(em, 1, "const io_t *in%d = (const io_t *)inputs[%d]; /* %s: col */", k,
			     k, io->name);
			break;
		case RR_KIND_INDEX:
			line(em, 1,
			     "const int64_t idx%d = ((const int64_t *)inputs[%d])[row]; /* %s: "
			     "index */",
			     k, k, io->name);
			break;
		case RR_KIND_ROWSCALAR:
			if (io->node >= 0)
				line(em, 1,
				     "const float s%d = load_io((const io_t *)inputs[%d], row); /* "
				     "%s */",
				     io->node, k, io->name);
			break;
		case RR_KIND_PARAM:
			if (io->node >= 0)
				line(em, 1, "const float s%d = (float)params[%d]; /* %s */",
				     io->node, k, io->name);
			break;
		}
	}
	for (int j = 0; j < kernel->n_outputs; j++) {
		const rr__io *io = &kernel->outputs[j];
		line(em, 1, "io_t *out%d = (io_t *)outputs[%d] + row%s; /* %s: %s */", j, j,
		     io->kind == RR_KIND_ROW ? " * N" : "", io->name, rr_kind_name(io->kind));
	}
	if (em->n_kept > 0)
		line(em, 1, "const int64_t slots = slot_bound(N);");
	int is_output, at = rr__head_reference(kernel, &is_output);
	if (em->r->head_slots > 0 && at >= 0)
		line(em, 1, "const int64_t h = head_length(%s%d, N); /* from %s */",
		     is_output ? "out" : "in", at,
		     is_output ? kernel->outputs[at].name : kernel->inputs[at].name);
	else
		line(em, 1, "const int64_t h = 0; /* no head */");
	line(em, 1, "(void)h;");
}

/* Scalars whose value is known after round `round`, in id order (gathers at round 0). */
static void emit_scalars(emitter *em, int round)
{
	const rr_kernel *kernel = em->kernel;
	unsigned char ready[RR_MAX_NODES];
	if (rr__analysis_scalars_after(kernel, round, ready) == 0)
		return;
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (!ready[id])
			continue;
		const rr__node *node = &kernel->nodes[id];
		if (node->op == RR_OP_GATHER) {
			line(em, 1,
			     "const float s%d = idx%d >= 0 && idx%d < N ? load_io(in%d, idx%d) : "
			     "NAN;"
			     " /* %s[%s] */",
			     id, node->index, node->index, node->input, node->index,
			     kernel->inputs[node->input].name, kernel->inputs[node->index].name);
			continue;
		}
		rr__buf_printf(em->out, "\tconst float s%d = ", id);
		rr__emit_rhs(em->out, kernel, id, "", RR_FLAVOR_C);
		rr__buf_printf(em->out, ";\n");
	}
}

static int round_uses_slots(const emitter *em, int round)
{
	for (int k = 0; k < em->kernel->n_inputs; k++)
		if (em->kept[k] >= 0 && em->read[round][k])
			return 1;
	return 0;
}

static void emit_load(emitter *em, int depth, int id, int round)
{
	const rr__node *node = &em->kernel->nodes[id];
	int k = node->input;
	const char *name = em->kernel->inputs[k].name;
	if (em->head) { /* the head is never kept: every round reads it again */
		line(em, depth, "const float e%d = load_io(in%d, i); /* %s */", id, k, name);
		return;
	}
	if (em->kept[k] >= 0 && em->first_round[k] < round) {
		line(em, depth, "const float e%d = keep%d[slot]; /* %s, kept */", id, k, name);
		return;
	}
	line(em, depth, "const float e%d = load_io(in%d, i); /* %s */", id, k, name);
	if (em->kept[k] >= 0)
		line(em, depth, "keep%d[slot] = e%d;", k, id);
}

/* The work on one valid element i: evaluate the elem nodes the round needs, then accumulate
 * into this round's reductions or write the row outputs. */
static void emit_element(emitter *em, int depth, int round)
{
	const rr_kernel *kernel = em->kernel;
	rr__analysis_elem_needs(kernel, round, em->needed);
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (!em->needed[id])
			continue;
		if (kernel->nodes[id].op == RR_OP_INPUT) {
			emit_load(em, depth, id, round);
			continue;
		}
		for (int i = 0; i < depth; i++)
			rr__buf_append(em->out, "\t", 1);
		rr__buf_printf(em->out, "const float e%d = ", id);
		rr__emit_rhs(em->out, kernel, id, "", RR_FLAVOR_C);
		rr__buf_printf(em->out, ";\n");
	}
	if (round > em->rounds) {
		for (int j = 0; j < kernel->n_outputs; j++) {
			if (kernel->outputs[j].kind != RR_KIND_ROW)
				continue;
			for (int i = 0; i < depth; i++)
				rr__buf_append(em->out, "\t", 1);
			rr__buf_printf(em->out, "out%d[i] = store_io(", j);
			value_ref(em, kernel->outputs[j].node);
			rr__buf_printf(em->out, ");\n");
		}
		return;
	}
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (!rr__reduced_in(kernel, id, round))
			continue;
		const rr__node *node = &kernel->nodes[id];
		for (int i = 0; i < depth; i++)
			rr__buf_append(em->out, "\t", 1);
		if (kernel->analysis.online_partner[id] >= 0)
			rr__buf_printf(em->out, "pack%d[e] = ", id);
		else if (node->reduce == RR_REDUCE_SUM)
			rr__buf_printf(em->out, "acc%d = acc%d + ", id, id);
		else
			rr__buf_printf(em->out, "acc%d = %s(acc%d, ", id,
			               node->reduce == RR_REDUCE_MAX ? "fmaxf" : "fminf", id);
		value_ref(em, node->a);
		rr__buf_printf(
		    em->out, "%s;\n",
		    kernel->analysis.online_partner[id] < 0 && node->reduce != RR_REDUCE_SUM ? ")"
		                                                                             : "");
	}
}

/* The online (max, sum) update after one pack: m_new = max(m, pack); the sum is rescaled to
 * m_new and the pack's exp(v - m_new) are added in element order. */
static void emit_online_update(emitter *em, int depth, int max_id)
{
	int sum_id = em->kernel->analysis.online_partner[max_id];
	line(em, depth, "{");
	line(em, depth + 1, "float pack_max = pack%d[0];", max_id);
	line(em, depth + 1, "for (int e = 1; e < V; e++)");
	line(em, depth + 2, "pack_max = fmaxf(pack_max, pack%d[e]);", max_id);
	line(em, depth + 1, "const float m_new = fmaxf(m%d, pack_max);", max_id);
	line(em, depth + 1, "if (m_new != -INFINITY) {");
	line(em, depth + 2, "float z = z%d * expf(m%d - m_new);", sum_id, max_id);
	line(em, depth + 2, "for (int e = 0; e < V; e++)");
	line(em, depth + 3, "z = z + expf(pack%d[e] - m_new);", max_id);
	line(em, depth + 2, "z%d = z;", sum_id);
	line(em, depth + 1, "}");
	line(em, depth + 1, "m%d = m_new;", max_id);
	line(em, depth, "}");
}

/* One pack: V consecutive elements of chunk c of this worker; `guarded` for the partial one. */
static void emit_pack(emitter *em, int depth, int round, int guarded)
{
	const rr_kernel *kernel = em->kernel;
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (!rr__reduced_in(kernel, id, round) || kernel->analysis.online_partner[id] < 0)
			continue;
		line(em, depth, "float pack%d[V];", id);
		if (guarded) {
			line(em, depth, "for (int e = 0; e < V; e++)");
			line(em, depth + 1, "pack%d[e] = -INFINITY; /* absent elements */", id);
		}
	}
	if (em->head) {
		line(em, depth, "for (int e = 0; e < HS; e++) {");
		line(em, depth + 1, "const int64_t i = (int64_t)e * W + (W - 1 - worker);");
		line(em, depth + 1, "if (i >= h)");
		line(em, depth + 2, "break;");
	} else {
		line(em, depth, "for (int e = 0; e < V; e++) {");
		line(em, depth + 1, "const int64_t i = h + (c * W + worker) * V + e;");
		if (guarded) {
			line(em, depth + 1, "if (i >= N)");
			line(em, depth + 2, "break;");
		}
		if (round_uses_slots(em, round))
			line(em, depth + 1, "const int64_t slot = c * V + e;");
	}
	emit_element(em, depth + 1, round);
	line(em, depth, "}");
	for (int id = 0; id < kernel->n_nodes; id++)
		if (rr__reduced_in(kernel, id, round) && kernel->analysis.online_partner[id] >= 0)
			emit_online_update(em, depth, id);
}

static void emit_worker_begin(emitter *em, int round)
{
	const rr_kernel *kernel = em->kernel;
	rr__emit_accumulators(em->out, kernel, round, 2);
	for (int k = 0; k < kernel->n_inputs; k++)
		if (em->kept[k] >= 0 && em->read[round][k])
			line(em, 2,
			     "float *keep%d = scratch + ((int64_t)%d * W + worker) * slots; /* %s "
			     "*/",
			     k, em->kept[k], kernel->inputs[k].name);
}

/* Every worker visits its private slots in slot order: chunk by chunk, U chunks per
 * iteration, then the remaining complete chunks, then the guarded partial pack. */
static void emit_traversal(emitter *em, int round)
{
	int unroll = em->layout->unroll;
	line(em, 1, "for (int worker = 0; worker < W; worker++) {");
	emit_worker_begin(em, round);
	if (em->r->head_slots > 0) {
		line(em, 2, "if (W - 1 - worker < h) { /* the head, on the last workers */");
		em->head = 1;
		emit_pack(em, 3, round, 1);
		em->head = 0;
		line(em, 2, "}");
	}
	line(em, 2, "const int64_t packs = complete_packs(N - h, worker);");
	line(em, 2, "int64_t chunk = 0;");
	line(em, 2, "for (; chunk + U <= packs; chunk += U) {");
	line(em, 3, "for (int u = 0; u < U; u++) {");
	line(em, 4, "const int64_t c = chunk + u;");
	emit_pack(em, 4, round, 0);
	line(em, 3, "}");
	line(em, 2, "}");
	if (unroll > 1) {
		line(em, 2, "for (; chunk < packs; chunk++) {");
		line(em, 3, "const int64_t c = chunk;");
		emit_pack(em, 3, round, 0);
		line(em, 2, "}");
	}
	line(em, 2, "if (has_partial_pack(N - h, worker)) {");
	line(em, 3, "const int64_t c = packs;");
	emit_pack(em, 3, round, 1);
	line(em, 2, "}");
	rr__emit_from_accumulators(em->out, em->kernel, round, 2, "part", "[worker]");
	line(em, 1, "}");
}

/* The fixed tree: for each offset o in order, new[w] = combine(old[w], old[w ^ o]), own value
 * first; the row's result is worker 0's. */
static void emit_tree(emitter *em, int round)
{
	const rr_kernel *kernel = em->kernel;
	line(em, 1,
	     "for (int step = 0; step < (int)(sizeof tree_offsets / sizeof tree_offsets[0]); "
	     "step++) {");
	line(em, 2, "const int o = tree_offsets[step];");
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (!rr__reduced_in(kernel, id, round))
			continue;
		int partner = kernel->analysis.online_partner[id];
		line(em, 2, "float next%d[W];", id);
		if (partner >= 0)
			line(em, 2, "float next%d[W];", partner);
	}
	line(em, 2, "for (int w = 0; w < W; w++) {");
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (!rr__reduced_in(kernel, id, round))
			continue;
		int partner = kernel->analysis.online_partner[id];
		if (partner >= 0) {
			line(em, 3, "const float m1_%d = part%d[w], m2_%d = part%d[w ^ o];", id, id,
			     id, id);
			line(em, 3, "const float m_%d = fmaxf(m1_%d, m2_%d);", id, id, id);
			line(em, 3, "next%d[w] = m_%d;", id, id);
			line(em, 3, "next%d[w] = m_%d == -INFINITY ? part%d[w]", partner, id,
			     partner);
			line(em, 3,
			     "\t: part%d[w] * expf(m1_%d - m_%d) + part%d[w ^ o] * expf(m2_%d - "
			     "m_%d);",
			     partner, id, id, partner, id, id);
			continue;
		}
		switch (kernel->nodes[id].reduce) {
		case RR_REDUCE_SUM:
			line(em, 3, "next%d[w] = part%d[w] + part%d[w ^ o];", id, id, id);
			break;
		case RR_REDUCE_MAX:
			line(em, 3, "next%d[w] = fmaxf(part%d[w], part%d[w ^ o]);", id, id, id);
			break;
		case RR_REDUCE_MIN:
			line(em, 3, "next%d[w] = fminf(part%d[w], part%d[w ^ o]);", id, id, id);
			break;
		}
	}
	line(em, 2, "}");
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (!rr__reduced_in(kernel, id, round))
			continue;
		int partner = kernel->analysis.online_partner[id];
		line(em, 2, "memcpy(part%d, next%d, sizeof next%d);", id, id, id);
		if (partner >= 0)
			line(em, 2, "memcpy(part%d, next%d, sizeof next%d);", partner, partner,
			     partner);
	}
	line(em, 1, "}");
}

static void emit_round(emitter *em, int round)
{
	const rr_kernel *kernel = em->kernel;
	line(em, 1, "/* round %d: each worker's partials in slot order, then the tree */", round);
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (!rr__reduced_in(kernel, id, round))
			continue;
		int partner = kernel->analysis.online_partner[id];
		line(em, 1, "float part%d[W];", id);
		if (partner >= 0)
			line(em, 1, "float part%d[W];", partner);
	}
	emit_traversal(em, round);
	if (em->layout->workers_per_row > 1)
		emit_tree(em, round);
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (!rr__reduced_in(kernel, id, round))
			continue;
		int partner = kernel->analysis.online_partner[id];
		line(em, 1, "const float s%d = part%d[0];", id, id);
		if (partner >= 0)
			line(em, 1, "const float s%d = part%d[0];", partner, partner);
	}
	emit_scalars(em, round);
}

static void emit_outputs(emitter *em)
{
	const rr_kernel *kernel = em->kernel;
	int row_outputs = 0;
	for (int j = 0; j < kernel->n_outputs; j++)
		row_outputs += kernel->outputs[j].kind == RR_KIND_ROW;
	if (row_outputs > 0) {
		line(em, 1, "/* output phase: each worker writes the elements it owns */");
		emit_traversal(em, em->rounds + 1);
	}
	for (int j = 0; j < kernel->n_outputs; j++) {
		if (kernel->outputs[j].kind != RR_KIND_ROWSCALAR)
			continue;
		rr__buf_printf(em->out, "\tout%d[0] = store_io(", j);
		value_ref(em, kernel->outputs[j].node);
		rr__buf_printf(em->out, "); /* %s */\n", kernel->outputs[j].name);
	}
}

static void emit_row_function(emitter *em)
{
	line(em, 0,
	     "static void one_row(int64_t row, int64_t N, const void *const *inputs, "
	     "const double *params,");
	line(em, 0, "\t\t    void *const *outputs, float *scratch)\n{");
	line(em, 1, "(void)params;");
	line(em, 1, "(void)scratch;");
	emit_row_setup(em);
	emit_scalars(em, 0);
	for (int round = 1; round <= em->rounds; round++)
		emit_round(em, round);
	emit_outputs(em);
	line(em, 0, "}\n");
	rr__device_emit(em->out, "cpu_row.h", "entry");
}

/* Which row inputs stay in private slots (the realisation's choice), and the first round that
 * reads each input (loads and keeps there). */
static void plan_storage(emitter *em, const rr__realisation *r)
{
	const rr_kernel *kernel = em->kernel;
	for (int k = 0; k < kernel->n_inputs; k++) {
		int node = kernel->inputs[k].node;
		em->kept[k] = node >= 0 ? rr__kept_ordinal(r, node) : -1;
		em->first_round[k] = 0;
		for (int round = 1; round <= em->rounds + 1 && !em->first_round[k]; round++)
			if (em->read[round][k])
				em->first_round[k] = round;
	}
	em->n_kept = r->keep != RR_KEEP_NONE ? r->kept_values : 0;
}

rr_status rr__c_emit(const rr__emit_request *request, rr__buf *out)
{
	const rr_kernel *kernel = request->kernel;
	const rr__realisation *r = request->realisation;
	if (rr_dtype_check_element(request->dtype) != RR_OK)
		return rr__fail_context(RR_ERR_INVALID_ARG, "the C emitter");
	if (!r)
		return rr__fail(RR_ERR_INVALID_ARG, "kernel '%s' was not realised before emitting",
		                kernel->name);
	if (!kernel->analysis.level)
		return rr__fail(RR_ERR_INVALID_ARG, "kernel '%s' has not been analysed",
		                kernel->name);
	emitter *em = calloc(1, sizeof *em);
	if (!em)
		return rr__fail(RR_ERR_NOMEM, "out of memory emitting kernel '%s'", kernel->name);
	em->out = out;
	em->kernel = kernel;
	em->layout = request->layout;
	em->dtype = request->dtype;
	em->rounds = kernel->analysis.rounds;
	em->warp_size =
	    request->target && request->target->warp_size > 0 ? request->target->warp_size : 32;
	em->read = calloc((size_t)em->rounds + 2, sizeof *em->read);
	if (!em->read) {
		free(em);
		return rr__fail(RR_ERR_NOMEM, "out of memory emitting kernel '%s'", kernel->name);
	}
	for (int round = 1; round <= em->rounds + 1; round++)
		rr__analysis_inputs_read(kernel, round, em->read[round]);
	em->r = r;
	plan_storage(em, r);
	emit_header(em, r->tree_offsets, r->n_tree_offsets);
	emit_prelude(em, r->tree_offsets, r->n_tree_offsets);
	emit_row_function(em);
	int failed = out->failed;
	free(em->read);
	free(em);
	if (failed)
		return rr__fail(RR_ERR_NOMEM, "out of memory emitting kernel '%s'", kernel->name);
	return RR_OK;
}

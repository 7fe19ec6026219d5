/* The CUDA C of one row (or one cluster block's segment of it): scalars known up front, then
 * each phase — loads of the packs a worker owns, the elementwise values, the accumulation in
 * slot order (or the output stores), the cross-worker tree — then the rowscalar outputs. One
 * function per phase part, so a kernel engineer can change one without touching the others. */
#include <stdio.h>
#include <string.h>

#include "analysis/analysis.h"
#include "codegen/cuda_emit_grid.h"
#include "codegen/cuda_emit_row.h"
#include "codegen/expr.h"

/* ---------------------------------------------------------------- names */

static int keeping(const rr__cu_emitter *em)
{
	return em->geo->keep != RR_KEEP_NONE;
}

/* Whether the head's kept values stay in registers (flat rows, and blocks of whole rows kept in
 * registers; otherwise a later phase reads the head's elements again, after the barrier, an
 * extra trip to memory in the row's critical path; an H100 ran the odd rows of the norms and
 * softmax in 0.988-1.002x the time). Not in clusters: layernorm f32 1024x131072 at C = 4
 * spilled. */
static int keeps_head(const rr__cu_emitter *em)
{
	return (em->flat || em->C == 1) && em->geo->keep == RR_KEEP_REGS && em->geo->head_slots > 0;
}

/* A value kept from phase 1 and read back in `phase`. */
static int from_storage(const rr__cu_emitter *em, int id, int phase)
{
	return phase > 1 && keeping(em) && em->kept[id] && em->eval[id] &&
	       (!em->head || keeps_head(em));
}

/* Prints the array a pack's loaded values of input node `id` are read from: ld<id> of the
 * chunk group, or in a flat row the phase's own (hl<id>_<phase> for the head, ld<id>_<phase>
 * for the chunks: every phase's loads share the row function's scope). */
static void load_array(rr__cu_emitter *em, int id, int phase)
{
	if (em->flat)
		rr__buf_printf(em->out, "%s%d_%d", em->head ? "hl" : "ld", id,
		               em->flat_first[id] ? 1 : phase);
	else if (em->head_loaded)
		rr__buf_printf(em->out, "hd%d", id);
	else if (em->tail_loads > 0)
		rr__buf_printf(em->out, "tl%d_%d", id, em->tail_loads);
	else
		rr__buf_printf(em->out, "ld%d", id);
}

/* The elem nodes evaluated in a phase; kept values (the realisation's) cut the walk short. */
void rr__cu_mark_phase(rr__cu_emitter *em, int phase)
{
	rr__phase_roots(em->kernel, phase, em->eval);
	if (phase == 1 && keeping(em))
		for (int id = 0; id < em->kernel->n_nodes; id++)
			em->eval[id] |= em->kept[id];
	rr__mark_operands(em->kernel, em->eval, phase > 1 && keeping(em) ? em->kept : NULL);
}

/* An input element read from global memory in `phase`. */
static int global_load(const rr__cu_emitter *em, int id, int phase)
{
	const rr__node *node = &em->kernel->nodes[id];
	return em->eval[id] && node->op == RR_OP_INPUT && node->shape == RR_SHAPE_ELEM &&
	       !from_storage(em, id, phase);
}

static void value_ref(rr__cu_emitter *em, int id, const char *suffix)
{
	const rr__node *node = &em->kernel->nodes[id];
	if (node->op == RR_OP_CONST)
		rr__emit_float(em->out, node->value);
	else if (node->shape == RR_SHAPE_ELEM)
		rr__buf_printf(em->out, "e%d%s", id, suffix);
	else
		rr__buf_printf(em->out, "s%d", id);
}

/* Elementwise exp uses rr_exp (online.cuh: the hardware's exponential, well inside the f32
 * tolerance); the rest is the shared expression emitter's. */
static void elem_rhs(rr__cu_emitter *em, int id)
{
	const rr__node *node = &em->kernel->nodes[id];
	if (node->op == RR_OP_EXP) {
		rr__buf_printf(em->out, "rr_exp(");
		value_ref(em, node->a, "[e]");
		rr__buf_printf(em->out, ")");
		return;
	}
	rr__emit_rhs(em->out, em->kernel, id, "[e]", RR_FLAVOR_CUDA);
}

static const char *reduce_fn(rr__reduce reduce)
{
	return reduce == RR_REDUCE_MAX ? "fmaxf" : "fminf";
}

/* ---------------------------------------------------------------- row setup */

static void emit_pointers(rr__cu_emitter *em)
{
	const rr_kernel *kernel = em->kernel;
	unsigned char used[RR_MAX_IO] = {0};
	for (int phase = 1; phase <= em->phases; phase++) {
		rr__cu_mark_phase(em, phase);
		for (int id = 0; id < kernel->n_nodes; id++)
			if (global_load(em, id, phase))
				used[kernel->nodes[id].input] = 1;
	}
	for (int k = 0; k < kernel->n_inputs; k++) {
		if (!used[k])
			continue;
		int row_kind = kernel->inputs[k].kind == RR_KIND_ROW;
		rr__cu_line(em, 1, "const io_t *x%d = a.in%d + %sseg_begin; /* %s */", k, k,
		            row_kind ? "row * N + " : "", kernel->inputs[k].name);
	}
	for (int j = 0; j < kernel->n_outputs; j++)
		if (kernel->outputs[j].kind == RR_KIND_ROW)
			rr__cu_line(em, 1, "io_t *y%d = a.out%d + row * N + seg_begin; /* %s */", j,
			            j, kernel->outputs[j].name);
}

/* Params, rowscalar inputs, indices, gathers and scalars that need no reduction. */
static void emit_scalars_before(rr__cu_emitter *em)
{
	const rr_kernel *kernel = em->kernel;
	unsigned char ready[RR_MAX_NODES];
	rr__analysis_scalars_after(kernel, 0, ready);
	for (int k = 0; k < kernel->n_inputs; k++) {
		const rr__io *io = &kernel->inputs[k];
		if (io->kind == RR_KIND_PARAM && io->node >= 0)
			rr__cu_line(em, 1, "const float s%d = a.in%d; /* %s */", io->node, k,
			            io->name);
		if (io->kind == RR_KIND_ROWSCALAR && io->node >= 0)
			rr__cu_line(em, 1, "const float s%d = rr_in(__ldg(a.in%d + row)); /* %s */",
			            io->node, k, io->name);
		if (io->kind != RR_KIND_INDEX)
			continue;
		int gathered = 0;
		for (int id = 0; id < kernel->n_nodes; id++)
			gathered |= ready[id] && kernel->nodes[id].op == RR_OP_GATHER &&
			            kernel->nodes[id].index == k;
		if (gathered)
			rr__cu_line(em, 1, "const long long t%d = __ldg(a.in%d + row); /* %s */", k,
			            k, io->name);
	}
}

/* Scalars known right after `round` (0: before any reduction), in id order. */
static void emit_scalars_after(rr__cu_emitter *em, int round)
{
	const rr_kernel *kernel = em->kernel;
	unsigned char ready[RR_MAX_NODES];
	rr__analysis_scalars_after(kernel, round, ready);
	for (int id = 0; id < kernel->n_nodes; id++) {
		const rr__node *node = &kernel->nodes[id];
		if (!ready[id] || node->op == RR_OP_CONST)
			continue;
		if (node->op == RR_OP_GATHER) {
			rr__cu_line(em, 1,
			            "const float s%d = t%d >= 0 && t%d < N ? rr_in(__ldg(a.in%d + "
			            "row * N + t%d)) : NAN; /* %s[%s] */",
			            id, node->index, node->index, node->input, node->index,
			            kernel->inputs[node->input].name,
			            kernel->inputs[node->index].name);
			continue;
		}
		rr__buf_printf(em->out, "\tconst float s%d = ", id);
		rr__emit_rhs(em->out, kernel, id, "", RR_FLAVOR_CUDA);
		rr__buf_printf(em->out, ";\n");
	}
}

static void emit_kept_arrays(rr__cu_emitter *em)
{
	for (int id = 0; id < em->kernel->n_nodes && keeping(em); id++) {
		if (!em->kept[id])
			continue;
		if (em->geo->keep == RR_KEEP_REGS)
			rr__cu_line(em, 1, "float k%d[CH > 0 ? CH : 1][V]; /* kept in registers */",
			            id);
		if (keeps_head(em))
			rr__cu_line(em, 1, "float kh%d[HS]; /* the head's, kept in registers */",
			            id);
	}
}

static int is_col_input(const rr__cu_emitter *em, int id)
{
	return em->kernel->inputs[em->kernel->nodes[id].input].kind == RR_KIND_COL;
}

/* Whether the headed body batches its loads across chunks (unrolled): the loads in flight take
 * registers, which blocks of more than 256 threads do not have (emit --check-all: add_layernorm
 * W = 1024 S=grid plans spilled). */
static int batch_headed(const rr__cu_emitter *em)
{
	return em->W * em->R <= 256;
}

/* The load of input node `id`'s pack at x<input> + at into `dest`: a complete pack (`valid`
 * NULL) or the one that may be partial (`valid` elements of it exist). Where rows have heads,
 * col inputs share the body's alignment only when COLS_VEC; otherwise, in blocks of one row
 * (shifted_cols), their complete packs are read by the aligned blocks that cover them, shifted
 * into place (rr_load_shifted; the pack's place in the col array bounds those blocks), and
 * element by element in blocks of many rows. */
static void emit_pack_load(rr__cu_emitter *em, int depth, int id, const char *dest,
                           const char *valid)
{
	int input = em->kernel->nodes[id].input;
	int col = is_col_input(em, id) && em->geo->head_slots > 0;
	if (col && em->col_copies && valid)
		rr__cu_line(em, depth, "rr_load_tail_copy<VEC>(%s, c%d + at, x%d + at, %s);", dest,
		            input, input, valid);
	else if (col && em->col_copies)
		rr__cu_line(em, depth, "rr_load<VEC>(%s, c%d + at);", dest, input);
	else if (col && em->shifted_cols && valid)
		rr__cu_line(em, depth,
		            "rr_load_tail_shifted<VEC>(%s, x%d + at, %s, seg_begin + at);", dest,
		            input, valid);
	else if (col && em->shifted_cols)
		rr__cu_line(em, depth, "rr_load_shifted<VEC>(%s, x%d + at, seg_begin + at);", dest,
		            input);
	else if (valid && col)
		rr__cu_line(em, depth, "rr_load_tail<VEC && COLS_VEC>(%s, x%d + at, %s, false);",
		            dest, input, valid);
	else if (valid)
		rr__cu_line(em, depth, "rr_load_tail<VEC>(%s, x%d + at, %s, room);", dest, input,
		            valid);
	else
		rr__cu_line(em, depth, "rr_load<%s>(%s, x%d + at);",
		            col ? "VEC && COLS_VEC" : "VEC", dest, input);
}

/* ---------------------------------------------------------------- one pack */

/* Whether the body being emitted takes its online pairs deferred (deferred_online): the body
 * of rows without a head, and the headed entry's body where headed_defers says. */
static int body_defers(const rr__cu_emitter *em)
{
	return em->plain || (em->body && em->headed_defer);
}

/* Whether `phase` reads kept exponentials: a later phase of a body that deferred its pair,
 * where exp(x - max) is the kept array scaled and x and x - max (whose one use it is) are not
 * computed. The head computes exp(x - max) from x again. */
static int kexp_reads(const rr__cu_emitter *em, int phase)
{
	return phase > 1 && em->kexp_max >= 0 && body_defers(em) && !em->head;
}

static int kexp_skipped(const rr__cu_emitter *em, int id, int phase)
{
	return kexp_reads(em, phase) &&
	       (id == em->kexp_x || id == em->kexp_sub || (id == em->kexp_t && em->kexp_div >= 0));
}

static void emit_values(rr__cu_emitter *em, int depth, int phase, const char *u)
{
	const rr_kernel *kernel = em->kernel;
	int any = 0;
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (!em->eval[id] || kernel->nodes[id].shape != RR_SHAPE_ELEM ||
		    kexp_skipped(em, id, phase))
			continue;
		if (!any)
			rr__emit_indent(em->out, depth);
		rr__buf_printf(em->out, "%se%d[V]", any ? ", " : "float ", id);
		any = 1;
	}
	if (any)
		rr__buf_printf(em->out, ";\n");
	for (int id = 0; id < kernel->n_nodes; id++)
		if (from_storage(em, id, phase) && em->geo->keep == RR_KEEP_SMEM && !em->head)
			rr__cu_line(em, depth, "rr_keep_load(e%d, keep, %d, c);", id,
			            em->keep_ordinal[id]);
	rr__cu_line(em, depth, "#pragma unroll");
	rr__cu_line(em, depth, "for (int e = 0; e < %s; e++) {", em->head ? "HS" : "V");
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (!em->eval[id] || kernel->nodes[id].shape != RR_SHAPE_ELEM ||
		    kexp_skipped(em, id, phase))
			continue;
		if (kexp_reads(em, phase) && id == em->kexp_div) {
			rr__cu_line(em, depth + 1,
			            "e%d[e] = k%d[c][e] * kd%d; /* kept exp over the sum */", id,
			            em->kexp_x, em->kexp_max);
			continue;
		}
		if (kexp_reads(em, phase) && id == em->kexp_t) {
			rr__cu_line(em, depth + 1,
			            "e%d[e] = k%d[c][e] * ks%d; /* kept exponential */", id,
			            em->kexp_x, em->kexp_max);
			continue;
		}
		if (from_storage(em, id, phase)) {
			if (em->geo->keep == RR_KEEP_REGS && em->head)
				rr__cu_line(em, depth + 1, "e%d[e] = kh%d[e];", id, id);
			else if (em->geo->keep == RR_KEEP_REGS)
				rr__cu_line(em, depth + 1, "e%d[e] = k%d[c][e];", id, id);
			continue;
		}
		if (global_load(em, id, phase)) {
			rr__emit_indent(em->out, depth + 1);
			rr__buf_printf(em->out, "e%d[e] = ", id);
			load_array(em, id, phase);
			rr__buf_printf(em->out, "[%s][e]; /* %s */\n", u,
			               kernel->inputs[kernel->nodes[id].input].name);
			continue;
		}
		rr__emit_indent(em->out, depth + 1);
		rr__buf_printf(em->out, "e%d[e] = ", id);
		elem_rhs(em, id);
		rr__buf_printf(em->out, ";\n");
	}
	if (phase != 1 || em->geo->keep != RR_KEEP_REGS || (em->head && !keeps_head(em)))
		return;
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (em->kept[id] && em->head)
			rr__cu_line(em, depth + 1, "kh%d[e] = e%d[e];", id, id);
		else if (em->kept[id])
			rr__cu_line(em, depth + 1, "k%d[c][e] = e%d[e];", id, id);
	}
}

/* Where every value an online pair of `phase` reduces is still in registers after the body
 * (a flat row's loads, or values kept in registers from round 1), in a body that defers
 * (body_defers: rows without a head, and the headed entry's packs after its head): the pair
 * is accumulated as this worker's max over its packs first, then one sum of exp(v - max)
 * (emit_deferred_sums), one rescale a worker where the pack-by-pack form pays one a pack (at
 * V = 1 two exponentials an element, bench/NOTES.md session 12). In the headed entry the
 * head's few elements are added pack by pack after the body's max, before its sum.
 * pair_source writes the array holding the argument's values by chunk into `source`; 0 where
 * the pair stays pack by pack whatever the body. */
static int pair_source(const rr__cu_emitter *em, int id, int phase, char *source, size_t size)
{
	const rr_kernel *kernel = em->kernel;
	if (kernel->analysis.online_partner[id] < 0 || !rr__reduced_in(kernel, id, phase))
		return 0;
	int arg = kernel->nodes[id].a;
	const rr__node *node = &kernel->nodes[arg];
	if (node->op != RR_OP_INPUT || node->shape != RR_SHAPE_ELEM)
		return 0;
	if (em->flat && global_load(em, arg, phase)) {
		snprintf(source, size, "ld%d_%d", arg, phase);
		return 1;
	}
	if (phase == 1 && em->kept[arg] && em->geo->keep == RR_KEEP_REGS) {
		snprintf(source, size, "k%d", arg);
		return 1;
	}
	return 0;
}

/* Whether the pack being emitted accumulates max node `id`'s pair deferred (pair_source, in a
 * body that defers). */
static int deferred_online(const rr__cu_emitter *em, int id, int phase)
{
	char source[32];
	return body_defers(em) && !em->head && pair_source(em, id, phase, source, sizeof source);
}

/* Whether nodes `u1` and `u2` are the only ones that read node `id` (and no output is `id`). */
static int read_only_by(const rr_kernel *kernel, int id, int u1, int u2)
{
	for (int k = 0; k < kernel->n_nodes; k++)
		if (k != u1 && k != u2 && (kernel->nodes[k].a == id || kernel->nodes[k].b == id))
			return 0;
	for (int j = 0; j < kernel->n_outputs; j++)
		if (kernel->outputs[j].node == id)
			return 0;
	return 1;
}

/* Whether round 1's online pairs are deferred in the headed entry's body as in the plain one:
 * registers keep the rows or the row is flat, every reduction of round 1 is the max of a pair
 * whose argument is kept (or, flat, loaded), so the head's elements may be added after the
 * body's max (the max is exact in any order, and the sum still runs head first, then the
 * packs). Pack by pack there, the headed entry took two exponentials an element and the last
 * chunk's loads waited for the others' values (softmax bf16 2047x6143: 19.2 µs against 14.2 at
 * 2048x6144, bench/results/2026-12-04-h200-odd-vs-aligned-s32); flat rows since session 48
 * (0.97-0.99 of the time on headed flat plans: 2026-12-06-h100-ab-flat-butterfly-s48). */
static int headed_defers(const rr__cu_emitter *em)
{
	const rr_kernel *kernel = em->kernel;
	if (em->geo->head_slots == 0 || (!em->flat && em->geo->keep != RR_KEEP_REGS))
		return 0;
	int any = 0;
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (!rr__reduced_in(kernel, id, 1))
			continue;
		int arg = kernel->nodes[id].a;
		if (kernel->analysis.online_partner[id] < 0 ||
		    kernel->nodes[arg].op != RR_OP_INPUT ||
		    kernel->nodes[arg].shape != RR_SHAPE_ELEM || (!em->flat && !em->kept[arg]))
			return 0;
		any = 1;
	}
	return any;
}

/* Kept exponentials. A round-1 online pair m = max(x), z = sum(t), t = exp(x - m), over an
 * input x kept in registers whose only other use is t (softmax): the deferred sum keeps
 * exp(x - kb) in x's registers, kb this worker's max, and a later phase's t is that times
 * exp(kb - m), one exponential a worker: one exponential an element instead of two. The
 * result differs from exp(x - m) by the rounding of the product and of the second
 * exponential. Sets em->kexp_*; kexp_max -1 where the kernel has no such pair. */
static void kexp_of(rr__cu_emitter *em)
{
	const rr_kernel *kernel = em->kernel;
	em->kexp_max = em->kexp_x = em->kexp_sub = em->kexp_t = em->kexp_div = -1;
	if (em->geo->keep != RR_KEEP_REGS || em->phases < 2)
		return;
	for (int id = 0; id < kernel->n_nodes; id++) {
		int z = kernel->analysis.online_partner[id];
		if (z < 0 || !rr__reduced_in(kernel, id, 1))
			continue;
		int x = kernel->nodes[id].a, t = kernel->nodes[z].a;
		int sub = kernel->nodes[t].op == RR_OP_EXP ? kernel->nodes[t].a : -1;
		if (!em->kept[x] || kernel->nodes[x].op != RR_OP_INPUT || sub < 0 ||
		    kernel->nodes[sub].op != RR_OP_SUB || kernel->nodes[sub].a != x ||
		    kernel->nodes[sub].b != id)
			continue;
		if (!read_only_by(kernel, x, id, sub) || !read_only_by(kernel, sub, t, t))
			continue;
		em->kexp_max = id;
		em->kexp_x = x;
		em->kexp_sub = sub;
		em->kexp_t = t;
		/* y = t / s (softmax): y = k * (ks * (1 / s)), one multiply an element, instead of
		 * (k * ks) * (1 / s): 24 softmax picks on an H100 in 0.903-1.001 of the time, bf16
		 * 10000x771 0.903, 8191x1023 0.990 (bench/results/2026-12-06-h100-kexp-fold-s55) */
		for (int d = 0; d < kernel->n_nodes; d++) {
			const rr__node *n = &kernel->nodes[d];
			if (n->op == RR_OP_DIV && n->a == t && n->b >= 0 &&
			    kernel->nodes[n->b].shape == RR_SHAPE_SCALAR &&
			    kernel->nodes[n->b].op != RR_OP_CONST && read_only_by(kernel, t, z, d))
				em->kexp_div = d;
		}
		return;
	}
}

/* Plain reductions accumulate inside the element loop (still open), in slot order; online
 * pairs and shared-memory keeps work per pack after it. */
static void emit_accumulate(rr__cu_emitter *em, int depth, int phase, int guarded)
{
	const rr_kernel *kernel = em->kernel;
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (!rr__reduced_in(kernel, id, phase) || kernel->analysis.online_partner[id] >= 0)
			continue;
		const rr__node *node = &kernel->nodes[id];
		rr__emit_indent(em->out, depth + 1);
		if (guarded)
			rr__buf_printf(em->out, "if (e < valid) ");
		if (node->reduce == RR_REDUCE_SUM)
			rr__buf_printf(em->out, "acc%d = acc%d + ", id, id);
		else
			rr__buf_printf(em->out, "acc%d = %s(acc%d, ", id, reduce_fn(node->reduce),
			               id);
		value_ref(em, node->a, "[e]");
		rr__buf_printf(em->out, "%s;\n", node->reduce == RR_REDUCE_SUM ? "" : ")");
		if (id != em->shift.sq)
			continue;
		rr__emit_indent(em->out, depth + 1); /* T_b: the sum of d about this block's mean */
		rr__buf_printf(em->out, "%srr_t = rr_t + ", guarded ? "if (e < valid) " : "");
		value_ref(em, em->shift.d, "[e]");
		rr__buf_printf(em->out, ";\n");
	}
	rr__cu_line(em, depth, "}");
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (!rr__reduced_in(kernel, id, phase) || kernel->analysis.online_partner[id] < 0)
			continue;
		if (deferred_online(em, id, phase))
			rr__cu_line(em, depth, "rr_online_max(m%d, e%d, %s);", id,
			            kernel->nodes[id].a, guarded ? "valid" : "V");
		else
			rr__cu_line(em, depth, "rr_online_add(m%d, z%d, e%d, %s);", id,
			            kernel->analysis.online_partner[id], kernel->nodes[id].a,
			            guarded ? "valid" : "V");
	}
}

/* The sum of one deferred pair, max node `id`, over this worker's packs at `depth`: in rows
 * without a head every complete chunk, then the partial pack where this worker has one; in the
 * headed entry (whose head was added just before, at the worker's max) chunks 0 .. FULL - 2,
 * then chunks FULL - 1 and FULL where this worker's pack there holds elements of the row.
 * Slot order either way. */
static void emit_deferred_sum(rr__cu_emitter *em, int depth, int id, int phase, int headed)
{
	const rr_kernel *kernel = em->kernel;
	char source[32];
	pair_source(em, id, phase, source, sizeof source);
	int d = depth, z = kernel->analysis.online_partner[id];
	int keep = phase == 1 && id == em->kexp_max;
	const char *sum = keep ? "rr_online_sum_keep" : "rr_online_sum";
	if (keep)
		snprintf(source, sizeof source, "k%d", em->kexp_x);
	rr__cu_line(em, d,
	            keep ? "{ /* online s%d, s%d: this worker's max first, then its sum, "
	                   "keeping the exponentials */"
	                 : "{ /* online s%d, s%d: this worker's max first, then its sum */",
	            id, z);
	rr__cu_line(em, d + 1, "const float base = m%d == -INFINITY ? 0.0f : m%d;", id, id);
	if (headed) {
		rr__cu_line(em, d + 1, "#pragma unroll");
		rr__cu_line(em, d + 1, "for (int c = 0; c < FULL - 1; c++)");
		rr__cu_line(em, d + 2, "%s(z%d, %s[c], base, V);", sum, z, source);
		const char *last[2][2] = {{"FULL > 0", "(FULL - 1)"}, {"REM > 0", "FULL"}};
		for (int k = 0; k < 2; k++) {
			rr__cu_line(em, d + 1, "if constexpr (%s) {", last[k][0]);
			rr__cu_line(em, d + 2, "const int at = h + (%s * W + worker) * V;",
			            last[k][1]);
			rr__cu_line(em, d + 2, "if (at < LEN)");
			rr__cu_line(em, d + 3, "%s(z%d, %s[%s], base, LEN - at);", sum, z, source,
			            last[k][1]);
			rr__cu_line(em, d + 1, "}");
		}
	} else {
		rr__cu_line(em, d + 1, "#pragma unroll");
		rr__cu_line(em, d + 1, "for (int c = 0; c < FULL; c++)");
		rr__cu_line(em, d + 2, "%s(z%d, %s[c], base, V);", sum, z, source);
		rr__cu_line(em, d + 1, "if constexpr (REM > 0) {");
		rr__cu_line(em, d + 2, "if (worker * V < REM)");
		rr__cu_line(em, d + 3, "%s(z%d, %s[FULL], base, REM - worker * V);", sum, z,
		            source);
		rr__cu_line(em, d + 1, "}");
	}
	if (keep)
		rr__cu_line(em, d + 1, "kb%d = m%d;", id, id);
	rr__cu_line(em, d, "}");
}

/* Whether max node `id`'s pair is deferred in the body of the entry `headed` names. */
static int defers_in(const rr__cu_emitter *em, int id, int phase, int headed)
{
	char source[32];
	return (!headed || em->headed_defer) && pair_source(em, id, phase, source, sizeof source);
}

/* The sums of the deferred online pairs (deferred_online), after the body, in each entry's
 * form (emit_deferred_sum). */
static void emit_deferred_sums(rr__cu_emitter *em, int phase)
{
	const rr_kernel *kernel = em->kernel;
	int headed = em->geo->head_slots > 0, plain_any = 0, headed_any = 0;
	for (int id = 0; id < kernel->n_nodes; id++) {
		plain_any |= defers_in(em, id, phase, 0);
		headed_any |= headed && defers_in(em, id, phase, 1);
	}
	if (phase == 1 && em->kexp_max >= 0 && (plain_any || headed_any))
		rr__cu_line(em, 1,
		            "float kb%d = -INFINITY; /* the max the kept exponentials are taken "
		            "from */",
		            em->kexp_max);
	if (!plain_any && !headed_any)
		return;
	if (headed)
		rr__cu_line(em, 1, "if constexpr (!HEADED) {");
	for (int id = 0; id < kernel->n_nodes && plain_any; id++)
		if (defers_in(em, id, phase, 0))
			emit_deferred_sum(em, 1 + headed, id, phase, 0);
	if (headed && headed_any) {
		rr__cu_line(em, 1, "} else {");
		for (int id = 0; id < kernel->n_nodes; id++)
			if (defers_in(em, id, phase, 1))
				emit_deferred_sum(em, 2, id, phase, 1);
	}
	if (headed)
		rr__cu_line(em, 1, "}");
}

/* The scale that turns a kept exponential exp(x - kb) into exp(x - s), s the row's max, once
 * the tree has it: a worker without a finite max kept zeros (exp(-inf)), and a row whose max
 * is -inf gets NaN, as exp(-inf - -inf) is. */
static void emit_kexp_scale(rr__cu_emitter *em, int phase)
{
	if (phase != 1 || em->kexp_max < 0)
		return;
	int m = em->kexp_max;
	rr__cu_line(em, 1,
	            "const float ks%d = kb%d == -INFINITY ? (s%d == -INFINITY ? NAN : 0.0f) : "
	            "rr_exp(kb%d - s%d);",
	            m, m, m, m, m);
	if (em->kexp_div >= 0)
		rr__cu_line(em, 1, "const float kd%d = ks%d * (1.0f / s%d);", m, m,
		            em->kernel->nodes[em->kexp_div].b);
}

static void emit_stores(rr__cu_emitter *em, int depth, int guarded)
{
	const rr_kernel *kernel = em->kernel;
	/* Plans that keep their values in registers stay with plain assignments (rr_store's ONE,
	 * device/pack_tail.cuh): the vector store's four aligned registers spilled f32 clusters at
	 * the register cap, and their stores were whole vectors already but for one group. */
	const char *one = em->geo->keep == RR_KEEP_REGS ? ", false" : "";
	rr__cu_line(em, depth, "}");
	for (int j = 0; j < kernel->n_outputs; j++) {
		if (kernel->outputs[j].kind != RR_KIND_ROW)
			continue;
		int node = kernel->outputs[j].node;
		char value[32];
		snprintf(value, sizeof value, "e%d", node);
		if (kernel->nodes[node].shape != RR_SHAPE_ELEM) {
			snprintf(value, sizeof value, "o%d", j);
			rr__cu_line(em, depth, "float o%d[V];", j);
			rr__cu_line(em, depth, "#pragma unroll");
			rr__emit_indent(em->out, depth);
			rr__buf_printf(em->out, "for (int e = 0; e < V; e++)\n");
			rr__emit_indent(em->out, depth + 1);
			rr__buf_printf(em->out, "o%d[e] = ", j);
			value_ref(em, node, "[e]");
			rr__buf_printf(em->out, ";\n");
		}
		if (em->short_rows && !em->head) { /* predicated stores (pack_tail.cuh) */
			rr__cu_line(em, depth,
			            "rr_store_live<VEC%s>(y%d + at, %s, %s, live); "
			            "/* %s */",
			            one, j, value, guarded ? "valid" : "V",
			            kernel->outputs[j].name);
			continue;
		}
		rr__cu_line(em, depth, "if (live)");
		if (em->head)
			rr__cu_line(em, depth + 1, "rr_store_head(y%d, %s, worker, h); /* %s */", j,
			            value, kernel->outputs[j].name);
		else if (guarded)
			rr__cu_line(em, depth + 1,
			            "rr_store_tail<VEC%s>(y%d + at, %s, valid); /* %s */", one, j,
			            value, kernel->outputs[j].name);
		else
			rr__cu_line(em, depth + 1, "rr_store<VEC%s>(y%d + at, %s); /* %s */", one,
			            j, value, kernel->outputs[j].name);
	}
}

/* One pack of chunk c: the phase's values, kept values stored, then accumulation or stores. */
static void emit_pack(rr__cu_emitter *em, int depth, int phase, const char *u, int guarded)
{
	emit_values(em, depth, phase, u);
	if (phase <= em->rounds)
		emit_accumulate(em, depth, phase, guarded);
	else
		emit_stores(em, depth, guarded);
	if (phase == 1 && em->geo->keep == RR_KEEP_SMEM && !em->head)
		for (int id = 0; id < em->kernel->n_nodes; id++)
			if (em->kept[id])
				rr__cu_line(em, depth, "%srr_keep_store(keep, %d, c, e%d);",
				            em->staged ? "if constexpr (!VEC) " : "",
				            em->keep_ordinal[id], id);
}

/* ---------------------------------------------------------------- chunks */

static int phase_uses_chunk(const rr__cu_emitter *em, int phase)
{
	if (!keeping(em))
		return 0;
	if (phase == 1)
		return 1;
	for (int id = 0; id < em->kernel->n_nodes; id++)
		if (from_storage(em, id, phase))
			return 1;
	return 0;
}

static int count_loads(const rr__cu_emitter *em, int phase)
{
	int count = 0;
	for (int id = 0; id < em->kernel->n_nodes; id++)
		count += global_load(em, id, phase);
	return count;
}

/* Round 1 of a raw shared-memory keep (keep_raw), in the vector entries: every complete pack
 * of the kept inputs copied into its slot before the first is used; the chunk loop then reads
 * the packs back from shared memory and the scalar entry loads and stores them as before.
 * Persistent clusters of one partial a row (rmsnorm) with up to STAGE_REGS_PACKS packs a
 * thread copy through registers, four chunks at a time (keep_raw.cuh: the asynchronous
 * copies drew each input sector twice from L2 on sm_90); H200, bf16, L2 cold: rmsnorm at
 * 512-2048x131072 and 256x262144 0.91-0.93 of the time. Everything else copies
 * asynchronously, all its loads in flight at once without registers to hold them: through
 * registers, layernorm's clusters took 0.96-0.99 of the time but 1.09 at 128x131072 (1.3
 * waves of blocks), softmax's 16 packs a thread 1.02-1.06, one-block rows of 8 packs fetched
 * all at once 1.01-1.03 (bench/NOTES.md, session 19). Sets em->staged for the chunk loop. */
enum { STAGE_REGS_PACKS = 8 };

static void emit_stage(rr__cu_emitter *em, int d, int phase, const char *bound)
{
	const rr_kernel *kernel = em->kernel;
	em->staged = phase == 1 && em->geo->keep_raw && !em->head;
	if (!em->staged)
		return;
	int regs = em->C > 1 && em->geo->persistent && em->red_slots == 1 &&
	           em->geo->chunks * em->geo->kept_values <= STAGE_REGS_PACKS;
	rr__cu_line(em, d, "if constexpr (VEC) { /* the kept packs %s */",
	            regs ? "through registers" : "in flight at once");
	rr__cu_line(em, d + 1, "#pragma unroll 4");
	rr__cu_line(em, d + 1, "for (int c = 0; c < %s; c++) {", bound);
	rr__cu_line(em, d + 2, "const int at = h + (c * W + worker) * V;");
	for (int put = 0; put <= regs; put++) /* through registers: fetch all, then put all */
		for (int id = 0; id < kernel->n_nodes; id++) {
			if (!em->kept[id] || !global_load(em, id, phase))
				continue;
			int k = em->keep_ordinal[id], x = kernel->nodes[id].input;
			if (!regs)
				rr__cu_line(em, d + 2, "rr_keep_stage(keep, %d, c, x%d + at);", k,
				            x);
			else if (!put)
				rr__cu_line(em, d + 2,
				            "const uint4 st%d = rr_keep_fetch(x%d + at);", k, x);
			else
				rr__cu_line(em, d + 2, "rr_keep_put(keep, %d, c, st%d);", k, k);
		}
	rr__cu_line(em, d + 1, "}");
	if (!regs)
		rr__cu_line(em, d + 1, "rr_keep_wait();");
	rr__cu_line(em, d, "}");
}

/* Whether the aligned body of fewer than 16 chunks is unrolled whole like the headed one:
 * blocks of whole rows (C = 1) of 16-bit elements or of several f32 rows, where the loop is
 * U >= 8 chunks an iteration or the kernel has an online pair (bench/NOTES.md session 33,
 * three A/Bs: bf16 2048x32000 0.47-0.50 of the time, cross_entropy 0.47-1.00 on 18 picks,
 * softmax bf16 24576x512 1.02 the one slower of the 23 it unrolls). Not: sum at U <= 4
 * (0.96-1.08), f32 rows one a block (1.00-1.05), clusters (layernorm bf16 C = 8 1.13) and
 * S=grid segments (0.66-1.39: the registers it takes or frees move the blocks an SM that
 * those plans count on being resident). */
static int unroll_aligned(const rr__cu_emitter *em)
{
	if (rr__cu_grid(em) || em->C != 1 || (em->dtype == RR_F32 && em->R == 1))
		return 0;
	if (em->U >= 8)
		return 1;
	for (int id = 0; id < em->kernel->n_nodes; id++)
		if (em->kernel->analysis.online_partner[id] >= 0)
			return 1;
	return 0;
}

/* The body's complete chunks, `bound` of them (a constant: FULL, or FULL - 1 when the head
 * took up to a pack's worth): U packs' loads issued together, then their values in slot
 * order. A constant bound lets the compiler drop the guards as it did before the head. */
static void emit_full_chunks(rr__cu_emitter *em, int d, int phase, const char *bound)
{
	const rr_kernel *kernel = em->kernel;
	int output_phase = phase > em->rounds;
	/* Register-kept values (and a flat row's loads) are indexed by chunk, which needs
	 * constant indices: unroll fully.
	 * Otherwise only the U chunks of one iteration are unrolled, so U bounds the loads in
	 * flight and a wide row streams without exhausting registers. */
	int indexes_regs = (em->geo->keep == RR_KEEP_REGS && em->geo->kept_values > 0) || em->flat;
	emit_stage(em, d, phase, bound);
	/* A body of a few chunks unrolled whole, so that ptxas issues every chunk's loads before
	 * the first use (a loop of one iteration at a time made a trip to memory per iteration:
	 * S=grid segments of one row, bench/NOTES.md session 10): the headed body at up to four
	 * iterations, the aligned one where unroll_aligned says. */
	int headed = strcmp(bound, "(FULL - 1)") == 0;
	/* the aligned body: unrolled always, or in the twin entry only */
	const char *aligned = indexes_regs                           ? NULL
	                      : batch_headed(em) && unroll_aligned(em) ? ""
	                      : em->geo->has_twin_entry                 ? "TWIN && "
	                                                                : NULL;
	if (!indexes_regs && batch_headed(em) && headed)
		rr__cu_line(em, d, "#pragma unroll ((FULL - 1) / UL <= 4 ? 4 : 1)");
	else if (aligned)
		rr__cu_line(em, d, "#pragma unroll (%sFULL / UL <= 4 && FULL < 16 ? 4 : 1)", aligned);
	else
		rr__cu_line(em, d, indexes_regs ? "#pragma unroll" : "#pragma unroll 1");
	rr__cu_line(em, d, "for (int c0 = 0; c0 < %s; c0 += UL) {", bound);
	if (count_loads(em, phase) > 0 && !em->flat) {
		for (int id = 0; id < kernel->n_nodes; id++)
			if (global_load(em, id, phase))
				rr__cu_line(em, d + 1, "float ld%d[UL][V];", id);
		rr__cu_line(em, d + 1, "#pragma unroll");
		rr__cu_line(em, d + 1, "for (int u = 0; u < UL; u++) {");
		rr__cu_line(em, d + 2, "if (c0 + u < %s) {", bound);
		rr__cu_line(em, d + 3, "const int at = h + ((c0 + u) * W + worker) * V;");
		for (int id = 0; id < kernel->n_nodes; id++) {
			if (!global_load(em, id, phase))
				continue;
			char dest[32];
			snprintf(dest, sizeof dest, "ld%d[u]", id);
			if (em->staged && em->kept[id]) {
				rr__cu_line(em, d + 3, "if constexpr (VEC)");
				rr__cu_line(em, d + 4, "rr_keep_load(%s, keep, %d, c0 + u);", dest,
				            em->keep_ordinal[id]);
				rr__cu_line(em, d + 3, "else");
				emit_pack_load(em, d + 4, id, dest, NULL);
				continue;
			}
			emit_pack_load(em, d + 3, id, dest, NULL);
		}
		rr__cu_line(em, d + 2, "}");
		rr__cu_line(em, d + 1, "}");
	}
	rr__cu_line(em, d + 1, "#pragma unroll");
	rr__cu_line(em, d + 1, "for (int u = 0; u < UL; u++) {");
	rr__cu_line(em, d + 2, "if (c0 + u < %s) {", bound);
	if (phase_uses_chunk(em, phase))
		rr__cu_line(em, d + 3, "const int c = c0 + u;");
	if (output_phase)
		rr__cu_line(em, d + 3, "const int at = h + ((c0 + u) * W + worker) * V;");
	emit_pack(em, d + 3, phase, em->flat ? "c0 + u" : "u", 0);
	rr__cu_line(em, d + 2, "}");
	rr__cu_line(em, d + 1, "}");
	rr__cu_line(em, d, "}");
	em->staged = 0;
}

/* A chunk of the body that may be partial, at chunk `chunk` (a constant): a worker's pack there
 * may be complete, partial (the one guarded pack), or absent. */
static void emit_tail_chunk(rr__cu_emitter *em, int d, int phase, const char *chunk, int headed)
{
	const rr_kernel *kernel = em->kernel;
	if (headed) {
		rr__cu_line(em, d, "if (h + (%s * W + worker) * V < LEN) {", chunk);
	} else {
		rr__cu_line(em, d, "if constexpr (REM > 0) {");
		rr__cu_line(em, ++d, "if (worker * V < REM) {");
	}
	if (phase_uses_chunk(em, phase))
		rr__cu_line(em, d + 1, "const int c = %s;", chunk);
	rr__cu_line(em, d + 1, "const int at = h + (%s * W + worker) * V;", chunk);
	rr__cu_line(em, d + 1,
	            "const int valid = LEN - at; /* elements of this pack in the row */");
	for (int id = 0; id < kernel->n_nodes && !em->flat && em->tail_loads == 0; id++) {
		if (!global_load(em, id, phase))
			continue;
		char dest[32];
		snprintf(dest, sizeof dest, "ld%d[0]", id);
		rr__cu_line(em, d + 1, "float ld%d[1][V];", id);
		emit_pack_load(em, d + 1, id, dest, "valid");
	}
	emit_pack(em, d + 1, phase, em->flat ? chunk : "0", 1);
	rr__cu_line(em, d, "}");
	if (!headed)
		rr__cu_line(em, d - 1, "}");
}

/* Whether the headed body's guarded chunks load with its complete ones (emit_tail_loads):
 * round 1 of a body that defers its online pairs there (headed_defers), in blocks that batch
 * their loads. Tried and not kept (bench/NOTES.md, session 47): the same for the norms' round
 * 1 and for the aligned entry's partial chunk, 0.90-1.38 of the time on an H100 (rmsnorm bf16
 * 1000x3001 1.38, softmax bf16 2048x11008 1.12; a guess, not measured: the registers the
 * early packs hold across the complete chunks). */
static int early_tails(const rr__cu_emitter *em, int phase)
{
	return phase == 1 && em->headed_defer && !em->flat && batch_headed(em) &&
	       count_loads(em, phase) > 0;
}

/* The packs of the headed body's guarded chunk `chunk` (its `k`-th, into tl<id>_<k>), loaded
 * before its complete chunks (early_tails): emitted where they are used, after those chunks'
 * values, ptxas issued them only then, a second trip to memory for every row (softmax bf16
 * 2047x6143). */
static void emit_tail_loads(rr__cu_emitter *em, int d, int phase, const char *chunk,
                            const char *exists, int k)
{
	const rr_kernel *kernel = em->kernel;
	for (int id = 0; id < kernel->n_nodes; id++)
		if (global_load(em, id, phase))
			rr__cu_line(em, d, "[[maybe_unused]] float tl%d_%d[1][V];", id, k);
	rr__cu_line(em, d, "if constexpr (%s) {", exists);
	rr__cu_line(em, d + 1, "const int at = h + (%s * W + worker) * V;", chunk);
	rr__cu_line(em, d + 1, "if (at < LEN) {");
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (!global_load(em, id, phase))
			continue;
		char dest[32];
		snprintf(dest, sizeof dest, "tl%d_%d[0]", id, k);
		emit_pack_load(em, d + 2, id, dest, "LEN - at");
	}
	rr__cu_line(em, d + 1, "}");
	rr__cu_line(em, d, "}");
}

/* The body. Without a head (and in the entry for rows on a boundary, h = 0): FULL complete
 * chunks and the partial one, all bounds constants. With one: chunks 0 .. FULL - 2 are
 * complete whatever h < W·V is, chunk FULL - 1 is complete unless h > REM, and chunk FULL
 * holds what is left; the last two are guarded packs, so every bound stays a constant (a
 * runtime bound cost ptxas registers: spills at W = 1024). */
static void emit_body(rr__cu_emitter *em, int phase)
{
	int early = early_tails(em, phase);
	em->plain = em->body = 1;
	if (em->geo->head_slots == 0) {
		emit_full_chunks(em, 1, phase, "FULL");
		emit_tail_chunk(em, 1, phase, "FULL", 0);
		em->plain = em->body = 0;
		return;
	}
	rr__cu_line(em, 1, "if constexpr (!HEADED) {");
	emit_full_chunks(em, 2, phase, "FULL");
	emit_tail_chunk(em, 2, phase, "FULL", 0);
	em->plain = 0;
	rr__cu_line(em, 1, "} else {");
	if (early) {
		emit_tail_loads(em, 2, phase, "(FULL - 1)", "FULL > 0", 1);
		emit_tail_loads(em, 2, phase, "FULL", "REM > 0", 2);
	}
	emit_full_chunks(em, 2, phase, "(FULL - 1)");
	rr__cu_line(em, 2, "if constexpr (FULL > 0) {");
	em->tail_loads = early ? 1 : 0;
	emit_tail_chunk(em, 3, phase, "(FULL - 1)", 1);
	rr__cu_line(em, 2, "}");
	rr__cu_line(em, 2, "if constexpr (REM > 0) {");
	em->tail_loads = early ? 2 : 0;
	emit_tail_chunk(em, 3, phase, "FULL", 1);
	em->tail_loads = 0;
	rr__cu_line(em, 2, "}");
	rr__cu_line(em, 1, "}");
	em->body = 0;
}

/* Switches to emitting the head in `phase`: unless its kept values stay in registers, a later
 * phase evaluates the head from its inputs again. */
static void mark_head(rr__cu_emitter *em, int phase)
{
	em->head = 1;
	if (phase > 1 && keeping(em) && !keeps_head(em)) {
		rr__phase_roots(em->kernel, phase, em->eval);
		rr__mark_operands(em->kernel, em->eval, NULL);
	}
}

/* The head: this worker's elements j = t * W + (W - 1 - worker) < h, read and written element
 * by element, before its body packs (slot order). `part` 0: the head whole; 1: its loads
 * alone (into hd<id>; nothing in a flat row, whose head came with its flat loads), 2: its
 * values from those, after the body (headed_defers). Except in
 * flat rows kept in registers, nothing of the head is kept: a later phase reads its elements
 * again and recomputes what it needs from them (the same values). */
static void emit_head(rr__cu_emitter *em, int phase, int part)
{
	const rr_kernel *kernel = em->kernel;
	if (em->geo->head_slots == 0 || (part == 1 && em->flat))
		return;
	mark_head(em, phase);
	for (int id = 0; id < kernel->n_nodes && part == 1; id++)
		if (global_load(em, id, phase))
			rr__cu_line(em, 1,
			            "float hd%d[1][V]; /* the head's, loaded before the body */",
			            id);
	rr__cu_line(em, 1, "if (W - 1 - worker < h) { /* the head, on the last workers */");
	if (part != 1)
		rr__cu_line(em, 2,
		            "const int valid = (h - (W - 1 - worker) + W - 1) / W; /* this "
		            "worker's head elements */");
	for (int id = 0; id < kernel->n_nodes && !em->flat && part != 2; id++) {
		if (!global_load(em, id, phase))
			continue;
		if (part == 0)
			rr__cu_line(em, 2, "float ld%d[1][V];", id);
		rr__cu_line(em, 2, "rr_load_head(%s%d[0], x%d, worker, h);", part ? "hd" : "ld",
		            id, kernel->nodes[id].input);
	}
	em->head_loaded = part == 2;
	if (part != 1)
		emit_pack(em, 2, phase, "0", 1);
	em->head_loaded = 0;
	rr__cu_line(em, 1, "}");
	em->head = 0;
	rr__cu_mark_phase(em, phase);
}

/* ---------------------------------------------------------------- the tree */

/* Which partials emit_combine combines: all of them (online pairs as pairs), the plain
 * reductions and the pairs' maxes alone, or the pairs' sums alone (emit_butterfly). */
enum { COMBINE_ALL, COMBINE_MAXES, COMBINE_SUMS };

/* Each partial of a round combined with its partner's, `other` printing the partner's value
 * of a variable ("__shfl_xor_sync(RR_MASK, %s, 16)"). */
static void emit_combine(rr__cu_emitter *em, int round, int depth, const char *other_fmt, int arg,
                         int which)
{
	const rr_kernel *kernel = em->kernel;
	char m[32], z[32], other_m[96], other_z[96];
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (!rr__reduced_in(kernel, id, round))
			continue;
		int partner = kernel->analysis.online_partner[id];
		if (partner >= 0 && which != COMBINE_ALL) {
			snprintf(m, sizeof m, which == COMBINE_MAXES ? "m%d" : "z%d",
			         which == COMBINE_MAXES ? id : partner);
			snprintf(other_m, sizeof other_m, other_fmt, m, arg);
			rr__cu_line(em, depth, which == COMBINE_MAXES ? "%s = fmaxf(%s, %s);"
			                                               : "%s = %s + %s;",
			            m, m, other_m);
			continue;
		}
		if (which == COMBINE_SUMS)
			continue;
		if (partner >= 0) {
			snprintf(m, sizeof m, "m%d", id);
			snprintf(z, sizeof z, "z%d", partner);
			snprintf(other_m, sizeof other_m, other_fmt, m, arg);
			snprintf(other_z, sizeof other_z, other_fmt, z, arg);
			rr__cu_line(em, depth, "rr_online_combine(%s, %s, %s, %s);", m, z, other_m,
			            other_z);
			continue;
		}
		snprintf(m, sizeof m, "acc%d", id);
		snprintf(other_m, sizeof other_m, other_fmt, m, arg);
		if (kernel->nodes[id].reduce == RR_REDUCE_SUM)
			rr__cu_line(em, depth, "%s = %s + %s;", m, m, other_m);
		else
			rr__cu_line(em, depth, "%s = %s(%s, %s);", m,
			            reduce_fn(kernel->nodes[id].reduce), m, other_m);
		if (id == em->shift.sq) {
			snprintf(other_m, sizeof other_m, other_fmt, "rr_t", arg);
			rr__cu_line(em, depth, "rr_t = rr_t + %s;", other_m);
		}
	}
}

/* Whether node `id` is the max of an online pair reduced in `round`. */
static int pair_max_in(const rr_kernel *kernel, int id, int round)
{
	return rr__reduced_in(kernel, id, round) && kernel->analysis.online_partner[id] >= 0;
}

/* The steps of the butterfly `cross` selects, each combining the partials `which` names. */
static void emit_steps(rr__cu_emitter *em, int round, const char *fmt, int cross, int which)
{
	for (int k = 0; k < em->n_offsets; k++) {
		int offset = em->offsets[k];
		if ((offset >= 32) == cross)
			emit_combine(em, round, 1, fmt, cross ? offset / 32 : offset, which);
	}
}

/* The butterfly steps of a round over the offsets below 32 (`cross` 0, shuffle format `fmt`
 * taking the offset) or those of 32 and up between the warps' partials (`cross` 1, the offset
 * over 32). In rows that span warps (W > 32) an online pair (max m, sum z of exp(v - m)) takes
 * its maxes first, one plain butterfly, then each lane's sum rescaled to that max once, and its
 * sums in a second plain butterfly: one exponential a lane where the pairwise form pays two a
 * step, 4 instructions a step against 14 (H100, session 48: cross_entropy bf16 4096x4096 at
 * W = 64 0.857 of the time, softmax bf16 at W = 512 and 1024 0.93; rows within a warp kept the
 * pairwise form, whose steps' latencies overlap: W = 16 and 32 at V = 1 ran 1.016-1.039 of the
 * time split). Both are fixed trees; max is exact and each step's sum is symmetric, so every
 * lane of a butterfly gets the same bits. */
static void emit_butterfly(rr__cu_emitter *em, int round, const char *fmt, int cross)
{
	const rr_kernel *kernel = em->kernel;
	int split = 0;
	for (int id = 0; id < kernel->n_nodes && em->W > 32; id++) /* rows that span warps */
		split |= pair_max_in(kernel, id, round);
	if (!split) {
		emit_steps(em, round, fmt, cross, COMBINE_ALL);
		return;
	}
	for (int id = 0; id < kernel->n_nodes; id++)
		if (pair_max_in(kernel, id, round))
			rr__cu_line(em, 1, "const float mo%d_%d = m%d; /* this lane's max */", id,
			            cross, id);
	emit_steps(em, round, fmt, cross, COMBINE_MAXES);
	for (int id = 0; id < kernel->n_nodes; id++)
		if (pair_max_in(kernel, id, round))
			rr__cu_line(em, 1,
			            "z%d = __fmul_rn(z%d, rr_exp(mo%d_%d - (m%d == -INFINITY ? 0.0f : "
			            "m%d)));",
			            kernel->analysis.online_partner[id],
			            kernel->analysis.online_partner[id], id, cross, id, id);
	emit_steps(em, round, fmt, cross, COMBINE_SUMS);
}

static void write_warp_partial(rr__cu_emitter *em, int depth, const char *name, int slot)
{
	rr__cu_line(em, depth,
	            "red[((parity * RED_SLOTS + %d) * R + rig) * WARPS + (worker >> 5)] = %s;",
	            slot, name);
}

static void read_warp_partial(rr__cu_emitter *em, int depth, const char *name, int slot)
{
	rr__cu_line(em, depth,
	            "%s = red[((parity * RED_SLOTS + %d) * R + rig) * WARPS + (lane & "
	            "(WARPS - 1))];",
	            name, slot);
}

/* The mailbox stage's partials of `round`: every value pushed or read (an online pair's m and
 * z apart), with its scratch slot; returns how many. */
static int round_partials(const rr__cu_emitter *em, int round, char names[][16], int *slots)
{
	const rr_kernel *kernel = em->kernel;
	int n = 0;
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (!rr__reduced_in(kernel, id, round))
			continue;
		int partner = kernel->analysis.online_partner[id];
		snprintf(names[n], 16, partner >= 0 ? "m%d" : "acc%d", id);
		slots[n++] = em->red_slot[id];
		if (partner >= 0) {
			snprintf(names[n], 16, "z%d", partner);
			slots[n++] = em->red_slot[id] + 1;
		}
	}
	return n;
}

/* Combines the mailbox copies of `round`'s partials at one level of the tree: copy j with
 * copy j ^ (x / lanes) in the thread when x >= lanes, else with lane ^ x's copy j. Copies with
 * a bit of `*folded` (in-thread levels already done) are never read again; returns through it
 * this level's bit. */
static void emit_mail_level(rr__cu_emitter *em, int round, int x, int lanes, int copies,
                            int *folded)
{
	const rr_kernel *kernel = em->kernel;
	char other_m[96], other_z[96];
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (!rr__reduced_in(kernel, id, round))
			continue;
		int partner = kernel->analysis.online_partner[id];
		for (int j = 0; j < copies; j++) {
			if ((j & *folded) || (x >= lanes && (j & (x / lanes))))
				continue; /* only the copies without these bits are read again */
			char m[32], z[32];
			snprintf(m, sizeof m, partner >= 0 ? "m%d_%d" : "acc%d_%d", id, j);
			snprintf(z, sizeof z, "z%d_%d", partner, j);
			if (x >= lanes) {
				int k = j | x / lanes;
				snprintf(other_m, sizeof other_m,
				         partner >= 0 ? "m%d_%d" : "acc%d_%d", id, k);
				snprintf(other_z, sizeof other_z, "z%d_%d", partner, k);
			} else {
				const char *fmt = em->W < 32 ? "__shfl_xor_sync(RR_MASK, %s, %d, W)"
				                             : "__shfl_xor_sync(RR_MASK, %s, %d)";
				snprintf(other_m, sizeof other_m, fmt, m, x);
				snprintf(other_z, sizeof other_z, fmt, z, x);
			}
			if (partner >= 0)
				rr__cu_line(em, 1, "rr_online_combine(%s, %s, %s, %s);", m, z,
				            other_m, other_z);
			else if (kernel->nodes[id].reduce == RR_REDUCE_SUM)
				rr__cu_line(em, 1, "%s = %s + %s;", m, m, other_m);
			else
				rr__cu_line(em, 1, "%s = %s(%s, %s);", m,
				            reduce_fn(kernel->nodes[id].reduce), m, other_m);
		}
	}
	if (x >= lanes)
		*folded |= x / lanes;
}

/* A cluster's rows after the shuffles within each warp: lane r of every warp pushes the
 * warp's partials into block r's mailbox (cluster.cuh), the block waits for its own mailbox
 * to fill, and every warp combines the WARPS x C values of a partial, indexed warp * C + rank,
 * in a butterfly: first over warps (the block tree's offsets W/2 ... 32 as index offsets
 * W/64 * C ... C), then over ranks (C/2 ... 1). Lanes hold copies lane + LANES * j of the
 * index; index offsets of LANES or more combine a thread's own copies, and come first (the
 * largest warp offsets), so one copy is live after them. The sum, max, min and
 * rr_online_combine are symmetric, so lane 0's result is that of the block's tree followed by
 * the ranks' tree, and every thread holds it. */
static void emit_mail_stage(rr__cu_emitter *em, int round)
{
	char names[2 * RR_MAX_NODES][16];
	int slots[2 * RR_MAX_NODES];
	int n = round_partials(em, round, names, slots);
	int lanes = em->W < 32 ? em->W : 32, values = em->C * em->warps;
	int copies = values > lanes ? values / lanes : 1;
	rr__cu_line(em, 1,
	            "/* across the block's warps and the cluster's blocks: each warp's partials "
	            "into every block's mailbox */");
	rr__cu_line(em, 1, "{ /* lane and rank here, not live across the row's packs */");
	rr__cu_line(em, 1, "const int mlane = threadIdx.x & 31;");
	rr__cu_line(em, 1, "const int mrank = (int)rr_cluster_rank();");
	rr__cu_line(em, 1, "const rr_mbar_ref bar%d = rr_mail_bar(parity * MBARS + %d);", round,
	            round - 1);
	rr__cu_line(em, 1, "for (int to = mlane; to < C; to += %d) { /* lane r to block r */",
	            lanes);
	for (int k = 0; k < n; k++)
		rr__cu_line(em, 2,
		            "rr_mail_push(cl + ((parity * RED_SLOTS + %d) * WARPS + (worker >> 5)) "
		            "* C + mrank, to, %s, bar%d);",
		            slots[k], names[k], round);
	rr__cu_line(em, 1, "}");
	rr__cu_line(em, 1,
	            "rr_mail_wait(bar%d, rr_mail_arrive(bar%d, (worker >> 5) == 0 ? %d : 0, "
	            "mlane)); /* %d partial%s x C x WARPS x 4 bytes */",
	            round, round, n * values * 4, n, n == 1 ? "" : "s");
	for (int k = 0; k < n; k++)
		for (int j = 0; j < copies; j++)
			rr__cu_line(em, 1,
			            "float %s_%d = cl[(parity * RED_SLOTS + %d) * C * WARPS + "
			            "(mlane & %d) + %d];",
			            names[k], j, slots[k], (values < lanes ? values : lanes) - 1,
			            j * lanes);
	int folded = 0;
	for (int k = 0; k < em->n_offsets; k++)
		if (em->offsets[k] >= 32)
			emit_mail_level(em, round, em->offsets[k] / 32 * em->C, lanes, copies,
			                &folded);
	for (int c = em->C / 2; c >= 1; c /= 2)
		emit_mail_level(em, round, c, lanes, copies, &folded);
	for (int k = 0; k < n; k++)
		rr__cu_line(em, 1, "%s = %s_0;", names[k], names[k]);
	rr__cu_line(em, 1, "}");
}

static void write_block_partial(rr__cu_emitter *em, int depth, const char *name, int slot)
{
	rr__cu_line(em, depth, "cl[parity * RED_SLOTS + %d] = %s;", slot, name);
}

/* A cluster without a mailbox (rr__cluster_mailbox): each block's partials, its tree done, read
 * by every thread of the cluster after a cluster barrier. */
static void emit_cluster_stage(rr__cu_emitter *em, int round)
{
	const rr_kernel *kernel = em->kernel;
	const char *wide = em->C > 8 ? "_wide" : ""; /* over the portable size: by lanes */
	rr__cu_line(em, 1,
	            "/* across the cluster's C blocks, through distributed shared memory */");
	rr__cu_line(em, 1, "if (threadIdx.x == 0) {");
	rr__cu_for_each_partial(em, round, 2, write_block_partial);
	rr__cu_line(em, 2, "rr_cluster_publish();");
	rr__cu_line(em, 1, "}");
	rr__cu_line(em, 1, "rr_cluster_meet();");
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (!rr__reduced_in(kernel, id, round))
			continue;
		int partner = kernel->analysis.online_partner[id];
		if (partner >= 0)
			rr__cu_line(em, 1,
			            "rr_cluster_online%s(m%d, z%d, cl + parity * RED_SLOTS + %d);",
			            wide, id, partner, em->red_slot[id]);
		else
			rr__cu_line(
			    em, 1, "acc%d = rr_cluster_reduce%s<%d>(cl + parity * RED_SLOTS + %d);",
			    id, wide, (int)kernel->nodes[id].reduce, em->red_slot[id]);
	}
}

/* S=grid's one barrier for two rounds (rr__realisation.grid_shift), after round 1's block tree:
 * round 2's accumulators (its sum and T_b), then a scope in which the row's mean c is this
 * block's own, c_b = S_b / n_b, for round 2's pass; rr__cu_emit_grid_shift_stage closes it
 * after round 2's block tree, writes S_b, Q_b, T_b and c_b and meets the row's blocks once.
 * Round 1's scalars follow that barrier, with the row's S. */
static void shift_open(rr__cu_emitter *em)
{
	rr__cu_line(em, 1,
	            "/* one grid barrier for rounds 1 and 2: round 2 about this block's mean c_b, "
	            "combined after it (rr_grid_shifted) */");
	rr__emit_accumulators(em->out, em->kernel, 2, 1);
	rr__cu_line(em, 1, "float rr_t = 0.0f; /* T_b: the sum of d about c_b */");
	rr__cu_line(em, 1, "{");
	rr__cu_line(em, 1,
	            "const float rr_cb = acc%d / (float)(LEN > 0 ? LEN : 1); /* c_b: S_b / n_b */",
	            em->shift.sum);
	rr__cu_line(em, 1, "const float s%d = rr_cb; /* round 2 about c_b */", em->shift.c);
}

/* The fixed tree of rr__tree_offsets: xor shuffles below 32 within the warp; for W > 32 every
 * warp then reads all warps' partials from shared memory and repeats the butterfly over them
 * (lane offsets W/64 ... 1 are worker offsets W/2 ... 32), so every thread holds the result
 * and no second barrier is needed. A cluster's blocks do the same over their mailboxes, with
 * the ranks' levels after the warps'. */
static void emit_tree(rr__cu_emitter *em, int round)
{
	rr__buf_printf(em->out, "\t/* round %d across workers: xor", round);
	for (int k = 0; k < em->n_offsets; k++)
		rr__buf_printf(em->out, " %d", em->offsets[k]);
	rr__buf_printf(em->out, "%s */\n", em->n_offsets ? "" : " (none: one worker)");
	/* With W < 32 the shuffle width is W: the R rows sharing a warp stay apart. */
	emit_butterfly(em, round,
	               em->W < 32 ? "__shfl_xor_sync(RR_MASK, %s, %d, W)"
	                          : "__shfl_xor_sync(RR_MASK, %s, %d)",
	               0);
	if (rr__cu_mailbox(em)) {
		emit_mail_stage(em, round);
	} else if (em->W > 32) {
		rr__cu_line(em, 1, "if (lane == 0) {");
		rr__cu_for_each_partial(em, round, 2, write_warp_partial);
		rr__cu_line(em, 1, "}");
		rr__cu_line(em, 1, "__syncthreads();");
		rr__cu_for_each_partial(em, round, 1, read_warp_partial);
		emit_butterfly(em, round, "__shfl_xor_sync(RR_MASK, %s, %d)", 1);
	}
	if (em->shift.sq >= 0 && round == 1) {
		shift_open(em);
		return;
	}
	if (em->shift.sq >= 0) {
		rr__cu_emit_grid_shift_stage(em);
		rr__emit_from_accumulators(em->out, em->kernel, 1, 1, "const float s", "");
		emit_scalars_after(em, 1);
		rr__cu_emit_grid_shift_combine(em);
	} else if (rr__cu_grid(em)) {
		rr__cu_emit_grid_stage(em, round);
	} else if (em->C > 1 && !rr__cu_mailbox(em)) {
		emit_cluster_stage(em, round);
	}
	rr__emit_from_accumulators(em->out, em->kernel, round, 1, "const float s", "");
}

/* ---------------------------------------------------------------- phases */

/* Whether input node `id`, loaded in `phase`, is among the loads emitted now: `which` 0 all,
 * 1 the col inputs only, 2 all but the col inputs. A later phase reads what round 1 loaded
 * (flat_first) again from its registers. */
static int flat_load_now(const rr__cu_emitter *em, int id, int phase, int which)
{
	return global_load(em, id, phase) && (phase == 1 || !em->flat_first[id]) &&
	       (which == 0 || (which == 1) == is_col_input(em, id));
}

/* A flat row's loads of `phase`, all issued before any is used: the head's elements (each
 * guarded by j < h), then every chunk's pack, complete ones unguarded and the rest through
 * the tail access (nothing where a worker has no element there). The uses that follow read
 * these arrays in the usual slot order, so the sums are those of the other form, bit for bit. */
static void emit_flat_loads(rr__cu_emitter *em, int phase, int which)
{
	const rr_kernel *kernel = em->kernel;
	int count = 0;
	if (em->geo->head_slots > 0) {
		mark_head(em, phase);
		for (int id = 0; id < kernel->n_nodes; id++) {
			if (!flat_load_now(em, id, phase, which))
				continue;
			rr__cu_line(em, 1, "float hl%d_%d[1][V];", id, phase);
			rr__cu_line(em, 1, "rr_load_head(hl%d_%d[0], x%d, worker, h);", id, phase,
			            kernel->nodes[id].input);
		}
		em->head = 0;
		rr__cu_mark_phase(em, phase);
	}
	for (int id = 0; id < kernel->n_nodes; id++)
		count += flat_load_now(em, id, phase, which);
	if (count == 0)
		return;
	for (int id = 0; id < kernel->n_nodes && phase == 1; id++)
		em->flat_first[id] |= flat_load_now(em, id, phase, which);
	for (int id = 0; id < kernel->n_nodes; id++)
		if (flat_load_now(em, id, phase, which))
			rr__cu_line(em, 1, "float ld%d_%d[CH > 0 ? CH : 1][V];", id, phase);
	rr__cu_line(em, 1, "#pragma unroll");
	rr__cu_line(em, 1, "for (int c = 0; c < CH; c++) {");
	rr__cu_line(em, 2, "const int at = h + (c * W + worker) * V;");
	rr__cu_line(em, 2, "if (c < %s) {",
	            em->geo->head_slots > 0 ? "(HEADED ? FULL - 1 : FULL)" : "FULL");
	for (int tail = 0; tail < 2; tail++) {
		if (tail)
			rr__cu_line(em, 2,
			            "} else if (at < LEN) { /* a worker without elements "
			            "there loads none */");
		for (int id = 0; id < kernel->n_nodes; id++) {
			if (!flat_load_now(em, id, phase, which))
				continue;
			char dest[32];
			snprintf(dest, sizeof dest, "ld%d_%d[c]", id, phase);
			emit_pack_load(em, 3, id, dest, tail ? "LEN - at" : NULL);
		}
	}
	rr__cu_line(em, 2, "}");
	rr__cu_line(em, 1, "}");
}

/* Whether `phase` reads a col input from its copies (em->col_copies); the caller marked it. */
static int reads_copies(rr__cu_emitter *em, int phase)
{
	int any = 0;
	for (int id = 0; em->col_copies && id < em->kernel->n_nodes; id++)
		any |= global_load(em, id, phase) && is_col_input(em, id);
	return any;
}

/* A phase that reads the copies waits for the entry that writes them (rr_wait_copies): in a
 * flat row the first phase, which loads every phase's values; otherwise each such phase, so
 * the rounds before it run while the copies are written. */
static void emit_wait_copies(rr__cu_emitter *em, int phase)
{
	int wait = 0;
	if (em->flat && phase == 1) {
		for (int later = 1; later <= em->phases; later++) {
			rr__cu_mark_phase(em, later);
			wait |= reads_copies(em, later);
		}
		rr__cu_mark_phase(em, phase);
	} else if (!em->flat) {
		wait = reads_copies(em, phase);
	}
	if (wait)
		rr__cu_line(em, 1, "rr_wait_copies();");
}

static void emit_phase(rr__cu_emitter *em, int phase)
{
	int reduce = phase <= em->rounds;
	rr__cu_mark_phase(em, phase);
	emit_wait_copies(em, phase);
	if (reduce) {
		rr__cu_line(em, 1, "/* round %d: each worker accumulates its slots in order */",
		            phase);
		if (em->shift.sq < 0 || phase != 2) /* shift_open declared round 2's */
			rr__emit_accumulators(em->out, em->kernel, phase, 1);
	} else {
		rr__cu_line(em, 1, "/* output phase: each worker writes the elements it owns */");
	}
	if (em->flat && phase == 1) {
		/* the later phases' col inputs come with round 1's loads, so the row's first trip
		 * to memory brings every value its outputs need */
		for (int later = 1; later <= em->phases; later++) {
			rr__cu_mark_phase(em, later);
			emit_flat_loads(em, later, later == 1 ? 0 : 1);
		}
		rr__cu_mark_phase(em, phase);
	} else if (em->flat) {
		emit_flat_loads(em, phase, 2);
	}
	if (phase == 1 && em->headed_defer) {
		/* the head's loads first, its values after the body's max (headed_defers) */
		emit_head(em, phase, 1);
		emit_body(em, phase);
		emit_head(em, phase, 2);
	} else {
		emit_head(em, phase, 0);
		emit_body(em, phase);
	}
	if (!reduce)
		return;
	emit_deferred_sums(em, phase);
	emit_tree(em, phase);
	if (em->shift.sq >= 0 && phase == 1)
		return; /* round 1's scalars come after the barrier, in round 2's emit_tree */
	emit_kexp_scale(em, phase);
	emit_scalars_after(em, phase);
}

static void emit_rowscalar_outputs(rr__cu_emitter *em)
{
	const rr_kernel *kernel = em->kernel;
	int any = 0;
	for (int j = 0; j < kernel->n_outputs; j++)
		any |= kernel->outputs[j].kind == RR_KIND_ROWSCALAR;
	if (!any)
		return;
	rr__cu_line(em, 1, "if (live && worker == 0%s) {",
	            rr__cu_grid_last_combines(em) ? " && rr_owner"
	            : em->C > 1                   ? " && seg_begin == 0"
	                                          : "");
	for (int j = 0; j < kernel->n_outputs; j++) {
		if (kernel->outputs[j].kind != RR_KIND_ROWSCALAR)
			continue;
		rr__buf_printf(em->out, "\t\ta.out%d[row] = rr_out(", j);
		value_ref(em, kernel->outputs[j].node, "");
		rr__buf_printf(em->out, "); /* %s */\n", kernel->outputs[j].name);
	}
	rr__cu_line(em, 1, "}");
}

/* h: the row's head, from its reference array (layout.h), 0 in the entry for aligned rows. */
static void emit_head_length(rr__cu_emitter *em)
{
	if (em->geo->head_slots == 0) {
		rr__cu_line(em, 1, "constexpr int h = 0; /* no head: packs are single elements */");
	} else {
		int is_output, at = rr__head_reference(em->kernel, &is_output);
		const char *name = at < 0      ? "none"
		                   : is_output ? em->kernel->outputs[at].name
		                               : em->kernel->inputs[at].name;
		if (at < 0)
			rr__cu_line(em, 1, "const int h = 0; /* no row array */");
		else
			rr__cu_line(
			    em, 1,
			    "const int h = HEADED ? rr_head(a.%s%d + row * N + seg_begin, LEN) "
			    ": 0; /* from %s */",
			    is_output ? "out" : "in", at, name);
	}
	if (!em->col_copies)
		return;
	/* the copy of each col input in which this row's (segment's) packs are aligned: element j
	 * of copy cq stands at j + (COL_PHASES - cq) % COL_PHASES (rr_cols_pack) */
	rr__cu_line(em, 1, "const int cq = (int)((seg_begin + h) %% COL_PHASES);");
	int ordinal = 0;
	for (int k = 0; k < em->kernel->n_inputs; k++)
		if (em->kernel->inputs[k].kind == RR_KIND_COL)
			rr__cu_line(em, 1,
			            "const io_t *const c%d = a.cc + ((long long)%d * COL_PHASES + cq) * "
			            "COL_STRIDE + (COL_PHASES - cq) %% COL_PHASES + seg_begin; /* %s */",
			            k, ordinal++, em->kernel->inputs[k].name);
}

void rr__cu_emit_row(rr__cu_emitter *em)
{
	rr__cu_line(em, 0,
	            "/* One row, or the segment [seg_begin, seg_begin + LEN) of it that this "
	            "block of a cluster owns. */");
	rr__cu_line(em, 0, "template <bool VEC, bool HEADED, int LEN, bool TWIN>");
	rr__cu_line(em, 0,
	            "__device__ __forceinline__ void rr_row(const rr_args &a, const long long "
	            "rows, const long long row, const bool live,");
	rr__cu_line(em, 0,
	            "\t\t\t\t\t   const int worker, const int rig, const int seg_begin, "
	            "const int parity, float *red, float *cl, float *keep)\n{");
	rr__cu_line(em, 1,
	            "constexpr int FULL = LEN / (W * V); /* the most chunks where every worker "
	            "has a complete pack */");
	rr__cu_line(em, 1,
	            "constexpr int REM = LEN %% (W * V); /* elements of the last chunk without "
	            "a head */");
	rr__cu_line(
	    em, 1,
	    "constexpr int CH = FULL + (REM > 0 ? 1 : 0); /* packs a worker owns at most */");
	if (em->geo->head_slots > 0)
		rr__cu_line(em, 1,
		            "constexpr int UL = !HEADED ? U : VEC ? U_HEAD : 1; /* chunks per "
		            "iteration: fewer where the head's bounds take registers */");
	else
		rr__cu_line(em, 1, "constexpr int UL = U; /* chunks per iteration */");
	if (em->W > 32)
		rr__cu_line(em, 1, "const int lane = threadIdx.x & 31;");
	rr__cu_line(
	    em, 1,
	    "const bool room = (rows - row) * N - seg_begin >= (long long)LEN + V - 1; "
	    "/* a row array holds a pack past any of this row's (or segment's) elements */");
	rr__cu_line(em, 1,
	            "(void)rig, (void)parity, (void)red, (void)cl, (void)keep, (void)CH, "
	            "(void)room;");
	emit_head_length(em);
	emit_pointers(em);
	emit_scalars_before(em);
	emit_scalars_after(em, 0);
	emit_kept_arrays(em);
	kexp_of(em);
	memset(em->flat_first, 0, sizeof em->flat_first);
	em->headed_defer = headed_defers(em);
	for (int phase = 1; phase <= em->phases; phase++)
		emit_phase(em, phase);
	emit_rowscalar_outputs(em);
	rr__cu_line(em, 0, "}\n");
}

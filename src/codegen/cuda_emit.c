/* The CUDA C emitter's frame: the plan's bookkeeping (what
 * is kept between rounds and where, the launch geometry), the header comment, the prelude of
 * conversions and access helpers, and the entries that loop over row groups. The per-row code
 * is in cuda_emit_row.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "codegen/common.h"
#include "codegen/cuda_emit_internal.h"
#include "codegen/device_files.h"
#include "layout/layout.h"

/* ---------------------------------------------------------------- plan bookkeeping */

void rr__cu_line(rr__cu_emitter *em, int depth, const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	rr__emit_vline(em->out, depth, fmt, args);
	va_end(args);
}

static int is_elem(const rr_kernel *kernel, int id)
{
	return id >= 0 && kernel->nodes[id].shape == RR_SHAPE_ELEM;
}

/* The elem roots of a phase: the operands of its reductions, or the row outputs. */
static void mark_roots(const rr__cu_emitter *em, int phase, unsigned char *mark)
{
	const rr_kernel *kernel = em->kernel;
	memset(mark, 0, (size_t)kernel->n_nodes);
	if (phase <= em->rounds) {
		for (int id = 0; id < kernel->n_nodes; id++)
			if (rr__reduced_in(kernel, id, phase) &&
			    is_elem(kernel, kernel->nodes[id].a))
				mark[kernel->nodes[id].a] = 1;
		return;
	}
	for (int j = 0; j < kernel->n_outputs; j++)
		if (kernel->outputs[j].kind == RR_KIND_ROW &&
		    is_elem(kernel, kernel->outputs[j].node))
			mark[kernel->outputs[j].node] = 1;
}

/* Walks down from the marked nodes (operands have smaller ids), not below `stop` nodes. */
static void mark_down(const rr_kernel *kernel, unsigned char *mark, const unsigned char *stop)
{
	for (int id = kernel->n_nodes - 1; id >= 0; id--) {
		const rr__node *node = &kernel->nodes[id];
		if (!mark[id] || node->shape != RR_SHAPE_ELEM || (stop && stop[id]))
			continue;
		if (is_elem(kernel, node->a))
			mark[node->a] = 1;
		if (is_elem(kernel, node->b))
			mark[node->b] = 1;
	}
}

void rr__cu_mark_phase(rr__cu_emitter *em, int phase)
{
	mark_roots(em, phase, em->eval);
	int keeping = em->geo.keep != RR_CUDA_KEEP_NONE;
	if (phase == 1 && keeping)
		for (int id = 0; id < em->kernel->n_nodes; id++)
			em->eval[id] |= em->kept[id];
	mark_down(em->kernel, em->eval, phase > 1 && keeping ? em->kept : NULL);
}

static void mark_row_dependence(rr__cu_emitter *em)
{
	const rr_kernel *kernel = em->kernel;
	for (int id = 0; id < kernel->n_nodes; id++) {
		const rr__node *node = &kernel->nodes[id];
		if (node->shape != RR_SHAPE_ELEM)
			em->rowdep[id] = 0;
		else if (node->op == RR_OP_INPUT)
			em->rowdep[id] = kernel->inputs[node->input].kind == RR_KIND_ROW;
		else
			em->rowdep[id] = (node->a >= 0 && em->rowdep[node->a]) ||
			                 (node->b >= 0 && em->rowdep[node->b]);
	}
}

/* What phases after the first need from the row: the topmost values that depend on row inputs
 * but on no reduction (level 0), when a row input below them is read in more than one phase
 * (a value whose rows are read once is computed where it is needed). Keeping those values (e.g.
 * h = x + r of add_layernorm) costs at most as much as keeping the multi-phase row inputs below
 * them; when it would cost more, those inputs are kept instead. Either way the count stays
 * within the legality check's (rr__layout_kept_inputs), which budgets the storage. */
static int choose_kept(rr__cu_emitter *em)
{
	const rr_kernel *kernel = em->kernel;
	unsigned char mark[RR_MAX_NODES], below[RR_MAX_NODES], multi[RR_MAX_NODES] = {0};
	int phases_read[RR_MAX_IO];
	rr__layout_kept_inputs(kernel, phases_read);
	for (int id = 0; id < kernel->n_nodes; id++) {
		const rr__node *node = &kernel->nodes[id];
		multi[id] =
		    node->op == RR_OP_INPUT && em->rowdep[id] && phases_read[node->input] > 1;
	}
	memset(em->kept, 0, (size_t)kernel->n_nodes);
	for (int phase = 2; phase <= em->phases; phase++) {
		mark_roots(em, phase, mark);
		for (int id = kernel->n_nodes - 1; id >= 0; id--) {
			const rr__node *node = &kernel->nodes[id];
			if (!mark[id] || node->shape != RR_SHAPE_ELEM)
				continue;
			if (kernel->analysis.level[id] == 0 && em->rowdep[id]) {
				memset(below, 0, (size_t)kernel->n_nodes);
				below[id] = 1;
				mark_down(kernel, below, NULL);
				for (int k = 0; k <= id && !em->kept[id]; k++)
					em->kept[id] = below[k] && multi[k];
				if (em->kept[id])
					continue;
			}
			if (is_elem(kernel, node->a))
				mark[node->a] = 1;
			if (is_elem(kernel, node->b))
				mark[node->b] = 1;
		}
	}
	memcpy(below, em->kept, (size_t)kernel->n_nodes);
	mark_down(kernel, below, NULL);
	int values = 0, inputs = 0;
	for (int id = 0; id < kernel->n_nodes; id++) {
		values += em->kept[id];
		inputs += below[id] && multi[id];
	}
	if (inputs < values)
		for (int id = 0; id < kernel->n_nodes; id++)
			em->kept[id] = below[id] && multi[id];
	int count = 0;
	for (int id = 0; id < kernel->n_nodes; id++)
		em->keep_ordinal[id] = em->kept[id] ? count++ : -1;
	return count;
}

/* Row inputs the legality check counts as kept (it budgets registers and shared memory by
 * them; the emitter may keep fewer values, never more). */
static int layout_kept(const rr_kernel *kernel)
{
	int phases_read[RR_MAX_IO];
	return rr__layout_kept_inputs(kernel, phases_read);
}

static int lowest_bit_bytes(int64_t bytes)
{
	int a = 16;
	while (a > 1 && bytes % a != 0)
		a /= 2;
	return a;
}

static void name_entries(rr__cu_emitter *em)
{
	char base[80];
	size_t n = 0;
	for (const char *p = em->kernel->name; *p && n + 1 < sizeof base; p++) {
		char ch = *p;
		int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		         (ch >= '0' && ch <= '9');
		base[n++] = ok ? ch : '_';
	}
	base[n] = 0;
	snprintf(em->geo.entry_vec, sizeof em->geo.entry_vec, "rr_%s_vec", base);
	snprintf(em->geo.entry_scalar, sizeof em->geo.entry_scalar, "rr_%s_scalar", base);
}

static rr_status plan_emitter(rr__cu_emitter *em, const rr_program *program,
                              const rr__target *target)
{
	const rr_kernel *kernel = program->kernel;
	const rr_layout *l = &program->layout;
	if (rr_dtype_check_element(program->dtype) != RR_OK)
		return rr__fail_context(RR_ERR_INVALID_ARG, "the cuda emitter");
	if (!kernel->analysis.level)
		return rr__fail(RR_ERR_INVALID_ARG, "kernel '%s' has not been analysed",
		                kernel->name);
	if (l->workers_per_row < 1 || l->vec < 1 || l->unroll < 1 || l->rows_per_group < 1 ||
	    l->blocks_per_row < 1 || program->cols < 1 || program->cols > (1 << 30))
		return rr__fail(
		    RR_ERR_INVALID_ARG,
		    "the cuda emitter needs a complete layout and 1 <= N <= 2^30 (got N = "
		    "%lld)",
		    (long long)program->cols);
	em->kernel = kernel;
	em->layout = l;
	em->target = target;
	em->dtype = program->dtype;
	em->W = l->workers_per_row;
	em->V = l->vec;
	em->U = l->unroll;
	em->R = l->rows_per_group;
	em->C = l->blocks_per_row;
	em->n = program->cols;
	em->rounds = kernel->analysis.rounds;
	for (int j = 0; j < kernel->n_outputs; j++)
		em->row_outputs += kernel->outputs[j].kind == RR_KIND_ROW;
	em->phases = em->rounds + (em->row_outputs > 0);
	em->warps = em->W > 32 ? em->W / 32 : 1;
	em->n_offsets = rr__tree_offsets(em->W, 32, em->offsets);
	for (int id = 0; id < kernel->n_nodes; id++) {
		em->red_slot[id] = -1;
		if (!rr__reduced_in(kernel, id, kernel->analysis.level[id]))
			continue;
		em->red_slot[id] = em->red_slots;
		em->red_slots += kernel->analysis.online_partner[id] >= 0 ? 2 : 1;
	}
	mark_row_dependence(em);

	rr__cuda_geometry *g = &em->geo;
	g->threads = em->W * em->R;
	g->rows_per_group = em->R;
	g->blocks_per_row = em->C;
	g->persistent = l->grid == RR_GRID_PERSISTENT;
	g->elem_bytes = (int)rr_dtype_size(em->dtype);
	/* Segments are whole 16-byte units and whole packs, so every block's packs stay aligned. */
	g->segment = rr__block_segment(em->n, em->C, em->V, g->elem_bytes);
	int a = lowest_bit_bytes((int64_t)em->V * g->elem_bytes);
	int by_row = lowest_bit_bytes(em->n * g->elem_bytes);
	int by_segment = lowest_bit_bytes(g->segment * g->elem_bytes);
	a = a < by_row ? a : by_row;
	a = a < by_segment ? a : by_segment;
	g->access_bytes = a > g->elem_bytes ? a : g->elem_bytes;
	g->has_vec_entry = g->access_bytes > g->elem_bytes;

	int kept = l->storage == RR_STORAGE_REREAD ? 0 : choose_kept(em);
	if (kept == 0)
		memset(em->kept, 0, (size_t)kernel->n_nodes);
	g->kept_values = kept;
	int64_t slots = rr__slot_bound(g->segment, em->W, em->V);
	if (kept == 0)
		g->keep = RR_CUDA_KEEP_NONE;
	else if (l->storage == RR_STORAGE_SMEM)
		g->keep = RR_CUDA_KEEP_SMEM;
	else if (l->storage == RR_STORAGE_CLUSTER &&
	         slots * layout_kept(kernel) > rr__register_slots(target, l))
		g->keep = RR_CUDA_KEEP_SMEM; /* the legality check's rule, so the limits agree */
	else
		g->keep = RR_CUDA_KEEP_REGS;
	int64_t chunks = (g->segment + (int64_t)em->W * em->V - 1) / ((int64_t)em->W * em->V);
	g->dynamic_smem =
	    g->keep == RR_CUDA_KEEP_SMEM ? (int64_t)kept * chunks * em->V * g->threads * 4 : 0;
	g->static_smem = (em->W > 32 ? 2 * em->red_slots * em->R * em->warps * 4 : 0) +
	                 (em->C > 1 ? 2 * em->red_slots * 4 : 0);
	name_entries(em);
	return RR_OK;
}

int rr__cuda_vec_allowed(const rr_program *program, const rr__cuda_geometry *geometry,
                         const rr_arg *inputs, void *const *outputs)
{
	const rr_kernel *kernel = program->kernel;
	uintptr_t bytes = (uintptr_t)geometry->access_bytes;
	if (!geometry->has_vec_entry)
		return 0;
	for (int k = 0; k < kernel->n_inputs; k++) {
		rr_kind kind = kernel->inputs[k].kind;
		if ((kind == RR_KIND_ROW || kind == RR_KIND_COL) &&
		    (uintptr_t)inputs[k].data % bytes)
			return 0;
	}
	for (int j = 0; j < kernel->n_outputs; j++)
		if (kernel->outputs[j].kind == RR_KIND_ROW && (uintptr_t)outputs[j] % bytes)
			return 0;
	return 1;
}

rr_status rr__cuda_geometry_of(const rr_program *program, const rr__target *target,
                               rr__cuda_geometry *out)
{
	rr__cu_emitter *em = calloc(1, sizeof *em);
	if (!em)
		return rr__fail(RR_ERR_NOMEM, "out of memory planning a CUDA kernel");
	rr_status status = plan_emitter(em, program, target);
	if (status == RR_OK)
		*out = em->geo;
	free(em);
	return status;
}

/* ---------------------------------------------------------------- header comment */

static const char *keep_name(rr__cuda_keep keep)
{
	switch (keep) {
	case RR_CUDA_KEEP_NONE:
		return "nothing kept (one phase, or re-read)";
	case RR_CUDA_KEEP_REGS:
		return "registers (private arrays, unrolled indices)";
	case RR_CUDA_KEEP_SMEM:
		return "dynamic shared memory (each worker its own packs)";
	}
	return "?";
}

static void emit_header(rr__cu_emitter *em)
{
	const rr_kernel *kernel = em->kernel;
	const rr__cuda_geometry *g = &em->geo;
	char plan[256], arch[32];
	rr_layout_format(em->layout, plan, sizeof plan);
	rr__target_cuda_arch_name(em->target, arch, sizeof arch);
	rr__cu_line(em, 0,
	            "/* rowreduce: generated CUDA C for the cuda backend (%s). Regenerate "
	            "rather than edit.",
	            arch);
	rr__cu_line(em, 0, " *");
	rr__cu_line(em, 0, " * kernel   %s, N = %lld", kernel->name, (long long)em->n);
	rr__cu_line(em, 0, " * dtype    %s in memory, f32 arithmetic and accumulation",
	            rr_dtype_name(em->dtype));
	rr__cu_line(em, 0, " * plan     %s", plan);
	rr__cu_line(em, 0, " * block    %d threads = W %d x R %d; %s grid%s", g->threads, em->W,
	            em->R, g->persistent ? "persistent" : "one block per row group",
	            em->C > 1 ? "; a cluster of C blocks per row" : "");
	if (em->C > 1)
		rr__cu_line(em, 0,
		            " * segment  %lld elements per block (block r of the cluster owns "
		            "[r * SEG, r * SEG + SEG))",
		            (long long)g->segment);
	rr__cu_line(em, 0,
	            " * map      element i = (chunk * W + worker) * V + e, private slot = "
	            "chunk * V + e;");
	rr__cu_line(em, 0, " *          complete packs unguarded, one guarded partial pack");
	rr__cu_line(em, 0,
	            " * access   %d bytes per global access in %s, element by element in "
	            "%s",
	            g->access_bytes, g->entry_vec, g->entry_scalar);
	rr__buf_printf(em->out, " * tree     xor offsets");
	for (int k = 0; k < em->n_offsets; k++)
		rr__buf_printf(em->out, " %d", em->offsets[k]);
	rr__cu_line(em, 0, "%s (shuffles below 32, shared memory across warps%s)",
	            em->n_offsets ? "" : " none", em->C > 1 ? ", then the cluster" : "");
	rr__cu_line(em, 0, " * rounds   %d", em->rounds);
	rr__emit_comment_reductions(em->out, kernel);
	rr__cu_line(em, 0, " * storage  %s", keep_name(g->keep));
	for (int id = 0; id < kernel->n_nodes; id++)
		if (em->kept[id] && g->keep != RR_CUDA_KEEP_NONE)
			rr__emit_comment_expr(em->out, kernel, "  kept: ", id);
	rr__emit_comment_kernel_text(em->out, kernel);
}

/* ---------------------------------------------------------------- prelude */

/* The blocks per SM that __launch_bounds__ asks ptxas to fit: without it ptxas may aim for
 * full occupancy and spill. The cap leaves room for the kept slots, one phase's loads in
 * flight (the unrolled loops let ptxas hoist all of a worker's loads) and a working set. */
static int min_blocks(const rr__cu_emitter *em)
{
	const rr__cuda_geometry *g = &em->geo;
	int64_t slots = rr__slot_bound(g->segment, em->W, em->V);
	int64_t kept = g->keep == RR_CUDA_KEEP_REGS ? g->kept_values : 0;
	int inputs = 0;
	for (int i = 0; i < em->kernel->n_inputs; i++)
		inputs += em->kernel->inputs[i].kind == RR_KIND_ROW ||
		          em->kernel->inputs[i].kind == RR_KIND_COL;
	/* Kept slots and one value derived from each (LayerNorm's x - mean), the loads of U
	 * chunks of every input, and a working set: ptxas spilled with less (bench/NOTES.md). */
	int64_t wanted = 48 + 2 * slots * kept + (int64_t)em->V * em->U * inputs;
	int64_t blocks = 65536 / ((int64_t)g->threads * wanted);
	int64_t most = 2048 / g->threads;
	if (blocks > most)
		blocks = most;
	if (blocks > 32)
		blocks = 32;
	return blocks < 1 ? 1 : (int)blocks;
}

static void emit_constants(rr__cu_emitter *em)
{
	const rr__cuda_geometry *g = &em->geo;
	int64_t chunks = (g->segment + (int64_t)em->W * em->V - 1) / ((int64_t)em->W * em->V);
	rr__device_emit(em->out, "limits.cuh", "limits");
	rr__cu_line(em, 0, "constexpr int N = %lld;  /* the row length, baked in */",
	            (long long)em->n);
	rr__cu_line(em, 0, "constexpr int W = %d;  /* workers per row */", em->W);
	rr__cu_line(em, 0,
	            "constexpr int V = %d;  /* consecutive elements per worker access (a pack) */",
	            em->V);
	rr__cu_line(em, 0, "constexpr int U = %d;  /* chunks whose loads are issued together */",
	            em->U);
	rr__cu_line(em, 0, "constexpr int R = %d;  /* rows per block */", em->R);
	rr__cu_line(em, 0, "constexpr int C = %d;  /* blocks per row (a cluster when > 1) */",
	            em->C);
	rr__cu_line(em, 0, "constexpr int THREADS = W * R;");
	rr__cu_line(em, 0,
	            "constexpr int MIN_BLOCKS = %d;  /* resident blocks per SM the register "
	            "cap allows */",
	            min_blocks(em));
	rr__cu_line(em, 0,
	            "constexpr int WARPS = %d;  /* warps per row in the shared-memory stage */",
	            em->warps);
	if (em->C > 1)
		rr__cu_line(em, 0, "constexpr int SEG = %lld;  /* elements per block of a row */",
		            (long long)g->segment);
	if (g->keep == RR_CUDA_KEEP_SMEM)
		rr__cu_line(em, 0,
		            "constexpr int KEEP_CHUNKS = %lld;  /* packs a worker keeps per "
		            "value */",
		            (long long)chunks);
	rr__cu_line(em, 0, "constexpr int RED_SLOTS = %d;  /* partials per row over all rounds */",
	            em->red_slots > 0 ? em->red_slots : 1);
	if (g->threads >= 32)
		rr__cu_line(em, 0,
		            "constexpr unsigned RR_MASK = 0xffffffffu;  /* lanes in shuffles */");
	else
		rr__cu_line(em, 0,
		            "constexpr unsigned RR_MASK = 0x%xu;  /* the block's %d lanes */",
		            (unsigned)((1ull << g->threads) - 1), g->threads);
	rr__buf_append(em->out, "\n", 1);
}

/* Conversions between the dtype in memory and f32 (device/io_*.cuh). */
static void emit_conversions(rr__cu_emitter *em)
{
	const char *file = em->dtype == RR_BF16  ? "io_bf16.cuh"
	                   : em->dtype == RR_F16 ? "io_f16.cuh"
	                                         : "io_f32.cuh";
	rr__device_emit(em->out, file, "io");
}

/* The word type of one access of `bytes`, and its members. */
static const char *access_type(int bytes)
{
	return bytes == 16 ? "uint4" : bytes == 8 ? "uint2" : bytes == 4 ? "unsigned" : "io_t";
}

static const char *word_member(int bytes, int k)
{
	static const char *const four[] = {".x", ".y", ".z", ".w"};
	return bytes >= 8 && k >= 0 && k < 4 ? four[k] : "";
}

/* The VEC branch of rr_load (store 0) or rr_store (store 1): V / per_access accesses of the
 * geometry's width, each split into 32-bit words of one f32 or two 16-bit elements. */
static void emit_vector_access(rr__cu_emitter *em, int store)
{
	int a = em->geo.access_bytes, es = em->geo.elem_bytes;
	int words = a / 4, per_access = a / es;
	if (words > 4) /* accesses are at most 16 bytes (uint4) */
		words = 4;
	rr__cu_line(em, 2, "#pragma unroll");
	rr__cu_line(em, 2, "for (int k = 0; k < V / %d; k++) {", per_access);
	if (store)
		rr__cu_line(em, 3, "%s w;", access_type(a));
	else
		rr__cu_line(em, 3, "const %s w = __ldg(reinterpret_cast<const %s *>(p) + k);",
		            access_type(a), access_type(a));
	for (int j = 0; j < words; j++) {
		const char *m = word_member(a, j);
		if (es == 4 && store)
			rr__cu_line(em, 3, "w%s = __float_as_uint(v[k * %d + %d]);", m, per_access,
			            j);
		else if (es == 4)
			rr__cu_line(em, 3, "v[k * %d + %d] = __uint_as_float(w%s);", per_access, j,
			            m);
		else if (store)
			rr__cu_line(em, 3, "w%s = rr_out2(v[k * %d + %d], v[k * %d + %d]);", m,
			            per_access, 2 * j, per_access, 2 * j + 1);
		else
			rr__cu_line(em, 3, "rr_in2(w%s, v[k * %d + %d], v[k * %d + %d]);", m,
			            per_access, 2 * j, per_access, 2 * j + 1);
	}
	if (store)
		rr__cu_line(em, 3, "reinterpret_cast<%s *>(p)[k] = w;", access_type(a));
	rr__cu_line(em, 2, "}");
}

/* rr_load (store 0) or rr_store (store 1) of one whole pack: the VEC branch where the
 * geometry has a vector entry, element by element otherwise. */
static void emit_pack_access(rr__cu_emitter *em, int store)
{
	rr__cu_line(em, 0, "template <bool VEC>");
	rr__cu_line(em, 0, "__device__ __forceinline__ void %s\n{",
	            store ? "rr_store(io_t *p, const float (&v)[V])"
	                  : "rr_load(float (&v)[V], const io_t *p)");
	if (em->geo.has_vec_entry) {
		rr__cu_line(em, 1, "if constexpr (VEC) {");
		emit_vector_access(em, store);
		rr__cu_line(em, 1, "} else {");
	} else {
		rr__cu_line(em, 1, "{");
	}
	rr__cu_line(em, 2, "#pragma unroll");
	rr__cu_line(em, 2, "for (int e = 0; e < V; e++)");
	rr__cu_line(em, 3, "%s", store ? "p[e] = rr_out(v[e]);" : "v[e] = rr_in(__ldg(p + e));");
	rr__cu_line(em, 1, "}\n}");
}

/* Pack loads and stores: VEC uses accesses of the geometry's width (the launcher picks VEC
 * only when every array is aligned to it); the scalar entry goes element by element. Inputs
 * are read through the read-only path. */
static void emit_access_helpers(rr__cu_emitter *em)
{
	rr__cu_line(em, 0, "/* One pack of V elements at p (VEC: %d-byte accesses). */",
	            em->geo.access_bytes);
	emit_pack_access(em, 0);
	emit_pack_access(em, 1);
	rr__device_emit(em->out, "pack_tail.cuh", "pack_tail");
}

/* Kept values in dynamic shared memory: pack c of kept value k of this thread, in units of
 * min(V, 4) floats laid out [k][c][unit][thread], so a warp's accesses are contiguous.
 * rr_keep_store (load 0) writes a pack's units, rr_keep_load (load 1) reads them back. */
static void emit_keep_access(rr__cu_emitter *em, int load, int unit)
{
	static const char *const member[] = {".x", ".y", ".z", ".w"};
	const char *type = unit == 4 ? "float4" : unit == 2 ? "float2" : "float";
	char at[128];
	snprintf(at, sizeof at, "((k * KEEP_CHUNKS + c) * (V / %d) + g) * THREADS + threadIdx.x",
	         unit);
	rr__cu_line(em, 0, "__device__ __forceinline__ void %s\n{",
	            load ? "rr_keep_load(float (&v)[V], const float *keep, int k, int c)"
	                 : "rr_keep_store(float *keep, int k, int c, const float (&v)[V])");
	rr__cu_line(em, 1, "#pragma unroll");
	rr__cu_line(em, 1, "for (int g = 0; g < V / %d; g++) {", unit);
	if (load) {
		rr__cu_line(em, 2, "const %s t = reinterpret_cast<const %s *>(keep)[%s];", type,
		            type, at);
		for (int j = 0; j < unit; j++)
			if (unit == 1)
				rr__cu_line(em, 2, "v[g] = t;");
			else if (j == 0)
				rr__cu_line(em, 2, "v[g * %d] = t%s;", unit, member[j]);
			else
				rr__cu_line(em, 2, "v[g * %d + %d] = t%s;", unit, j, member[j]);
	} else {
		rr__cu_line(em, 2, "%s *at = reinterpret_cast<%s *>(keep) + %s;", type, type, at);
		if (unit == 1) {
			rr__cu_line(em, 2, "*at = v[g];");
		} else {
			rr__buf_printf(em->out, "\t\t*at = make_float%d(v[g * %d]", unit, unit);
			for (int j = 1; j < unit; j++)
				rr__buf_printf(em->out, ", v[g * %d + %d]", unit, j);
			rr__buf_printf(em->out, ");\n");
		}
	}
	rr__cu_line(em, 1, "}\n}%s", load ? "\n" : "");
}

static void emit_keep_helpers(rr__cu_emitter *em)
{
	int unit = em->V < 4 ? em->V : 4;
	rr__cu_line(em, 0, "/* Kept packs in shared memory, [value][chunk][unit of %d][thread]. */",
	            unit);
	emit_keep_access(em, 0, unit);
	emit_keep_access(em, 1, unit);
}

static void emit_args_struct(rr__cu_emitter *em)
{
	const rr_kernel *kernel = em->kernel;
	rr__cu_line(em, 0,
	            "/* The launch arguments, in the kernel's input order, then its outputs. */");
	rr__cu_line(em, 0, "struct rr_args {");
	for (int k = 0; k < kernel->n_inputs; k++) {
		const rr__io *io = &kernel->inputs[k];
		const char *type = io->kind == RR_KIND_PARAM   ? "float "
		                   : io->kind == RR_KIND_INDEX ? "const long long *"
		                                               : "const io_t *";
		rr__cu_line(em, 1, "%sin%d; /* %s: %s */", type, k, io->name,
		            rr_kind_name(io->kind));
	}
	for (int j = 0; j < kernel->n_outputs; j++)
		rr__cu_line(em, 1, "io_t *out%d; /* %s: %s */", j, kernel->outputs[j].name,
		            rr_kind_name(kernel->outputs[j].kind));
	rr__cu_line(em, 0, "};\n");
}

/* ---------------------------------------------------------------- entries */

/* Row groups: blocks (clusters when C > 1) take groups group, group + step, ...; a persistent
 * grid has fewer blocks than groups, a rows grid one block (cluster) per group. */
/* Shared memory at file scope (one copy per block): the tree's scratch, the block's partials
 * that the cluster reads, and the kept packs (dynamic; an array in the host simulation). */
static void emit_shared(rr__cu_emitter *em, const char **red, const char **cl, const char **keep)
{
	const rr__cuda_geometry *g = &em->geo;
	if (em->W > 32 && em->red_slots > 0) {
		rr__cu_line(em, 0,
		            "__shared__ float rr_red[2 * RED_SLOTS * R * WARPS]; /* [parity][slot]"
		            "[row][warp] */");
		*red = "rr_red";
	}
	if (em->C > 1) {
		rr__cu_line(em, 0,
		            "__shared__ float rr_cl[2 * RED_SLOTS]; /* this block's partials, "
		            "[parity][slot] */");
		*cl = "rr_cl";
	}
	if (g->keep == RR_CUDA_KEEP_SMEM) {
		rr__cu_line(em, 0, "#if defined(__CUDA_ARCH__)");
		rr__cu_line(em, 0,
		            "extern __shared__ float4 rr_keep_smem[]; /* %lld bytes at launch */",
		            (long long)g->dynamic_smem);
		rr__cu_line(em, 0, "#else");
		rr__cu_line(em, 0, "float4 rr_keep_smem[%lld]; /* host simulation (tests) */",
		            (long long)(g->dynamic_smem + 15) / 16);
		rr__cu_line(em, 0, "#endif");
		*keep = "reinterpret_cast<float *>(rr_keep_smem)";
	}
	rr__buf_append(em->out, "\n", 1);
}

static void emit_main(rr__cu_emitter *em)
{
	const rr__cuda_geometry *g = &em->geo;
	const char *red = "nullptr", *cl = "nullptr", *keep = "nullptr";
	emit_shared(em, &red, &cl, &keep);
	rr__cu_line(em, 0, "template <bool VEC>");
	rr__cu_line(em, 0,
	            "__device__ __forceinline__ void rr_main(const rr_args &a, const long long "
	            "rows)\n{");
	rr__cu_line(em, 1, "const int worker = threadIdx.x %% W;");
	rr__cu_line(em, 1, "const int rig = threadIdx.x / W; /* row in group */");
	if (em->C > 1)
		rr__cu_line(em, 1, "const int rank = (int)rr_cluster_rank();");
	rr__cu_line(em, 1, "const long long step = gridDim.x / C;");
	rr__cu_line(em, 1, "int parity = 0; /* scratch slots alternate between groups */");
	rr__cu_line(em, 1,
	            "for (long long group = blockIdx.x / C; group * R < rows; group += step) {");
	rr__cu_line(em, 2, "const long long wanted = group * R + rig;");
	rr__cu_line(em, 2, "const bool live = wanted < rows;");
	rr__cu_line(em, 2,
	            "const long long row = live ? wanted : rows - 1; /* idle rows compute, never "
	            "store */");
	const char *tail = "(a, row, live, worker, rig";
	if (em->C == 1) {
		rr__cu_line(em, 2, "rr_row<VEC, N>%s, 0, parity, %s, %s, %s);", tail, red, cl,
		            keep);
	} else {
		int64_t full = em->n / g->segment, last = em->n % g->segment;
		rr__cu_line(em, 2, "if (rank < %lld)", (long long)full);
		rr__cu_line(em, 3, "rr_row<VEC, SEG>%s, rank * SEG, parity, %s, %s, %s);", tail,
		            red, cl, keep);
		if (last > 0 && full < em->C) {
			rr__cu_line(em, 2, "else if (rank == %lld)", (long long)full);
			rr__cu_line(em, 3, "rr_row<VEC, %lld>%s, rank * SEG, parity, %s, %s, %s);",
			            (long long)last, tail, red, cl, keep);
		}
		if (full + (last > 0) < em->C) {
			rr__cu_line(em, 2, "else /* beyond the row: partials are identities */");
			rr__cu_line(em, 3, "rr_row<VEC, 0>%s, N, parity, %s, %s, %s);", tail, red,
			            cl, keep);
		}
	}
	rr__cu_line(em, 2, "parity ^= 1;");
	rr__cu_line(em, 1, "}");
	if (em->C > 1)
		rr__cu_line(
		    em, 1,
		    "rr_cluster_sync(); /* no block leaves while others read its partials */");
	rr__cu_line(em, 0, "}\n");
}

static void emit_entry(rr__cu_emitter *em, const char *name, int vec)
{
	const rr_kernel *kernel = em->kernel;
	rr__buf_printf(em->out,
	               "extern \"C\" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS) "
	               "%s(",
	               name);
	for (int k = 0; k < kernel->n_inputs; k++) {
		rr_kind kind = kernel->inputs[k].kind;
		rr__buf_printf(em->out, "%s in%d, ",
		               kind == RR_KIND_PARAM   ? "const float"
		               : kind == RR_KIND_INDEX ? "const long long *__restrict__"
		                                       : "const io_t *__restrict__",
		               k);
	}
	for (int j = 0; j < kernel->n_outputs; j++)
		rr__buf_printf(em->out, "io_t *__restrict__ out%d, ", j);
	rr__buf_printf(em->out, "const long long rows)\n{\n\tconst rr_args a = {");
	for (int k = 0; k < kernel->n_inputs; k++)
		rr__buf_printf(em->out, "%sin%d", k ? ", " : "", k);
	for (int j = 0; j < kernel->n_outputs; j++)
		rr__buf_printf(em->out, "%sout%d", kernel->n_inputs + j ? ", " : "", j);
	rr__buf_printf(em->out, "};\n\trr_main<%s>(a, rows);\n}\n", vec ? "true" : "false");
}

/* For the tests' host simulation: the entry with the driver's parameter array. */
static void emit_simulation_entry(rr__cu_emitter *em)
{
	const rr_kernel *kernel = em->kernel;
	int n = 0;
	rr__cu_line(em, 0, "#if !defined(__CUDA_ARCH__)");
	rr__cu_line(em, 0, "extern \"C\" void rr_sim_entry(int vec, void **params)\n{");
	rr__buf_printf(em->out, "\tconst rr_args a = {");
	for (int k = 0; k < kernel->n_inputs; k++, n++) {
		rr_kind kind = kernel->inputs[k].kind;
		rr__buf_printf(em->out, "%s*(%s *)params[%d]", n ? ", " : "",
		               kind == RR_KIND_PARAM   ? "const float"
		               : kind == RR_KIND_INDEX ? "const long long *const"
		                                       : "const io_t *const",
		               n);
	}
	for (int j = 0; j < kernel->n_outputs; j++, n++)
		rr__buf_printf(em->out, "%s*(io_t *const *)params[%d]", n ? ", " : "", n);
	rr__buf_printf(em->out, "};\n");
	rr__cu_line(em, 1, "const long long rows = *(const long long *)params[%d];", n);
	if (em->geo.has_vec_entry)
		rr__cu_line(em, 1, "if (vec)\n\t\trr_main<true>(a, rows);\n\telse");
	rr__cu_line(em, 1, "%srr_main<false>(a, rows);",
	            em->geo.has_vec_entry ? "\t" : "(void)vec, ");
	rr__cu_line(em, 0, "}");
	rr__cu_line(em, 0, "#endif");
}

rr_status rr__cuda_emit(const rr_program *program, const rr__target *target, rr__buf *out)
{
	rr__cu_emitter *em = calloc(1, sizeof *em);
	if (!em)
		return rr__fail(RR_ERR_NOMEM, "out of memory emitting CUDA C");
	rr_status status = plan_emitter(em, program, target);
	if (status != RR_OK) {
		free(em);
		return status;
	}
	em->out = out;
	emit_header(em);
	emit_constants(em);
	emit_conversions(em);
	emit_access_helpers(em);
	rr__device_emit(em->out, "online.cuh", "online");
	if (em->C > 1)
		rr__device_emit(em->out, "cluster.cuh", "cluster");
	if (em->geo.keep == RR_CUDA_KEEP_SMEM)
		emit_keep_helpers(em);
	emit_args_struct(em);
	rr__cu_emit_row(em);
	emit_main(em);
	if (em->geo.has_vec_entry)
		emit_entry(em, em->geo.entry_vec, 1);
	emit_entry(em, em->geo.entry_scalar, 0);
	emit_simulation_entry(em);
	int failed = out->failed;
	char name[RR_MAX_NAME];
	snprintf(name, sizeof name, "%s", program->kernel->name);
	free(em);
	if (failed)
		return rr__fail(RR_ERR_NOMEM, "out of memory emitting CUDA C for kernel '%s'",
		                name);
	return RR_OK;
}

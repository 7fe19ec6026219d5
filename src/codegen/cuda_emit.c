/* The CUDA C emitter's frame: the request read into the emitter (what is kept and where, the
 * geometry: all from the plan's realisation), the header comment, the prelude of conversions
 * and access helpers, and the entries that loop over row groups. The per-row code is in
 * cuda_emit_row.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "codegen/common.h"
#include "codegen/cuda_emit.h"
#include "codegen/cuda_emit_grid.h"
#include "codegen/cuda_emit_row.h"
#include "codegen/device_files.h"

/* ---------------------------------------------------------------- plan bookkeeping */

/* Whether col inputs are read by the aligned blocks that cover a pack, shifted into place
 * (device/pack_tail.cuh, rr_load_shifted): the rows have heads and N·size is not a multiple of
 * the access width, so a row's packs of a col input do not share its body's alignment; and a
 * block holds one row. In blocks of many short rows the col vector stays in L1, its element
 * loads hit there, and the shifts cost more issue slots than they save: on the H200 (bench/
 * NOTES.md, session 7) blocks of one row ran 0.71-1.07 of the element loads' time (geomean
 * 0.96 over 28 rows), blocks of R > 1 rows 0.89-1.41 (geomean 1.10 over 14). */
static int shifted_cols_of(const rr__cu_emitter *em)
{
	int cols = 0;
	for (int k = 0; k < em->kernel->n_inputs; k++)
		cols |= em->kernel->inputs[k].kind == RR_KIND_COL;
	return cols && em->geo->head_slots > 0 && !em->geo->cols_vec && em->R == 1;
}

static rr_status plan_emitter(rr__cu_emitter *em, const rr__emit_request *req)
{
	const rr_kernel *kernel = req->kernel;
	const rr_layout *l = req->layout;
	const rr__realisation *r = req->realisation;
	if (rr_dtype_check_element(req->dtype) != RR_OK)
		return rr__fail_context(RR_ERR_INVALID_ARG, "the cuda emitter");
	if (!kernel->analysis.level)
		return rr__fail(RR_ERR_INVALID_ARG, "kernel '%s' has not been analysed",
		                kernel->name);
	if (l->workers_per_row < 1 || l->vec < 1 || l->unroll < 1 || l->rows_per_group < 1 ||
	    l->blocks_per_row < 1 || req->cols < 1 || req->cols > (1 << 30) || !r)
		return rr__fail(RR_ERR_INVALID_ARG,
		                "the cuda emitter needs a complete, realised layout and 1 <= N <= "
		                "2^30 (got N = "
		                "%lld)",
		                (long long)req->cols);
	em->kernel = kernel;
	em->layout = l;
	em->target = req->target;
	em->dtype = req->dtype;
	em->geo = r;
	em->W = l->workers_per_row;
	em->V = l->vec;
	em->U = l->unroll;
	em->R = l->rows_per_group;
	em->C = l->blocks_per_row;
	em->n = req->cols;
	em->rounds = r->rounds;
	em->row_outputs = r->row_outputs;
	em->phases = r->phases;
	em->warps = r->warps;
	em->offsets = r->tree_offsets;
	em->n_offsets = r->n_tree_offsets;
	em->red_slots = rr__reduction_slots(kernel, em->red_slot);
	em->shift = rr__variance_shift_of(r->grid_shift ? kernel : NULL);
	em->t_slot = em->red_slots; /* after the kernel's own slots (realise_smem counts both) */
	em->red_slots += r->grid_shift ? RR_GRID_SHIFT_SLOTS : 0;
	for (int id = 0; id < kernel->n_nodes; id++) {
		em->keep_ordinal[id] = rr__kept_ordinal(r, id);
		em->kept[id] = em->keep_ordinal[id] >= 0;
	}
	/* A flat row (rr__realisation.flat: a launch of a few rows, waiting on its memory trips):
	 * every load of a phase is issued before any is used, so a short row costs one memory
	 * trip a phase where the head, each group of U chunks and the partial pack would take
	 * one each, the head's kept values stay in registers with the body's, and the col
	 * inputs of later phases come with round 1's loads. Blocks of many rows are left alone
	 * (there the loads held at once cost registers, hence occupancy: 65535x127 up to 1.6×
	 * slower in bench/NOTES.md, and the other rows hide the trips), but for rows of a few
	 * elements a thread (rr__realisation_short_rows), whose few loads cost no block. */
	em->short_rows = rr__realisation_short_rows(r);
	em->flat = r->flat || em->short_rows;
	em->shifted_cols = shifted_cols_of(em);
	/* where the realisation has copies (16-bit rows with a head, cols not at the body's
	 * alignment: rr__realise_with), every block reads them, of one row or many; without,
	 * blocks of one row read shifted (above), blocks of many element by element (L1 holds
	 * their col vector) */
	em->col_copies = r->col_copies > 0;
	return RR_OK;
}

/* ---------------------------------------------------------------- header comment */

static const char *keep_name(rr__keep_place keep, int raw)
{
	switch (keep) {
	case RR_KEEP_NONE:
		return "nothing kept (one phase, or re-read)";
	case RR_KEEP_REGS:
		return "registers (private arrays, unrolled indices)";
	case RR_KEEP_SMEM:
		return raw ? "dynamic shared memory as stored, filled by asynchronous copies (each "
		             "worker its own packs)"
		           : "dynamic shared memory (each worker its own packs)";
	}
	return "?";
}

static void emit_header(rr__cu_emitter *em)
{
	const rr_kernel *kernel = em->kernel;
	const rr__realisation *g = em->geo;
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
	            g->grid_split ? "; C co-resident blocks per row (cooperative launch)"
	            : em->C > 1   ? "; a cluster of C blocks per row"
	                          : "");
	if (em->C > 1)
		rr__cu_line(em, 0,
		            " * segment  %lld elements per block (block r of the %s owns "
		            "[r * SEG, r * SEG + SEG))",
		            (long long)g->segment, g->grid_split ? "row's group" : "cluster");
	if (g->head_slots > 0) {
		rr__cu_line(em, 0,
		            " * map      head: the h < %d elements before the row's first %d-byte "
		            "boundary (of its first",
		            g->head_align, g->access_bytes);
		rr__cu_line(em, 0,
		            " *          row array): element j = t * W + W - 1 - worker, t < HS = "
		            "%d, %s;",
		            g->head_slots,
		            em->flat && g->keep == RR_KEEP_REGS ? "kept in registers"
		                                                : "never kept");
		rr__cu_line(
		    em, 0,
		    " *          body: element i = h + (chunk * W + worker) * V + e, private "
		    "slot = chunk * V + e;");
	} else {
		rr__cu_line(em, 0,
		            " * map      element i = (chunk * W + worker) * V + e, private slot = "
		            "chunk * V + e;");
	}
	rr__cu_line(em, 0, " *          complete packs unguarded, one guarded partial pack");
	if (em->flat) {
		rr__cu_line(em, 0,
		            " * loads    flat: every load of a phase is issued before any is used "
		            "(%s);",
		            em->short_rows ? "rows of a few elements a thread"
		                           : "one row a block, at most U packs a worker");
		rr__cu_line(em, 0, " *          col inputs of every phase come with round 1's");
	}
	if (em->short_rows && g->row_outputs > 0)
		rr__cu_line(em, 0,
		            " * stores   the row outputs' elements predicated on the row's being "
		            "live (rr_store_live)");
	if (g->has_aligned_entry)
		rr__cu_line(em, 0,
		            " * access   %d bytes per global access in %s (rows on a boundary) and "
		            "%s, element by element in %s",
		            g->access_bytes, g->entry_vec, g->entry_head, g->entry_scalar);
	else if (em->shifted_cols) {
		rr__cu_line(em, 0,
		            " * access   %d bytes per global access in %s (col inputs: the aligned "
		            "blocks that cover a",
		            g->access_bytes, g->entry_head);
		rr__cu_line(em, 0,
		            " *          pack, shifted into place: rr_load_shifted), element by "
		            "element in %s",
		            g->entry_scalar);
	} else if (g->has_vec_entry)
		rr__cu_line(em, 0,
		            " * access   %d bytes per global access in %s (col inputs element by "
		            "element), element by element in %s",
		            g->access_bytes, g->entry_head, g->entry_scalar);
	else
		rr__cu_line(em, 0,
		            " * access   %d bytes per global access in %s, element by element",
		            g->access_bytes, g->entry_scalar);
	rr__buf_printf(em->out, " * tree     xor offsets");
	for (int k = 0; k < em->n_offsets; k++)
		rr__buf_printf(em->out, " %d", em->offsets[k]);
	rr__cu_line(em, 0, "%s (shuffles below 32, shared memory across warps%s)",
	            em->n_offsets ? "" : " none",
	            g->grid_split ? ", then the grid's blocks through the workspace"
	            : em->C > 1   ? ", then the cluster"
	                          : "");
	rr__cu_line(em, 0, " * rounds   %d", em->rounds);
	rr__emit_comment_reductions(em->out, kernel);
	if (em->shift.sq >= 0)
		rr__cu_line(em, 0,
		            " *   one grid barrier for both: each block sums round 2 about its own "
		            "mean, combined exactly after it (RR_GRID_SHIFT=0: two)");
	rr__cu_line(em, 0, " * storage  %s", keep_name(g->keep, g->keep_raw));
	for (int id = 0; id < kernel->n_nodes; id++)
		if (em->kept[id] && g->keep != RR_KEEP_NONE)
			rr__emit_comment_expr(em->out, kernel, "  kept: ", id);
	rr__emit_comment_kernel_text(em->out, kernel);
}

/* ---------------------------------------------------------------- prelude */

static void emit_constants(rr__cu_emitter *em)
{
	const rr__realisation *g = em->geo;
	int64_t chunks = g->chunks;
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
	int raised = g->min_blocks != g->min_blocks_capped;
	/* The entry with a head reading the col copies has a bound of its own (realise.c), the
	 * scalar entry keeps the shifted one: where ptxas spills in one, the backend's second
	 * compile caps that one alone (a shared bound let layernorm bf16 512x32003's scalar entry
	 * take the copies' entry back to 128 registers, 0.96 of the shifted loads' time against
	 * 0.79). */
	const char *headed = em->col_copies ? "MIN_BLOCKS_SCALAR" : "MIN_BLOCKS_HEAD";
	if (raised)
		rr__cu_line(em, 0,
		            "#ifndef RR_MIN_BLOCKS_CAPPED  /* defined by the backend's second "
		            "compile where ptxas spills at these */");
	rr__cu_line(em, 0, "constexpr int MIN_BLOCKS = %d;  /* resident blocks per SM %s */",
	            g->min_blocks,
	            !raised           ? "the register cap allows"
	            : g->grid_split ? "that hold the grid's row groups at once"
	                            : "that keep 64 KB of rows in flight");
	if (g->head_slots > 0)
		rr__cu_line(em, 0,
		            "constexpr int %s = %d;  /* the same for the entries with "
		            "a head */",
		            headed, g->min_blocks_head_shifted);
	if (raised) {
		rr__cu_line(em, 0, "#else");
		rr__cu_line(
		    em, 0,
		    "constexpr int MIN_BLOCKS = %d;  /* resident blocks per SM the register "
		    "cap allows */",
		    g->min_blocks_capped);
		if (g->head_slots > 0)
			rr__cu_line(em, 0, "constexpr int %s = %d;", headed,
			            g->min_blocks_head_capped);
		rr__cu_line(em, 0, "#endif");
	}
	if (em->col_copies) {
		rr__cu_line(em, 0,
		            "#ifndef RR_HEAD_CAPPED  /* defined by the backend's second compile "
		            "where ptxas spills in the entry with a head at this */");
		rr__cu_line(em, 0,
		            "constexpr int MIN_BLOCKS_HEAD = %d;  /* the entry with a head, its "
		            "col inputs from the copies */",
		            g->min_blocks_head);
		rr__cu_line(em, 0, "#else");
		rr__cu_line(em, 0, "constexpr int MIN_BLOCKS_HEAD = MIN_BLOCKS_SCALAR;");
		rr__cu_line(em, 0, "#endif");
	}
	if (g->head_slots > 0) {
		rr__cu_line(em, 0,
		            "constexpr int U_HEAD = %d;  /* U of the vector entry with a head (the "
		            "order of a worker's adds does not depend on U) */",
		            rr__realisation_head_unroll(em->geo));
	}
	rr__cu_line(em, 0,
	            "constexpr int WARPS = %d;  /* warps per row in the shared-memory stage */",
	            em->warps);
	if (em->C > 1)
		rr__cu_line(em, 0, "constexpr int SEG = %lld;  /* elements per block of a row */",
		            (long long)g->segment);
	rr__cu_emit_grid_constants(em);
	if (g->keep == RR_KEEP_SMEM)
		rr__cu_line(em, 0,
		            "constexpr int KEEP_CHUNKS = %lld;  /* packs a worker keeps per "
		            "value */",
		            (long long)chunks);
	if (g->head_slots > 0) {
		rr__cu_line(em, 0,
		            "constexpr int HEAD_BYTES = %d;  /* a row's head runs up to its first "
		            "boundary of this */",
		            g->access_bytes);
		rr__cu_line(em, 0,
		            "constexpr int HS = %d;  /* head elements per worker at most: "
		            "ceil((HEAD_BYTES / size - 1) / W) */",
		            g->head_slots);
		rr__cu_line(em, 0,
		            "constexpr int HEAD_MAX = %d;  /* the longest head, in elements */",
		            g->head_align - 1);
		if (em->shifted_cols)
			rr__cu_line(
			    em, 0,
			    "constexpr bool COLS_VEC = false;  /* col inputs do not share the "
			    "body's alignment: rr_load_shifted */");
		else
			rr__cu_line(em, 0,
			            "constexpr bool COLS_VEC = %s;  /* col inputs share the body's "
			            "alignment (N * size %% HEAD_BYTES == 0) */",
			            g->cols_vec ? "true" : "false");
		if (em->col_copies) {
			rr__cu_line(em, 0,
			            "constexpr int COL_PHASES = %d;  /* copies of a col input: one a "
			            "phase */",
			            g->head_align);
			rr__cu_line(em, 0,
			            "constexpr long long COL_STRIDE = %lld;  /* elements of one copy */",
			            (long long)g->col_copy_stride);
		}
	}
	rr__cu_line(em, 0, "constexpr int RED_SLOTS = %d;  /* partials per row over all rounds */",
	            em->red_slots > 0 ? em->red_slots : 1);
	if (rr__cu_mailbox(em))
		rr__cu_line(em, 0,
		            "constexpr int MBARS = %d;  /* the mailbox's barriers a parity: one a "
		            "round */",
		            em->rounds > 0 ? em->rounds : 1);
	if (g->threads >= 32)
		rr__cu_line(em, 0,
		            "constexpr unsigned RR_MASK = 0xffffffffu;  /* lanes in shuffles */");
	else
		rr__cu_line(em, 0,
		            "constexpr unsigned RR_MASK = 0x%xu;  /* the block's %d lanes */",
		            (unsigned)((1ull << g->threads) - 1), g->threads);
	rr__buf_append(em->out, "\n", 1);
}

/* The device file of the dtype's conversions. */
static const char *io_file(const rr__cu_emitter *em)
{
	return em->dtype == RR_BF16  ? "io_bf16.cuh"
	       : em->dtype == RR_F16 ? "io_f16.cuh"
	                             : "io_f32.cuh";
}

/* Conversions between the dtype in memory and f32 (device/io_*.cuh). */
static void emit_conversions(rr__cu_emitter *em)
{
	rr__device_emit(em->out, io_file(em), "io");
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

/* The conversions between an access `w` of `bytes` (its `words` 32-bit words, each one f32 or
 * two 16-bit elements) and the pack's values v[base + i]: into w (store 1) or out of it. */
static void emit_word_moves(rr__cu_emitter *em, int depth, int store, int bytes, int words,
                            const char *base)
{
	int es = em->geo->elem_bytes;
	for (int j = 0; j < words; j++) {
		const char *m = word_member(bytes, j);
		if (es == 4 && store)
			rr__cu_line(em, depth, "w%s = __float_as_uint(v[%s%d]);", m, base, j);
		else if (es == 4)
			rr__cu_line(em, depth, "v[%s%d] = __uint_as_float(w%s);", base, j, m);
		else if (store)
			rr__cu_line(em, depth, "w%s = rr_out2(v[%s%d], v[%s%d]);", m, base, 2 * j,
			            base, 2 * j + 1);
		else
			rr__cu_line(em, depth, "rr_in2(w%s, v[%s%d], v[%s%d]);", m, base, 2 * j,
			            base, 2 * j + 1);
	}
}

/* The VEC branch of rr_load (store 0) or rr_store (store 1): V / per_access accesses of the
 * geometry's width, each split into 32-bit words of one f32 or two 16-bit elements. */
static void emit_vector_access(rr__cu_emitter *em, int store)
{
	int a = em->geo->access_bytes, es = em->geo->elem_bytes;
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
	char base[32];
	snprintf(base, sizeof base, "k * %d + ", per_access);
	emit_word_moves(em, 3, store, a, words, base);
	if (store && a >= 8) { /* one vector store (device/pack_tail.cuh) */
		rr__cu_line(em, 3, "if constexpr (ONE)");
		rr__cu_line(em, 4, "rr_st%d(reinterpret_cast<%s *>(p) + k, w);", a, access_type(a));
		rr__cu_line(em, 3, "else");
		rr__cu_line(em, 4, "reinterpret_cast<%s *>(p)[k] = w;", access_type(a));
	} else if (store) {
		rr__cu_line(em, 3, "reinterpret_cast<%s *>(p)[k] = w;", access_type(a));
	}
	rr__cu_line(em, 2, "}");
}

/* rr_load (store 0) or rr_store (store 1) of one whole pack: the VEC branch where the
 * geometry has a vector entry, element by element otherwise. */
static void emit_pack_access(rr__cu_emitter *em, int store)
{
	rr__cu_line(em, 0, store ? "template <bool VEC, bool ONE = true>" : "template <bool VEC>");
	rr__cu_line(em, 0, "__device__ __forceinline__ void %s\n{",
	            store ? "rr_store(io_t *p, const float (&v)[V])"
	                  : "rr_load(float (&v)[V], const io_t *p)");
	if (em->geo->has_vec_entry) {
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
	            em->geo->access_bytes);
	if (em->geo->has_vec_entry && em->geo->access_bytes >= 8)
		rr__device_emit(em->out, "pack_tail.cuh", "vec_store");
	emit_pack_access(em, 0);
	emit_pack_access(em, 1);
	rr__device_emit(em->out, "pack_tail.cuh", "pack_tail");
	if (em->geo->head_slots > 0)
		rr__device_emit(em->out, "pack_tail.cuh", "head");
	if (em->shifted_cols) {
		rr__device_emit(em->out, io_file(em), "shifted");
		rr__device_emit(em->out, "pack_tail.cuh", "shifted");
	}
	if (em->col_copies)
		rr__device_emit(em->out, "pack_tail.cuh", "col_copies");
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

/* rr_keep_store (load 0) and rr_keep_load (load 1) of a raw keep (keep_raw.cuh): a pack's
 * 16-byte slot as four 32-bit words, each one f32 or two 16-bit elements. */
static void emit_keep_raw_access(rr__cu_emitter *em, int load)
{
	rr__cu_line(em, 0, "__device__ __forceinline__ void %s\n{",
	            load ? "rr_keep_load(float (&v)[V], const float *keep, int k, int c)"
	                 : "rr_keep_store(float *keep, int k, int c, const float (&v)[V])");
	rr__cu_line(em, 1, load ? "const uint4 w = *rr_keep_slot(keep, k, c);" : "uint4 w;");
	emit_word_moves(em, 1, !load, 16, 4, "");
	if (!load)
		rr__cu_line(em, 1, "*rr_keep_slot(keep, k, c) = w;");
	rr__cu_line(em, 0, "}\n");
}

static void emit_keep_helpers(rr__cu_emitter *em)
{
	if (em->geo->keep_raw) {
		rr__device_emit(em->out, "keep_raw.cuh", "keep_raw");
		emit_keep_raw_access(em, 0);
		emit_keep_raw_access(em, 1);
		return;
	}
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
	if (rr__cu_grid(em))
		rr__cu_line(em, 1,
		            "float *ws; /* the program's workspace: WS_GROUP words a group */");
	if (em->col_copies)
		rr__cu_line(em, 1, "const io_t *cc; /* the col inputs' copies (the entry *_cols) */");
	rr__cu_line(em, 0, "};\n");
}

/* ---------------------------------------------------------------- entries */

/* Row groups: blocks (clusters when C > 1) take groups group, group + step, ...; a persistent
 * grid has fewer blocks than groups, a rows grid one block (cluster) per group. */
/* Shared memory at file scope (one copy per block): the tree's scratch, the block's partials
 * that the cluster reads, and the kept packs (dynamic; an array in the host simulation). */
static void emit_shared(rr__cu_emitter *em, const char **red, const char **cl, const char **keep)
{
	const rr__realisation *g = em->geo;
	if (em->W > 32 && em->red_slots > 0 && !rr__cu_mailbox(em)) {
		rr__cu_line(em, 0,
		            "__shared__ float rr_red[2 * RED_SLOTS * R * WARPS]; /* [parity][slot]"
		            "[row][warp] */");
		*red = "rr_red";
	}
	if (rr__cu_mailbox(em)) {
		rr__cu_line(em, 0,
		            "__shared__ float rr_cl[2 * RED_SLOTS * WARPS * C]; /* the mailbox: "
		            "[parity][slot][warp][rank] */");
		*cl = "rr_cl";
	} else if (em->C > 1 && !rr__cu_grid(em)) {
		rr__cu_line(em, 0,
		            "__shared__ float rr_cl[2 * RED_SLOTS]; /* this block's partials, "
		            "[parity][slot] */");
		*cl = "rr_cl";
	}
	if (g->keep == RR_KEEP_SMEM) {
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

/* One row group's rows: row group*R + rig where it exists (idle rows compute, never store), its
 * segment of the row in a cluster. */
static void emit_group(rr__cu_emitter *em, int d, const char *red, const char *cl,
                       const char *keep)
{
	const rr__realisation *g = em->geo;
	rr__cu_line(em, d, "const long long wanted = group * R + rig;");
	rr__cu_line(em, d, "const bool live = wanted < rows;");
	rr__cu_line(em, d,
	            "const long long row = live ? wanted : rows - 1; /* idle rows compute, never "
	            "store */");
	const char *tail = "(a, rows, row, live, worker, rig";
	if (em->C == 1) {
		rr__cu_line(em, d, "rr_row<VEC, HEADED, N, TWIN>%s, 0, parity, %s, %s, %s);", tail, red,
		            cl, keep);
		return;
	}
	int64_t full = em->n / g->segment, last = em->n % g->segment;
	rr__cu_line(em, d, "if (rank < %lld)", (long long)full);
	rr__cu_line(em, d + 1, "rr_row<VEC, HEADED, SEG, TWIN>%s, rank * SEG, parity, %s, %s, %s);",
	            tail, red, cl, keep);
	if (last > 0 && full < em->C) {
		rr__cu_line(em, d, "else if (rank == %lld)", (long long)full);
		rr__cu_line(em, d + 1,
		            "rr_row<VEC, HEADED, %lld, TWIN>%s, rank * SEG, parity, %s, %s, %s);",
		            (long long)last, tail, red, cl, keep);
	}
	if (full + (last > 0) < em->C) {
		rr__cu_line(em, d, "else /* beyond the row: partials are identities */");
		rr__cu_line(em, d + 1, "rr_row<VEC, HEADED, 0, TWIN>%s, N, parity, %s, %s, %s);", tail,
		            red, cl, keep);
	}
}

static void emit_main(rr__cu_emitter *em)
{
	const char *red = "nullptr", *cl = "nullptr", *keep = "nullptr";
	emit_shared(em, &red, &cl, &keep);
	rr__cu_line(em, 0, "template <bool VEC, bool HEADED, bool TWIN = false>");
	rr__cu_line(em, 0,
	            "__device__ __forceinline__ void rr_main(const rr_args &a, const long long "
	            "rows)\n{");
	rr__cu_line(em, 1, "const int worker = threadIdx.x %% W;");
	rr__cu_line(em, 1, "const int rig = threadIdx.x / W; /* row in group */");
	if (rr__cu_grid(em)) {
		rr__cu_emit_grid_main_prologue(em);
		cl = "gws";
	} else if (em->C > 1) {
		rr__cu_line(em, 1, "const int rank = (int)rr_cluster_rank();");
		if (rr__cu_mailbox(em))
			rr__cu_line(em, 1, "rr_mail_init();");
	}
	if (rr__realisation_one_pass(em->geo)) {
		/* The grid holds every row, one a block (rr__cuda_launch_shape_of): no loop, and no
		 * test against `rows` (there is no block past the last row), so the loads wait only
		 * for their own address (a tiny launch's critical path). */
		rr__cu_line(em, 1,
		            "rr_row<VEC, HEADED, N, TWIN>(a, rows, blockIdx.x, true, worker, rig, 0, 0, "
		            "%s, %s, %s); /* one row a block */",
		            red, cl, keep);
	} else if (em->short_rows) {
		/* a block for every group (rr__cuda_launch_shape_of), C = 1 */
		rr__cu_line(em, 1, "const long long group = blockIdx.x; /* one group a block */");
		rr__cu_line(em, 1, "const int parity = 0;");
		emit_group(em, 1, red, cl, keep);
	} else {
		rr__cu_line(em, 1, "const long long step = gridDim.x / C;");
		rr__cu_line(em, 1, "int parity = 0; /* scratch slots alternate between groups */");
		rr__cu_line(em, 1, "long long group = blockIdx.x / C;");
		rr__cu_line(em, 1, "for (; group * R < rows; group += step) {");
		emit_group(em, 2, red, cl, keep);
		rr__cu_line(em, 2, "parity ^= 1;");
		rr__cu_line(em, 1, "}");
	}
	if (em->C > 1 && !rr__cu_grid(em))
		rr__cu_line(
		    em, 1,
		    "rr_cluster_sync(); /* no block leaves while others may reach its shared "
		    "memory */");
	rr__cu_line(em, 0, "}\n");
}

/* An entry: kind RR_ENTRY_VEC (vector access, h = 0), RR_ENTRY_TWIN (the same, its aligned
 * body of a few chunks unrolled whole), RR_ENTRY_HEAD (vector access, h per row) or
 * RR_ENTRY_SCALAR (element by element, h per row). */
static void emit_entry(rr__cu_emitter *em, const char *name, int kind)
{
	const rr_kernel *kernel = em->kernel;
	const int headed = kind != RR_ENTRY_VEC && kind != RR_ENTRY_TWIN && em->geo->head_slots > 0;
	const char *bound = !headed                                         ? "MIN_BLOCKS"
	                    : kind == RR_ENTRY_SCALAR && em->col_copies ? "MIN_BLOCKS_SCALAR"
	                                                                    : "MIN_BLOCKS_HEAD";
	rr__buf_printf(em->out,
	               "extern \"C\" __global__ void __launch_bounds__(THREADS, %s) "
	               "%s(",
	               bound, name);
	for (int k = 0; k < kernel->n_inputs; k++) {
		rr_kind input = kernel->inputs[k].kind;
		rr__buf_printf(em->out, "%s in%d, ",
		               input == RR_KIND_PARAM   ? "const float"
		               : input == RR_KIND_INDEX ? "const long long *__restrict__"
		                                        : "const io_t *__restrict__",
		               k);
	}
	for (int j = 0; j < kernel->n_outputs; j++)
		rr__buf_printf(em->out, "io_t *__restrict__ out%d, ", j);
	rr__buf_printf(em->out, "const long long rows%s%s)\n{\n\tconst rr_args a = {",
	               rr__cu_grid(em) ? ", float *const ws" : "",
	               em->col_copies ? ", const io_t *__restrict__ cc" : "");
	for (int k = 0; k < kernel->n_inputs; k++)
		rr__buf_printf(em->out, "%sin%d", k ? ", " : "", k);
	for (int j = 0; j < kernel->n_outputs; j++)
		rr__buf_printf(em->out, "%sout%d", kernel->n_inputs + j ? ", " : "", j);
	if (rr__cu_grid(em))
		rr__buf_printf(em->out, ", ws");
	if (em->col_copies)
		rr__buf_printf(em->out, ", cc");
	rr__buf_printf(em->out, "};\n\trr_main<%s, %s%s>(a, rows);\n}\n",
	               kind != RR_ENTRY_SCALAR ? "true" : "false", headed ? "true" : "false",
	               kind == RR_ENTRY_TWIN ? ", true" : "");
}

/* The entry that writes the col inputs' copies (rr__realisation.col_copies), launched
 * before the row entry: thread x of block (b, q, k) writes pack 256b + x of the k-th col
 * input's copy for phase q (rr_cols_pack); and, for the tests' host simulation, the same as a
 * loop (rr_sim_cols). */
static void emit_cols_entry(rr__cu_emitter *em)
{
	const rr_kernel *kernel = em->kernel;
	rr__buf_printf(em->out, "extern \"C\" __global__ void __launch_bounds__(256) %s(",
	               em->geo->entry_cols);
	for (int k = 0; k < kernel->n_inputs; k++)
		if (kernel->inputs[k].kind == RR_KIND_COL)
			rr__buf_printf(em->out, "const io_t *__restrict__ in%d, ", k);
	rr__buf_printf(em->out, "io_t *__restrict__ cc)\n{\n");
	rr__cu_line(em, 0, "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900");
	rr__cu_line(em, 1,
	            "asm volatile(\"griddepcontrol.launch_dependents;\"); /* the row entries "
	            "may start: they wait (rr_wait_copies) before reading the copies */");
	rr__cu_line(em, 0, "#endif");
	rr__cu_line(em, 1, "const long long t = (long long)blockIdx.x * 256 + threadIdx.x;");
	rr__cu_line(em, 1, "if (t >= COL_STRIDE / COL_PHASES)");
	rr__cu_line(em, 2, "return;");
	rr__buf_printf(em->out, "\tconst io_t *const from = ");
	int ordinal = 0;
	for (int k = 0; k < kernel->n_inputs; k++)
		if (kernel->inputs[k].kind == RR_KIND_COL) {
			if (ordinal + 1 < em->geo->col_copies)
				rr__buf_printf(em->out, "blockIdx.z == %d ? in%d : ", ordinal, k);
			else
				rr__buf_printf(em->out, "in%d;\n", k);
			ordinal++;
		}
	rr__cu_line(em, 1, "rr_cols_pack(cc, (int)blockIdx.z, from, (int)blockIdx.y, t);");
	rr__cu_line(em, 0, "}");
	rr__cu_line(em, 0, "#if !defined(__CUDA_ARCH__)");
	rr__cu_line(em, 0, "extern \"C\" void rr_sim_cols(void **params)\n{");
	rr__cu_line(em, 1, "io_t *const cc = *(io_t *const *)params[%d];", em->geo->col_copies);
	rr__cu_line(em, 1, "for (int k = 0; k < %d; k++)", em->geo->col_copies);
	rr__cu_line(em, 2, "for (int q = 0; q < COL_PHASES; q++)");
	rr__cu_line(em, 3, "for (long long t = 0; t < COL_STRIDE / COL_PHASES; t++)");
	rr__cu_line(em, 4, "rr_cols_pack(cc, k, *(const io_t *const *)params[k], q, t);");
	rr__cu_line(em, 0, "}");
	rr__cu_line(em, 0, "#endif");
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
	if (rr__cu_grid(em))
		rr__buf_printf(em->out, ", *(float *const *)params[%d]", n + 1);
	if (em->col_copies)
		rr__buf_printf(em->out, ", *(const io_t *const *)params[%d]",
		               n + 1 + (rr__cu_grid(em) ? 1 : 0));
	rr__buf_printf(em->out, "};\n");
	rr__cu_line(em, 1, "const long long rows = *(const long long *)params[%d];", n);
	const char *head = em->geo->head_slots > 0 ? "true" : "false";
	if (em->geo->has_twin_entry)
		rr__cu_line(em, 1, "if (vec == %d)\n\t\trr_main<true, false, true>(a, rows);\n\telse",
		            RR_ENTRY_TWIN);
	if (em->geo->has_aligned_entry)
		rr__cu_line(em, 1, "if (vec == %d)\n\t\trr_main<true, false>(a, rows);\n\telse",
		            RR_ENTRY_VEC);
	if (em->geo->has_vec_entry)
		rr__cu_line(em, 1, "if (vec)\n\t\trr_main<true, true>(a, rows);\n\telse");
	rr__cu_line(em, 1, "%srr_main<false, %s>(a, rows);",
	            em->geo->has_vec_entry ? "\t" : "(void)vec, ", head);
	rr__cu_line(em, 0, "}");
	rr__cu_line(em, 0, "#endif");
}

rr_status rr__cuda_emit(const rr__emit_request *request, rr__buf *out)
{
	rr__cu_emitter *em = calloc(1, sizeof *em);
	if (!em)
		return rr__fail(RR_ERR_NOMEM, "out of memory emitting CUDA C");
	rr_status status = plan_emitter(em, request);
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
	if (em->C > 1 && !rr__cu_grid(em)) {
		rr__device_emit(em->out, "cluster.cuh", "cluster");
		if (rr__cu_mailbox(em)) {
			rr__device_emit(em->out, "cluster.cuh", "cluster_mail");
		} else {
			rr__device_emit(em->out, "cluster.cuh", "cluster_exchange");
			if (em->C > 8)
				rr__device_emit(em->out, "cluster.cuh", "cluster_wide");
		}
	}
	rr__cu_emit_grid_helpers(em);
	if (em->geo->keep == RR_KEEP_SMEM)
		emit_keep_helpers(em);
	emit_args_struct(em);
	rr__cu_emit_row(em);
	emit_main(em);
	if (em->geo->has_aligned_entry)
		emit_entry(em, em->geo->entry_vec, RR_ENTRY_VEC);
	if (em->geo->has_twin_entry)
		emit_entry(em, em->geo->entry_twin, RR_ENTRY_TWIN);
	if (em->geo->has_vec_entry)
		emit_entry(em, em->geo->entry_head, RR_ENTRY_HEAD);
	emit_entry(em, em->geo->entry_scalar, RR_ENTRY_SCALAR);
	if (em->col_copies)
		emit_cols_entry(em);
	emit_simulation_entry(em);
	int failed = out->failed;
	char name[RR_MAX_NAME];
	snprintf(name, sizeof name, "%s", request->kernel->name);
	free(em);
	if (failed)
		return rr__fail(RR_ERR_NOMEM, "out of memory emitting CUDA C for kernel '%s'",
		                name);
	return RR_OK;
}

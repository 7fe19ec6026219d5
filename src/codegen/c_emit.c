/* The C emitter: one plan (kernel, dtype, layout) as readable C11 for the cpu backend. Each row
 * is processed the way the plan says a GPU group would: W workers visit their private slots in
 * slot order, then the fixed xor tree combines their partials, so sums match the GPU bit for bit.
 * Workers are the lanes of vectors (device/cpu_vec.h), L at a time, so the code is vector code
 * by construction and the compiler never has to reorder arithmetic to vectorise it. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "codegen/c_emit.h"
#include "codegen/common.h"
#include "codegen/device_files.h"
#include "codegen/expr.h"

/* The largest V whose complete chunks read their packs as whole vectors (cpu_vec.h's
 * RR_PICK_PACKS, through the emitted PICK_MAX_VEC), with the loop over e unrolled so that the
 * picks' shuffle indices are constants. At V = 8 the norms in bf16 took 0.98-1.5x the time of
 * reading lane by lane (sum f32 0.36-0.42), so they stop at 4 (bench/NOTES.md, session 55
 * CPU). */
#define RR_PICK_MAX_VEC 4

/* Rows the split takes from IN_ROW_MIN_N elements on keep its cache in their output row and
 * store through the caches even in launches that stream (the row's stream is off): the sum
 * pass writes the row, the output phase rewrites it in place, where streaming wrote a scratch
 * copy, read it back and streamed the row. Two threads, rows from DRAM 16 bytes in, the
 * planner's plans (bench/NOTES.md, session 31 CPU, the AMD host: 512 KiB of L2 a core):
 * softmax f32 256x65536 0.85 of the time, 1024x16384 0.96; 2048x8192 1.06 and 4096x4096 1.09
 * (streaming faster there). Not with AVX-512 (the generated source's RR_CACHE_IN_ROW): on the
 * Intel host of session 35 (2 MiB of L2 a core, 260 MiB of L3, f32 rows streamed as whole
 * lines) the scratch copy streamed ran 256x65536 in 0.60-0.75 of the in-row form's time with
 * the arrays held in L3 between calls, 512x32768 0.69, 1024x16384 0.59-0.67, 192x87040 level;
 * from DRAM (bench/peers/onnx_cpu.py, the two forms alternated) level: 256x65536 3689 µs
 * against 3716, 1024x16384 3653 against 3657. */
#define IN_ROW_MIN_N 16384

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
	int head;                /* emitting the head's pack (element t * W + worker, slot t) */
	const int *tree_offsets; /* the realisation's xor offsets, in order */
	int tree_steps;
	/* Online pairs in two passes (rows up to SPLIT_MAX_N): 0 the online pass, 1 the pass of
	 * the max (and the round's other reductions), 2 the pass of the sum of exp(e - m). */
	int pass;
	int cached;     /* the exp(e - m) node kept in scratch for the output phase, or -1 */
	int cache_live; /* emitting the branch where the cache holds the row's values */
	int indent;     /* extra depth of everything emitted (inside the branch of a split) */
	/* The split runs the last round and the output reads only the cache and inputs that are
	 * not kept: its branch re-reads the row in cache and keeps nothing. */
	int split_unkept;
	int prefetch; /* emitting a pass that prefetches the next row (prefetch_in_split,
	               * prefetch_in_output; PREFETCH_SINGLE) */
	int lead;     /* emitting round 1's pass that fetches the next row's first eighth
	               * (prefetch_lead_in_round) */
	int64_t split_max_n;
	/* The row output whose complete packs hold the cache between the split's sum pass and
	 * the output phase (cache_output_of), or -1. */
	int cache_output;
	int chains;  /* emitting the loop of CHAINS accumulators per block (max_chains) */
	int aligned; /* emitting the output phase's complete chunks through rr_store_aligned */
	int staged;  /* the pack loop holds its row outputs for store_packs (stores_packs) */
	/* Emitting the output phase over the cache in the output row in place (in_row_lines):
	 * 1 a whole vector at q + k, 2 the lanes `valid` of one. */
	int in_row;
	int runs;     /* emitting a 16-bit output phase's complete chunks through rr_store_*_run */
	int run_only; /* with runs: the one row output this loop stores, or -1 for all of them */
	/* Row outputs written in round 1 and read back by the later passes
	 * (rr__c_early_outputs): early[j] is 1 + output j's ordinal among them, 0 for the others;
	 * the output phase computes none of them again, and stores them only where the launch
	 * streams (from the thread's scratch). */
	unsigned char early[RR_MAX_IO];
	int n_early;
	int early_rows; /* rows of them in scratch where the launch streams (rr__c_early_rows) */
	/* Emitting the split's sum pass where the row's extrema say no exp(x - m) of the max node
	 * `ranged` is under 2^-125 (words_max_input), or -1. */
	int ranged;
	/* Emitting the split's max pass of f32 rows whose least value it takes beside the max of
	 * node `summed_lo` (f32_range_max), or -1. */
	int summed_lo;
	/* Values round 1 computes that later passes read back from scratch (rr__c_derived_keeps):
	 * held[id] is 1 + the node's scratch ordinal after the kept inputs, 0 for the others. */
	unsigned char held[RR_MAX_NODES];
	int n_held;
	/* 16-bit cols read as f32 from scratch (rr__c_wide_cols): wide[k] is 1 + input k's
	 * ordinal among them, 0 for the other inputs. */
	int wide[RR_MAX_IO];
	int n_wide;
	/* The output phase's run loops take bf16 inputs and widened cols in pair order
	 * (paired_order); its other loads read the cols themselves. */
	int paired;
	/* With paired: row inputs kept in private slots (S=regs) and values held from round 1
	 * (add_layernorm bf16's h) are kept in pair order, so the rounds' complete chunks load in
	 * that order too and put their accumulators back in worker order before the guarded
	 * chunk (rr_unpair_lo/hi). */
	int paired_kept;
	/* The previous row's output phase runs inside this row's pass of the sums (rr__c_piped):
	 * piped is set for the kernel; piped_row while emitting one_row_piped, whose split
	 * round has no online branch and whose pass of the sums stores the pending row's chunks;
	 * pending while emitting the pending row's chunks, whose aligners live in `pend`. */
	int piped;
	int piped_row;
	int pending;
	int lines; /* emitting bf16 run loops that store whole lines (rr_store_bf16_lines) */
	int parts; /* rows may be split over threads (rr__c_row_parts): exchanges before trees */
} emitter;

/* em->prefetch of a single pass (prefetch_in_single_pass): a distance of its own. */
#define PREFETCH_SINGLE 2

static void line(emitter *em, int depth, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void line(emitter *em, int depth, const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	rr__emit_vline(em->out, depth + em->indent, fmt, args);
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
	line(em, 0,
	     " * lanes    worker = b * L + lane: L workers are the lanes of one vector (L = W up "
	     "to");
	line(em, 0,
	     " *          the target's f32 lanes), so each keeps its own order, bit for bit");
	rr__buf_printf(em->out, " * tree     xor offsets");
	for (int k = 0; k < steps; k++)
		rr__buf_printf(em->out, "%s%d", k ? ", " : " ", offsets[k]);
	line(em, 0, "%s (warp size %d)", steps ? "" : " none", em->warp_size);
	line(em, 0, " * rounds   %d", em->rounds);
	rr__emit_comment_reductions(em->out, kernel);
	for (int k = 0; k < kernel->n_inputs; k++)
		if (em->kept[k] >= 0)
			line(em, 0, " * storage  %s kept in private slots after round %d",
			     kernel->inputs[k].name, em->first_round[k]);
	for (int j = 0; j < kernel->n_outputs; j++)
		if (em->early[j])
			line(em, 0,
			     " * early    %s written in round 1, read back by the later passes "
			     "(scratch where the launch streams)",
			     kernel->outputs[j].name);
	for (int id = 0; id < kernel->n_nodes; id++)
		if (em->held[id])
			line(em, 0,
			     " * storage  e%d (f32) kept in private slots after round 1, read back "
			     "by "
			     "the later passes",
			     id);
	for (int k = 0; k < kernel->n_inputs; k++)
		if (em->wide[k])
			line(em, 0,
			     " * cols     %s widened to f32 in scratch once a thread and launch",
			     kernel->inputs[k].name);
	if (em->paired)
		line(em, 0,
		     " * order    the output phase's run loops hold each 2L elements in a pair of "
		     "vectors, 0-3, 8-11, ... and 4-7, 12-15, ... where the target takes it (AVX2, "
		     "or AVX-512BW with two row inputs or more; the same bits)");
	if (em->split_max_n > 0)
		line(em, 0, " * split    rows of N <= %lld: an online pair's max, then its sum%s",
		     (long long)em->split_max_n,
		     em->cache_output >= 0
		         ? " (e-values kept for the output in its row; in scratch "
		           "when the launch streams, and the last chunk's)"
		     : em->cached >= 0 ? " (e-values kept in scratch for the output)"
		                       : "");
	rr__emit_comment_kernel_text(em->out, kernel);
}

/* ---------------------------------------------------------------- prelude */

/* load_io and store_io (one element): f32 in memory as it is; the 16-bit types through the
 * conversions of device/convert16.h, the same code that util/dtype.c runs for the reference.
 * Then the vector accesses of device/cpu_vec.h, which round alike. */
static void emit_io_helpers(emitter *em)
{
	const char *type = "float", *load = "p[i]", *store = "v", *packed = "f32";
	if (em->dtype == RR_BF16 || em->dtype == RR_F16) {
		int bf16 = em->dtype == RR_BF16;
		rr__device_emit(em->out, "convert16.h", "bits");
		rr__device_emit(em->out, "convert16.h", bf16 ? "bf16" : "f16");
		line(em, 0, "/* %s in memory; conversions round to nearest even, NaN stays NaN. */",
		     bf16 ? "bfloat16" : "IEEE half");
		type = "uint16_t";
		load = bf16 ? "rr__bf16_to_float(p[i])" : "rr__f16_to_float(p[i])";
		store = bf16 ? "rr__bf16_from_float(v)" : "rr__f16_from_float(v)";
		packed = bf16 ? "bf16" : "f16";
	}
	line(em, 0, "typedef %s io_t;", type);
	line(em, 0, "static inline float load_io(const io_t *p, int64_t i)\n{\n\treturn %s;\n}",
	     load);
	line(em, 0, "static inline io_t store_io(float v)\n{\n\treturn %s;\n}\n", store);
	char section[32];
	if (em->dtype != RR_F32)
		rr__device_emit(em->out, "cpu_vec.h", "packed_16");
	snprintf(section, sizeof section, "packed_%s", packed);
	rr__device_emit(em->out, "cpu_vec.h", section);
	line(em, 0,
	     "#define load_packed rr_load_%s\n#define store_packed rr_store_%s\n"
	     "#define stream_packed rr_stream_%s",
	     packed, packed, packed);
	rr__device_emit(em->out, "cpu_vec.h", "io");
	if (em->dtype == RR_BF16)
		rr__device_emit(em->out, "cpu_vec.h", "lines_bf16");
	if (em->paired)
		rr__device_emit(em->out, "cpu_vec.h", "paired_bf16");
}

void rr__c_prelude(rr__buf *out)
{
	rr__device_emit(out, "cpu_row.h", "includes");
	rr__device_emit(out, "cpu_vec.h", "intrinsics");
}

static void emit_prelude(emitter *em)
{
	const rr_layout *layout = em->layout;
	rr__device_emit(em->out, "cpu_row.h", "includes");
	line(em, 0, "#define W %d /* workers per row */", layout->workers_per_row);
	line(em, 0, "#define V %d /* consecutive elements per worker access (a pack) */",
	     layout->vec);
	line(em, 0, "#define U %d /* chunks per loop iteration */", layout->unroll);
	line(em, 0, "#define R %d /* rows per group */", layout->rows_per_group);
	line(em, 0, "#define PICK_MAX_VEC %d /* the largest V read as whole vectors */",
	     RR_PICK_MAX_VEC);
	line(em, 0,
	     "#define HEAD_BYTES %d /* a row's head runs up to its first boundary of this */",
	     em->r->access_bytes);
	line(em, 0, "#define HS %d /* head elements per worker at most */", em->r->head_slots);
	line(em, 0,
	     "#define KEPT_INPUTS %d /* row inputs and values kept in private slots between "
	     "rounds */",
	     em->n_kept + em->n_held);
	line(em, 0,
	     "#define SPLIT_MAX_N %lld /* rows up to this run an online pair in two passes */",
	     (long long)em->split_max_n);
	line(em, 0,
	     "#define CACHED_VALUES %d /* values the split keeps for the output phase (two "
	     "rows' where piped) */",
	     em->cached >= 0 ? 1 + em->piped : 0);
	/* Piped on every target: AVX-512 since session 39; AVX2 on Zen 3 (bench/lab/
	 * s63-cpu-softmax/notes.md, two threads, streamed, paired with the plain passes)
	 * 4096x4096 in 0.91-0.95 of the time, 16384x1024 0.89-0.93, where the output phase's
	 * stores had waited on their own pass while the exp pass left the memory idle. Rows the
	 * source keeps their cache in (RR_CACHE_IN_ROW, not with AVX-512) stay there: 256x65536
	 * piped ran 0.88-1.05, level. */
	if (em->piped)
		line(em, 0,
		     "#define PIPED 1 /* rr__c_piped */\n"
		     "#define PIPED_MAX_N %lld /* rows up to this piped where the launch streams "
		     "*/",
		     (long long)rr__c_piped_max_cols(em->dtype));
	else
		line(em, 0, "#define PIPED 0 /* no output phase to pipe (rr__c_piped) */");
	if (em->cache_output >= 0) {
		line(em, 0,
		     "#ifndef RR_CACHE_IN_ROW /* 1: long split rows keep their cache in the row */\n"
		     "#if defined(__AVX512F__)\n"
		     "#define RR_CACHE_IN_ROW 0 /* streamed from scratch (session 35 CPU) */\n"
		     "#else\n"
		     "#define RR_CACHE_IN_ROW 1\n"
		     "#endif\n"
		     "#endif");
		line(em, 0,
		     "#define IN_ROW_MIN_N %d /* split rows from this length keep their cache in "
		     "the row */",
		     IN_ROW_MIN_N);
	}
	int row_inputs = 0;
	for (int k = 0; k < em->kernel->n_inputs; k++)
		row_inputs += em->kernel->inputs[k].kind == RR_KIND_ROW;
	line(em, 0, "#define ROW_INPUTS %d /* row inputs (prefetch_ahead) */", row_inputs);
	line(em, 0, "#define OUTPUTS %d /* outputs (a carry each: device/cpu_vec.h) */",
	     em->kernel->n_outputs);
	line(em, 0, "#define WIDE_COLS %d /* 16-bit cols read as f32 from scratch */", em->n_wide);
	line(em, 0,
	     "#define EARLY_ROWS %d /* row outputs written in round 1 (in scratch where the "
	     "launch streams) */",
	     em->early_rows);
	line(em, 0, "#define CHAINS 4 /* accumulators per block of the split's max pass */\n");
	line(em, 0, "#define TREE_STEPS %d", em->tree_steps);
	if (em->tree_steps > 0) {
		rr__buf_printf(em->out, "static const int tree_offsets[TREE_STEPS] = {");
		for (int k = 0; k < em->tree_steps; k++)
			rr__buf_printf(em->out, "%s%d", k ? ", " : "", em->tree_offsets[k]);
		line(em, 0, "};");
	}
	rr__buf_printf(em->out, "\n");
	rr__device_emit(em->out, "cpu_vec.h", "lanes");
	rr__device_emit(em->out, "cpu_vec.h", "intrinsics");
	rr__device_emit(em->out, "cpu_vec.h", "types");
	emit_io_helpers(em);
	rr__device_emit(em->out, "cpu_row.h", "slots");
	rr__device_emit(em->out, "cpu_vec.h", "parts");
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
			if (em->wide[k])
				line(em, 1,
				     "const float *colf%d = scratch + wide_cols_at(N) + %d * "
				     "wide_col_stride(N); /* %s as f32 */",
				     k, em->wide[k] - 1, io->name);
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
	for (int j = 0; j < kernel->n_outputs; j++)
		if (em->early[j] && em->early_rows > 0)
			line(em, 1,
			     "io_t *const early%d = stream ? (io_t *)(void *)(scratch + "
			     "early_rows_at(N) + %d * wide_col_stride(N)) : out%d; /* %s, written "
			     "early */",
			     j, em->early[j] - 1, j, kernel->outputs[j].name);
		else if (em->early[j])
			line(em, 1, "io_t *const early%d = out%d; /* %s, written early */", j, j,
			     kernel->outputs[j].name);
	if (em->n_kept + em->n_held > 0 || em->cached >= 0)
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

/* Whether input k is kept in private slots in the code being emitted. */
static int input_kept(const emitter *em, int k)
{
	return em->kept[k] >= 0 && !(em->split_unkept && (em->pass > 0 || em->cache_live));
}

static int round_uses_slots(const emitter *em, int round)
{
	if (em->cached >= 0 &&
	    ((em->pass == 2 && round <= em->rounds) || (em->cache_live && round > em->rounds)))
		return 1;
	for (int k = 0; k < em->kernel->n_inputs; k++)
		if (input_kept(em, k) && em->read[round][k])
			return 1;
	return em->n_held > 0 && !em->head;
}

/* The reduction the current pass accumulates for round reduction `id` (reduced_in): itself,
 * or in the pass of the sums an online pair's sum; -1 when the pass leaves it alone. */
static int pass_reduction(const emitter *em, int id)
{
	int partner = em->kernel->analysis.online_partner[id];
	if (em->pass == 2)
		return partner;
	return id;
}

/* The partner of an online max accumulated as a pair in this pass, else -1. */
static int pass_partner(const emitter *em, int id)
{
	return em->pass == 0 ? em->kernel->analysis.online_partner[id] : -1;
}

/* Row and col inputs as vectors of the L workers' element e; kept ones from private slots. */
static void emit_load(emitter *em, int depth, int id, int round, int guarded)
{
	const rr__node *node = &em->kernel->nodes[id];
	int k = node->input;
	const char *name = em->kernel->inputs[k].name;
	if (em->head) { /* the head is never kept: every round reads it again */
		line(em, depth, "const vf e%d = load_head(in%d, e, b, h); /* %s */", id, k, name);
		return;
	}
	if (input_kept(em, k) &&
	    (em->first_round[k] < round || (em->pass == 2 && em->read[round][k]))) {
		line(em, depth,
		     "const vf e%d = load_kept(keep%d, slot * W + b * L); /* %s, kept */", id, k,
		     name);
		return;
	}
	/* pair order: the output phase's runs, and the rounds' complete chunks where kept inputs
	 * are in that order */
	const int pair =
	    em->paired && !guarded && (em->runs || (em->paired_kept && round <= em->rounds));
	if (em->wide[k] && !guarded && (!em->paired || pair)) {
		line(em, depth, "const vf e%d = load_widened(colf%d, i, e); /* %s */", id, k, name);
		return;
	}
	if (pair)
		line(em, depth, "const vf e%d = rr_load_bf16_paired(in%d, i, b & 1); /* %s */", id,
		     k, name);
	else
		line(em, depth, "const vf e%d = load_lanes%s(in%d, i, %s); /* %s */", id,
		     guarded ? "_guarded" : "", k, guarded ? "N" : "e", name);
	if (input_kept(em, k))
		line(em, depth, "store_kept(keep%d, slot * W + b * L, e%d);", k, id);
}

/* A value as a vector: elem values are, scalars are broadcast. */
static void vector_ref(emitter *em, int id)
{
	if (em->kernel->nodes[id].shape == RR_SHAPE_ELEM) {
		value_ref(em, id);
		return;
	}
	rr__buf_printf(em->out, "rr_vsplat(");
	value_ref(em, id);
	rr__buf_printf(em->out, ")");
}

/* Whether the output phase being emitted stores row output j: a row output, and not one
 * written in round 1 (early) unless this is the branch that prefetches, which stores it. */
static int phase_stores(const emitter *em, int j)
{
	return em->kernel->outputs[j].kind == RR_KIND_ROW && (!em->early[j] || em->prefetch);
}

static void emit_outputs_of_element(emitter *em, int depth, int guarded)
{
	const rr_kernel *kernel = em->kernel;
	for (int j = 0; j < kernel->n_outputs; j++) {
		if (!phase_stores(em, j))
			continue;
		if (em->runs && !guarded && em->run_only >= 0 && j != em->run_only)
			continue;
		rr__emit_indent(em->out, depth + em->indent);
		if (em->runs && !guarded)
			rr__buf_printf(em->out, "run%d[u * BLOCKS + b] = (", j);
		else if (em->in_row == 1)
			rr__buf_printf(em->out, "rr_store_f32(q + k, ");
		else if (em->in_row == 2)
			rr__buf_printf(em->out, "rr_store_f32_lanes(q + k, valid, ");
		else if (em->head)
			rr__buf_printf(em->out, "store_head(out%d, e, b, h, ", j);
		else if (em->aligned && !guarded)
			rr__buf_printf(em->out, "rr_store_aligned(&%s%d%s, out%d, i, stream, ",
			               em->pending ? "pal[" : "aligned", j, em->pending ? "]" : "", j);
		else if (guarded)
			rr__buf_printf(em->out, "store_tail(out%d, i, N, stream, carry + %d, ", j,
			               j);
		else if (em->staged)
			rr__buf_printf(em->out, "stage%d[e] = (", j);
		else
			rr__buf_printf(em->out, "store_lanes(out%d, i, stream, ", j);
		vector_ref(em, kernel->outputs[j].node);
		rr__buf_printf(em->out, ");\n");
	}
}

/* One reduction's update by this element, lane by lane (lanes outside the row keep their
 * accumulator in a guarded pack). */
static void emit_accumulate(emitter *em, int depth, int id, int guarded)
{
	const rr__node *node = &em->kernel->nodes[id];
	rr__emit_indent(em->out, depth + em->indent);
	if (em->kernel->analysis.online_partner[id] >= 0 && em->pass == 0) {
		rr__buf_printf(em->out, "pack%d[e] = ", id);
		if (guarded)
			rr__buf_printf(em->out, "rr_vselect(valid, ");
		vector_ref(em, node->a);
		rr__buf_printf(em->out, "%s;\n", guarded ? ", rr_vsplat(-INFINITY))" : "");
		return;
	}
	const char *acc = em->chains ? "chain" : "acc", *at = em->chains ? "[q][b]" : "[b]";
	rr__buf_printf(em->out, "%s%d%s = ", acc, id, at);
	if (guarded)
		rr__buf_printf(em->out, "rr_vselect(valid, ");
	if (node->reduce == RR_REDUCE_SUM)
		rr__buf_printf(em->out, "%s%d%s + ", acc, id, at);
	else
		rr__buf_printf(em->out, "%s(%s%d%s, ",
		               node->reduce == RR_REDUCE_MAX ? "rr_vmax_acc" : "rr_vmin_acc", acc,
		               id, at);
	vector_ref(em, node->a);
	if (node->reduce != RR_REDUCE_SUM)
		rr__buf_printf(em->out, ")");
	if (guarded)
		rr__buf_printf(em->out, ", acc%d[b]);\n", id);
	else
		rr__buf_printf(em->out, ";\n");
}

/* Whether elem node id is exp(x - m) with m the row's max of the same x: its argument is <= 0
 * or NaN for every element, so rr_vexp_nonpos computes it (bit for bit rr_vexp there), or for
 * bf16 rr_vexp_nonpos_bf16, whose error is ~1/19 of the bf16 rounding's (device/cpu_vec.h). */
static int exp_of_nonpositive(const rr_kernel *kernel, int id)
{
	const rr__node *node = &kernel->nodes[id];
	if (node->op != RR_OP_EXP || node->a < 0)
		return 0;
	const rr__node *diff = &kernel->nodes[node->a];
	if (diff->op != RR_OP_SUB || diff->shape != RR_SHAPE_ELEM || diff->b < 0)
		return 0;
	const rr__node *max = &kernel->nodes[diff->b];
	return max->op == RR_OP_REDUCE && max->reduce == RR_REDUCE_MAX && max->a == diff->a;
}

/* Whether elem node id, exp(x - m) as above, is only added into sums and is no output: a sum
 * that holds exp(0) = 1 takes rr_vexp_nonpos_summed, whose relative error (under 4e-6) moves a
 * cross-entropy loss by under 3.8e-6 of itself and 1.9e-9 (log2(N) + 2.5), 1/26 of f32's
 * validation rtol (device/cpu_vec.h). */
static int exp_summed_only(const rr_kernel *kernel, int id)
{
	for (int j = 0; j < kernel->n_outputs; j++)
		if (kernel->outputs[j].node == id)
			return 0;
	for (int j = 0; j < kernel->n_nodes; j++) {
		const rr__node *user = &kernel->nodes[j];
		if ((user->a == id || user->b == id) &&
		    (user->op != RR_OP_REDUCE || user->reduce != RR_REDUCE_SUM))
			return 0;
	}
	return 1;
}

/* Whether every user of max node `max_id` is x - m (m the max, x its operand) whose every user
 * is exp(x - m) (exp_of_nonpositive), and neither is an output: then the sign of a zero maximum
 * changes no result (exp(+-0) == 1 bit for bit, and x - m differs only for x = -0). */
static int max_feeds_exp_only(const rr_kernel *kernel, int max_id)
{
	for (int j = 0; j < kernel->n_outputs; j++)
		if (kernel->outputs[j].node == max_id)
			return 0;
	for (int d = 0; d < kernel->n_nodes; d++) {
		const rr__node *diff = &kernel->nodes[d];
		if (diff->a != max_id && diff->b != max_id)
			continue;
		if (diff->op != RR_OP_SUB || diff->b != max_id ||
		    diff->a != kernel->nodes[max_id].a)
			return 0;
		for (int j = 0; j < kernel->n_outputs; j++)
			if (kernel->outputs[j].node == d)
				return 0;
		for (int e = 0; e < kernel->n_nodes; e++)
			if ((kernel->nodes[e].a == d || kernel->nodes[e].b == d) &&
			    !exp_of_nonpositive(kernel, e))
				return 0;
	}
	return 1;
}

/* Whether max node max_id has an exp(x - m) (exp_of_nonpositive) that is only summed
 * (exp_summed_only), or with summed_only 0 one that is not. */
static int exp_of_max(const rr_kernel *kernel, int max_id, int summed_only)
{
	for (int e = 0; e < kernel->n_nodes; e++)
		if (exp_of_nonpositive(kernel, e) &&
		    kernel->nodes[kernel->nodes[e].a].b == max_id &&
		    exp_summed_only(kernel, e) == summed_only)
			return 1;
	return 0;
}

/* Whether the ranged copy of the split's sum pass (f32_range_max) takes rr_vexp_nonpos_ranged
 * for the exp(x - m) of max node max_id that is stored, not only summed (softmax's): the max
 * feeds only exp(x - m) (max_feeds_exp_only), and the row is ranged where every x - m, rounded,
 * is -86.5 or more (rr_vexp_nonpos_ranged is rr_vexp_nonpos bit for bit there and on NaN). */
static int stored_ranged(const rr_kernel *kernel, int max_id)
{
	return max_id >= 0 && max_feeds_exp_only(kernel, max_id) && exp_of_max(kernel, max_id, 0);
}

const char *rr__c_exp_form(const rr_kernel *kernel, rr_dtype dtype, int id)
{
	if (!exp_of_nonpositive(kernel, id))
		return NULL;
	return dtype == RR_BF16 ? "_bf16" : exp_summed_only(kernel, id) ? "_summed" : "";
}

/* The output written in round 1 whose value is node id (rr__c_early_outputs), or -1. */
static int early_output_of(const emitter *em, int id)
{
	for (int j = 0; j < em->kernel->n_outputs; j++)
		if (em->early[j] && em->kernel->outputs[j].node == id)
			return j;
	return -1;
}

/* The elem nodes one element needs in `round` > 1 into em->needed where outputs are written in
 * round 1: their values are read back, not computed again, and the output phase needs them
 * where another output does, or where it streams them (the branch that prefetches). */
static void element_needs_after_early(emitter *em, int round)
{
	const rr_kernel *kernel = em->kernel;
	unsigned char stop[RR_MAX_NODES] = {0};
	for (int j = 0; j < kernel->n_outputs; j++)
		if (em->early[j])
			stop[kernel->outputs[j].node] = 1;
	if (round <= em->rounds) {
		rr__phase_roots(kernel, round, em->needed);
	} else {
		memset(em->needed, 0, (size_t)kernel->n_nodes);
		for (int j = 0; j < kernel->n_outputs; j++) {
			int node = kernel->outputs[j].node;
			if (kernel->outputs[j].kind == RR_KIND_ROW &&
			    (!em->early[j] || em->prefetch) && node >= 0 &&
			    kernel->nodes[node].shape == RR_SHAPE_ELEM)
				em->needed[node] = 1;
		}
	}
	rr__mark_operands(kernel, em->needed, stop);
}

/* The elem nodes one element needs in `round` into em->needed: the pass of an online pair's sum
 * needs the sum's operand exp(e - m) and what it is computed from; the output phase stops at
 * the node `from_cache` (>= 0) when the cache holds it. */
static void element_needs(emitter *em, int round, int from_cache)
{
	const rr_kernel *kernel = em->kernel;
	if (em->pass == 2) {
		memset(em->needed, 0, (size_t)kernel->n_nodes);
		for (int id = 0; id < kernel->n_nodes; id++) {
			int partner = kernel->analysis.online_partner[id];
			if (rr__reduced_in(kernel, id, round) && partner >= 0)
				em->needed[kernel->nodes[partner].a] = 1;
		}
		rr__mark_operands(kernel, em->needed, NULL);
		return;
	}
	if (from_cache < 0 && round > 1 && em->n_early > 0) {
		element_needs_after_early(em, round);
		return;
	}
	if (from_cache < 0 && round > 1 && em->n_held > 0 && !em->head) {
		unsigned char stop[RR_MAX_NODES] = {0};
		for (int id = 0; id < kernel->n_nodes; id++)
			stop[id] = em->held[id] != 0;
		rr__phase_roots(kernel, round, em->needed);
		rr__mark_operands(kernel, em->needed, stop);
		return;
	}
	if (from_cache < 0) {
		rr__analysis_elem_needs(kernel, round, em->needed);
		return;
	}
	unsigned char stop[RR_MAX_NODES] = {0};
	stop[from_cache] = 1;
	rr__phase_roots(kernel, round, em->needed);
	rr__mark_operands(kernel, em->needed, stop);
}

/* Narrows em->needed to what row output j alone needs (a run loop that stores only j):
 * the needed nodes its node reaches, descending where emit_element computes a value from its
 * operands and not where it loads one (an input, the cache, a held value, an early output). */
static void needs_of_one_output(emitter *em, int round, int from_cache, int j)
{
	const rr_kernel *kernel = em->kernel;
	unsigned char reach[RR_MAX_NODES] = {0};
	if (kernel->outputs[j].node < 0)
		return;
	reach[kernel->outputs[j].node] = 1;
	for (int id = kernel->n_nodes - 1; id >= 0; id--) {
		const rr__node *node = &kernel->nodes[id];
		if (!reach[id] || !em->needed[id] || node->op == RR_OP_INPUT || id == from_cache ||
		    (em->held[id] && round > 1 && !em->head) ||
		    (early_output_of(em, id) >= 0 && round > 1))
			continue;
		if (node->a >= 0)
			reach[node->a] = 1;
		if (node->b >= 0)
			reach[node->b] = 1;
	}
	for (int id = 0; id < kernel->n_nodes; id++)
		em->needed[id] = em->needed[id] && reach[id];
}

/* The work on the L workers' element e of one pack (lane 0's index i): evaluate the elem
 * nodes the round needs as vectors, then accumulate or write the row outputs. */
static void emit_element(emitter *em, int depth, int round, int guarded)
{
	const rr_kernel *kernel = em->kernel;
	int from_cache = em->cache_live && !em->head && round > em->rounds ? em->cached : -1;
	element_needs(em, round, from_cache);
	if (em->runs && !guarded && em->run_only >= 0 && round > em->rounds)
		needs_of_one_output(em, round, from_cache, em->run_only);
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (!em->needed[id])
			continue;
		if (kernel->nodes[id].op == RR_OP_INPUT) {
			emit_load(em, depth, id, round, guarded);
			continue;
		}
		if (id == from_cache && em->in_row) {
			line(em, depth, "const vf e%d = %s; /* kept in the row */", id,
			     em->in_row == 1 ? "rr_load_f32(q + k)"
			                     : "rr_load_f32_lanes(q + k, valid)");
			continue;
		}
		if (id == from_cache) {
			line(em, depth,
			     "const vf e%d = load_kept(cache%s, slot * W + b * L); /* kept */", id,
			     guarded ? "_tail" : "");
			continue;
		}
		if (em->held[id] && round > 1 && !em->head) {
			line(em, depth,
			     "const vf e%d = load_kept(held%d, slot * W + b * L); /* kept */", id,
			     id);
			continue;
		}
		const int early = early_output_of(em, id);
		if (early >= 0 && round > 1) {
			line(em, depth,
			     "const vf e%d = load_lanes%s(early%d, i, %s); /* %s, from round 1 */", id,
			     guarded ? "_guarded" : "", early, guarded ? "N" : "e",
			     kernel->outputs[early].name);
			continue;
		}
		rr__emit_indent(em->out, depth + em->indent);
		rr__buf_printf(em->out, "const vf e%d = ", id);
		if (exp_of_nonpositive(kernel, id))
			rr__buf_printf(em->out, "rr_vexp_nonpos%s(e%d)",
			               em->dtype == RR_BF16 && em->ranged >= 0 &&
			                       kernel->nodes[kernel->nodes[id].a].b == em->ranged
			                   ? "_bf16_ranged"
			               : em->dtype == RR_BF16 ? "_bf16"
			               : exp_summed_only(kernel, id) && em->ranged >= 0 &&
			                       kernel->nodes[kernel->nodes[id].a].b == em->ranged
			                   ? "_summed_ranged"
			               : exp_summed_only(kernel, id) ? "_summed"
			               : em->ranged >= 0 &&
			                       kernel->nodes[kernel->nodes[id].a].b == em->ranged &&
			                       stored_ranged(kernel, em->ranged)
			                   ? "_ranged"
			                   : "",
			               kernel->nodes[id].a);
		else
			rr__emit_rhs(em->out, kernel, id, "", RR_FLAVOR_C_VEC);
		rr__buf_printf(em->out, ";\n");
		if (early >= 0 && guarded)
			line(em, depth, "store_lanes_guarded(early%d, i, N, e%d); /* %s */", early,
			     id, kernel->outputs[early].name);
		else if (early >= 0 && em->runs)
			line(em, depth, "run%d[u * BLOCKS + b] = e%d; /* %s, stored with the run */",
			     early, id, kernel->outputs[early].name);
		else if (early >= 0)
			line(em, depth, "store_packed(early%d + i, e%d); /* %s, read back after */",
			     early, id, kernel->outputs[early].name);
		if (id == em->cached && em->pass == 2 && !em->head && em->runs && !guarded)
			line(em, depth,
			     "run_kept[u * BLOCKS + b] = e%d; /* stored with the run */ (void)slot;", id);
		else if (id == em->cached && em->pass == 2 && !em->head)
			line(em, depth, "store_kept(cache%s, slot * W + b * L, e%d);",
			     guarded ? "_tail" : "", id);
		if (em->held[id] && round == 1 && !em->head)
			line(em, depth,
			     "store_kept(held%d, slot * W + b * L, e%d); /* read back after */", id,
			     id);
	}
	if (round > em->rounds) {
		emit_outputs_of_element(em, depth, guarded);
		return;
	}
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (!rr__reduced_in(kernel, id, round))
			continue;
		int partner = kernel->analysis.online_partner[id];
		if (em->pass == 2 && partner >= 0)
			emit_accumulate(em, depth, partner, guarded);
		else if (em->pass != 2)
			emit_accumulate(em, depth, id, guarded);
	}
}

/* The online (max, sum) update after one pack, per lane: m_new = max(m, pack); the sum is
 * rescaled to m_new and the pack's exp(v - m_new) are added in element order; a lane whose
 * m_new is -inf keeps its sum. */
static void emit_online_update(emitter *em, int depth, int max_id)
{
	int sum_id = em->kernel->analysis.online_partner[max_id];
	line(em, depth, "{");
	line(em, depth + 1, "vf pack_max = pack%d[0];", max_id);
	line(em, depth + 1, "for (int e = 1; e < V; e++)");
	line(em, depth + 2, "pack_max = rr_vmax(pack_max, pack%d[e]);", max_id);
	line(em, depth + 1, "const vf m_new = rr_vmax(m%d[b], pack_max);", max_id);
	/* exp(0) == 1 exactly: where no lane's max moved, the rescale is skipped bit for bit */
	line(em, depth + 1, "vf z = z%d[b];", sum_id);
	line(em, depth + 1, "if (rr_vany(m_new != m%d[b]))", max_id);
	line(em, depth + 2, "z = z * rr_vexp_nonpos(m%d[b] - m_new);", max_id);
	line(em, depth + 1, "for (int e = 0; e < V; e++)");
	line(em, depth + 2, "z = z + rr_vexp_nonpos(pack%d[e] - m_new);", max_id);
	line(em, depth + 1, "z%d[b] = rr_vselect(m_new != -INFINITY, z, z%d[b]);", sum_id, sum_id);
	line(em, depth + 1, "m%d[b] = m_new;", max_id);
	line(em, depth, "}");
}

/* Whether the text of `buf` from `from` on names the variable i outside comments. */
static int names_index(const rr__buf *buf, size_t from)
{
	if (buf->failed)
		return 1;
	const char *text = buf->data;
	for (size_t k = from; k < buf->length; k++) {
		if (text[k] == '/' && k + 1 < buf->length && text[k + 1] == '*') {
			const char *end = strstr(text + k + 2, "*/");
			if (!end)
				return 0;
			k = (size_t)(end - text) + 1;
			continue;
		}
		if (text[k] != 'i')
			continue;
		const int before =
		    k > from && (isalnum((unsigned char)text[k - 1]) || text[k - 1] == '_');
		const int after = k + 1 < buf->length &&
		                  (isalnum((unsigned char)text[k + 1]) || text[k + 1] == '_');
		if (!before && !after)
			return 1;
	}
	return 0;
}

/* Removes the text [from, to) of `buf` (a line emitted that turned out unused). */
static void drop_text(rr__buf *buf, size_t from, size_t to)
{
	if (buf->failed || to > buf->length || from > to)
		return;
	memmove(buf->data + from, buf->data + to, buf->length - to + 1);
	buf->length -= to - from;
}

/* Whether the plan's packs are read (and stored) as whole vectors: V from 2 to RR_PICK_MAX_VEC. */
static int picks_packs(const emitter *em)
{
	return em->layout->vec > 1 && em->layout->vec <= RR_PICK_MAX_VEC;
}

/* Whether the output phase's complete chunks hold a pack's row outputs, V vectors, and store
 * them after the loop over e as whole vectors (cpu_vec.h's store_packs), where V > 1 stored
 * lane by lane: outside the modes that store otherwise. */
static int stores_packs(const emitter *em, int round, int guarded)
{
	return round > em->rounds && !guarded && !em->head && !em->runs && !em->in_row &&
	       !em->aligned && picks_packs(em);
}

/* Whether the passes' prefetches of 16-bit rows go one a 64-byte line (the vector whose
 * element i - h is a multiple of PREFETCH_LINE_MASK + 1) instead of one a vector: V = 1, so
 * that every such i is a vector's first element and each line of the row is prefetched once.
 * Four prefetches a line with AVX2, two with AVX-512. Softmax bf16 from DRAM, two threads,
 * with the stores' half-up rounding (device/cpu_vec.h, rr_store_bf16_run): 4096x4096
 * 0.976-0.995 of the time, 16384x1024 0.983-0.993 (bench/lab/s64-cpu-bf16, Zen 3; the lab's
 * calls in both orders); layernorm, rmsnorm and sum bf16 level within the VM's noise. */
static int prefetch_by_line(const emitter *em)
{
	return em->dtype != RR_F32 && em->layout->vec == 1;
}

/* One pack of each of the L workers of block b in chunk c: V elements, lane l's element e at
 * i + l * V. `guarded` for the last chunk: lanes past N take no part, and once lane 0's
 * element is past N every lane's is. */
static void emit_pack(emitter *em, int depth, int round, int guarded)
{
	const rr_kernel *kernel = em->kernel;
	size_t index_at = 0, index_end = 0; /* the line declaring i, where one is emitted */
	for (int id = 0; id < kernel->n_nodes && em->pass == 0; id++) {
		if (!rr__reduced_in(kernel, id, round) || kernel->analysis.online_partner[id] < 0)
			continue;
		line(em, depth, "vf pack%d[V];", id);
		if (guarded) {
			line(em, depth, "for (int e = 0; e < V; e++)");
			line(em, depth + 1,
			     "pack%d[e] = rr_vsplat(-INFINITY); /* absent elements */", id);
		}
	}
	em->staged = stores_packs(em, round, guarded);
	for (int j = 0; em->staged && j < kernel->n_outputs; j++)
		if (phase_stores(em, j))
			line(em, depth, "vf stage%d[V]; /* %s, stored after the loop over e */", j,
			     kernel->outputs[j].name);
	if (em->head) {
		/* head element j = t * W + W - 1 - worker (lane l: worker b * L + l), j < h */
		line(em, depth, "for (int e = 0; e < HS; e++) {");
		line(em, depth + 1, "const vi valid = head_valid(e, b, h);");
		line(em, depth + 1, "if (!rr_vany(valid))");
		line(em, depth + 2, "break;");
	} else {
		if (!guarded && picks_packs(em))
			line(em, depth, "#pragma GCC unroll %d /* constant e: rr_pick_packs */",
			     RR_PICK_MAX_VEC);
		line(em, depth, "for (int e = 0; e < V; e++) {");
		index_at = em->out->length;
		line(em, depth + 1,
		     "const int64_t i = h + (c * W + b * L) * V + e; /* lane l: i + l * V */");
		index_end = em->out->length;
		if (guarded) {
			line(em, depth + 1, "if (i >= N)");
			line(em, depth + 2, "break;");
			if (round <= em->rounds)
				line(em, depth + 1, "const vi valid = lanes_valid(i, N);");
		}
		if (round_uses_slots(em, round))
			line(em, depth + 1, "const int64_t slot = c * V + e;");
		for (int k = 0; em->prefetch && !guarded && k < kernel->n_inputs; k++)
			if (kernel->inputs[k].kind == RR_KIND_ROW)
				line(em, depth + 1, "%s__builtin_prefetch(in%d + %s + i); /* %s */",
				     prefetch_by_line(em)
				         ? "if (((i - h) & PREFETCH_LINE_MASK) == 0) "
				         : "",
				     k,
				     em->prefetch == PREFETCH_SINGLE ? "ahead"
				                                     : "prefetch_ahead(N, stream)",
				     em->prefetch == PREFETCH_SINGLE ? "ahead" : "a row on");
		for (int k = 0; em->lead && !guarded && k < kernel->n_inputs; k++)
			if (kernel->inputs[k].kind == RR_KIND_ROW)
				line(em, depth + 1,
				     "prefetch_lead(in%d, N, h, i); /* the next row's first "
				     "eighth */",
				     k);
	}
	emit_element(em, depth + 1, round, guarded);
	/* every value from kept slots, the stores through runs: no line reads i */
	if (index_end > 0 && !names_index(em->out, index_end))
		drop_text(em->out, index_at, index_end);
	line(em, depth, "}");
	for (int j = 0; em->staged && j < kernel->n_outputs; j++)
		if (phase_stores(em, j))
			line(em, depth, "store_packs(out%d, h + (c * W + b * L) * V, stage%d);", j,
			     j);
	em->staged = 0;
	for (int id = 0; id < kernel->n_nodes && em->pass == 0; id++)
		if (rr__reduced_in(kernel, id, round) && kernel->analysis.online_partner[id] >= 0)
			emit_online_update(em, depth, id);
}

/* Accumulators: one vector per block of L workers, at the reduction's identity. */
static void emit_traversal_begin(emitter *em, int round)
{
	const rr_kernel *kernel = em->kernel;
	for (int round_id = 0; round_id < kernel->n_nodes; round_id++) {
		if (!rr__reduced_in(kernel, round_id, round) || pass_reduction(em, round_id) < 0)
			continue;
		int id = pass_reduction(em, round_id), partner = pass_partner(em, id);
		if (partner >= 0) {
			line(em, 2, "vf m%d[BLOCKS], z%d[BLOCKS]; /* online max s%d, sum s%d */",
			     id, partner, id, partner);
			line(em, 2, "for (int b = 0; b < BLOCKS; b++) {");
			line(em, 3, "m%d[b] = rr_vsplat(-INFINITY);", id);
			line(em, 3, "z%d[b] = rr_vsplat(0.0f);", partner);
			line(em, 2, "}");
			continue;
		}
		line(em, 2, "vf acc%d[BLOCKS]; /* %s */", id,
		     rr__reduce_name(kernel->nodes[id].reduce));
		line(em, 2, "for (int b = 0; b < BLOCKS; b++)");
		line(em, 3, "acc%d[b] = rr_vsplat(%s);", id,
		     rr__reduce_identity(kernel->nodes[id].reduce));
	}
	for (int k = 0; k < kernel->n_inputs; k++)
		if (input_kept(em, k) && em->read[round][k])
			line(em, 2, "float *keep%d = scratch + (int64_t)%d * W * slots; /* %s */",
			     k, em->kept[k], kernel->inputs[k].name);
	for (int id = 0; id < kernel->n_nodes; id++)
		if (em->held[id])
			line(em, 2,
			     "float *held%d = scratch + (int64_t)%d * W * slots; /* e%d */ "
			     "(void)held%d;",
			     id, em->n_kept + em->held[id] - 1, id, id);
	if (round_uses_slots(em, round) && em->cached >= 0 &&
	    (em->pass == 2 || round > em->rounds)) {
		if (em->piped_row)
			line(em, 2,
			     "float *cache_tail = scratch + ((int64_t)KEPT_INPUTS + (row & 1)) * W * "
			     "slots; /* e%d, by the row's parity: the pending row's in the other */",
			     em->cached);
		else
			line(em, 2,
			     "float *cache_tail = scratch + (int64_t)KEPT_INPUTS * W * slots; /* "
			     "e%d */",
			     em->cached);
		if (em->cache_output >= 0 && !em->piped_row)
			line(em, 2,
			     "float *cache = stream ? cache_tail : (float *)out%d + h; /* the "
			     "output row, in cache */",
			     em->cache_output);
		else
			line(em, 2, "float *cache = cache_tail;");
		line(em, 2, "(void)cache;");
		line(em, 2, "(void)cache_tail;");
	}
}

/* Whether the split's max pass of `round` runs CHAINS accumulators per block: when each of
 * its reductions is a max or a min, exact in any order (a different order can only make a tie
 * of +0 and -0 keep the other zero; exp(e - m) is the same for both). One chain of maxima waits
 * on the last (softmax f32 64x4096, one thread: 0.69 -> 0.65 µs a row). */
static int max_chains(const emitter *em, int round)
{
	if (em->pass != 1)
		return 0;
	for (int id = 0; id < em->kernel->n_nodes; id++)
		if (rr__reduced_in(em->kernel, id, round) &&
		    em->kernel->nodes[id].reduce == RR_REDUCE_SUM)
			return 0;
	return 1;
}

/* The row input whose maxima (or minima) the split's max pass takes over the row's aligned
 * vectors instead of chunk by chunk, or -1: f32 rows with V = 1 (a chunk's lanes are then
 * consecutive elements), each reduction of the pass a max or min of that input itself, which
 * the pass does not keep. Any order gives them (max_chains) and any lane may hold any element's:
 * the tree takes the extremum of all lanes of all blocks. */
static int aligned_extrema_input(const emitter *em, int round)
{
	const rr_kernel *kernel = em->kernel;
	int input = -1;
	if (em->dtype != RR_F32 || em->layout->vec != 1)
		return -1;
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (!rr__reduced_in(kernel, id, round))
			continue;
		const rr__node *operand = &kernel->nodes[kernel->nodes[id].a];
		if (operand->op != RR_OP_INPUT ||
		    kernel->inputs[operand->input].kind != RR_KIND_ROW ||
		    input_kept(em, operand->input) || (input >= 0 && operand->input != input))
			return -1;
		input = operand->input;
	}
	return input;
}

/* One vector `value` into the chains `chain` (an index expression) of every reduction. */
static void emit_extrema_fold(emitter *em, int depth, int round, const char *chain,
                              const char *value)
{
	for (int id = 0; id < em->kernel->n_nodes; id++)
		if (rr__reduced_in(em->kernel, id, round))
			line(em, depth, "chain%d[%s][0] = %s(chain%d[%s][0], %s);", id, chain,
			     em->kernel->nodes[id].reduce == RR_REDUCE_MAX ? "rr_vmax_acc"
			                                                   : "rr_vmin_acc",
			     id, chain, value);
}

/* The row's least value beside its max (em->summed_lo, f32_range_max): rr_vmin_acc leaves
 * NaNs out as rr_vmax_acc does; the elements past the complete chunks (the guarded chunk's,
 * fewer than W * V) one by one. */
static void emit_least_fold(emitter *em, int depth, const char *chain, const char *value)
{
	if (em->summed_lo >= 0)
		line(em, depth, "low%d[%s] = rr_vmin_acc(low%d[%s], %s);", em->summed_lo, chain,
		     em->summed_lo, chain, value);
}

static void emit_least_end(emitter *em)
{
	const int id = em->summed_lo;
	if (id < 0)
		return;
	line(em, 3, "for (int q_ = 1; q_ < CHAINS; q_++)");
	line(em, 4, "low%d[0] = rr_vmin_acc(low%d[0], low%d[q_]);", id, id, id);
	line(em, 3, "lo%d = low%d[0][0];", id, id);
	line(em, 3, "for (int l = 1; l < L; l++)");
	line(em, 4, "lo%d = low%d[0][l] < lo%d ? low%d[0][l] : lo%d;", id, id, id, id, id);
	line(em, 3, "for (int64_t j = count; j < N - h; j++)");
	line(em, 4, "lo%d = q[j] < lo%d ? q[j] : lo%d;", id, id, id);
}

/* The max pass's complete chunks as the row's aligned vectors, CHAINS at a time, the lanes
 * before the first vector boundary and after the last masked to the extremum's identity.
 * NumPy's rows start 16 bytes into a line, so chunk by chunk every load of this pass splits a
 * line: two threads, rows 16 bytes in, softmax f32 at 4096 and 65536 columns 0.93-0.98 of the
 * time, cross_entropy 0.90-0.97, aligned rows level; rows of 321 columns 1.00-1.02, so only
 * rows of 1024 elements or more (bench/NOTES.md session 24). */
static void emit_extrema_lines(emitter *em, int round, int input)
{
	const char *identity = "-INFINITY";
	for (int id = 0; id < em->kernel->n_nodes; id++)
		if (rr__reduced_in(em->kernel, id, round) &&
		    em->kernel->nodes[id].reduce == RR_REDUCE_MIN)
			identity = "INFINITY";
	char masked[96];
	snprintf(masked, sizeof masked,
	         "rr_vselect(valid, rr_load_f32_lanes(q + k, valid), rr_vsplat(%s))", identity);
	const char *least_masked =
	    "rr_vselect(valid, rr_load_f32_lanes(q + k, valid), rr_vsplat(INFINITY))";
	line(em, 2,
	     "if (chunks * W * V >= 1024 && !share) { /* the row's aligned vectors: "
	     "extrema are exact in any order */");
	line(em, 3, "const float *const q = (const float *)in%d + h;", input);
	line(em, 3, "const int64_t count = chunks * W * V;");
	line(em, 3, "const int64_t lead = rr_lead_to_vector(q, count);");
	line(em, 3, "int64_t k = 0;");
	if (em->summed_lo >= 0) {
		line(em, 3, "vf low%d[CHAINS]; /* the row's least value */", em->summed_lo);
		line(em, 3, "for (int q_ = 0; q_ < CHAINS; q_++)");
		line(em, 4, "low%d[q_] = rr_vsplat(INFINITY);", em->summed_lo);
	}
	line(em, 3, "if (lead > 0) { /* the lanes before the first boundary, at k = 0 */");
	line(em, 4, "const vi valid = rr_first_lanes(lead);");
	emit_extrema_fold(em, 4, round, "0", masked);
	emit_least_fold(em, 4, "0", least_masked);
	line(em, 4, "k = lead;");
	line(em, 3, "}");
	line(em, 3, "for (; k + CHAINS * L <= count; k += CHAINS * L)");
	line(em, 4, "for (int q_ = 0; q_ < CHAINS; q_++) {");
	line(em, 5, "const vf v = rr_load_f32(q + k + q_ * L);");
	emit_extrema_fold(em, 5, round, "q_", "v");
	emit_least_fold(em, 5, "q_", "v");
	line(em, 4, "}");
	line(em, 3, "for (; k + L <= count; k += L) {");
	line(em, 4, "const vf v = rr_load_f32(q + k);");
	emit_extrema_fold(em, 4, round, "0", "v");
	emit_least_fold(em, 4, "0", "v");
	line(em, 3, "}");
	line(em, 3, "if (k < count) {");
	line(em, 4, "const vi valid = rr_first_lanes(count - k);");
	emit_extrema_fold(em, 4, round, "0", masked);
	emit_least_fold(em, 4, "0", least_masked);
	line(em, 3, "}");
	emit_least_end(em);
	line(em, 3, "chunk = chunks;");
	line(em, 2, "}");
}

/* The chains' loop over complete chunks, CHAINS at a time (chunk c in chain c % CHAINS), and
 * the chains folded into the block's accumulator. */
static void emit_chained_chunks(emitter *em, int round)
{
	const rr_kernel *kernel = em->kernel;
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (!rr__reduced_in(kernel, id, round))
			continue;
		line(em, 2, "vf chain%d[CHAINS][BLOCKS];", id);
		line(em, 2, "for (int q = 0; q < CHAINS; q++)");
		line(em, 3, "for (int b = 0; b < BLOCKS; b++)");
		line(em, 4, "chain%d[q][b] = acc%d[b];", id, id);
	}
	int input = aligned_extrema_input(em, round);
	if (input >= 0)
		emit_extrema_lines(em, round, input);
	line(em, 2, "for (; chunk + CHAINS <= chunks; chunk += CHAINS) {");
	line(em, 3, "for (int q = 0; q < CHAINS; q++) {");
	line(em, 4, "const int64_t c = chunk + q;");
	line(em, 4, "for (int b = b_lo; b < b_hi; b++) {");
	em->chains = 1;
	emit_pack(em, 5, round, 0);
	em->chains = 0;
	line(em, 4, "}");
	line(em, 3, "}");
	line(em, 2, "}");
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (!rr__reduced_in(kernel, id, round))
			continue;
		const char *fold =
		    kernel->nodes[id].reduce == RR_REDUCE_MAX ? "rr_vmax_acc" : "rr_vmin_acc";
		line(em, 2, "for (int q = 0; q < CHAINS; q++)");
		line(em, 3, "for (int b = 0; b < BLOCKS; b++)");
		line(em, 4, "acc%d[b] = %s(acc%d[b], chain%d[q][b]);", id, fold, id, id);
	}
}

/* Whether the pass of `round` is the output phase with V = 1, whose complete chunks store
 * whole vectors at consecutive addresses: rr_store_aligned keeps those stores off cache-line
 * boundaries (device/cpu_vec.h). Not where the phase reads the split's cache (softmax): there
 * it measured level or slower (1024x1024 f32, one thread, output 16 bytes in: 314-320 µs
 * against 320-356), the cache's own stores realigned too no better (338-359). */
static int stores_aligned(const emitter *em, int round)
{
	return round > em->rounds && em->layout->vec == 1 && em->cached < 0 && em->dtype == RR_F32;
}

/* Whether the output phase of `round` stores f32 rows through rr_store_aligned for its streamed
 * stores alone (softmax included): a row 16 bytes off a 32-byte boundary is then stored in
 * aligned 32-byte non-temporal stores (device/cpu_vec.h, rr_aligner). */
static int streams_aligned(const emitter *em, int round)
{
	return round > em->rounds && em->layout->vec == 1 && em->dtype == RR_F32;
}

/* Whether the output phase of `round` stores 16-bit rows a loop iteration's vectors at a time
 * (V = 1: they are consecutive), through rr_store_bf16_run or rr_store_f16_run
 * (device/cpu_vec.h): one test for the lanes the instruction converts apart (subnormal for
 * bf16, NaN for f16) and one branch for all of them, the launch's `stream` asked once. */
static int stores_in_runs(const emitter *em, int round)
{
	return round > em->rounds && em->dtype != RR_F32 && em->layout->vec == 1 &&
	       em->r->head_slots == 0;
}

/* Whether the output phase of `round`, in the branch where the split's cache lies in the row
 * output (cache_output_of), computes that output from the cache and scalars alone: then it
 * can finish the row in place in any order (in_row_lines). */
static int output_from_cache_alone(emitter *em, int round)
{
	const rr_kernel *kernel = em->kernel;
	if (round <= em->rounds || !em->cache_live || em->cache_output < 0)
		return 0;
	for (int j = 0; j < kernel->n_outputs; j++)
		if (kernel->outputs[j].kind == RR_KIND_ROW && j != em->cache_output)
			return 0;
	element_needs(em, round, em->cached);
	for (int id = 0; id < kernel->n_nodes; id++)
		if (em->needed[id] && kernel->nodes[id].op == RR_OP_INPUT &&
		    kernel->nodes[id].shape == RR_SHAPE_ELEM)
			return 0;
	return 1;
}

/* Whether the f32 output phase of `round` computes F32_RUN_CHUNKS chunks (a run) before it
 * stores any of them, as the 16-bit runs do: a load that matches an older pending store in
 * its low 20 address bits waits for that store, and the phase re-reads a row input a vector
 * or two ahead of each store, so an output row 64-128 bytes past an input row modulo 1 MiB
 * (NumPy's arrays land there now and then) ran rmsnorm and layernorm f32 2048x1024 2.2-2.4x
 * longer (bench/NOTES.md, session 45 CPU). In runs of four chunks a run's loads come before
 * its stores: no distance was slow, other placements 0.93-1.01 of the time. Not the in-row
 * branch (output_from_cache_alone), whose stores go out as lines of its own; softmax f32's
 * sums pass, which writes its exp values into the output row, is not an output phase. */
#define F32_RUN_CHUNKS 4
static int f32_runs(emitter *em, int round)
{
	return round > em->rounds && em->dtype == RR_F32 && em->layout->vec == 1 &&
	       em->r->head_slots == 0 && !em->piped_row && !output_from_cache_alone(em, round);
}

/* Whether a pass of the reductions that stores rows as it goes holds its stores in runs as
 * f32_runs does: round 1 writing its early outputs (add_layernorm's h = x + r, the next
 * vector of x and r loaded right after each store of h), and the split's pass of the sums
 * writing its e-values into the output row (softmax f32: each exp's store ahead of the next
 * load of x). At y - x = +16 to +64 modulo 1 MiB (where NumPy's heap puts arrays of whole MiB)
 * those ran 1.4-1.5x and 4.2-4.8x the time; in runs, at most 1.2x and 1.5x, over a window as
 * wide as a run (bench/NOTES.md, session 46 CPU). Each accumulator still adds its values in the
 * plan's order. */
static int f32_pass_runs(const emitter *em, int round)
{
	if (round > em->rounds || em->dtype != RR_F32 || em->layout->vec != 1 ||
	    em->r->head_slots > 0 || em->piped_row || em->n_held > 0)
		return 0;
	if (em->pass == 2)
		return em->cached >= 0 && em->n_early == 0;
	return em->pass == 0 && round == 1 && em->n_early > 0;
}

/* Whether the run loop of `round` (em->runs) holds row output j's values. */
static int run_holds(const emitter *em, int round, int j)
{
	if (round > em->rounds)
		return phase_stores(em, j);
	return em->pass != 2 && em->early[j] != 0;
}

/* Whether the run loop of a pass of the sums holds the split's e-values for its cache. */
static int run_holds_cache(const emitter *em, int round)
{
	return round <= em->rounds && em->pass == 2 && em->cached >= 0;
}

/* A part vector of emit_in_row_lines: its first `lanes` lanes at q + k. */
static void emit_in_row_masked(emitter *em, int round, const char *lanes)
{
	line(em, 4, "const vi valid = rr_first_lanes(%s);", lanes);
	em->in_row = 2;
	emit_element(em, 4, round, 0);
}

/* The output phase over the cache in the output row (f32, V = 1, the launch not streaming):
 * the complete chunks' values are finished in place a vector-aligned span at a time, lanes
 * before the first line and after the last masked, instead of chunk by chunk from the row's
 * start. Each element gets the value it gets chunk by chunk (the same operations on the same
 * cached value and scalars); only the addresses change. NumPy's rows start 16 bytes into a
 * line, so chunk by chunk every load and store of this phase splits a line: softmax f32
 * 1024x1024, one thread, the output 16 bytes in: 1.17-1.21x the time of aligned rows. */
static void emit_in_row_lines(emitter *em, int round)
{
	line(em, 2,
	     "if (!stream && !share) { /* the cache in the row: finished in place, aligned */");
	line(em, 3, "float *const q = (float *)out%d + h;", em->cache_output);
	line(em, 3, "const int64_t count = chunks * W * V;");
	line(em, 3, "const int64_t lead = rr_lead_to_vector(q, count);");
	line(em, 3, "int64_t k = 0;");
	line(em, 3, "if (lead > 0) {");
	emit_in_row_masked(em, round, "lead");
	line(em, 4, "k = lead;");
	line(em, 3, "}");
	/* Four vectors an iteration: the loop of one load, multiply and store was bound by its
	 * own fetch and ran at half speed where its 28 bytes crossed a 64-byte line (softmax f32
	 * 1024x1024, the code moved 16 bytes: 1.10x the time; bench/NOTES.md, session 34). */
	line(em, 3, "#pragma GCC unroll 4");
	line(em, 3, "for (; k + L <= count; k += L) {");
	em->in_row = 1;
	emit_element(em, 4, round, 0);
	line(em, 3, "}");
	line(em, 3, "if (k < count) {");
	emit_in_row_masked(em, round, "count - k");
	line(em, 3, "}");
	em->in_row = 0;
	line(em, 3, "chunk = chunks;");
	line(em, 2, "}");
}

/* One line per row output the output phase stores, `fmt` taking its index twice: an aligner's
 * start or end, where it stores through rr_store_aligned (em->aligned). */
static void emit_aligners(emitter *em, const char *fmt)
{
	for (int j = 0; j < em->kernel->n_outputs && em->aligned; j++)
		if (phase_stores(em, j))
			line(em, 2, fmt, j, j, j);
}

/* The stores of a run of a pass of the reductions (f32_pass_runs), after its loads. */
static void emit_pass_run_stores(emitter *em, int round, int depth, const char *u_text)
{
	line(em, depth, "for (int u = 0; u < %s; u++)", u_text);
	line(em, depth + 1, "for (int b = b_lo; b < b_hi; b++) {");
	if (run_holds_cache(em, round))
		line(em, depth + 2,
		     "store_kept(cache, (chunk + u) * W + b * L, run_kept[u * BLOCKS + b]);");
	for (int j = 0; j < em->kernel->n_outputs; j++)
		if (run_holds(em, round, j))
			line(em, depth + 2,
			     "store_packed(early%d + h + (chunk + u) * W + b * L, "
			     "run%d[u * BLOCKS + b]); /* %s */",
			     j, j, em->kernel->outputs[j].name);
	line(em, depth + 1, "}");
}

/* The loop over the complete chunks, `u_text` a loop iteration, storing row output `only`
 * (-1: all of them; only with em->runs). */
static void emit_chunk_loop(emitter *em, int round, const char *u_text, int only, int from_start)
{
	if (from_start)
		line(em, 2, "for (chunk = run_start; chunk + %s <= chunks; chunk += %s) {", u_text,
		     u_text);
	else
		line(em, 2, "for (; chunk + %s <= chunks; chunk += %s) {", u_text, u_text);
	em->run_only = only;
	for (int j = 0; j < em->kernel->n_outputs && em->runs; j++)
		if (run_holds(em, round, j) && (only < 0 || j == only))
			line(em, 3, "vf run%d[%s * BLOCKS]; /* the chunks' values, stored together */",
			     j, u_text);
	if (em->runs && run_holds_cache(em, round))
		line(em, 3, "vf run_kept[%s * BLOCKS]; /* the chunks' e-values, stored together */",
		     u_text);
	line(em, 3, "for (int u = 0; u < %s; u++) {", u_text);
	line(em, 4, "const int64_t c = chunk + u;");
	line(em, 4, "for (int b = b_lo; b < b_hi; b++) {");
	emit_pack(em, 5, round, 0);
	line(em, 4, "}");
	if (em->piped_row && em->pass == 2)
		line(em, 4, "pending_chunk(pend, pal, c); /* the previous row's output, this chunk */");
	line(em, 3, "}");
	if (em->runs && round <= em->rounds)
		emit_pass_run_stores(em, round, 3, u_text);
	for (int j = 0; j < em->kernel->n_outputs && em->runs && round > em->rounds; j++) {
		if (!phase_stores(em, j) || (only >= 0 && j != only))
			continue;
		if (em->dtype == RR_F32) { /* f32_runs: vector by vector, after the run's loads */
			line(em, 3, "for (int u = 0; u < %s; u++)", u_text);
			line(em, 4, "for (int b = b_lo; b < b_hi; b++) /* a row part's blocks */");
			if (em->aligned)
				line(em, 5,
				     "rr_store_aligned(&aligned%d, out%d, h + (chunk + u) * W + b * L, "
				     "stream, run%d[u * BLOCKS + b]);",
				     j, j, j);
			else
				line(em, 5,
				     "store_lanes(out%d, h + (chunk + u) * W + b * L, stream, "
				     "run%d[u * BLOCKS + b]);",
				     j, j);
			continue;
		}
		if (em->lines)
			line(em, 3,
			     "rr_store_bf16_lines%s(&lines%d, out%d + h + chunk * W * V, run%d, %s * "
			     "BLOCKS, stream);",
			     em->paired ? "_paired" : "", j, j, j, u_text);
		else
			line(em, 3,
			     "rr_store_%s_run%s(out%d + h + chunk * W * V, run%d, %s * BLOCKS, "
			     "stream);",
			     em->dtype == RR_BF16 ? "bf16" : "f16", em->paired ? "_paired" : "", j,
			     j, u_text);
	}
	em->run_only = -1;
	line(em, 2, "}");
}

/* The output phase's complete chunks. Where 16-bit rows stream past the caches (the branch
 * that prefetches the next row) and the phase writes several row outputs, one loop per
 * output: interleaved, the runs of two outputs stream at a fraction of the speed of one
 * (bench/NOTES.md, session 31b CPU: add_layernorm bf16 16384x1024, two threads from DRAM, 0.53-0.59
 * of the time with h in a loop of its own). A later loop recomputes only what its output needs (a
 * kept h is a load) and prefetches nothing; every element gets the same value. */
static void emit_run_loops(emitter *em, int round, const char *u_text)
{
	int outputs = 0;
	for (int j = 0; j < em->kernel->n_outputs && em->runs; j++)
		outputs += em->kernel->outputs[j].kind == RR_KIND_ROW && !em->early[j];
	if (!em->runs || !em->prefetch || outputs < 2 || em->dtype == RR_F32) {
		emit_chunk_loop(em, round, u_text, -1, 0);
		return;
	}
	line(em, 2,
	     "const int64_t run_start = chunk; /* one loop per output: apart they stream */");
	const int prefetch = em->prefetch;
	for (int j = 0, first = 1; j < em->kernel->n_outputs; j++) {
		if (em->kernel->outputs[j].kind != RR_KIND_ROW || em->early[j])
			continue;
		emit_chunk_loop(em, round, u_text, j, !first);
		em->prefetch = 0;
		first = 0;
	}
	em->prefetch = prefetch;
}

/* Every worker visits its private slots in slot order, L workers at a time as the lanes of
 * one vector: the chunks whose packs are all complete, U per iteration, then the last chunk
 * guarded. A worker's order is the plan's whichever block it sits in (the maxima of the
 * split's max pass aside: max_chains). */
static void emit_traversal(emitter *em, int round)
{
	line(em, 1, "{");
	emit_traversal_begin(em, round);
	if (em->r->head_slots > 0) {
		line(em, 2,
		     "for (int b = b_lo; b < b_hi; b++) { /* the head, on the last workers */");
		em->head = 1;
		emit_pack(em, 3, round, 1);
		em->head = 0;
		line(em, 2, "}");
	}
	line(em, 2,
	     "const int64_t chunks = (N - h) / ((int64_t)W * V); /* chunks of complete packs */");
	line(em, 2, "int64_t chunk = 0;");
	/* The distance once a pass: inside the loop GCC kept prefetch_single's tests on N and
	 * stream as branches, three taken a chunk (bench/lab/s63-cpu-sum16). */
	if (em->prefetch == PREFETCH_SINGLE)
		line(em, 2, "const int64_t ahead = prefetch_single(N, stream); /* elements on */");
	if (max_chains(em, round))
		emit_chained_chunks(em, round);
	/* The split's pass of the sums runs two chunks per iteration where the plan has one: exp
	 * is a chain of ~15 dependent operations per vector, and two in one iteration share the
	 * constants' loads and the loop's overhead. A worker's order is unchanged (lab, softmax
	 * f32 1024x1024, one thread, AVX2: 0.48 -> 0.44 µs a row). */
	em->runs = stores_in_runs(em, round) || f32_runs(em, round) || f32_pass_runs(em, round);
	/* An output phase of the cached value alone (softmax f32: a load, a multiply and a store a
	 * vector) runs four chunks an iteration. With one, its loop was small enough to be bound
	 * by fetching its own code, whose placement alone moved softmax f32 4096x4096 by 10 %
	 * (two threads from DRAM, the same source 16 bytes further on: 1.046 against 0.953;
	 * bench/NOTES.md, session 34). */
	int few = em->pass == 2 || em->runs ? 2 : 1;
	if (!em->runs && output_from_cache_alone(em, round))
		few = 4;
	if (em->runs && em->dtype == RR_F32)
		few = F32_RUN_CHUNKS;
	const int unroll = em->layout->unroll < few ? few : em->layout->unroll;
	char u_text[12] = "U";
	if (unroll != em->layout->unroll)
		snprintf(u_text, sizeof u_text, "%d", unroll);
	if (output_from_cache_alone(em, round))
		emit_in_row_lines(em, round);
	em->aligned = streams_aligned(em, round); /* stores_aligned's rows among them */
	emit_aligners(em,
	              stores_aligned(em, round)
	                  ? "rr_aligner aligned%d = rr_aligner_begin(out%d + h, stream, !share, "
	                    "carry + %d);"
	                  : "rr_aligner aligned%d = rr_aligner_begin(out%d + h, stream, 0, "
	                    "carry + %d);");
	/* in pair order, the last odd chunk is a run of its own (one chunk holds whole pairs) */
	const int odd_run = unroll > 1 && em->runs && em->paired;
	if (em->runs && em->dtype == RR_BF16 && em->r->cols % 32 == 0) {
		/* whole lines where every row output allows (rr_store_bf16_lines), in a copy of the
		 * loops of their own: in one loop with the other stores, rows at an odd 2-byte
		 * offset ran 1.2 times as long (softmax bf16 4096x4096, session 39 CPU). Only for
		 * rows of whole lines of values (the lines' rule): elsewhere the copy alone cost
		 * add_layernorm bf16 65535x127 1.04 of the time. */
		for (int j = 0; j < em->kernel->n_outputs; j++)
			if (em->kernel->outputs[j].kind == RR_KIND_ROW)
				line(em, 2, "rr_lines16 lines%d; /* %s's whole lines */", j,
				     em->kernel->outputs[j].name);
		for (int j = 0; j < em->kernel->n_outputs; j++)
			if (em->kernel->outputs[j].kind == RR_KIND_ROW)
				line(em, 2,
				     "rr_lines16_begin(&lines%d, out%d + h, N, stream, carry + %d);",
				     j, j, j);
		rr__emit_indent(em->out, 2 + em->indent);
		rr__buf_printf(em->out, "if (");
		for (int j = 0, n = 0; j < em->kernel->n_outputs; j++)
			if (em->kernel->outputs[j].kind == RR_KIND_ROW)
				rr__buf_printf(em->out, "%slines%d.past >= 0", n++ ? " && " : "", j);
		rr__buf_printf(em->out, ") {\n");
		em->indent++;
		em->lines = 1;
		emit_run_loops(em, round, u_text);
		if (odd_run)
			emit_chunk_loop(em, round, "1", -1, 0);
		em->lines = 0;
		for (int j = 0; j < em->kernel->n_outputs; j++)
			if (em->kernel->outputs[j].kind == RR_KIND_ROW)
				line(em, 2, "rr_lines16_end(&lines%d);", j);
		em->indent--;
		line(em, 2, "} else {");
		em->indent++;
		emit_run_loops(em, round, u_text);
		if (odd_run)
			emit_chunk_loop(em, round, "1", -1, 0);
		em->indent--;
		line(em, 2, "}");
	} else {
		emit_run_loops(em, round, u_text);
		if (odd_run)
			emit_chunk_loop(em, round, "1", -1, 0);
	}
	em->runs = 0;
	if (unroll > 1 && !odd_run) {
		line(em, 2, "for (; chunk < chunks; chunk++) {");
		line(em, 3, "const int64_t c = chunk;");
		line(em, 3, "for (int b = b_lo; b < b_hi; b++) {");
		emit_pack(em, 4, round, 0);
		line(em, 3, "}");
		if (em->piped_row && em->pass == 2)
			line(em, 3, "pending_chunk(pend, pal, c);");
		line(em, 2, "}");
	}
	emit_aligners(em, "rr_aligner_end(&aligned%d, out%d);");
	em->aligned = 0;
	for (int round_id = 0;
	     em->paired_kept && round <= em->rounds && round_id < em->kernel->n_nodes; round_id++) {
		if (!rr__reduced_in(em->kernel, round_id, round) ||
		    pass_reduction(em, round_id) < 0)
			continue;
		int id = pass_reduction(em, round_id);
		line(em, 2, "for (int b = 0; b + 1 < BLOCKS; b += 2) { /* back in worker order */");
		line(em, 3, "const vf p = acc%d[b], q = acc%d[b + 1];", id, id);
		line(em, 3, "acc%d[b] = rr_unpair_lo(p, q);", id);
		line(em, 3, "acc%d[b + 1] = rr_unpair_hi(p, q);", id);
		line(em, 2, "}");
	}
	line(em, 2, "if (chunks * W * V < N - h) {");
	line(em, 3, "const int64_t c = chunks;");
	line(em, 3, "for (int b = b_lo; b < b_hi; b++) {");
	emit_pack(em, 4, round, 1);
	line(em, 3, "}");
	line(em, 2, "}");
	for (int round_id = 0; round_id < em->kernel->n_nodes && round <= em->rounds; round_id++) {
		if (!rr__reduced_in(em->kernel, round_id, round) ||
		    pass_reduction(em, round_id) < 0)
			continue;
		int id = pass_reduction(em, round_id), partner = pass_partner(em, id);
		/* element by element: accumulators whose address is never taken stay in registers
		 */
		line(em, 2, "for (int b = 0; b < BLOCKS; b++) {");
		line(em, 3, "part%d[b] = %s%d[b];", id, partner >= 0 ? "m" : "acc", id);
		if (partner >= 0)
			line(em, 3, "part%d[b] = z%d[b];", partner, partner);
		line(em, 2, "}");
	}
	line(em, 1, "}");
}

/* One reduction's combine in a tree step: own value first, the partner's from `other` (a
 * format taking the array's name: another block, or this block's lanes swapped). */
static void emit_combine(emitter *em, int depth, int id, const char *other)
{
	const rr_kernel *kernel = em->kernel;
	char partner_value[64], own_value[64];
	int partner = pass_partner(em, id);
	snprintf(partner_value, sizeof partner_value, other, id);
	if (partner >= 0) {
		char z2[64];
		snprintf(z2, sizeof z2, other, partner);
		line(em, depth, "{");
		line(em, depth + 1, "const vf m1 = part%d[b], m2 = %s;", id, partner_value);
		line(em, depth + 1, "const vf z1 = part%d[b], z2 = %s;", partner, z2);
		line(em, depth + 1, "const vf m = rr_vmax(m1, m2);");
		line(
		    em, depth + 1,
		    "part%d[b] = rr_vselect(m == -INFINITY, z1, z1 * rr_vexp_nonpos(m1 - m) + z2 * "
		    "rr_vexp_nonpos(m2 - m));",
		    partner);
		line(em, depth + 1, "part%d[b] = m;", id);
		line(em, depth, "}");
		return;
	}
	snprintf(own_value, sizeof own_value, "part%d[b]", id);
	/* A max's or min's partials are never NaN (emit_accumulate: rr_vmax_acc from -inf leaves
	 * NaNs out), so the accumulator's one instruction combines them, bit for bit rr_vmax's
	 * compares and blend, a few cycles shorter on the row's chain: softmax f32 65535x127,
	 * two threads, 0.96-0.98 of the time (bench/NOTES.md, session 38 CPU). */
	switch (kernel->nodes[id].reduce) {
	case RR_REDUCE_SUM:
		line(em, depth, "part%d[b] = %s + %s;", id, own_value, partner_value);
		break;
	case RR_REDUCE_MAX:
		line(em, depth, "part%d[b] = rr_vmax_acc(%s, %s);", id, own_value, partner_value);
		break;
	case RR_REDUCE_MIN:
		line(em, depth, "part%d[b] = rr_vmin_acc(%s, %s);", id, own_value, partner_value);
		break;
	}
}

/* The fixed tree: for each offset o in order, new[w] = combine(old[w], old[w ^ o]), own value
 * first; the row's result is worker 0's. Only the workers whose value can reach worker 0 are
 * computed (those with every bit of the offsets done so far clear: after a step, w and w ^ o
 * are combined and w alone goes on), which leaves worker 0's value exactly the butterfly's. An
 * offset of L or more pairs whole vectors; a smaller one pairs the lanes inside each vector. */
static void emit_tree(emitter *em, int round)
{
	const rr_kernel *kernel = em->kernel;
	/* Unrolled, every o is a constant: a lane swap is one shuffle by an immediate and the
	 * blocks stay in registers. GCC 12 -O3 kept the loop (an index vector built lane by lane
	 * with vpinsrd for each vpermps, the blocks on the stack), 15 % of layernorm bf16
	 * 16384x1024's time (perf samples; bench/NOTES.md, session 34). */
	line(em, 1, "#pragma GCC unroll 16");
	line(em, 1,
	     "for (int step = 0, done = 0; step < TREE_STEPS; done |= tree_offsets[step++]) {");
	line(em, 2, "const int o = tree_offsets[step];");
	line(em, 2, "for (int b = 0; b < BLOCKS; b++) {");
	line(em, 3, "if (o >= L) {");
	line(em, 4, "if ((b * L & (o | done)) == 0) {");
	for (int id = 0; id < kernel->n_nodes; id++)
		if (rr__reduced_in(kernel, id, round) && pass_reduction(em, id) >= 0)
			emit_combine(em, 5, pass_reduction(em, id), "part%d[b + o / L]");
	line(em, 4, "}");
	line(em, 3, "} else if ((b * L & done) == 0) {");
	for (int id = 0; id < kernel->n_nodes; id++)
		if (rr__reduced_in(kernel, id, round) && pass_reduction(em, id) >= 0)
			emit_combine(em, 4, pass_reduction(em, id), "rr_vswap(part%d[b], o)");
	line(em, 3, "}");
	line(em, 2, "}");
	line(em, 1, "}");
}

/* In a part of a row split over threads (rr_cpu_row_part), each part's blocks of the round's
 * partials to the others before the tree: every part then runs the whole tree on the same
 * vectors, in the plan's order, and has the row's scalar. */
static void emit_exchange(emitter *em, int round)
{
	const rr_kernel *kernel = em->kernel;
	if (!em->parts)
		return;
	line(em, 1, "if (share) { /* a part of the row: the blocks of all parts */");
	for (int round_id = 0; round_id < kernel->n_nodes; round_id++) {
		if (!rr__reduced_in(kernel, round_id, round) || pass_reduction(em, round_id) < 0)
			continue;
		int id = pass_reduction(em, round_id), partner = pass_partner(em, id);
		line(em, 2, "rr_row_exchange(share, part%d, b_lo, b_hi);", id);
		if (partner >= 0)
			line(em, 2, "rr_row_exchange(share, part%d, b_lo, b_hi);", partner);
	}
	line(em, 1, "}");
}

/* One pass over the row (pass 0 the plan's online pass; 1 and 2 the split's) into s<id>. */
static void emit_round_pass(emitter *em, int round, const char *declare)
{
	const rr_kernel *kernel = em->kernel;
	for (int round_id = 0; round_id < kernel->n_nodes; round_id++) {
		if (!rr__reduced_in(kernel, round_id, round) || pass_reduction(em, round_id) < 0)
			continue;
		int id = pass_reduction(em, round_id), partner = pass_partner(em, id);
		line(em, 1, "vf part%d[BLOCKS];", id);
		if (partner >= 0)
			line(em, 1, "vf part%d[BLOCKS];", partner);
	}
	if (em->lead) { /* in a copy of the pass of its own: launches in cache run it without */
		const int indent = em->indent, lead = em->lead;
		line(em, 1, "if (stream) { /* past the caches: the next row's first eighth too */");
		em->indent = indent + 1;
		emit_traversal(em, round);
		em->indent = indent;
		line(em, 1, "} else {");
		em->indent = indent + 1;
		em->lead = 0;
		emit_traversal(em, round);
		em->lead = lead;
		em->indent = indent;
		line(em, 1, "}");
	} else {
		emit_traversal(em, round);
	}
	if (em->tree_steps > 0) {
		emit_exchange(em, round);
		emit_tree(em, round);
	}
	for (int round_id = 0; round_id < kernel->n_nodes; round_id++) {
		if (!rr__reduced_in(kernel, round_id, round) || pass_reduction(em, round_id) < 0)
			continue;
		int id = pass_reduction(em, round_id), partner = pass_partner(em, id);
		line(em, 1, "%ss%d = part%d[0][0];", declare, id, id);
		if (partner >= 0)
			line(em, 1, "%ss%d = part%d[0][0];", declare, partner, partner);
	}
}

static int round_has_online_pair(const emitter *em, int round)
{
	for (int id = 0; id < em->kernel->n_nodes; id++)
		if (rr__reduced_in(em->kernel, id, round) &&
		    em->kernel->analysis.online_partner[id] >= 0)
			return 1;
	return 0;
}

/* The split's sum pass is compute-bound on a row in cache and leaves the memory idle: when it
 * is the last round it prefetches the next row (mostly this thread's next), a line per vector
 * of V = 1. (The output phase of the norms doing the same measured slower: it streams.) Every
 * pass that prefetches fetches the row prefetch_ahead (device/cpu_row.h) says: the next, or two
 * rows on where a launch past the caches has short rows. */
static int prefetch_in_split(const emitter *em, int round)
{
	return em->layout->vec == 1 && round == em->rounds;
}

/* The output phase of a kernel without the split (the norms) reads its row from cache and
 * streams its outputs past it, while nothing brings the next row from memory: in launches that
 * stream (`stream`, past the caches) it prefetches the next row of every row input too, in a
 * copy of the phase of its own: launches in cache run the code without it. On the 2-core Zen 3
 * machine (bench/NOTES.md, session 8) rmsnorm and layernorm f32 at 1024x4096 ... 16384x1024
 * ran 0.61-0.97 of the time; in-cache launches (64x4096) were up to 1.5x slower with a
 * prefetch, or a test of `stream`, in their loop. On the AVX-512 Xeon whose rows come from
 * DRAM (session 21; two threads, rows 16 bytes into a line, 4096x4096, 16384x1024, 256x65536)
 * bf16 rmsnorm ran 0.76-0.84 of the time, layernorm 0.78-0.87, add_layernorm 0.79-0.96, also
 * S=regs plans; add_layernorm f32 0.95-0.99 (its output phase reads h, the prefetch brings x
 * and r). Session 8 left bf16 (0.65-0.92 and 1.15-1.75 in two pairs of runs on Zen 3) and
 * add_layernorm (whose times then swung with NumPy's placement, since explained by 4 KiB
 * aliasing and kept from streaming: rr__cpu_outputs_alias) out; f16 stores lane by lane and
 * stays out. */
static int prefetch_in_output(const emitter *em)
{
	return em->layout->vec == 1 && (em->dtype == RR_F32 || em->dtype == RR_BF16);
}

/* Round 1 of an f32 kernel whose output phase prefetches the next row (prefetch_in_output)
 * reads its one row input from cache while the memory idles but for the previous row's
 * streamed stores: in launches past the caches it fetches the first eighth of the next row, a
 * line every eight lines (prefetch_lead, device/cpu_row.h), so that fetching overlaps the pass.
 * Two threads, rows 16 bytes into a line, from DRAM (bench/NOTES.md, session 25): rmsnorm f32
 * 4096x4096 0.93-0.99 of the time, 16384x1024 0.89-0.97, layernorm 0.94-0.98 and 0.87-0.89,
 * 256x65536, 1024x4096 (in L3) and rows in cache level; a quarter or half of the row, or every
 * round fetching, level or slower.
 * Left out: bf16 rows (level), add_layernorm, whose round 1 reads two rows and writes h
 * (level). */
static int prefetch_lead_in_round(const emitter *em, int round)
{
	int row_inputs = 0, row_outputs = 0, early = 0;
	for (int k = 0; k < em->kernel->n_inputs; k++)
		row_inputs += em->kernel->inputs[k].kind == RR_KIND_ROW;
	for (int j = 0; j < em->kernel->n_outputs; j++) {
		row_outputs += em->kernel->outputs[j].kind == RR_KIND_ROW;
		early += em->early[j];
	}
	return round == 1 && row_inputs == 1 && row_outputs > 0 && !early && em->cached < 0 &&
	       em->dtype == RR_F32 && prefetch_in_output(em);
}

/* A kernel of one round and no row outputs (sum) reads each row once and nothing else: its
 * pass prefetches the next row (mostly this thread's next), a line per vector of V = 1, so the
 * next row's lines are on their way while this one's are added. On the AVX-512 Xeon (bench/
 * NOTES.md, session 18; one thread, rows 16 bytes into a line) sum f32 1024x4096 and
 * 4096x4096 ran 0.91-0.94 of the time, bf16 1024x1024 ... 4096x4096 0.81-0.83, rows in L2
 * (64x4096) 0.97. (Round 1 of the norms and softmax does not take it: their later passes or
 * the split's sum pass prefetch already.) On the AMD EPYC host (two threads from DRAM, ABBA,
 * bench/NOTES.md session 29) f32 rows of 16384 elements and more ran faster without it in
 * every round (sum f32 64x262144 0.67-0.71 of the time, 256x65536 0.65-0.91, 1024x16384
 * 0.89-0.93; 512x32768 0.79-1.05; 16384x1024 and 4096x4096 0.84-1.30, level), while bf16 rows
 * ran 1.2-1.9x slower without it. A row on is far for wide rows: they fetch 8 KiB ahead
 * instead (prefetch_single, device/cpu_row.h), f32 too. */
static int prefetch_in_single_pass(const emitter *em, int round)
{
	for (int j = 0; j < em->kernel->n_outputs; j++)
		if (em->kernel->outputs[j].kind == RR_KIND_ROW)
			return 0;
	if (em->layout->vec != 1 || em->rounds != 1 || round != 1)
		return 0;
	return PREFETCH_SINGLE;
}

/* The row input whose maximum the split's max pass of `round` takes from its bits instead
 * (rr_bf16_extrema, device/cpu_vec.h, with the row's minimum beside it), or -1; *max_id the
 * max node. bf16 rows whose pass reduces only the max of a row input it does not keep, the max
 * feeding only exp(x - m) (max_feeds_exp_only: the integers order +0 above -0, the float maxima
 * either way). Then the sum pass knows from the minimum whether any x - m is under -86.5, and
 * where none is it takes rr_vexp_nonpos_bf16_ranged, without the rare-lane test a vector. One
 * thread, in cache, softmax bf16 32x4096: 0.95 of the time, the same output bits
 * (bench/NOTES.md, session 30). */
static int words_max_input(emitter *em, int round, int *max_id)
{
	const rr_kernel *kernel = em->kernel;
	int input = -1, found = 0;
	if (em->dtype != RR_BF16)
		return -1;
	em->pass = 1;
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (!rr__reduced_in(kernel, id, round) || pass_reduction(em, id) < 0)
			continue;
		const rr__node *operand = &kernel->nodes[kernel->nodes[id].a];
		found++;
		if (kernel->nodes[id].reduce == RR_REDUCE_MAX && operand->op == RR_OP_INPUT &&
		    kernel->inputs[operand->input].kind == RR_KIND_ROW &&
		    !input_kept(em, operand->input) && max_feeds_exp_only(kernel, id)) {
			input = operand->input;
			*max_id = id;
		}
	}
	em->pass = 0;
	return found == 1 ? input : -1;
}

/* The lone max node that the split's max pass of `round` reduces over the row's aligned
 * vectors of f32 (aligned_extrema_input), or -1: the pass can take the row's least value beside
 * it (emit_least_fold; rows of fewer than 1024 elements keep -inf, so never ranged). */
static int lone_aligned_max(emitter *em, int round)
{
	const rr_kernel *kernel = em->kernel;
	int max_id = -1, found = 0;
	if (em->dtype != RR_F32 || aligned_extrema_input(em, round) < 0)
		return -1;
	for (int id = 0; id < kernel->n_nodes; id++)
		if (rr__reduced_in(kernel, id, round)) {
			found++;
			if (kernel->nodes[id].reduce == RR_REDUCE_MAX)
				max_id = id;
		}
	return found == 1 ? max_id : -1;
}

/* The max node of `round` whose split sum pass has a ranged copy, where the max pass finds every
 * x - m of the row at -87 or more (-86.5 where stored_ranged), or -1: f32 rows whose max pass
 * is a lone max over the row's aligned vectors (lone_aligned_max), its exp(x - m) only summed
 * (exp_summed_only: cross_entropy; that copy takes rr_vexp_nonpos_summed_ranged, without the
 * clamp to -87) or stored (stored_ranged: softmax). The pass takes the row's least value beside
 * the max (emit_least_fold; rows of fewer than 1024 elements keep the clamp and the test); the
 * output bits are the other copy's (RR_SUMMED_RANGED 0 compiles the clamped form,
 * RR_NONPOS_RANGED 0 the tested one). Two threads, rows from DRAM: cross_entropy f32 without
 * the clamp 0.96-0.98 of the time (bench/NOTES.md, session 33b CPU); softmax f32 without the
 * test 0.82-0.85 in cache, 0.92 at 1024x1024 and 256x65536, level on rows streamed from DRAM
 * (bench/lab/s66-cpu-softmax/notes.md). Split rows take the same copies wherever they run:
 * one_row's rows with their cache in the row (RR_CACHE_IN_ROW) and one_row_piped's (the same
 * emit_split_round). */
static int f32_range_max(emitter *em, int round)
{
	const int max_id = lone_aligned_max(em, round);
	if (max_id < 0)
		return -1;
	return exp_of_max(em->kernel, max_id, 1) || stored_ranged(em->kernel, max_id) ? max_id : -1;
}

/* The split's max pass (em->pass 1), from the row's bits where words_max_input says so: the
 * float pass stays for rows the integers cannot tell (a positive NaN) and targets without the
 * vector form (RR_BF16_EXTREMA); ranged<m> says whether the sum pass may leave out exp's test. */
static void emit_max_pass(emitter *em, int round, int words, int max_id)
{
	if (words < 0 && max_id >= 0) { /* f32: the least value beside the max */
		const int stored = stored_ranged(em->kernel, max_id);
		em->summed_lo = max_id;
		emit_round_pass(em, round, "");
		em->summed_lo = -1;
		line(em, 1,
		     "ranged%d = %s%slo%d - s%d >= %s; /* every x - m, rounded, at least this */",
		     max_id, exp_of_max(em->kernel, max_id, 1) ? "RR_SUMMED_RANGED && " : "",
		     stored ? "RR_NONPOS_RANGED && " : "", max_id, max_id,
		     stored ? "-86.5f" : "-87.0f");
		return;
	}
	if (words < 0) {
		emit_round_pass(em, round, "");
		return;
	}
	const int indent = em->indent;
	line(em, 1, "float lo%d; /* the row's least value */", max_id);
	line(em, 1, "if (RR_BF16_EXTREMA && !share && rr_bf16_extrema(in%d, N, &s%d, &lo%d))",
	     words, max_id, max_id);
	line(em, 2, "ranged%d = lo%d - s%d >= -86.5f; /* every x - m, rounded, at least this */",
	     max_id, max_id, max_id);
	line(em, 1, "else {");
	em->indent = indent + 1;
	emit_round_pass(em, round, "");
	em->indent = indent;
	line(em, 1, "}");
}

/* The split's sum pass (em->pass 2), in two copies where the max pass may find the row in
 * range (emit_max_pass): exp without its rare-lane test in the first. */
static void emit_sum_pass(emitter *em, int round, int words, int max_id)
{
	if (words < 0 && max_id < 0) {
		emit_round_pass(em, round, "");
		return;
	}
	const int indent = em->indent;
	line(em, 1, "if (ranged%d) { /* no exp(x - m) under 2^-125 in the row */", max_id);
	em->indent = indent + 1;
	em->ranged = max_id;
	emit_round_pass(em, round, "");
	em->ranged = -1;
	em->indent = indent;
	line(em, 1, "} else {");
	em->indent = indent + 1;
	emit_round_pass(em, round, "");
	em->indent = indent;
	line(em, 1, "}");
}

/* A round with an online (max, sum) pair on rows up to SPLIT_MAX_N elements (in cache): the
 * max first, then the sum of exp(e - m) with the row's max (no per-pack rescale, one exp per
 * element, kept for the output phase when it needs it); longer rows in the plan's one online
 * pass. Each worker accumulates in slot order and the tree is the plan's either way. */
static void emit_split_round(emitter *em, int round)
{
	const rr_kernel *kernel = em->kernel;
	rr__buf_printf(em->out, "\tfloat");
	for (int id = 0, n = 0; id < kernel->n_nodes; id++)
		if (rr__reduced_in(kernel, id, round)) {
			int partner = kernel->analysis.online_partner[id];
			rr__buf_printf(em->out, "%s s%d", n++ ? "," : "", id);
			if (partner >= 0)
				rr__buf_printf(em->out, ", s%d", partner);
		}
	rr__buf_printf(em->out, ";\n");
	int max_id = -1;
	const int words = words_max_input(em, round, &max_id);
	if (words < 0)
		max_id = f32_range_max(em, round);
	if (em->piped_row) /* piped_rows runs rows up to SPLIT_MAX_N alone */
		line(em, 1, "{ /* the max, then the sum of exp(e - m) */");
	else
		line(em, 1, "if (N <= SPLIT_MAX_N) { /* the max, then the sum of exp(e - m) */");
	em->indent = 1;
	if (words >= 0)
		line(em, 1, "int ranged%d = 0; /* no x - s%d under -86.5 (emit_max_pass) */",
		     max_id, max_id);
	else if (max_id >= 0) {
		line(em, 1, "int ranged%d = 0; /* no x - s%d under %s (emit_max_pass) */", max_id,
		     max_id, stored_ranged(kernel, max_id) ? "-86.5" : "-87");
		line(em, 1,
		     "float lo%d = -INFINITY; /* the row's least value, where the pass takes it */",
		     max_id);
	}
	for (em->pass = 1; em->pass <= 2; em->pass++) {
		line(em, 1, "{");
		em->indent = 2;
		em->prefetch = em->pass == 2 && prefetch_in_split(em, round);
		if (em->pass == 1)
			emit_max_pass(em, round, words, max_id);
		else
			emit_sum_pass(em, round, words, max_id);
		em->prefetch = 0;
		em->indent = 1;
		line(em, 1, "}");
	}
	em->pass = 0;
	em->indent = 0;
	if (em->piped_row) {
		line(em, 1, "}");
		return;
	}
	line(em, 1, "} else { /* one online pass */");
	em->indent = 1;
	emit_round_pass(em, round, "");
	em->indent = 0;
	line(em, 1, "}");
}

static void emit_round(emitter *em, int round)
{
	line(em, 1, "/* round %d: each worker's partials in slot order, then the tree */", round);
	if (em->split_max_n > 0 && round_has_online_pair(em, round)) {
		emit_split_round(em, round);
	} else {
		em->prefetch = prefetch_in_single_pass(em, round);
		em->lead = prefetch_lead_in_round(em, round);
		emit_round_pass(em, round, "const float ");
		em->prefetch = 0;
		em->lead = 0;
	}
	emit_scalars(em, round);
}

/* The row's scalar outputs (the sum, the loss), once its rounds are done. */
static void emit_rowscalar_outputs(emitter *em)
{
	const rr_kernel *kernel = em->kernel;
	for (int j = 0; j < kernel->n_outputs; j++) {
		if (kernel->outputs[j].kind != RR_KIND_ROWSCALAR)
			continue;
		/* by the first part of a row split over threads (b_lo 0), as by a whole row */
		rr__buf_printf(em->out, "\tif (b_lo == 0)\n\t\tout%d[0] = store_io(", j);
		value_ref(em, kernel->outputs[j].node);
		rr__buf_printf(em->out, "); /* %s */\n", kernel->outputs[j].name);
	}
}

static void emit_outputs(emitter *em)
{
	const rr_kernel *kernel = em->kernel;
	int row_outputs = 0; /* those the output phase writes */
	for (int j = 0; j < kernel->n_outputs; j++)
		row_outputs += kernel->outputs[j].kind == RR_KIND_ROW && !em->early[j];
	if (row_outputs > 0 && em->cached >= 0) {
		line(em, 1, "/* output phase: each worker writes the elements it owns */");
		line(em, 1, "if (N <= SPLIT_MAX_N) { /* e%d from the cache */", em->cached);
		em->indent = 1;
		em->cache_live = 1;
		emit_traversal(em, em->rounds + 1);
		em->cache_live = 0;
		em->indent = 0;
		line(em, 1, "} else {");
		em->indent = 1;
		emit_traversal(em, em->rounds + 1);
		em->indent = 0;
		line(em, 1, "}");
	} else if (row_outputs > 0) {
		line(em, 1, "/* output phase: each worker writes the elements it owns */");
		if (prefetch_in_output(em)) {
			line(
			    em, 1,
			    "if (stream) { /* past the caches: the next row comes in meanwhile */");
			em->indent = 1;
			em->prefetch = 1;
			emit_traversal(em, em->rounds + 1);
			em->prefetch = 0;
			line(em, 1, "} else {");
			emit_traversal(em, em->rounds + 1);
			em->indent = 0;
			line(em, 1, "}");
		} else {
			emit_traversal(em, em->rounds + 1);
		}
	}
	emit_rowscalar_outputs(em);
}

static void emit_piped(emitter *em);

/* piped_rows' rows through one_row_piped (emit_piped). */
static void emit_piped_rows(emitter *em)
{
	line(em, 0, "#if PIPED");
	line(em, 1, "if (stream && N <= PIPED_MAX_N && !(RR_CACHE_IN_ROW && N >= IN_ROW_MIN_N)) {");
	line(em, 2, "/* PIPED_MAX_N <= SPLIT_MAX_N; rows that keep their cache in the row */");
	line(em, 2, "/* (RR_CACHE_IN_ROW: not with AVX-512) run one_row */");
	line(em, 2, "rr_pending pend;");
	line(em, 2, "memset(&pend, 0, sizeof pend);");
	line(em, 2, "for (int64_t row = row_begin; row < row_end; row++)");
	line(em, 3,
	     "one_row_piped(row, N, inputs, params, outputs, scratch, stream, carry, &pend);");
	line(em, 2, "rr_aligner pal[OUTPUTS];");
	line(em, 2, "pending_begin(&pend, pal, carry);");
	line(em, 2, "pending_finish(&pend, pal, 0, N, carry);");
	line(em, 2, "return 1;");
	line(em, 1, "}");
	line(em, 0, "#endif");
}

/* one_row's signature and opening brace: the whole row's function. */
static void emit_one_row_head(emitter *em)
{
	line(em, 0,
	     "static void one_row(int64_t row, int64_t N, const void *const *inputs, "
	     "const double *params,");
	line(em, 0,
	     "\t\t    void *const *outputs, float *scratch, int stream, rr_carry *carry)\n{");
}

static void emit_row_function(emitter *em)
{
	if (em->parts) {
		line(em, 0,
		     "/* One row, or the part of it that blocks [b_lo, b_hi) of workers own");
		line(em, 0, " * where the row is split over threads (share: rr_cpu_row_part);");
		line(em, 0, " * one_row's constants leave the whole row's code. */");
		line(em, 0,
		     "static inline __attribute__((always_inline)) void row_body(int64_t row, "
		     "int64_t N,");
		line(em, 0,
		     "\t\tconst void *const *inputs, const double *params, void *const *outputs, "
		     "float *scratch,");
		line(em, 0,
		     "\t\tint stream, rr_carry *carry, const int b_lo, const int b_hi, "
		     "rr_row_share *const share)\n{");
	} else {
		emit_one_row_head(em);
		line(em, 1, "const int b_lo = 0, b_hi = BLOCKS; /* the whole row */");
		line(em, 1, "rr_row_share *const share = NULL;");
	}
	line(em, 1, "(void)params;");
	line(em, 1, "(void)carry;");
	line(em, 1, "(void)scratch;");
	line(em, 1, "(void)stream;");
	line(em, 1, "(void)b_lo;");
	line(em, 1, "(void)b_hi;");
	line(em, 1, "(void)share;");
	emit_row_setup(em);
	if (em->cache_output >= 0) {
		line(em, 1,
		     "if (RR_CACHE_IN_ROW && N >= IN_ROW_MIN_N && N <= SPLIT_MAX_N) /* the cache "
		     "in the row */");
		line(em, 2, "stream = 0;");
	}
	emit_scalars(em, 0);
	for (int round = 1; round <= em->rounds; round++)
		emit_round(em, round);
	emit_outputs(em);
	line(em, 0, "}\n");
	if (em->parts) {
		emit_one_row_head(em);
		line(em, 1,
		     "row_body(row, N, inputs, params, outputs, scratch, stream, carry, 0, BLOCKS, "
		     "NULL);");
		line(em, 0, "}\n");
	}
	line(em, 0, "/* The 16-bit cols as f32 at `to`, wide_col_stride(N) floats apart. */");
	line(em, 0, "static void widen_cols(int64_t N, const void *const *inputs, float *to)\n{");
	line(em, 1, "(void)N;");
	line(em, 1, "(void)inputs;");
	line(em, 1, "(void)to;");
	for (int k = 0; k < em->kernel->n_inputs; k++)
		if (em->wide[k])
			line(em, 1,
			     "%s(to + %d * wide_col_stride(N), (const io_t *)inputs[%d], N); /* %s "
			     "*/",
			     em->paired ? "rr_widen_col_paired" : "widen_col", em->wide[k] - 1, k,
			     em->kernel->inputs[k].name);
	line(em, 0, "}\n");
	if (em->piped)
		emit_piped(em);
	line(em, 0,
	     "/* Rows [row_begin, row_end) in order, each row's output phase in the next row's "
	     "pass of");
	line(em, 0,
	     " * the sums (emit_piped), where the launch streams rows the split runs: 1 when it "
	     "ran them. */");
	line(em, 0,
	     "static int piped_rows(int64_t row_begin, int64_t row_end, int64_t N, "
	     "const void *const *inputs,");
	line(em, 0,
	     "\t\t      const double *params, void *const *outputs, float *scratch, int stream,");
	line(em, 0, "\t\t      rr_carry *carry)\n{");
	if (em->piped)
		emit_piped_rows(em);
	line(em, 1, "(void)row_begin;");
	line(em, 1, "(void)row_end;");
	line(em, 1, "(void)N;");
	line(em, 1, "(void)inputs;");
	line(em, 1, "(void)params;");
	line(em, 1, "(void)outputs;");
	line(em, 1, "(void)scratch;");
	line(em, 1, "(void)stream;");
	line(em, 1, "(void)carry;");
	line(em, 1, "return 0;");
	line(em, 0, "}\n");
	rr__device_emit(em->out, "cpu_row.h", "entry");
	if (em->parts) {
		int row_outputs = 0;
		for (int j = 0; j < em->kernel->n_outputs; j++)
			row_outputs += em->kernel->outputs[j].kind == RR_KIND_ROW;
		/* reads alone: two lines a part's span (a line pair fetched by both cores is read
		 * twice, not moved) */
		line(em, 0, "#define PART_LEAST_BYTES %d /* a part's span of a chunk, at least */",
		     row_outputs > 0 ? 512 : 128);
		rr__device_emit(em->out, "cpu_row.h", "parts_entry");
	}
}

/* ---------------------------------------------------------------- pipelined rows */

/* The scalars the output phase of a piped kernel reads (the pending row's): set in scalars
 * (n_nodes entries). */
static void pending_scalars(emitter *em, unsigned char *scalars)
{
	const rr_kernel *kernel = em->kernel;
	memset(scalars, 0, (size_t)kernel->n_nodes);
	em->cache_live = 1;
	element_needs(em, em->rounds + 1, em->cached);
	em->cache_live = 0;
	for (int id = 0; id < kernel->n_nodes; id++) {
		const rr__node *node = &kernel->nodes[id];
		if (!em->needed[id])
			continue;
		if (node->shape != RR_SHAPE_ELEM && node->op != RR_OP_CONST)
			scalars[id] = 1;
		if (node->shape != RR_SHAPE_ELEM || id == em->cached)
			continue;
		const int operand[2] = {node->a, node->b};
		for (int k = 0; k < 2; k++)
			if (operand[k] >= 0 && kernel->nodes[operand[k]].shape != RR_SHAPE_ELEM &&
			    kernel->nodes[operand[k]].op != RR_OP_CONST)
				scalars[operand[k]] = 1;
	}
	for (int j = 0; j < kernel->n_outputs; j++) {
		const int node = kernel->outputs[j].node;
		if (kernel->outputs[j].kind == RR_KIND_ROW && node >= 0 &&
		    kernel->nodes[node].shape != RR_SHAPE_ELEM && kernel->nodes[node].op != RR_OP_CONST)
			scalars[node] = 1;
	}
}

/* The pending row's pointers and scalars as the output phase's names, in a function of its. */
static void emit_pending_locals(emitter *em, const unsigned char *scalars, int tail)
{
	const rr_kernel *kernel = em->kernel;
	line(em, 1, "const int stream = 1;");
	line(em, 1, "const int64_t h = 0; /* no head */");
	line(em, 1, "float *const %s = pend->cache;", tail ? "cache_tail" : "cache");
	line(em, 1, "(void)stream;");
	line(em, 1, "(void)h;");
	for (int j = 0; j < kernel->n_outputs; j++)
		if (kernel->outputs[j].kind == RR_KIND_ROW)
			line(em, 1, "io_t *const out%d = pend->out%d; /* %s */", j, j,
			     kernel->outputs[j].name);
	for (int id = 0; id < kernel->n_nodes; id++)
		if (scalars[id])
			line(em, 1, "const float s%d = pend->s[%d];", id, id);
}

/* A streaming launch of a piped kernel (rr__c_piped) runs each row's output phase inside the
 * next row's pass of the sums: the pending row's chunk c after this row's chunk c, its
 * values from the cache of the other parity, its non-temporal stores issued among the
 * pass's exp instead of all at once after it (a phase that only loads, multiplies and
 * streams waits on its stores). Each element gets the same operations on the same cached
 * value and scalars, stored through an aligner begun where one_row begins it and the same
 * carry, in row order, so the bytes are one_row's. */
static void emit_piped(emitter *em)
{
	const rr_kernel *kernel = em->kernel;
	const int out_round = em->rounds + 1;
	unsigned char scalars[RR_MAX_NODES];
	pending_scalars(em, scalars);
	line(em, 0, "#if PIPED");
	line(em, 0,
	     "/* Inlined where they are called: the pending row's aligners are locals of the row "
	     "that");
	line(em, 0, " * stores its chunks, in registers through the pass. */");
	line(em, 0, "#define RR_INLINE static inline __attribute__((always_inline))");
	line(em, 0, "/* A row whose output phase waits for the next row's pass of the sums. */");
	line(em, 0, "typedef struct rr_pending {");
	line(em, 1, "int live;");
	line(em, 1, "int64_t chunks; /* its complete chunks */");
	line(em, 1, "float *cache;   /* its cached values */");
	for (int j = 0; j < kernel->n_outputs; j++)
		if (kernel->outputs[j].kind == RR_KIND_ROW)
			line(em, 1, "io_t *out%d; /* %s */", j, kernel->outputs[j].name);
	line(em, 1, "float s[%d]; /* its scalars, by node */", kernel->n_nodes);
	line(em, 0, "} rr_pending;\n");

	line(em, 0,
	     "/* The pending row's aligners (pal[j] for row output j), begun as one_row begins "
	     "its own. */");
	line(em, 0,
	     "RR_INLINE void pending_begin(const rr_pending *pend, rr_aligner *pal, rr_carry "
	     "*carry)\n{");
	line(em, 1, "(void)carry;");
	for (int j = 0; j < kernel->n_outputs; j++)
		if (kernel->outputs[j].kind == RR_KIND_ROW)
			line(em, 1, "rr_aligner_init(&pal[%d], pend->out%d, 1, 0, carry + %d);", j, j,
			     j);
	line(em, 0, "}\n");

	line(em, 0,
	     "/* Chunk c of the pending row's output phase (nothing where there is none; every "
	     "row has the");
	line(em, 0,
	     " * same chunks, no head): a test the pass's loop is unswitched on, its scalars' "
	     "work hoisted. */");
	line(em, 0,
	     "RR_INLINE void pending_chunk(const rr_pending *restrict pend, rr_aligner *pal, "
	     "int64_t c)\n{");
	line(em, 1, "if (!pend->live)");
	line(em, 2, "return;");
	emit_pending_locals(em, scalars, 0);
	line(em, 1, "for (int b = 0; b < BLOCKS; b++) {");
	em->cache_live = 1;
	em->aligned = 1;
	em->pending = 1;
	emit_pack(em, 2, out_round, 0);
	em->pending = 0;
	em->aligned = 0;
	line(em, 1, "}");
	line(em, 0, "}\n");

	line(em, 0,
	     "/* The pending row's chunks from `from`, its aligners' ends and its guarded chunk: "
	     "its output");
	line(em, 0, " * done. */");
	line(em, 0,
	     "RR_INLINE void pending_finish(rr_pending *restrict pend, rr_aligner *pal, int64_t "
	     "from,");
	line(em, 0, "\t\t\t      int64_t N, rr_carry *carry)\n{");
	line(em, 1, "if (!pend->live)");
	line(em, 2, "return;");
	line(em, 1, "for (int64_t c = from; c < pend->chunks; c++)");
	line(em, 2, "pending_chunk(pend, pal, c);");
	emit_pending_locals(em, scalars, 1);
	line(em, 1, "(void)carry;");
	for (int j = 0; j < kernel->n_outputs; j++)
		if (kernel->outputs[j].kind == RR_KIND_ROW)
			line(em, 1, "rr_aligner_end(&pal[%d], out%d);", j, j);
	line(em, 1, "if (pend->chunks * W * V < N - h) {");
	line(em, 2, "const int64_t c = pend->chunks;");
	line(em, 2, "for (int b = 0; b < BLOCKS; b++) {");
	em->indent = 1;
	emit_pack(em, 2, out_round, 1);
	em->indent = 0;
	em->cache_live = 0;
	line(em, 2, "}");
	line(em, 1, "}");
	line(em, 1, "pend->live = 0;");
	line(em, 1, "pend->chunks = 0;");
	line(em, 0, "}\n");

	line(em, 0,
	     "/* One row of a streaming launch: the rounds as one_row's, the previous row's output "
	     "phase");
	line(em, 0, " * in the pass of the sums, and this row's left pending. */");
	line(em, 0,
	     "RR_INLINE void one_row_piped(int64_t row, int64_t N, const void *const *inputs, "
	     "const double *params,");
	line(em, 0,
	     "\t\t\t     void *const *outputs, float *scratch, int stream, rr_carry *carry,");
	line(em, 0, "\t\t\t     rr_pending *restrict pend)\n{");
	line(em, 1, "(void)params;");
	line(em, 1, "(void)scratch;");
	line(em, 1, "const int b_lo = 0, b_hi = BLOCKS; /* the whole row */");
	line(em, 1, "rr_row_share *const share = NULL;");
	line(em, 1, "(void)b_hi;");
	line(em, 1, "(void)share;");
	emit_row_setup(em);
	line(em, 1, "rr_aligner pal[OUTPUTS]; /* the pending row's */");
	line(em, 1, "pending_begin(pend, pal, carry);");
	emit_scalars(em, 0);
	em->piped_row = 1;
	for (int round = 1; round <= em->rounds; round++)
		emit_round(em, round);
	em->piped_row = 0;
	line(em, 1, "const int64_t chunks = (N - h) / ((int64_t)W * V);");
	line(em, 1,
	     "pending_finish(pend, pal, chunks, N, carry); /* the previous row's guarded chunk */");
	line(em, 1, "pend->chunks = chunks;");
	line(em, 1, "pend->cache = scratch + ((int64_t)KEPT_INPUTS + (row & 1)) * W * slots;");
	for (int j = 0; j < kernel->n_outputs; j++)
		if (kernel->outputs[j].kind == RR_KIND_ROW)
			line(em, 1, "pend->out%d = out%d + h;", j, j);
	for (int id = 0; id < kernel->n_nodes; id++)
		if (scalars[id])
			line(em, 1, "pend->s[%d] = s%d;", id, id);
	line(em, 1, "pend->live = 1;");
	emit_rowscalar_outputs(em);
	line(em, 0, "}");
	line(em, 0, "#endif\n");
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
	em->split_unkept = 0;
	if (em->cached < 0 || em->split_max_n == 0)
		return;
	for (int id = 0; id < kernel->n_nodes; id++) {
		int partner = kernel->analysis.online_partner[id];
		if (partner >= 0 && kernel->nodes[partner].a == em->cached &&
		    kernel->analysis.level[id] != em->rounds)
			return;
	}
	em->cache_live = 1;
	element_needs(em, em->rounds + 1, em->cached);
	em->cache_live = 0;
	for (int k = 0; k < kernel->n_inputs; k++) {
		int node = kernel->inputs[k].node;
		if (em->kept[k] >= 0 && node >= 0 && em->needed[node])
			return;
	}
	em->split_unkept = 1;
}

/* Row outputs whose value round 1 computes anyway (add_layernorm's h = x + r): written there,
 * and read back by the later passes instead of computed again from the inputs, which are not
 * stored again in the output phase. The row is still in L1 when it is read back and one load
 * of it replaces those of its operands (add_layernorm: 8 loads an element become 6). f32 only,
 * so the value read back is the one computed, bit for bit; V = 1 (its store and loads are
 * whole vectors) without a head, kept inputs or an online pair. clab, add_layernorm f32, rows
 * 16 bytes into a line, the time against before: one thread 64x4096 0.71-0.85, 1024x1024
 * 0.73-0.81, 16384x1024 streaming 0.79; two threads 0.61-0.71 and 0.78-0.80 (bench/NOTES.md,
 * session 20). Where the launch streams, round 1 writes it to the thread's scratch instead
 * (early_rows_at in device/cpu_row.h, a row of EARLY_ROWS each) and the output phase streams
 * it from there with the other outputs: an ordinary store into the row made the core read
 * each of its lines from memory first and write it back later, a third more traffic than the
 * kernel's own (bench/NOTES.md, session 36 CPU). */
int rr__c_early_outputs(const rr_kernel *kernel, const rr__realisation *r, unsigned char *early)
{
	int count = 0;
	memset(early, 0, (size_t)kernel->n_outputs);
	if (r->dtype != RR_F32 || r->layout.vec != 1 || r->head_slots > 0 ||
	    (r->keep != RR_KEEP_NONE && r->kept_values > 0) || rr__c_cached_node(kernel) >= 0 ||
	    kernel->analysis.online_rewrites > 0 || kernel->analysis.rounds < 1)
		return 0;
	unsigned char first[RR_MAX_NODES];
	rr__analysis_elem_needs(kernel, 1, first);
	for (int j = 0; j < kernel->n_outputs; j++) {
		int node = kernel->outputs[j].node, taken = 0;
		for (int o = 0; o < j; o++)
			taken |= early[o] && kernel->outputs[o].node == node;
		if (kernel->outputs[j].kind != RR_KIND_ROW || node < 0 || !first[node] ||
		    kernel->nodes[node].op == RR_OP_INPUT || taken)
			continue;
		early[j] = (unsigned char)++count;
	}
	return count;
}

int rr__c_early_rows(const rr_kernel *kernel, const rr__realisation *r)
{
	unsigned char early[RR_MAX_IO];
	const int count = rr__c_early_outputs(kernel, r, early);
	for (int j = 0; j < kernel->n_outputs; j++)
		if (kernel->outputs[j].kind == RR_KIND_ROW && !early[j])
			return count; /* an output phase, which streams them */
	return 0;
}

/* Whether node id is needed by a pass after round 1 where the nodes `stop` are read back. */
static int needed_after_round_one(const rr_kernel *kernel, int id, const unsigned char *stop)
{
	unsigned char mark[RR_MAX_NODES];
	for (int phase = 2; phase <= kernel->analysis.rounds + 1; phase++) {
		rr__phase_roots(kernel, phase, mark);
		rr__mark_operands(kernel, mark, stop);
		if (mark[id])
			return 1;
	}
	return 0;
}

int rr__c_derived_keeps(const rr_kernel *kernel, const rr__realisation *r, unsigned char *held)
{
	int count = 0;
	memset(held, 0, (size_t)kernel->n_nodes);
	if (r->dtype == RR_F32 || r->head_slots > 0 || r->keep != RR_KEEP_NONE ||
	    !kernel->analysis.level || kernel->analysis.online_rewrites > 0 ||
	    rr__c_cached_node(kernel) >= 0 || kernel->analysis.rounds < 1)
		return 0;
	unsigned char first[RR_MAX_NODES], stop[RR_MAX_NODES] = {0};
	rr__analysis_elem_needs(kernel, 1, first);
	/* users before operands: a value read back spares its operands' reads after round 1 */
	for (int id = kernel->n_nodes - 1; id >= 0 && count < RR_MAX_IO; id--) {
		const rr__node *node = &kernel->nodes[id];
		if (!first[id] || node->shape != RR_SHAPE_ELEM || node->op == RR_OP_INPUT ||
		    node->op == RR_OP_CONST || !needed_after_round_one(kernel, id, stop))
			continue;
		stop[id] = 1;
		held[id] = (unsigned char)++count;
	}
	const int64_t bytes = (int64_t)count * (int64_t)sizeof(float) * r->cols;
	const int long_rows = r->dtype == RR_BF16 && r->cols * 2 % 64 == 0;
	if (bytes > RR_CPU_HELD_BYTES && !(long_rows && bytes <= RR_CPU_HELD_LONG_BYTES)) {
		memset(held, 0, (size_t)kernel->n_nodes);
		return 0;
	}
	return count;
}

/* The row output that may hold the split's cache for the complete packs (the last chunk's
 * stay in scratch, so nothing is written past the row): in f32 with V = 1 a worker's slot
 * s * W + worker is its element h + s * W + worker, and the output phase reads each element's
 * cached value before it writes that element. The sum pass then writes the row that the
 * output phase rewrites while it is still in L1, instead of a scratch copy and then the
 * output line fetched from further out (softmax f32 64x4096, one thread: 0.74 -> 0.65 µs a
 * row). A launch that streams its outputs past the caches keeps the scratch. -1: none. */
static int cache_output_of(const emitter *em)
{
	if (em->cached < 0 || em->dtype != RR_F32 || em->layout->vec != 1)
		return -1;
	for (int j = 0; j < em->kernel->n_outputs; j++)
		if (em->kernel->outputs[j].kind == RR_KIND_ROW)
			return j;
	return -1;
}

int rr__c_cached_node(const rr_kernel *kernel)
{
	unsigned char needed[RR_MAX_NODES];
	if (!kernel->analysis.level || kernel->analysis.online_rewrites == 0)
		return -1;
	rr__analysis_elem_needs(kernel, kernel->analysis.rounds + 1, needed);
	for (int id = 0; id < kernel->n_nodes; id++) {
		int partner = kernel->analysis.online_partner[id];
		if (partner >= 0 && kernel->nodes[id].reduce == RR_REDUCE_MAX &&
		    needed[kernel->nodes[partner].a])
			return kernel->nodes[partner].a;
	}
	return -1;
}

/* The split runs its rows from the core's L2: on the Intel host of session 35 (2 MiB a core),
 * softmax f32 with the bound at 512 KiB and at 2 MiB, the arrays held in L3, two threads
 * (bench/NOTES.md, session 38 CPU): 1x131073 (1 MiB of row and cache) 0.62-0.67 of the time,
 * 16x128257 0.79, 2x163840 0.83, 4x196608 0.94, 64x200000 streamed 0.97, but 8x262144 (2 MiB)
 * 1.06; bf16 1x131073, 1x100000 and 16x128257 0.62-0.65, 2x250000 0.84. */
int64_t rr__c_split_bytes(void)
{
	int64_t bytes = 512 * 1024;
#if defined(_SC_LEVEL2_CACHE_SIZE)
	const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
	if (l2 > 0 && (int64_t)l2 / 4 * 3 > bytes)
		bytes = (int64_t)l2 / 4 * 3;
#endif
	return bytes;
}

int64_t rr__c_split_max_cols(const rr_kernel *kernel, rr_dtype dtype)
{
	if (!kernel->analysis.level || kernel->analysis.online_rewrites == 0)
		return 0;
	int64_t bytes = (int64_t)rr_dtype_size(dtype) + (rr__c_cached_node(kernel) >= 0 ? 4 : 0);
	return rr__c_split_bytes() / bytes;
}

/* Piped rows keep two caches beside the row and the next row on its way: softmax f32,
 * streamed, two threads (bench/NOTES.md, session 39 CPU), 256x65536 (1 MiB of those a row)
 * in 0.82-0.84 of the time, 16x128257 (2 MiB) in 1.14, on an Intel host of 2 MiB of L2 a
 * core: rows whose four arrays fit three quarters of the L2. On an AMD host of 1 MiB (Zen 4,
 * session 53 CPU) rows past that ran faster piped as well, 65536 in 0.82 and 98304 (1.5 MiB)
 * in 0.76, so every host pipes rows up to PIPED_MEASURED_COLS where it splits them. */
#define PIPED_MEASURED_COLS 98304
int64_t rr__c_piped_max_cols(rr_dtype dtype)
{
	const int64_t size = (int64_t)rr_dtype_size(dtype);
	const int64_t in_l2 = rr__c_split_bytes() / (2 * size + 2 * (int64_t)sizeof(float));
	const int64_t split = rr__c_split_bytes() / (size + (int64_t)sizeof(float));
	const int64_t measured = split < PIPED_MEASURED_COLS ? split : PIPED_MEASURED_COLS;
	return in_l2 > measured ? in_l2 : measured;
}

int rr__c_piped(const rr_kernel *kernel, const rr__realisation *r)
{
	const int cached = rr__c_cached_node(kernel);
	if (cached < 0 || r->dtype != RR_F32 || r->layout.vec != 1 || r->head_slots > 0 ||
	    (r->keep != RR_KEEP_NONE && r->kept_values > 0) ||
	    r->cols > rr__c_piped_max_cols(r->dtype))
		return 0;
	const int rounds = kernel->analysis.rounds;
	int pair_last = 0, row_outputs = 0;
	for (int id = 0; id < kernel->n_nodes; id++)
		pair_last |= kernel->analysis.online_partner[id] >= 0 &&
		             kernel->nodes[id].reduce == RR_REDUCE_MAX &&
		             rr__reduced_in(kernel, id, rounds);
	for (int j = 0; j < kernel->n_outputs; j++)
		row_outputs += kernel->outputs[j].kind == RR_KIND_ROW;
	if (!pair_last || row_outputs == 0)
		return 0;
	/* the output phase reads the cache and scalars alone */
	unsigned char needed[RR_MAX_NODES], stop[RR_MAX_NODES] = {0};
	stop[cached] = 1;
	rr__phase_roots(kernel, rounds + 1, needed);
	rr__mark_operands(kernel, needed, stop);
	for (int id = 0; id < kernel->n_nodes; id++)
		if (needed[id] && kernel->nodes[id].op == RR_OP_INPUT &&
		    kernel->nodes[id].shape == RR_SHAPE_ELEM)
			return 0;
	return 1;
}

int64_t rr__c_scratch_floats(const rr_kernel *kernel, const rr__realisation *r)
{
	if (rr__cpu_rows_as_lanes(r))
		return 0;
	unsigned char held[RR_MAX_NODES];
	int64_t kept = r->keep != RR_KEEP_NONE ? r->kept_values : 0;
	kept += rr__c_derived_keeps(kernel, r, held);
	if (r->cols <= rr__c_split_max_cols(kernel, r->dtype) && rr__c_cached_node(kernel) >= 0)
		kept += 1 + rr__c_piped(kernel, r); /* two rows' caches where piped */
	const int64_t floats = kept * r->layout.workers_per_row * r->slots;
	const int wide = rr__c_wide_cols(kernel, r, NULL);
	const int64_t before =
	    wide > 0 ? (floats + 15) / 16 * 16 + wide * ((r->cols + 15) / 16 * 16) : floats;
	const int rows = rr__c_early_rows(kernel, r);
	return rows > 0 ? (before + 15) / 16 * 16 + rows * ((r->cols + 15) / 16 * 16) : before;
}

/* Whether the output phase's run loops (stores_in_runs) take their bf16 values in pair order
 * (device/cpu_vec.h, paired_bf16): V = 1 and W a multiple of 16, so that the chunks of a run
 * hold whole pairs from a multiple of 16 elements (no head: h is 0), and nothing the phase
 * reads is f32 in natural order (the split's cache, outputs written early); inputs kept in
 * private slots and values held from round 1 are kept in pair order (paired_kept) where the
 * rounds only sum. Every node of an output phase is lane by lane (its reductions are done; a
 * gather is a scalar), so the outputs keep their bits; the device code decides whether the
 * target takes the order (RR_BF16_PAIRED). Layernorm bf16 from DRAM, two threads
 * (bench/NOTES.md, session 33 CPU). */
int rr__c_row_parts(const rr_kernel *kernel, const rr__realisation *r, rr_dtype dtype)
{
	if (r->cols < RR_CPU_PARTS_MIN_N || r->n_tree_offsets == 0)
		return 0;
	/* a 16-bit output phase stores whole chunks of all blocks at once (stores_in_runs) */
	for (int j = 0; dtype != RR_F32 && j < kernel->n_outputs; j++)
		if (kernel->outputs[j].kind == RR_KIND_ROW)
			return 0;
	return 1;
}

static int paired_order(const emitter *em)
{
	if (em->dtype != RR_BF16 || em->layout->vec != 1 || em->layout->workers_per_row % 16 != 0 ||
	    em->r->head_slots != 0 || em->cached >= 0)
		return 0;
	/* kept inputs and held values in pair order (paired_kept): the rounds' accumulators are
	 * sums, one vector of a worker's lanes per block */
	for (int id = 0; em->n_kept + em->n_held > 0 && id < em->kernel->n_nodes; id++)
		if ((em->kernel->nodes[id].op == RR_OP_REDUCE &&
		     em->kernel->nodes[id].reduce != RR_REDUCE_SUM) ||
		    em->kernel->analysis.online_rewrites > 0)
			return 0;
	int row_outputs = 0;
	for (int j = 0; j < em->kernel->n_outputs; j++) {
		if (em->early[j])
			return 0;
		row_outputs += em->kernel->outputs[j].kind == RR_KIND_ROW;
	}
	return row_outputs > 0;
}

int rr__c_wide_cols(const rr_kernel *kernel, const rr__realisation *r, int *wide)
{
	int count = 0;
	for (int k = 0; k < kernel->n_inputs; k++)
		count += r->dtype != RR_F32 && kernel->inputs[k].kind == RR_KIND_COL &&
		         kernel->inputs[k].node >= 0;
	if ((int64_t)count * (int64_t)sizeof(float) * r->cols > RR_CPU_WIDE_COL_BYTES)
		count = 0;
	for (int k = 0, ordinal = 0; wide && k < kernel->n_inputs; k++)
		wide[k] = count > 0 && kernel->inputs[k].kind == RR_KIND_COL &&
		                  kernel->inputs[k].node >= 0
		              ? ++ordinal
		              : 0;
	return count;
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
	em->ranged = -1;
	em->summed_lo = -1;
	em->run_only = -1;
	em->cached = rr__c_cached_node(kernel);
	em->split_max_n = rr__c_split_max_cols(kernel, em->dtype);
	em->cache_output = cache_output_of(em);
	em->piped = rr__c_piped(kernel, r);
	plan_storage(em, r);
	em->n_early = rr__c_early_outputs(kernel, r, em->early);
	em->early_rows = rr__c_early_rows(kernel, r);
	em->n_held = rr__c_derived_keeps(kernel, r, em->held);
	em->n_wide = rr__c_wide_cols(kernel, r, em->wide);
	em->paired = paired_order(em);
	em->paired_kept = em->paired && em->n_kept + em->n_held > 0;
	em->parts = rr__c_row_parts(kernel, r, em->dtype);
	if (rr__cpu_rows_as_lanes(r)) {
		free(em->read);
		free(em);
		return rr__c_emit_lanes(request, out);
	}
	emit_header(em, r->tree_offsets, r->n_tree_offsets);
	em->tree_offsets = r->tree_offsets;
	em->tree_steps = r->n_tree_offsets;
	emit_prelude(em);
	emit_row_function(em);
	int failed = out->failed;
	free(em->read);
	free(em);
	if (failed)
		return rr__fail(RR_ERR_NOMEM, "out of memory emitting kernel '%s'", kernel->name);
	return RR_OK;
}

/* The realisation record is the one place a plan's consequences are worked out: for every
 * planner choice over the bench suites and every plan of the emit --check-all grid, on the cpu
 * target and on sm_90, legality, the cost model, the emitted source and the launchers must see
 * the record's shared-memory bytes, geometry and kept values. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/launch.h"
#include "codegen/c_emit.h"
#include "harness.h"
#include "layout/realise.h"
#include "plan/plan.h"
#include "program/program.h"
#include "rowreduce.h"

static const char *const kernels[] = {"sum",       "softmax",       "rmsnorm",
                                      "layernorm", "add_layernorm", "cross_entropy"};
static const rr_dtype dtypes[] = {RR_F32, RR_BF16, RR_F16};

#define MAX_SHAPES 128
#define MAX_PLANS 64

typedef struct shape {
	long long rows, cols;
} shape;

/* One plan of the check-all grid, V = 0 meaning 16-byte packs and V = -1 half of that. */
typedef struct grid_plan {
	long long cols;
	int W, V, U, R, C;
	rr_storage storage;
	rr_grid grid;
} grid_plan;

/* ---------------------------------------------------------------- inputs of the test */

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *text = size >= 0 ? malloc((size_t)size + 1) : NULL;
	if (text && fread(text, 1, (size_t)size, f) != (size_t)size) {
		free(text);
		text = NULL;
	}
	if (text)
		text[size] = 0;
	fclose(f);
	return text;
}

/* Every MxN of every .txt file in bench/suites (comments after #). */
static int suite_shapes(const char *root, shape *out)
{
	char dir_path[1024], path[1400];
	snprintf(dir_path, sizeof dir_path, "%s/bench/suites", root);
	DIR *dir = opendir(dir_path);
	int count = 0;
	for (struct dirent *e = dir ? readdir(dir) : NULL; e; e = readdir(dir)) {
		size_t length = strlen(e->d_name);
		if (length < 5 || strcmp(e->d_name + length - 4, ".txt") != 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir_path, e->d_name);
		char *text = read_text(path);
		int comment = 0;
		for (char *c = text; c && *c; c++) { /* comments run from # to the line's end */
			comment = *c == '#' || (comment && *c != '\n');
			if (comment)
				*c = ' ';
		}
		char *save = NULL;
		for (char *word = text ? strtok_r(text, " \t,\n", &save) : NULL; word;
		     word = strtok_r(NULL, " \t,\n", &save)) {
			shape sh;
			char tail = 0;
			if (sscanf(word, "%lldx%lld%c", &sh.rows, &sh.cols, &tail) == 2 &&
			    count < MAX_SHAPES)
				out[count++] = sh;
		}
		free(text);
	}
	if (dir)
		closedir(dir);
	return count;
}

static int storage_of(const char *name, rr_storage *out)
{
	static const char *const names[] = {"REGS", "SMEM", "CLUSTER", "REREAD"};
	static const rr_storage values[] = {RR_STORAGE_REGS, RR_STORAGE_SMEM, RR_STORAGE_CLUSTER,
	                                    RR_STORAGE_REREAD};
	for (int i = 0; i < 4; i++)
		if (strncmp(name, names[i], strlen(names[i])) == 0) {
			*out = values[i];
			return 1;
		}
	return 0;
}

/* The grid as tools/emit_check_all.c lists it, so this test follows the tool's grid. */
static int check_all_grid(const char *root, grid_plan *out)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/tools/emit_check_all.c", root);
	char *text = read_text(path);
	char *at = text ? strstr(text, "plans[] = {") : NULL;
	char *end = at ? strstr(at, "};") : NULL;
	int count = 0;
	while (at && end && (at = strstr(at + 1, "\n    {")) && at < end && count < MAX_PLANS) {
		grid_plan p;
		char storage[16], grid[16];
		if (sscanf(at, " {%lld, %d, %d, %d, %d, %d, RR_STORAGE_%15[A-Z], RR_GRID_%15[A-Z]}",
		           &p.cols, &p.W, &p.V, &p.U, &p.R, &p.C, storage, grid) != 8 ||
		    !storage_of(storage, &p.storage))
			continue;
		p.grid = strcmp(grid, "PERSISTENT") == 0 ? RR_GRID_PERSISTENT : RR_GRID_ROWS;
		out[count++] = p;
	}
	free(text);
	return count;
}

/* ---------------------------------------------------------------- what the sources say */

/* The integer after `key` in `source`, or -1 when it is absent. */
static long long number_after(const char *source, const char *key)
{
	const char *at = strstr(source, key);
	return at ? strtoll(at + strlen(key), NULL, 10) : -1;
}

static int count_of(const char *source, const char *text)
{
	int count = 0;
	for (const char *at = strstr(source, text); at; at = strstr(at + 1, text))
		count++;
	return count;
}

/* Whether the source stores a pack of an output row (rr_store or rr_store_tail into y<j>)
 * under an `if (live)` of its own. */
static int guarded_body_store(const char *source)
{
	for (const char *p = source; (p = strstr(p, "if (live)\n")) != NULL; p++) {
		const char *q = p + strlen("if (live)\n");
		q += strspn(q, "\t ");
		if ((strncmp(q, "rr_store<", 9) == 0 || strncmp(q, "rr_store_tail<", 14) == 0) &&
		    strchr(q, '(') && strncmp(strchr(q, '('), "(y", 2) == 0)
			return 1;
	}
	return 0;
}

/* The CUDA source's constants, shared memory and entries against the record. */
static void check_cuda_source(const char *label, const char *src, const rr__realisation *r)
{
	const rr_layout *l = &r->layout;
	long long W = number_after(src, "constexpr int W = "),
	          R = number_after(src, "constexpr int R = ");
	long long C = number_after(src, "constexpr int C = ");
	CHECKF(W == l->workers_per_row && R == r->rows_per_group && C == r->blocks_per_row,
	       "%s: source W %lld R %lld C %lld", label, W, R, C);
	CHECKF(W * R == r->threads, "%s: THREADS %lld, record %d", label, W * R, r->threads);
	CHECKF(number_after(src, "constexpr int MIN_BLOCKS = ") == r->min_blocks, "%s: MIN_BLOCKS",
	       label);
	CHECKF(number_after(src, "constexpr int WARPS = ") == r->warps, "%s: WARPS", label);
	long long red = number_after(src, "constexpr int RED_SLOTS = ");
	CHECKF(red == (r->red_slots > 0 ? r->red_slots : 1), "%s: RED_SLOTS %lld, record %d", label,
	       red, r->red_slots);
	if (r->blocks_per_row > 1)
		CHECKF(number_after(src, "constexpr int SEG = ") == r->segment, "%s: SEG", label);
	/* The headed entry's U is the record's (rr__realisation_head_unroll), which the cost
	 * model counts its trips with. */
	if (strstr(src, "constexpr int U_HEAD = ")) {
		long long u_head = number_after(src, "constexpr int U_HEAD = ");
		int record = rr__realisation_head_unroll(r);
		CHECKF(u_head == record, "%s: U_HEAD %lld, record %d", label, u_head, record);
	}
	/* One row a block (rr__realisation_one_pass) or short rows a thread (_short_rows): no loop
	 * over row groups, and the launch gives every group its block (check_launch); everything
	 * else loops. */
	int loops = strstr(src, "group += step") != NULL;
	CHECKF(loops == !rr__realisation_no_loop(r), "%s: the source %s a loop over row groups",
	       label, loops ? "has" : "lacks");
	/* Short rows store their outputs' elements as predicated stores (rr_store_live), the
	 * rest under `if (live)`. */
	int predicated = strstr(src, "rr_store_live<VEC") != NULL;
	CHECKF(!predicated || rr__realisation_short_rows(r), "%s: predicated stores", label);
	CHECKF(!rr__realisation_short_rows(r) || !guarded_body_store(src),
	       "%s: short rows with a store under `if (live)`", label);
	/* The aligned entry's twin: only S=grid and clusters of blocks of at most 256 threads
	 * whose aligned body is a few chunks, defined in the source where the record says. */
	long long full = r->segment / ((long long)l->workers_per_row * l->vec);
	CHECKF(!r->has_twin_entry || (r->has_aligned_entry && C > 1 && W * R <= 256 &&
	                              l->unroll < full && full < 16),
	       "%s: a twin entry at C %lld, %lld threads, %lld chunks of U %d", label, C, W * R,
	       full, l->unroll);
	char twin[128];
	snprintf(twin, sizeof twin, " %s(", r->entry_twin);
	CHECKF((strstr(src, twin) != NULL) == r->has_twin_entry &&
	           (strstr(src, "TWIN && FULL / UL") != NULL) == r->has_twin_entry,
	       "%s: the source %s the twin entry %s, the record %d", label,
	       strstr(src, twin) ? "defines" : "lacks", r->entry_twin, r->has_twin_entry);
	/* Static shared memory: the declared arrays of the tree and the cluster (a mailbox or not).
	 */
	long long declared = 0;
	if (strstr(src, "__shared__ float rr_red[2 * RED_SLOTS * R * WARPS]"))
		declared += 2 * red * R * r->warps * 4;
	if (strstr(src, "__shared__ float rr_cl[2 * RED_SLOTS]"))
		declared += 2 * red * 4;
	if (strstr(src, "__shared__ float rr_cl[2 * RED_SLOTS * WARPS * C]"))
		declared += 2 * red * r->warps * C * 4;
	if (strstr(src, "__shared__ rr_mbar_t rr_mbar[2 * MBARS]"))
		declared += 2 * number_after(src, "constexpr int MBARS = ") * 8;
	CHECKF(declared == r->static_smem, "%s: static shared memory %lld, record %d", label,
	       declared, r->static_smem);
	long long dynamic = number_after(src, "extern __shared__ float4 rr_keep_smem[]; /* ");
	CHECKF(dynamic == (r->keep == RR_KEEP_SMEM ? r->dynamic_smem : -1),
	       "%s: dynamic shared memory %lld, record %lld", label, dynamic,
	       (long long)r->dynamic_smem);
	if (r->keep == RR_KEEP_SMEM)
		CHECKF(number_after(src, "constexpr int KEEP_CHUNKS = ") == r->chunks,
		       "%s: KEEP_CHUNKS", label);
	int kept = count_of(src, " *   kept: ");
	CHECKF(kept == (r->keep != RR_KEEP_NONE ? r->kept_values : 0),
	       "%s: %d kept values in the source, record %d", label, kept, r->kept_values);
	if (r->keep == RR_KEEP_REGS)
		CHECKF(count_of(src, "[CH > 0 ? CH : 1][V]; /* kept in registers */") == kept,
		       "%s: register arrays", label);
	CHECKF(number_after(src, " * access   ") == r->access_bytes, "%s: access bytes", label);
	char entry[160];
	snprintf(entry, sizeof entry, "%s(", r->entry_vec);
	CHECKF((strstr(src, entry) != NULL) == r->has_aligned_entry, "%s: vector entry", label);
	snprintf(entry, sizeof entry, "%s(", r->entry_head);
	CHECKF((strstr(src, entry) != NULL) == r->has_vec_entry, "%s: entry with a head", label);
	snprintf(entry, sizeof entry, "%s(", r->entry_scalar);
	CHECKF(strstr(src, entry) != NULL, "%s: scalar entry", label);
	/* The aligned entry is the vector entry of N·size a multiple of the access; every plan
	 * with a vector access has the head entry. */
	CHECKF(r->has_aligned_entry ==
	           (r->has_vec_entry && r->cols * r->elem_bytes % r->access_bytes == 0),
	       "%s: aligned entry %d", label, r->has_aligned_entry);
	CHECKF(r->has_vec_entry == (r->layout.vec > 1), "%s: V = %d, vector access %d", label,
	       r->layout.vec, r->has_vec_entry);
}

/* The C source's constants and tree against the record, and the CPU launcher's scratch. */
static void check_c_source(const char *label, const char *src, const rr_kernel *kernel,
                           const rr__realisation *r)
{
	/* Rows as lanes (codegen/c_emit_lanes.c): their own source, for the realisation's N,
	 * with no scratch; the per-row constants below are not in it. */
	if (rr__cpu_rows_as_lanes(r)) {
		CHECKF(strstr(src, " * rows     as lanes") != NULL &&
		           number_after(src, "#define PLAN_N ") == r->cols &&
		           number_after(src, "#define W ") == 16 &&
		           rr__cpu_scratch_floats(kernel, r) == 0,
		       "%s: rows as lanes", label);
		return;
	}
	CHECKF(strstr(src, " * rows     as lanes") == NULL, "%s: rows as lanes", label);
	long long W = number_after(src, "#define W "), R = number_after(src, "#define R ");
	long long kept = number_after(src, "#define KEPT_INPUTS ");
	long long split = number_after(src, "#define SPLIT_MAX_N ");
	long long cached = number_after(src, "#define CACHED_VALUES ");
	CHECKF(W == r->layout.workers_per_row && R == r->rows_per_group, "%s: W %lld R %lld", label,
	       W, R);
	/* and the values 16-bit rows keep after round 1 (rr__c_derived_keeps) */
	unsigned char held[RR_MAX_NODES];
	const int derived = rr__c_derived_keeps(kernel, r, held);
	CHECKF(kept == (r->keep != RR_KEEP_NONE ? r->kept_values : 0) + derived,
	       "%s: KEPT_INPUTS %lld, record %d, derived %d", label, kept, r->kept_values, derived);
	CHECKF(count_of(src, "kept in private slots after round") == kept, "%s: kept comments",
	       label);
	/* The generated rr_cpu_scratch_floats is (KEPT_INPUTS + CACHED_VALUES where N <=
	 * SPLIT_MAX_N) * W * slot_bound(N), plus WIDE_COLS cols of N floats; a piped kernel
	 * caches two rows (rr__c_piped), and only it has the piped rows. */
	const int piped = rr__c_piped(kernel, r);
	CHECKF(split == rr__c_split_max_cols(kernel, r->dtype) &&
	           cached == (rr__c_cached_node(kernel) >= 0) * (1 + piped) &&
	           (split > 0 || cached == 0),
	       "%s: SPLIT_MAX_N %lld, CACHED_VALUES %lld", label, split, cached);
	CHECKF(!piped || rr__c_piped_max_cols(r->dtype) <= split, /* piped_rows tests the first */
	       "%s: piped bound %lld past the split's %lld", label,
	       (long long)rr__c_piped_max_cols(r->dtype), split);
	/* rows of up to 98304 elements, measured faster piped on hosts of 1 and 2 MiB of L2 a
	 * core, pipe wherever the split takes them (session 53 CPU) */
	CHECKF(!piped || rr__c_piped_max_cols(r->dtype) >= (split < 98304 ? split : 98304),
	       "%s: piped bound %lld under the split's %lld and 98304", label,
	       (long long)rr__c_piped_max_cols(r->dtype), split);
	CHECKF((strstr(src, "one_row_piped(") != NULL) == piped &&
	           (number_after(src, "#define PIPED_MAX_N ") ==
	            (piped ? rr__c_piped_max_cols(r->dtype) : -1)),
	       "%s: piped %d", label, piped);
	if (strcmp(kernel->name, "softmax") == 0) /* its output phase reads the cache alone */
		CHECKF(piped == (r->dtype == RR_F32 && r->layout.vec == 1 && r->head_slots == 0 &&
		                 (r->keep == RR_KEEP_NONE || r->kept_values == 0) &&
		                 r->cols <= rr__c_piped_max_cols(r->dtype)),
		       "%s: softmax piped %d", label, piped);
	else if (rr__c_cached_node(kernel) < 0)
		CHECKF(!piped, "%s: piped without a cache", label);
	long long span = W * r->layout.vec, rest = r->cols % span;
	long long slots =
	    r->cols / span * r->layout.vec + (rest < r->layout.vec ? rest : r->layout.vec);
	long long floats = (kept + (r->cols <= split ? cached : 0)) * W * slots;
	/* and the 16-bit cols widened to f32 (rr__c_wide_cols), from a 64-byte boundary */
	long long wide = number_after(src, "#define WIDE_COLS ");
	CHECKF(wide == rr__c_wide_cols(kernel, r, NULL), "%s: WIDE_COLS %lld", label, wide);
	if (wide > 0)
		floats = (floats + 15) / 16 * 16 + wide * ((r->cols + 15) / 16 * 16);
	/* and the f32 rows written in round 1 (rr__c_early_outputs), from the next line */
	long long early = number_after(src, "#define EARLY_ROWS ");
	unsigned char early_of[RR_MAX_IO];
	CHECKF(early == rr__c_early_rows(kernel, r), "%s: EARLY_ROWS %lld", label, early);
	CHECKF(count_of(src, " * early    ") == rr__c_early_outputs(kernel, r, early_of),
	       "%s: early comments", label);
	if (early > 0)
		floats = (floats + 15) / 16 * 16 + early * ((r->cols + 15) / 16 * 16);
	CHECKF(rr__cpu_scratch_floats(kernel, r) == floats, "%s: CPU scratch %lld, source %lld",
	       label, (long long)rr__cpu_scratch_floats(kernel, r), floats);
	char tree[256] = "";
	size_t used = 0;
	for (int k = 0; k < r->n_tree_offsets; k++)
		used += (size_t)snprintf(tree + used, sizeof tree - used, "%s%d", k ? ", " : "",
		                         r->tree_offsets[k]);
	if (r->n_tree_offsets > 0)
		CHECKF(strstr(src, tree) != NULL, "%s: tree offsets %s", label, tree);
}

/* ---------------------------------------------------------------- one plan */

/* Legality reads the record's shared-memory bytes: the device's limit set to exactly those
 * bytes passes, one byte less fails for that reason. */
static void check_legality(const char *label, const rr_kernel *kernel, const rr__realisation *r,
                           const rr__target *target)
{
	char detail[512];
	CHECKF(rr__layout_check(kernel, r->cols, r->dtype, &r->layout, target, detail,
	                        sizeof detail) == RR_LEGAL,
	       "%s: the planned layout is illegal: %s", label, detail);
	if (r->keep == RR_KEEP_SMEM) {
		rr__target tight = *target;
		tight.smem_per_group = r->smem_bytes;
		/* S=grid's residency check reads the same limit as the SM's capacity: leave it out
		 * here (no SM count), so only the block's own bytes are tested. */
		if (r->grid_split)
			tight.multiprocessors = 0;
		CHECKF(rr__layout_check(kernel, r->cols, r->dtype, &r->layout, &tight, detail,
		                        sizeof detail) == RR_LEGAL,
		       "%s: legal at exactly %lld bytes: %s", label, (long long)r->smem_bytes,
		       detail);
		tight.smem_per_group = r->smem_bytes - 1;
		if (r->grid_split) { /* S=grid re-reads the segment it cannot keep */
			rr__realisation reread;
			CHECKF(rr__realise(kernel, r->dtype, r->cols, &r->layout, &tight,
			                   &reread) == RR_OK &&
			           reread.keep == RR_KEEP_NONE && reread.dynamic_smem == 0,
			       "%s: one byte under %lld still keeps the segment", label,
			       (long long)r->smem_bytes);
		} else
			CHECKF(
			    rr__layout_check(kernel, r->cols, r->dtype, &r->layout, &tight, detail,
			                     sizeof detail) == RR_ILLEGAL_SMEM_OVER_LIMIT,
			    "%s: one byte under %lld stays legal", label, (long long)r->smem_bytes);
	}
	if (r->keep == RR_KEEP_REGS && r->layout.storage == RR_STORAGE_REGS) {
		rr__target tight = *target;
		tight.register_slots = (int)(r->slots * r->kept_inputs) - 1;
		CHECKF(rr__layout_check(kernel, r->cols, r->dtype, &r->layout, &tight, detail,
		                        sizeof detail) == RR_ILLEGAL_SLOTS_OVER_BUDGET,
		       "%s: a budget one slot under %lld stays legal", label,
		       (long long)(r->slots * r->kept_inputs));
	}
}

static void check_cost(const char *label, const rr_kernel *kernel, const rr__realisation *r,
                       const rr__target *target, long long rows)
{
	rr__plan_request req = {kernel, r->dtype, rows, r->cols, target, NULL, NULL};
	rr__plan_features f;
	rr__plan_features_compute(&req, &r->layout, &f);
	CHECKF(f.threads_per_group == r->threads && f.row_share == (double)r->segment &&
	           f.chunks_per_worker == (double)r->chunks && f.slots == (double)r->slots &&
	           f.kept_inputs == r->kept_inputs && f.access_bytes == r->pack_bytes,
	       "%s: the cost model's geometry differs from the record", label);
	/* a raw keep the model does not take as streaming is priced at the f32 keep's size, but
	 * in S=grid segments of two rounds or more at its own (measured, session 27) */
	double priced = (double)r->smem_bytes;
	int grid_rounds = r->grid_split && kernel->analysis.rounds >= 2;
	if (r->keep_raw && !rr__cost_raw_streams(&req, r) && !grid_rounds)
		priced += (double)r->dynamic_smem * (4.0 / r->elem_bytes - 1);
	if (target->kind == RR_TARGET_GPU)
		CHECKF(
		    f.smem_per_group == priced,
		    "%s: the cost model sees %.0f bytes of shared memory, the record %lld (priced "
		    "%.0f)",
		    label, f.smem_per_group, (long long)r->smem_bytes, priced);
}

static void check_launch(const char *label, const rr__realisation *r, long long rows)
{
	rr__cuda_launch_shape s;
	CHECK(rr__cuda_launch_shape_of(r, rows, 1 << 20, RR_ENTRY_HEAD, &s) == RR_OK);
	CHECK(strcmp(s.entry, r->has_vec_entry ? r->entry_head : r->entry_scalar) == 0);
	CHECK(rr__cuda_launch_shape_of(r, rows, 1 << 20, RR_ENTRY_VEC, &s) == RR_OK);
	long long groups = (rows + r->rows_per_group - 1) / r->rows_per_group;
	/* S=grid's blocks of a row are no cluster but a cooperative launch, unless none of them
	 * ever waits: one round, no output phase, no group looping. */
	int cluster = r->grid_split ? 1 : r->blocks_per_row;
	int waits = r->grid_split && (r->rounds > 1 || r->phases > 1);
	CHECKF(s.threads == r->threads && s.cluster == cluster && s.cooperative == waits &&
	           s.workspace == r->grid_split &&
	           s.dynamic_smem == r->dynamic_smem && s.blocks == groups * r->blocks_per_row,
	       "%s: launch %lld blocks of %d, cluster %d, %lld bytes", label, (long long)s.blocks,
	       s.threads, s.cluster, (long long)s.dynamic_smem);
	CHECK(strcmp(s.entry, r->has_aligned_entry ? r->entry_vec
	                      : r->has_vec_entry   ? r->entry_head
	                                           : r->entry_scalar) == 0);
	/* A persistent grid holds at most the resident groups; a kernel without a loop over rows
	 * (one row a block) has a block for every row whatever the resident groups. */
	CHECK(rr__cuda_launch_shape_of(r, rows, 3, 0, &s) == RR_OK);
	CHECK(s.blocks == (r->persistent && groups > 3 ? 3 : groups) * r->blocks_per_row);
	CHECKF(!rr__realisation_one_pass(r) || s.blocks == rows, "%s: %lld blocks for %lld rows",
	       label, (long long)s.blocks, rows);
	CHECKF(!rr__realisation_short_rows(r) || s.blocks == groups,
	       "%s: %lld blocks for %lld groups", label, (long long)s.blocks, (long long)groups);
	CHECK(strcmp(s.entry, r->entry_scalar) == 0);
	/* looping groups wait for the last block of the row before theirs */
	CHECKF(s.cooperative == (waits || (r->grid_split && r->persistent && groups > 3)),
	       "%s: cooperative %d on 3 resident groups", label, s.cooperative);
}

/* Plans, emits and checks one (kernel, dtype, shape, layout) on one target; 1 when it ran. */
static int check_plan(rr_device *device, const rr_kernel *kernel, rr_dtype dtype, long long rows,
                      long long cols, const rr_layout *fixed)
{
	rr_program *program = NULL;
	rr_status status =
	    rr__program_emit_only(device, kernel, dtype, rows, cols, fixed, &program);
	if (status == RR_ERR_ILLEGAL_LAYOUT && fixed)
		return 0; /* a grid plan this kernel or target cannot run */
	char label[256], plan[128];
	rr_layout_format(program ? &program->layout : fixed, plan, sizeof plan);
	snprintf(label, sizeof label, "%s %s %s %lldx%lld %s", device->target.backend,
	         rr_kernel_name(kernel), rr_dtype_name(dtype), rows, cols, plan);
	CHECKF(status == RR_OK, "%s: %s", label, rr_last_error());
	if (status != RR_OK)
		return 0;
	const rr__realisation *r = &program->realisation;
	rr__realisation again;
	CHECK(rr__realise(kernel, dtype, cols, &program->layout, &device->target, &again) == RR_OK);
	rr__realisation_for_rows(&again, rows);
	CHECKF(memcmp(&again, r, sizeof again) == 0, "%s: realising twice differs", label);
	int rereads = r->layout.storage == RR_STORAGE_REREAD ||
	              (r->grid_split && r->keep == RR_KEEP_NONE); /* S=grid over shared memory */
	CHECKF((r->kept_values > 0) == (r->kept_inputs > 0 && !rereads) &&
	           r->kept_values <= r->kept_inputs,
	       "%s: %d kept values for %d kept inputs", label, r->kept_values, r->kept_inputs);
	CHECKF(r->dynamic_smem + r->static_smem <= r->smem_bytes,
	       "%s: the emitter's %lld bytes exceed the %lld legality checked", label,
	       (long long)(r->dynamic_smem + r->static_smem), (long long)r->smem_bytes);
	check_legality(label, kernel, r, &device->target);
	check_cost(label, kernel, r, &device->target, rows);
	if (device->target.kind == RR_TARGET_GPU) {
		check_cuda_source(label, rr_program_source(program), r);
		check_launch(label, r, rows);
	} else {
		check_c_source(label, rr_program_source(program), kernel, r);
	}
	rr_program_free(program);
	return 1;
}

static int vec_for(int v, rr_dtype dtype)
{
	int full = dtype == RR_F32 ? 4 : 8;
	return v == 0 ? full : v < 0 ? full / 2 : v;
}

/* S=grid keeps a 16-bit segment as stored (raw, filled by asynchronous copies), so a block of
 * 65536 bf16 elements keeps its 128 KiB on sm_90; the same segment in f32 (256 KiB) is over
 * the limit and re-read. Every row of a few-row launch then fits the device at once (H200:
 * layernorm bf16 4x2097152 at C = 32 and 64 in 17-19 µs, bench/NOTES.md session 27). */
/* The aligned entry's twin where the H200 measured the unrolled body both ways (bench/NOTES.md
 * session 33): S=grid of 64 blocks a row at 8 chunks of U = 4 has it; the same plan at C = 1
 * (unroll_aligned decides there), and segments of 16 chunks, have not. */
static void test_twin_entry(const rr__target *sm90)
{
	static const struct {
		long long cols;
		rr_layout l;
		int twin;
	} cases[] = {
	    {1048576, {256, 8, 4, 1, 64, RR_STORAGE_GRID, RR_GRID_PERSISTENT}, 1},
	    {131072, {256, 8, 2, 1, 8, RR_STORAGE_CLUSTER, RR_GRID_PERSISTENT}, 1},
	    {16384, {256, 8, 4, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS}, 0},
	    {2097152, {256, 8, 4, 1, 64, RR_STORAGE_GRID, RR_GRID_PERSISTENT}, 0},
	    {1048576, {512, 8, 2, 1, 64, RR_STORAGE_GRID, RR_GRID_PERSISTENT}, 0},
	};
	rr_kernel *kernel = NULL;
	CHECK(rr_kernel_load_builtin("cross_entropy", &kernel) == RR_OK);
	for (size_t c = 0; kernel && c < sizeof cases / sizeof cases[0]; c++) {
		rr__realisation r;
		CHECK(rr__realise(kernel, RR_BF16, cases[c].cols, &cases[c].l, sm90, &r) == RR_OK);
		CHECKF(r.has_twin_entry == cases[c].twin, "cross_entropy bf16 N=%lld case %zu: twin %d",
		       cases[c].cols, c, r.has_twin_entry);
	}
	rr_kernel_free(kernel);
}

/* The headed entry's U: all of it in a sum whose U packs a worker are at most 16 values, or at
 * most 64 bytes in blocks of whole rows of up to 256 threads; half of it elsewhere (the norms,
 * wide blocks), all of it again for add_layernorm's paired 16-bit rows. */
static void test_head_unroll(const rr__target *sm90)
{
	static const struct {
		const char *kernel;
		rr_dtype dtype;
		long long cols;
		rr_layout l;
		int u_head;
	} cases[] = {
	    {"sum", RR_F32, 6143, {64, 4, 8, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS}, 4},
	    {"sum", RR_F32, 6143, {128, 4, 4, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS}, 4},
	    {"sum", RR_BF16, 6143, {64, 8, 4, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS}, 4},
	    {"sum", RR_BF16, 6143, {512, 8, 4, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS}, 2},
	    {"sum", RR_BF16, 131073, {64, 8, 4, 1, 64, RR_STORAGE_GRID, RR_GRID_PERSISTENT}, 2},
	    {"rmsnorm", RR_BF16, 6143, {128, 8, 2, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS}, 1},
	    {"add_layernorm", RR_BF16, 32003, {512, 8, 2, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS}, 2},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		rr_kernel *kernel = NULL;
		CHECK(rr_kernel_load_builtin(cases[c].kernel, &kernel) == RR_OK);
		if (!kernel)
			continue;
		rr__realisation r;
		CHECK(rr__realise(kernel, cases[c].dtype, cases[c].cols, &cases[c].l, sm90, &r) ==
		      RR_OK);
		CHECKF(rr__realisation_head_unroll(&r) == cases[c].u_head,
		       "%s N=%lld case %zu: U_HEAD %d, want %d", cases[c].kernel, cases[c].cols, c,
		       rr__realisation_head_unroll(&r), cases[c].u_head);
		rr_kernel_free(kernel);
	}
}

/* Which realisations read their col inputs from per-phase copies (rr__realisation.col_copies)
 * and for how many rows (rr__realisation_for_rows): 16-bit rows of at least COPIES_MIN_COLS
 * elements whose N·size is not a multiple of the access, in blocks of one row or many; not
 * f32, not where N·size is a multiple; from 128 rows a col input and 4M elements, or rows not
 * known. Where the rows drop them, the entry with a head gets back the shifted loads' bound. */
static void test_col_copies(const rr__target *sm90, const rr__target *cpu)
{
	static const rr_layout one = {128, 8, 1, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS};
	static const rr_layout many = {16, 8, 2, 32, 1, RR_STORAGE_REGS, RR_GRID_ROWS};
	static const rr_layout f32 = {128, 4, 1, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS};
	static const rr_layout narrow = {4, 8, 2, 8, 1, RR_STORAGE_REGS, RR_GRID_ROWS};
	static const struct {
		const char *kernel;
		rr_dtype dtype;
		long long cols;
		const rr_layout *l;
		long long rows; /* the hint; 0: not known */
		int copies;
	} cases[] = {
	    {"layernorm", RR_BF16, 6143, &one, 2047, 2},
	    {"layernorm", RR_BF16, 6143, &one, 0, 2},
	    {"layernorm", RR_F16, 6143, &one, 2047, 2},
	    {"rmsnorm", RR_BF16, 6143, &one, 2047, 1},
	    {"add_layernorm", RR_BF16, 6143, &one, 2047, 2},
	    {"layernorm", RR_BF16, 6144, &one, 2047, 0},   /* N·size a multiple: aligned cols */
	    {"layernorm", RR_F32, 6143, &f32, 2047, 0},    /* f32 lost (session 51) */
	    {"layernorm", RR_BF16, 1023, &many, 8191, 2},  /* blocks of many rows */
	    {"layernorm", RR_BF16, 127, &narrow, 65535, 0}, /* under COPIES_MIN_COLS */
	    {"rmsnorm", RR_BF16, 511, &narrow, 65535, 0},
	    {"rmsnorm", RR_BF16, 513, &narrow, 65535, 1},
	    {"sum", RR_BF16, 6143, &one, 2047, 0},         /* no col input */
	    {"layernorm", RR_BF16, 6143, &one, 255, 0},    /* under 128 rows a col input */
	    {"layernorm", RR_BF16, 20001, &one, 256, 2},   /* 256 rows, 5.1M elements */
	    {"rmsnorm", RR_BF16, 40001, &one, 127, 0},
	    {"rmsnorm", RR_BF16, 40001, &one, 128, 1},  /* 128 rows, 5.1M elements */
	    {"layernorm", RR_BF16, 12289, &one, 256, 0},   /* 3.1M elements */
	    {"layernorm", RR_BF16, 16385, &one, 256, 2},   /* 4.2M */
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		rr_kernel *kernel = NULL;
		CHECK(rr_kernel_load_builtin(cases[c].kernel, &kernel) == RR_OK);
		if (!kernel)
			continue;
		rr__realisation r;
		CHECK(rr__realise(kernel, cases[c].dtype, cases[c].cols, cases[c].l, sm90, &r) ==
		      RR_OK);
		rr__realisation all = r;
		rr__realisation_for_rows(&r, cases[c].rows);
		CHECKF(r.col_copies == cases[c].copies, "%s %s %lldx%lld: %d col copies, want %d",
		       cases[c].kernel, rr_dtype_name(cases[c].dtype), cases[c].rows, cases[c].cols,
		       r.col_copies, cases[c].copies);
		if (r.col_copies > 0) {
			CHECKF(r.col_copy_stride % r.head_align == 0 &&
			           r.col_copy_stride >= r.cols + r.head_align - 1 &&
			           r.col_copies_bytes == (int64_t)r.col_copies * r.head_align *
			                                     r.col_copy_stride * r.elem_bytes,
			       "%s N=%lld: copies of %lld elements, %lld bytes", cases[c].kernel,
			       cases[c].cols, (long long)r.col_copy_stride, (long long)r.col_copies_bytes);
			CHECKF(r.min_blocks_head >= r.min_blocks_head_shifted,
			       "%s N=%lld: the copies' bound %d under the shifted one %d", cases[c].kernel,
			       cases[c].cols, r.min_blocks_head, r.min_blocks_head_shifted);
		} else {
			CHECKF(r.col_copy_stride == 0 && r.col_copies_bytes == 0 &&
			           r.min_blocks_head == r.min_blocks_head_shifted,
			       "%s N=%lld %lld rows: copies dropped but stride %lld, bound %d (shifted %d)",
			       cases[c].kernel, cases[c].cols, cases[c].rows,
			       (long long)r.col_copy_stride, r.min_blocks_head, r.min_blocks_head_shifted);
			if (all.col_copies > 0) /* dropped for the rows: as if never there */
				CHECKF(r.min_blocks_head == all.min_blocks_head_shifted,
				       "%s N=%lld: bound %d after the drop", cases[c].kernel,
				       cases[c].cols, r.min_blocks_head);
		}
		/* the CPU backend never copies */
		rr__realisation on_cpu;
		CHECK(rr__realise(kernel, cases[c].dtype, cases[c].cols, cases[c].l, cpu, &on_cpu) !=
		          RR_OK ||
		      on_cpu.col_copies == 0);
		rr_kernel_free(kernel);
	}
}

static void test_grid_raw_keep(const rr__target *sm90)
{
	rr_kernel *kernel = NULL;
	CHECK(rr_kernel_load_builtin("layernorm", &kernel) == RR_OK);
	if (!kernel)
		return;
	const rr_layout l = {1024, 8, 1, 1, 32, RR_STORAGE_GRID, RR_GRID_PERSISTENT};
	rr__realisation r;
	CHECK(rr__realise(kernel, RR_BF16, 2097152, &l, sm90, &r) == RR_OK);
	CHECKF(r.keep == RR_KEEP_SMEM && r.keep_raw && r.segment == 65536 &&
	           r.dynamic_smem >= 65536 * 2 && r.dynamic_smem < 65536 * 4,
	       "bf16 segment: keep %d raw %d segment %lld, %lld bytes", (int)r.keep, r.keep_raw,
	       (long long)r.segment, (long long)r.dynamic_smem);
	const rr_layout l32 = {1024, 4, 1, 1, 32, RR_STORAGE_GRID, RR_GRID_PERSISTENT};
	CHECK(rr__realise(kernel, RR_F32, 2097152, &l32, sm90, &r) == RR_OK);
	CHECKF(r.keep == RR_KEEP_NONE && r.dynamic_smem == 0, "f32 segment: keep %d, %lld bytes",
	       (int)r.keep, (long long)r.dynamic_smem);
	rr_kernel_free(kernel);
}

/* S=grid's entries are asked for the blocks 64 registers allow, so that a persistent grid
 * holds as many row groups as the model counts (rmsnorm bf16 2x2000003 at W = 512, C = 128:
 * ptxas took 96 registers under a bound of one block, one row group resident). */
static void test_grid_blocks(const rr__target *sm90)
{
	static const rr_layout w512 = {512, 8, 4, 1, 128, RR_STORAGE_GRID, RR_GRID_PERSISTENT};
	static const rr_layout w1024 = {1024, 8, 2, 1, 64, RR_STORAGE_GRID, RR_GRID_PERSISTENT};
	static const rr_layout w512c64 = {512, 8, 4, 1, 64, RR_STORAGE_GRID, RR_GRID_PERSISTENT};
	static const rr_layout w256 = {256, 4, 4, 1, 64, RR_STORAGE_GRID, RR_GRID_PERSISTENT};
	static const struct {
		const char *kernel;
		rr_dtype dtype;
		long long cols;
		const rr_layout *l;
		int blocks; /* at least, both bounds */
	} cases[] = {
	    {"rmsnorm", RR_BF16, 2000003, &w512, 2},
	    {"rmsnorm", RR_BF16, 2000003, &w1024, 1},
	    {"layernorm", RR_BF16, 2000003, &w512c64, 2},
	    {"sum", RR_F32, 131073, &w256, 4},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		rr_kernel *kernel = NULL;
		CHECK(rr_kernel_load_builtin(cases[c].kernel, &kernel) == RR_OK);
		if (!kernel)
			continue;
		rr__realisation r;
		CHECK(rr__realise(kernel, cases[c].dtype, cases[c].cols, cases[c].l, sm90, &r) ==
		      RR_OK);
		CHECKF(r.grid_split && r.min_blocks >= cases[c].blocks &&
		           r.min_blocks_head >= cases[c].blocks,
		       "%s %s N=%lld W=%d C=%d: bounds %d and %d, want at least %d", cases[c].kernel,
		       rr_dtype_name(cases[c].dtype), cases[c].cols, cases[c].l->workers_per_row,
		       cases[c].l->blocks_per_row, r.min_blocks, r.min_blocks_head, cases[c].blocks);
		rr_kernel_free(kernel);
	}
}

int main(void)
{
	const char *root = getenv("RR_SOURCE_DIR");
	static shape shapes[MAX_SHAPES];
	static grid_plan grid[MAX_PLANS];
	int n_shapes = suite_shapes(root ? root : ".", shapes);
	int n_grid = check_all_grid(root ? root : ".", grid);
	CHECKF(n_shapes >= 11, "only %d suite shapes found under %s/bench/suites", n_shapes, root);
	CHECKF(n_grid >= 17, "only %d grid plans found in tools/emit_check_all.c", n_grid);
	rr_device devices[2];
	memset(devices, 0, sizeof devices);
	devices[0].ops = rr__backend_find("cpu");
	rr__target_cpu(&devices[0].target);
	devices[1].ops = rr__backend_find("cuda");
	CHECK(rr__target_for_cuda_arch("sm_90", &devices[1].target) == RR_OK);
	CHECK(devices[0].ops && devices[1].ops);
	int checked = 0;
	for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
		rr_kernel *kernel = NULL;
		CHECKF(rr_kernel_load_builtin(kernels[k], &kernel) == RR_OK, "%s", rr_last_error());
		for (int t = 0; kernel && t < 2 && devices[t].ops; t++)
			for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++) {
				for (int s = 0; s < n_shapes; s++)
					checked += check_plan(&devices[t], kernel, dtypes[d],
					                      shapes[s].rows, shapes[s].cols, NULL);
				for (int p = 0; p < n_grid; p++) {
					const grid_plan *g = &grid[p];
					rr_layout l = {g->W,   vec_for(g->V, dtypes[d]),
					               g->U,   g->R,
					               g->C,   g->storage,
					               g->grid};
					checked += check_plan(&devices[t], kernel, dtypes[d], 1000,
					                      g->cols, &l);
				}
			}
		rr_kernel_free(kernel);
	}
	test_grid_raw_keep(&devices[1].target);
	test_head_unroll(&devices[1].target);
	test_col_copies(&devices[1].target, &devices[0].target);
	test_twin_entry(&devices[1].target);
	test_grid_blocks(&devices[1].target);
	printf("%d plans checked against their realisation\n", checked);
	CHECK(checked > 300);
	return rr_test_finish("test_realise");
}

/* The realisation of a plan (DESIGN.md §4): everything a layout implies for one kernel, element
 * type, row length and target — what each round keeps and where, access width, geometry, shared
 * memory, values in flight, serial lengths, the tree — computed once, here. Legality, the cost
 * model, both emitters and both launchers read this record; none of them works it out again. */
#ifndef RR_LAYOUT_REALISE_H
#define RR_LAYOUT_REALISE_H

#include <stdint.h>

#include "lang/ir.h"
#include "target/target.h"

/* ---------------------------------------------------------------- the map's bounds: the
 * formulas of DESIGN.md §4 the realisation is computed from */

/* Private slots per worker: floor(N/(W*V))*V + min(N % (W*V), V). */
int64_t rr__slot_bound(int64_t n, int workers, int vec);

/* The serial length: the most elements one worker adds (head and body, layout.h) over every
 * head 0 <= h < head_align a row of n elements may have. Equal to rr__slot_bound when
 * head_align = 1; with a head at most ceil((a - 1) / W) more. */
int64_t rr__serial_length(int64_t n, int workers, int vec, int head_align);

/* Bytes per global access of a pack: V·size up to 16 (and within a cluster block's segment
 * of `segment` elements, whole 16-byte units), at least one element. The row length does not
 * narrow it: the head aligns every row's body whatever N and the base pointer are. */
int rr__access_bytes(const rr_layout *layout, int64_t segment, int elem_bytes);

/* The fixed cross-worker tree: the xor offsets applied, in order, to combine W workers'
 * partials (butterfly within a warp from the largest offset down, then across warps from the
 * largest warp offset down). Returns how many offsets were written to offsets[] (<= 16). Both
 * backends apply exactly this sequence, so one plan's sum is bitwise the same on each. */
int rr__tree_offsets(int workers, int warp_size, int offsets[16]);

/* The part of a row one block holds: the whole row when blocks == 1, else ceil(N/C) rounded
 * up to whole 16-byte units (and whole packs of V), so every block's packs stay aligned. */
int64_t rr__block_segment(int64_t cols, int blocks, int vec, int elem_bytes);

/* Shared memory, in bytes, one group of `layout` needs to keep row values of `kept_bytes` bytes
 * an element in all (4 a value kept in f32, the element size a value kept raw: whole chunks of
 * W·V lanes for each of its R rows, over the block's segment), plus the reduction scratch
 * (double-buffered, `partials` per row per warp and, with C > 1, the cluster's mailbox: per
 * warp per block, with a barrier a partial at most). The
 * realisation's smem_bytes; nothing else calls it. */
int64_t rr__layout_smem_bytes(int partials, int64_t cols, int elem_bytes, const rr_layout *layout,
                              int warp_size, int kept_bytes);

/* Per input, how many phases read it (rounds 1..rounds, then the output phase), into
 * phases_read[]; returns how many row inputs are read in more than one phase: the rows a plan
 * must keep (regs, smem, cluster) or read again (reread). Uses kernel->analysis. */
int rr__layout_kept_inputs(const rr_kernel *kernel, int phases_read[RR_MAX_IO]);

/* Private slots a worker may keep under `layout`: the target's budget, and on a GPU no more
 * than a block of W·R threads can hold in the 64 Ki registers of a multiprocessor with 40
 * registers per thread left for addresses, loads in flight and accumulators (W·R = 1024
 * leaves 24 slots; ptxas spilled layernorm at 32). */
int rr__register_slots(const rr__target *target, const rr_layout *layout);

/* The longest chain of additions one accumulator of dtype `accum` may make before the tree
 * (RR_F32: 2^15; see realise.c for why). Every element type accumulates in f32. */
int64_t rr__serial_bound(rr_dtype accum);

/* Words of S=grid's per-group workspace before the partials: the barrier's arrival count
 * (word 0) and generation (word 1) on a 128-byte line of their own. */
#define RR_GRID_HEAD_WORDS 32

/* Where the values a kernel keeps between rounds live. A cluster (C > 1) keeps its segment in
 * registers when that fits the budget, else in shared memory. */
typedef enum rr__keep_place {
	RR_KEEP_NONE = 0, /* one phase, or S=reread: nothing is kept */
	RR_KEEP_REGS,     /* private arrays: registers on a GPU, per-thread scratch on the CPU */
	RR_KEEP_SMEM      /* the block's shared memory, each worker its own packs */
} rr__keep_place;

/* A kernel of two rounds whose second sums the squares of an element's distance from the
 * first round's mean: round 1 sum = sum(e), c = sum / N, d = e - c, round 2 sq = sum(d * d)
 * and nothing else reduced (LayerNorm's variance). S=grid may then run both rounds behind one
 * barrier (rr__realisation.grid_shift). Node ids, sq = -1 where the kernel is not of that form. */
typedef struct rr__variance_shift {
	int sum, c, d, sq;
} rr__variance_shift;

/* The partial slots a variance shift adds after the kernel's own (rr__realisation.grid_shift):
 * T_b, then c_b. */
#define RR_GRID_SHIFT_SLOTS 2

/* The kernel's variance shift (rr__variance_shift), sq = -1 where it has none (kernel facts
 * take none where the environment has RR_GRID_SHIFT=0). */
rr__variance_shift rr__variance_shift_of(const rr_kernel *kernel);

/* What a realisation needs from the kernel alone, the same for every layout: worked out once
 * per kernel and target by rr__kernel_facts_of, so a planner realising thousands of layouts
 * does not walk the kernel for each. */
typedef struct rr__kernel_facts {
	int rounds;
	int phases;
	int row_outputs;
	int phases_read[RR_MAX_IO];
	int kept_inputs;
	int kept_values;          /* values kept when a layout keeps any (not S=reread) */
	int kept_node[RR_MAX_IO]; /* their nodes, by ordinal */
	int kept_raw;             /* every kept value is a row input as stored (not computed) */
	int in_flight_inputs;     /* most row and col inputs one phase reads */
	int red_slots;
	int partials; /* reduction partials budgeted per row: an online pair two, one spare */
	int row_and_col_inputs;
	int col_inputs;
	int rounding_sums; /* sum reductions that round (not exact): what the serial bound is for */
	rr__variance_shift shift; /* round 2 a sum of squares about round 1's mean (or none) */
	char entry_vec[96];
	char entry_head[96];
	char entry_scalar[96];
	char entry_twin[96];
	char entry_cols[96];
} rr__kernel_facts;

typedef struct rr__realisation {
	/* What was realised. */
	rr_layout layout;
	rr_dtype dtype;
	int64_t cols;
	int elem_bytes;

	/* Phases: rounds 1..rounds, then the output phase when there are row outputs. */
	int rounds;
	int phases;
	int row_outputs;
	int phases_read[RR_MAX_IO]; /* per input: how many phases read it */
	/* Row inputs read in more than one phase: what legality budgets storage for. */
	int kept_inputs;
	/* Values kept from phase 1 to later phases, and where. On a target that keeps derived
	 * values (GPU) these may be computed values (add_layernorm's h = x + r), never more of
	 * them than kept_inputs; otherwise the multi-phase row inputs themselves. */
	rr__keep_place keep;
	int kept_values;
	int kept_node[RR_MAX_IO]; /* the node of each kept value, by ordinal (rr__kept_ordinal) */
	/* Shared-memory keeps of row inputs as they are in memory (the io dtype, 2 bytes an
	 * element in bf16/f16), one 16-byte pack a slot, which the vector entries fill by
	 * asynchronous copies (cp.async, sm_80 on) issued for every complete pack of the segment
	 * before the first is used: the loads are in flight without registers to land in. Set
	 * where keep is RR_KEEP_SMEM, every kept value is a row input, V · size is 16, the
	 * target is sm_80 or later, R is 1 and the storage is not S=grid. */
	int keep_raw;

	/* Access: packs of V elements. Every row (every cluster block's segment) starts with a
	 * head of h < head_align elements up to its first access_bytes boundary (layout.h,
	 * rr__head_length), so the body's packs are aligned whatever N and the base pointer are.
	 * The head is worked out from the address of the kernel's first row input (the
	 * reference); the vector entry runs when every row array has the reference's phase
	 * (rr__realisation_vec_allowed), the scalar entry otherwise, with the same map. */
	int pack_bytes;    /* V · element size */
	int access_bytes;  /* bytes per global access in the vector entry: min(V·size, 16) */
	int has_vec_entry; /* 0: only the scalar entry exists (access_bytes == element size) */
	int head_align;    /* access_bytes / element size: h < head_align (1: no head) */
	int head_slots;    /* head elements per worker at most: ceil((head_align - 1) / W) */
	/* Col inputs (the same N values for every row) share the rows' phase only when N·size is
	 * a multiple of access_bytes; otherwise the vector entry reads them element by element. */
	int cols_vec;
	/* Entries: entry_vec when N·size is a multiple of access_bytes (has_aligned_entry): every
	 * row of an aligned array starts on a boundary, h = 0, the code of a plan without a head;
	 * entry_head (has_vec_entry) works h out per row; entry_scalar too, element by element. */
	int has_aligned_entry;
	/* S=grid and clusters: a twin of entry_vec whose aligned body of a few chunks (U < FULL <
	 * 16, at most four iterations of U, blocks of at most 256 threads, nothing indexed by
	 * chunk in registers) is unrolled whole, so that every chunk's loads are issued before the
	 * first use. The registers that takes can raise or lower the blocks an SM holds, which
	 * these plans count on being resident, so the CUDA backend loads both and keeps the twin
	 * where the driver says it holds at least as many blocks an SM (bench/NOTES.md session
	 * 33). */
	int has_twin_entry;

	/* Geometry of a group (a block on a GPU). */
	int threads;        /* W·R */
	int rows_per_group; /* R */
	int blocks_per_row; /* C: a cluster of C blocks shares one row (S=grid: C grid blocks) */
	int persistent;     /* G=persistent: groups loop over row groups */
	/* S=grid: the C blocks of a row are co-resident blocks of a cooperative launch, not a
	 * cluster; their partials meet in the program's workspace behind a per-row barrier. */
	int grid_split;
	/* Bytes of workspace one row group (C blocks) of S=grid needs: a 128-byte barrier
	 * line (arrival count, generation) and the partials [parity][slot][block], in whole
	 * 128-byte lines. The launcher allocates it once per resident group; 0 otherwise. */
	int64_t workspace_per_group;
	/* S=grid on a kernel with a variance shift (kernel facts) and row outputs: one barrier for
	 * both rounds. Each block sums round 2 about its own mean c_b = S_b / n_b (its segment's
	 * sum over its n_b elements): Q_b = sum (e - c_b)^2 and T_b = sum (e - c_b), both in the
	 * block's tree, written with S_b and c_b (two more partial slots, red_slots); after the
	 * barrier the row's c = sum S_b / N and round 2 = sum over blocks of Q_b + (c_b - c)(2 T_b
	 * + n_b (c_b - c)), an identity for any c_b, in the grid's fixed tree (device/grid.cuh).
	 * Where the environment has RR_GRID_SHIFT=0, two barriers as before (A/B, tests). */
	int grid_shift;
	/* Col inputs of 16-bit rows with heads (N·size not a multiple of the access, N of at
	 * least COPIES_MIN_COLS) are read from copies the launch writes first (the entry
	 * entry_cols), in blocks of one row or many: for each col input, one copy a phase q <
	 * head_align holding element j at j + (head_align - q) % head_align, so a row whose col
	 * packs stand q past an access boundary finds them aligned in copy q. col_copies: the
	 * col inputs copied (0: none); col_copy_stride: elements a copy (a multiple of
	 * head_align); col_copies_bytes: all of them. */
	int col_copies;
	int64_t col_copy_stride;
	int64_t col_copies_bytes;
	/* A flat row (CUDA): one block a row, a block of one row, at most U packs a worker and
	 * nothing kept in shared memory. The emitter issues every load of a phase before any is
	 * used (cuda_emit.c); the cost model counts one trip to memory for it (cost.c). */
	int flat;
	int warps;       /* warps per row in the shared-memory stage (W / warp when W > warp) */
	int64_t segment; /* elements of a row one block holds (N when C = 1) */
	int64_t chunks;  /* ceil(segment / (W·V)): packs a worker owns at most */
	int64_t slots;   /* private slots per worker over the segment (rr__slot_bound) */
	int64_t serial_length; /* elements one worker accumulates in sequence before the tree,
	                        * head included (rr__serial_length) */
	int64_t serial_bound;  /* the most legality allows (rr__serial_bound); 0 = no bound */
	int register_slots;    /* the private slots a worker may keep (register budget) */
	int min_blocks;        /* resident groups per SM that __launch_bounds__ asks for (GPU) */
	int min_blocks_head;   /* the same for the entries with a head: a quarter fewer, leaving
	                        * registers for the per-row head and body bounds */
	int min_blocks_capped; /* min_blocks and min_blocks_head before rows_in_flight_blocks */
	int min_blocks_head_capped; /* raised them (equal when it did not): the cuda backend
	                             * compiles with these where ptxas spills at the raised ones */
	int min_blocks_head_shifted; /* min_blocks_head without col_copies' own bound */

	/* Values in flight: U chunks of V values of every input one phase reads. */
	int in_flight_inputs;
	int64_t in_flight_values;
	int64_t in_flight_budget; /* 1.5 × the register budget (GPU only; 0 = unbounded) */

	/* Shared memory. */
	int red_slots;        /* partials per row combined across workers (rr__reduction_slots) */
	int64_t dynamic_smem; /* bytes of kept packs per block (launch-time) */
	int static_smem;      /* bytes of the reduction scratch per block */
	/* The bytes legality checks against the device and the cost model's occupancy uses: the
	 * kept values (kept_values, in f32 or as stored when keep_raw, whole W·V chunks for
	 * each of R rows) when the values are kept in shared memory, plus the scratch with one
	 * spare pair of partials per reduction. An upper bound of dynamic_smem + static_smem;
	 * the cost model prices a raw keep it does not take as streaming at the f32 size. */
	int64_t smem_bytes;

	/* The fixed cross-worker tree (rr__tree_offsets). */
	int tree_offsets[16];
	int n_tree_offsets;

	/* Entry names of the generated source. */
	char entry_vec[96];    /* "rr_softmax_vec" */
	char entry_head[96];   /* "rr_softmax_head" */
	char entry_scalar[96]; /* "rr_softmax_scalar" */
	char entry_twin[96];   /* "rr_softmax_vecu" */
	char entry_cols[96];   /* "rr_layernorm_cols": writes the col copies (col_copies) */
} rr__realisation;

/* Which entry a launch runs (rr__realisation_vec_allowed). */
enum { RR_ENTRY_SCALAR = 0, RR_ENTRY_VEC = 1, RR_ENTRY_HEAD = 2 };
/* The twin of the aligned entry (has_twin_entry) in the tests' host simulation: the backend
 * picks it in place of RR_ENTRY_VEC when the module loads, never per launch. */
enum { RR_ENTRY_TWIN = 3 };

/* Col copies (col_copies) pay for their launch and their writes, about head_align copies of
 * every col input, only over enough rows: a realisation for `rows_hint` rows (0: unknown, the
 * copies stay) below COPIES_ROWS_PER_INPUT rows a col input, or below COPIES_MIN_ELEMENTS
 * elements in all, reads its col inputs shifted instead. On an H100 the copies made layernorm
 * bf16 16x128257 1.68x as slow, 7x777777 3.2x, add_layernorm bf16 8x50265 1.29x, layernorm
 * bf16 256x12289 1.06x and rmsnorm bf16 128x16385 1.07x (half a µs more), where 4M elements
 * and 512 rows and more ran 0.79-0.97 of the time (bench/NOTES.md session 51). */
enum { COPIES_ROWS_PER_INPUT = 128, COPIES_MIN_ELEMENTS = 1 << 22 };
/* ... and rows shorter than COPIES_MIN_COLS elements take none: a few packs a row do not pay
 * for the copy each row picks (the H100 ran layernorm bf16 65535x127 at W = 4, V = 8, R = 8
 * 1.19x as slow with them, where 8191x1023 at R = 32 ran 0.92x; bench/NOTES.md session 52). */
enum { COPIES_MIN_COLS = 512 };
void rr__realisation_for_rows(rr__realisation *r, int64_t rows_hint);

/* Realises `layout` (every field set, each >= 1) of `kernel` for element type `dtype` at row
 * length `cols` on `target`. kernel may be NULL or unanalysed (hand-built kernels in tests):
 * every row input is then assumed read in every phase. RR_ERR_INVALID_ARG for an incomplete
 * layout or cols < 1. */
rr_status rr__realise(const rr_kernel *kernel, rr_dtype dtype, int64_t cols,
                      const rr_layout *layout, const rr__target *target, rr__realisation *out);

/* The kernel's part of every realisation on `target` (kernel may be NULL or unanalysed). */
void rr__kernel_facts_of(const rr_kernel *kernel, const rr__target *target, rr__kernel_facts *out);
/* rr__realise with the kernel's facts worked out before (rr__kernel_facts_of of the same kernel
 * and target). */
rr_status rr__realise_with(const rr__kernel_facts *facts, rr_dtype dtype, int64_t cols,
                           const rr_layout *layout, const rr__target *target, rr__realisation *out);

/* The entry these arrays run (RR_ENTRY_*). A vector entry may run when every row input and
 * row output lies at the same phase modulo access_bytes as the first row input (the head's
 * reference; rows share the pitch N, so one row's phases are every row's), every array is
 * element-aligned, and, when col inputs are read by vector (cols_vec), they are aligned as the
 * reference is: RR_ENTRY_VEC when that phase is 0 and the plan has the aligned entry (no row
 * has a head), else RR_ENTRY_HEAD. RR_ENTRY_SCALAR otherwise (the same map and order, element
 * by element). */
int rr__realisation_vec_allowed(const rr_kernel *kernel, const rr__realisation *r,
                                const rr_arg *inputs, void *const *outputs);

/* Whether every block of a launch takes one row and no more: blocks of one whole row (C = 1,
 * R = 1) in a grid of a block a row (rr__cuda_launch_shape_of: not persistent). The emitted
 * kernel then has no loop over rows: its copy of the row code held registers for a loop that
 * never ran (softmax bf16 8191x1023, W = 128: 55 registers with it, 26 without; on an H100
 * 0.79 of the time, bench/NOTES.md session 49). Clusters keep the loop: without it,
 * add_layernorm bf16 1000x262144 at C = 8, W = 1024 spilled in its scalar entry (64 registers,
 * 59 with the loop). So do blocks of several rows (layernorm bf16 8191x1023 at R = 32 took
 * 1.08 of the time without it, rmsnorm bf16 65535x127 at R = 4 1.04) and plans whose register
 * cap holds one block an SM (min_blocks 1), where fewer registers gain no block: ptxas then
 * issued add_layernorm f32 8192x8192's loads later, 1.07 of the time. */
int rr__realisation_one_pass(const rr__realisation *r);

/* Whether each thread of a launch takes whole rows of at most 8 elements (W = 1, C = 1) in a grid
 * of a row group a block (not persistent, not S=grid). Each thread then waits on its own few
 * trips to memory, so the emitted kernel has no loop over groups (with one, ptxas hoisted
 * rmsnorm bf16 100000x1's weight out of it and widened it before the row's load was issued:
 * 1.85 µs on an H200 where a hand kernel of the same launch shape, without a loop, took 1.46;
 * bench/NOTES.md session 59) and issues each row's loads, col inputs of later phases among
 * them, before any is used, as a flat row does. Measured on an H100 against the build with the
 * loop (session 60): rows of 1 element 0.79-0.96 of the time, of 3 0.82-0.95, of 5 0.73-1.01,
 * but add_layernorm f32 50000x3 and 65536x5 1.07 and 1.21: ptxas branched round each of their
 * guarded stores and computed its address again inside. Their stores are predicated since
 * (rr_store_live, device/pack_tail.cuh): add_layernorm 0.65-0.96 of the time, the norms' rows
 * of 5 and 7 elements 0.89-0.97, the rest 0.97-1.01 but rmsnorm f32 75000x4 1.03. */
int rr__realisation_short_rows(const rr__realisation *r);

/* Whether every block of a launch takes one row group and no more, so the kernel has no loop
 * over groups: one_pass or short_rows. */
int rr__realisation_no_loop(const rr__realisation *r);

/* U of the vector entry with a head (chunks an iteration): what the CUDA emitter gives it and
 * what the cost model counts its trips with. Half of U where the head's bounds and
 * guarded tails take registers beside what the kernel keeps (the norms: 80-135 registers at
 * W = 64-1024). A plain one-round reduction without row outputs (sum, a loss) holds only its
 * loads and accumulators there: up to 16 values of a worker in flight, as many as U = 4 packs
 * of f32 (ptxas: sum f32 2x4000037 at W = 1024 36 -> 40 registers, one block an SM either
 * way); 32 (bf16 at U = 4, f32 at U = 8) took 66-74 and halved the blocks an SM. In blocks
 * of whole rows of up to 256 threads, up to 64 bytes of loads a worker (sum bf16 2047x6143 at
 * W = 64: 30 -> 54 registers, every load of the row issued at once; an H100 ran it in 0.961x
 * the time, the other one-round picks 0.999-1.002x). All of U
 * too on 16-bit rows whose kept value combines two row inputs (add_layernorm's h = x + r) in
 * blocks of whole rows: the H200 ran add_layernorm bf16 and f16 512x32003 (one block an SM
 * either way) in 0.94x the time at U = 2 than at 1, no spills; not over clusters and S=grid,
 * where 1000x50265 (C = 2) took 1.33x and 7x777777 1.01x (bench/NOTES.md session 32). */
int rr__realisation_head_unroll(const rr__realisation *r);

/* The array whose address sets every row's head: the first row input (*is_output = 0),
 * else the first row output (*is_output = 1); its index, or -1 when there is none. */
int rr__head_reference(const rr_kernel *kernel, int *is_output);

/* Blocks of `smem_bytes` of shared memory an SM holds: the opt-in bytes a block may have plus
 * the 1 KB the SM reserves a block, over the block's bytes and that reserve (sm_90: 228 KB). */
int64_t rr__blocks_by_smem(const rr__target *target, int64_t smem_bytes);

/* The place of node `id` among the kept values, or -1 when it is not kept. */
int rr__kept_ordinal(const rr__realisation *r, int id);

/* The scratch slots of the cross-worker partials: slot_of[id] is the first slot of reduction
 * `id` (an online pair takes two, the pair's sum none of its own), -1 for other nodes; slot_of
 * has n_nodes entries and may be NULL. Returns the slots of all rounds. */
int rr__reduction_slots(const rr_kernel *kernel, short *slot_of);

/* 1 for the sum of an online (max, sum) pair: it rides with its max. */
int rr__is_online_sum(const rr_kernel *kernel, int id);
/* Whether the cpu backend runs the realisation's rows as the lanes of vectors, L rows a vector
 * (codegen/c_emit_lanes.c): W = 1 on rows of at most RR_CPU_LANES_MAX_N elements, unless
 * RR_CPU_ROWS_AS_LANES=0 in the environment keeps the per-row code (tests compare the two).
 * The C emitter and the cost model read it alike. */
/* Rows as lanes against the planner's per-row W = 2-8, one thread, 100000 rows (ns a row;
 * bench/lab/s61-cpu/notes.md): at N = 4 and 8 faster for every built-in (softmax f32 2.2 and
 * 5.6 against 10.6 and 13.5 at W = 4, rmsnorm 2.5 and 3.4 against 4.8 and 5.9). Rows of
 * RR_CPU_LANES_TRANSPOSE_MIN_N .. L elements move through a transposition (device/cpu_lanes.h,
 * N log N) instead of N^2 permutes: at N = 9-16 faster than the per-row plans for every
 * built-in, f32 and bf16 (softmax f32 6.3-9.1 against 15-31, rmsnorm 3.8-6.4 against 7.0-10,
 * add_layernorm bf16 13-19 against 25-64, sum 1.1-1.8 against 2.8-6.2). The bound is the
 * vector's 16 lanes (AVX-512): on 8 or 4 lanes rows past L take the N^2 permutes (unmeasured
 * there). */
#define RR_CPU_LANES_MAX_N 16
/* From this many elements a block's rows go through the transposition (up to L elements a
 * row): at N = 8 5.3 against 5.6 ns a row for softmax f32, add_layernorm 5.2 against 6.4; at
 * 5 slower (4.3 against 3.4). The C emitter writes it as RR_ROWS_TRANSPOSE_MIN_N. */
#define RR_CPU_LANES_TRANSPOSE_MIN_N 8
/* The longest row that runs as lanes on this host: RR_CPU_LANES_MAX_N where the CPU has
 * AVX-512F (16 f32 lanes: rows of 9-16 measured above), else RR_CPU_LANES_NARROW_MAX_N. On 8 or
 * 4 lanes rows past the vector take the N^2 permutes, which at 16 lanes ran slower than the
 * per-row plans past 8 elements: no faster there until measured. */
#define RR_CPU_LANES_NARROW_MAX_N 8
int rr__cpu_lanes_max_n(void);
int rr__cpu_rows_as_lanes(const rr__realisation *r);
/* REDUCE nodes accumulated in round `round` (the sum of an online pair excluded). */
int rr__reduced_in(const rr_kernel *kernel, int id, int round);

/* The elem roots of `phase` into mark[n_nodes]: the operands of the reductions of that round,
 * or (phase > rounds) the row outputs. */
void rr__phase_roots(const rr_kernel *kernel, int phase, unsigned char *mark);
/* Marks the elem operands of marked nodes, down to inputs, not below `stop` nodes (may be
 * NULL). */
void rr__mark_operands(const rr_kernel *kernel, unsigned char *mark, const unsigned char *stop);

/* Whether a cluster's warps push their partials into the blocks' mailboxes (the generated
 * cluster.cuh, section cluster_mail): clusters with two partials a row or more (two rounds, or
 * an online pair) that do not keep their segment in registers. The others combine each block's
 * partial, its own tree done, at a cluster barrier a round (cluster_exchange): a row of one
 * partial meets once, which the H200 ran faster than a mailbox (rmsnorm bf16 512x131072 81.6
 * against 83.6 µs, where layernorm took 0.87-0.93 and softmax 0.97-0.99 of the exchange's time;
 * bench/results/2026-12-02-h200-ab-cluster-mailbox-s18), and clusters kept in registers have
 * no registers to spare for a mailbox's stage (layernorm f32 at 131072-262144 reached ptxas's
 * 128 and spilled with one). */
int rr__cluster_mailbox(const rr__realisation *r);

#endif

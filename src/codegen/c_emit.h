/* The C emitter: the source of a plan for the cpu backend, as readable C11. The generated code
 * follows the ownership map of DESIGN.md §4 literally and keeps N a run-time argument, so one
 * shared object serves every row length of a (kernel, dtype, layout). */
#ifndef RR_CODEGEN_C_EMIT_H
#define RR_CODEGEN_C_EMIT_H

#include <stdint.h>

#include "codegen/common.h"

/* The two functions every generated source exports. */
#define RR_CPU_KERNEL_SYMBOL "rr_cpu_kernel"
#define RR_CPU_SCRATCH_SYMBOL "rr_cpu_scratch_floats"

/* Runs rows [row_begin, row_end) of N elements. inputs[k] follow the kernel's inputs (row and
 * col arrays in the dtype, rowscalar in the dtype, index int64; NULL for params); params[k] is
 * the value of input k when it is a param; outputs[j] follow the kernel's outputs. scratch holds
 * rr_cpu_scratch_floats(N) floats private to the calling thread (NULL when that is 0). stream
 * bit 0 (1): the launch moves more bytes than stay in cache, so the complete, aligned packs of
 * row outputs are written with non-temporal stores (never read before they are written); the
 * values written are the same either way. Bit 1 (RR_CPU_COLS_READY): this thread has called
 * the kernel earlier in the same launch with the same inputs and scratch, so the cols it
 * widened into scratch then (rr__c_wide_cols) still hold; without it they are widened again. */
#define RR_CPU_COLS_READY 2
typedef void (*rr__cpu_kernel_fn)(int64_t row_begin, int64_t row_end, int64_t N,
                                  const void *const *inputs, const double *params,
                                  void *const *outputs, float *scratch, int stream);
/* Floats of scratch one thread needs at row length N (the private slots kept between rounds). */
typedef int64_t (*rr__cpu_scratch_fn)(int64_t N);

/* Appends the C source of the request's kernel for its dtype under its layout (complete and
 * legal); what is kept and the tree are the realisation's. The source runs at every N and
 * depends on the realisation's N only through two bounds: the values held after round 1
 * (RR_CPU_HELD_BYTES) and the widened cols (RR_CPU_WIDE_COL_BYTES).
 * RR_ERR_INVALID_ARG for a dtype other than f32/bf16/f16, RR_ERR_NOMEM when out grows no more. */
rr_status rr__c_emit(const rr__emit_request *request, rr__buf *out);

/* Rows as lanes (layout/realise.h, rr__cpu_rows_as_lanes): L rows a vector, one row a lane,
 * each in its plan's element order with the per-row code's operations (the same bits). The
 * source still runs at every N: whole blocks of L rows of the realisation's N through lane
 * permutes, other rows (a last block of fewer than L, rows of other lengths) lane by lane. */
rr_status rr__c_emit_lanes(const rr__emit_request *request, rr__buf *out);
/* The rr_vexp_nonpos form the per-row code takes for elem node id ("", "_bf16", "_summed"; the
 * ranged forms have the same bits where it takes them), or NULL where id is no exp(x - max). */
const char *rr__c_exp_form(const rr_kernel *kernel, rr_dtype dtype, int id);

/* Appends the system headers every generated source includes (rr__c_emit prints the same
 * sections): what the cpu backend precompiles once per compiler and flags, so that a kernel's
 * compile does not parse them again (the intrinsics headers are most of a compile). */
void rr__c_prelude(rr__buf *out);

/* Bytes of a row (its elements and the f32 values kept for the output phase) up to which a
 * round with an online (max, sum) pair runs in two passes over the row in cache: the max,
 * then the sum of exp(e - m) with the row's max. Longer rows take the plan's one online pass
 * (reading memory twice would cost more than the rescaling). 512 KiB (a core's L2 on the AMD
 * host of session 31), or three quarters of this machine's L2 a core where that is more. */
int64_t rr__c_split_bytes(void);
/* The longest row the kernel's online pairs run split in `dtype` (0: it has none). */
int64_t rr__c_split_max_cols(const rr_kernel *kernel, rr_dtype dtype);
/* The exp(e - m) node of an online pair that the output phase needs, kept in scratch by the
 * split so that it is evaluated once per element; -1 when there is none. */
int rr__c_cached_node(const rr_kernel *kernel);
/* Values of 16-bit rows that round 1 computes and later passes need (add_layernorm's
 * h = x + r), kept as f32 in private slots after round 1 and read back there instead of
 * loading, converting and computing them again from their operands: where the realisation
 * keeps no row input (S=reread), has no head and no online pair, and the kept values of a row
 * take at most RR_CPU_HELD_BYTES. held[id] (n_nodes entries) is set to 1 + the value's ordinal
 * after the kept inputs, 0 elsewhere; returns their count. f32 rows have rr__c_early_outputs
 * for h instead. add_layernorm bf16 (bench/NOTES.md, session 30): one thread in cache 0.85 of the
 * time at 1024 and 4096 columns (0.93 at 65536), two threads in cache (1024x1024, 64x4096)
 * 0.87-0.89; two threads from DRAM level (16384x1024 0.98, 4096x4096 1.005, 2048x8192 0.98,
 * 1024x16384 1.00). The bound keeps the f32 row in the first-level cache beside the 16-bit
 * ones (16 KiB: N <= 4096 for one value). bf16 rows of whole 64-byte lines (every row at one
 * offset in its line) keep up to RR_CPU_HELD_LONG_BYTES (512 KiB: N <= 131072 for one value,
 * the values and the two bf16 rows within half of a 2 MiB L2): add_layernorm bf16 from memory,
 * two threads, 256x65536 0.899-0.932, 512x32768 0.947, 128x131072 0.924, and not in any suite
 * 96x100000 0.931, 1000x24576 0.946, 200x40000 0.976; 2048x8192 and 1024x16384 level. Left
 * out, slower held: 64x262144 (1 MiB kept) 1.042, bf16 rows of odd length (2047x6143,
 * 1000x50265) 1.021-1.032, f16 (256x65536, 512x32768; its widening is one conversion)
 * 1.063-1.072 (bench/NOTES.md, session 42 CPU). */
#define RR_CPU_HELD_BYTES (16 * 1024)
#define RR_CPU_HELD_LONG_BYTES (512 * 1024)
int rr__c_derived_keeps(const rr_kernel *kernel, const rr__realisation *r, unsigned char *held);
/* Row outputs of an f32 realisation that round 1 writes and the later passes read back
 * instead of computing them again (add_layernorm's h): in the row, or where the launch
 * streams in the thread's scratch, streamed to the row by the output phase. early (n_outputs
 * entries) gets 1 + the output's ordinal among them, 0 for the others; returns their count. */
int rr__c_early_outputs(const rr_kernel *kernel, const rr__realisation *r, unsigned char *early);
/* How many of them go to scratch where the launch streams: all where the kernel has a row
 * output written by the output phase (which then streams them too), none where they are its
 * only row outputs (no output phase: round 1 writes them into their rows). */
int rr__c_early_rows(const rr_kernel *kernel, const rr__realisation *r);
/* Whether a streaming launch of the realisation runs each row's output phase inside the next
 * row's pass of the sums: f32, V = 1, no head, nothing kept in private slots, rows up to
 * rr__c_piped_max_cols, and a kernel whose last round holds an online pair whose exp(e - m)
 * the split caches and whose output phase reads that cache and scalars alone (softmax). The
 * generated source does it on every target, except rows that keep their cache in the output
 * row (RR_CACHE_IN_ROW, from IN_ROW_MIN_N); scratch then holds two rows' caches wherever the
 * split runs. */
int rr__c_piped(const rr_kernel *kernel, const rr__realisation *r);

/* Rows split over threads: a source whose rows may run in parts, each part the workers of
 * a span of blocks over the whole row (the plan's order, so the same bits), exports these
 * beside the two above. rr_cpu_row_parts(): the parts a row takes, 2 or 1 (device/cpu_row.h:
 * two halves of the blocks, each at least PART_LEAST_BYTES of a chunk of every row array).
 * rr_cpu_row_share_floats(): floats of the memory the
 * parts exchange their blocks' partials through (64-byte aligned, shared). rr_cpu_row_part:
 * rows [row_begin, row_end), part `part` of `parts`, each part on its own thread and all of
 * them running at once (they wait for each other before every tree), `arrived` a counter
 * the parts share, zero before the first; flags as rr_cpu_kernel's RR_CPU_COLS_READY (the
 * outputs are written through the caches). The backend splits rows a launch would otherwise
 * leave one thread working alone (src/backend/cpu.c). */
#define RR_CPU_ROW_PARTS_SYMBOL "rr_cpu_row_parts"
#define RR_CPU_ROW_SHARE_SYMBOL "rr_cpu_row_share_floats"
#define RR_CPU_ROW_PART_SYMBOL "rr_cpu_row_part"
typedef int (*rr__cpu_row_parts_fn)(void);
typedef int64_t (*rr__cpu_row_share_fn)(void);
typedef void (*rr__cpu_row_part_fn)(int64_t row_begin, int64_t row_end, int part, int parts,
                                    int64_t N, const void *const *inputs, const double *params,
                                    void *const *outputs, float *scratch, int flags,
                                    unsigned long long *arrived, float *shared);
/* Rows from RR_CPU_PARTS_MIN_N (target/target.h) get rr_cpu_row_part (a third bound on N
 * beside the two of rr__c_emit): shorter rows are many to a launch, and the parts' copies of
 * the row's code cost each compile about as much again. */
/* Whether the source of the realisation (at its N) in `dtype` has rr_cpu_row_part: rows of
 * RR_CPU_PARTS_MIN_N or more with a tree, and no 16-bit row output (their output phase
 * stores the chunks of every block at once). */
int rr__c_row_parts(const rr_kernel *kernel, const rr__realisation *r, rr_dtype dtype);
/* The longest row piped in `dtype`: the row, the next one coming in and two rows' caches in
 * rr__c_split_bytes, or the split's longest row up to PIPED_MEASURED_COLS where that is more
 * (never past the split's). */
int64_t rr__c_piped_max_cols(rr_dtype dtype);
/* Floats of private scratch one CPU thread needs for a realisation of `kernel`: the kept
 * values' slots of W workers (rr__c_derived_keeps' too), the split's cache at rows up to
 * rr__c_split_max_cols, the widened cols (rr__c_wide_cols: from a 64-byte boundary, each
 * col's N floats rounded up to 16), and the rows written early (rr__c_early_rows: from a
 * 64-byte boundary after the rest, N floats rounded up to 16 each). */
int64_t rr__c_scratch_floats(const rr_kernel *kernel, const rr__realisation *r);
/* The cols of a 16-bit kernel that it reads as f32 from the thread's scratch, widened there
 * once a thread and launch (RR_CPU_COLS_READY) instead of by a shuffle at each load: where the
 * realisation's rows widen to at most RR_CPU_WIDE_COL_BYTES of f32 cols (the emitted source
 * then widens them at every N it is called with). Same values, so the same output bits. wide
 * (n_inputs entries, or NULL) gets 1 + the col's ordinal among them, 0 for other inputs;
 * returns their count (0 for f32 and past the bound). Two threads, rows from DRAM 16 bytes
 * in, the time against a shuffle at each load (bench/NOTES.md, session 32 CPU): layernorm bf16
 * 16384x1024 0.91-0.96, 4096x4096 0.92-0.94, 2048x8192 0.94, 1024x16384 0.98, 256x65536 1.08
 * (its f32 cols 512 KiB): hence the bound. */
#define RR_CPU_WIDE_COL_BYTES (64 * 1024)
int rr__c_wide_cols(const rr_kernel *kernel, const rr__realisation *r, int *wide);

#endif

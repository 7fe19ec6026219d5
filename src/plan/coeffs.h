/* The cost model's coefficients as data (DESIGN.md §6): every number of src/plan/cost.c that a
 * measurement could move has a name here, a hand value (the documented default set) and, per
 * backend and device class, a value fitted from tuning results (a .txt in src/plan/coeffs, embedded
 * at build time; `rowreduce tune --fit` writes them). */
#ifndef RR_PLAN_COEFFS_H
#define RR_PLAN_COEFFS_H

#include <stddef.h>

#include "rowreduce.h"
#include "target/target.h"

/* X(name, hand value, backend, what it is). backend: G = the GPU branch, C = the CPU branch,
 * A = both. The hand values are the ones bench/NOTES.md's H200 sweeps calibrated by hand; a
 * class file that omits a name keeps its hand value. */
#define RR__COST_COEFFS(X)                                                                         \
	X(overlap, 0.25, A,                                                                        \
	  "share of the faster of memory and latency time not hidden by the slower")               \
	X(tree_weight, 1.0, A, "weight of the cross-worker tree's issue time")                     \
	X(cluster_narrow_factor, 4.0, A, "a cluster whose blocks hold fewer than 8192 elements")   \
	X(gpu_bandwidth, 4.0e12, G, "B/s reachable from device memory")                            \
	X(gpu_cache_bandwidth, 30.0e12, G, "B/s of L1/L2 hits (col inputs every group re-reads)")  \
	X(gpu_smem_bandwidth, 30.0e12, G, "B/s of shared memory, all SMs together")                \
	X(gpu_inflight_needed, 32768.0, G, "bytes in flight per SM that cover the memory latency") \
	X(gpu_contiguous_needed, 4096.0, G, "bytes one group access should cover (DRAM pages)")    \
	X(gpu_access_eff_8b, 0.85, G, "bandwidth efficiency of 8-byte accesses (16 B: 1)")         \
	X(gpu_access_eff_4b, 0.7, G, "bandwidth efficiency of 4-byte accesses")                    \
	X(gpu_access_eff_2b, 0.55, G, "bandwidth efficiency of 2-byte accesses")                   \
	X(gpu_access_eff_1b, 0.45, G, "bandwidth efficiency of 1-byte accesses")                   \
	X(gpu_memory_latency_us, 0.6, G, "one dependent load from device memory")                  \
	X(gpu_cache_latency_us, 0.35, G, "one dependent load served by L2")                        \
	X(gpu_launch_us, 2.0, G, "fixed launch overhead")                                          \
	X(gpu_cluster_launch_us, 0.5, G, "extra launch overhead of a cluster launch")              \
	X(gpu_block_us, 0.1, G, "prologue of one group")                                           \
	X(gpu_dispatch_us, 0.02, G, "an SM's scheduler starting one more group")                   \
	X(gpu_warp_level_cycles, 30.0, G, "one level of the in-warp shuffle tree")                 \
	X(gpu_block_stage_cycles, 250.0, G, "barrier and shared-memory stage of a W > 32 tree")    \
	X(gpu_cluster_round_us, 0.5, G, "a cluster-wide barrier per round")                        \
	X(gpu_grid_launch_us, 1.0, G, "extra overhead of S=grid's cooperative launch (predicted)") \
	X(gpu_grid_round_us, 1.5, G, "S=grid's per-row barrier through L2 per round (predicted)")  \
	X(gpu_regs_chunk_us, 0.002, G, "reading back one kept chunk from registers")               \
	X(gpu_smem_chunk_us, 0.03, G, "reading back U kept chunks from shared memory")             \
	X(gpu_smem_phase_us, 0.05, G, "a later phase over shared memory")                          \
	X(gpu_output_chunk_us, 0.05, G, "storing U chunks of row outputs")                         \
	X(gpu_tree_plain_instr, 3.0, G, "instructions per tree level of a sum, max or min")        \
	X(gpu_tree_online_instr, 14.0, G, "instructions per tree level of an online (max, sum)")   \
	X(gpu_tree_block_instr, 20.0, G, "instructions of a shared-memory tree stage per round")   \
	X(gpu_persistent_factor, 1.15, G,                                                          \
	  "an unclustered persistent grid against one group per R")                                \
	X(gpu_few_packs_factor, 0.3, G,                                                            \
	  "per pack under 4 per worker of a group wider than a warp")                              \
	X(gpu_few_rows_factor, 3.0, G, "groups of R > 1 rows on a launch of few rows")             \
	X(gpu_cluster_short_row_factor, 1.5, G, "a cluster on a row one block could hold")         \
	X(gpu_cluster_rows_factor, 1.1, G, "a cluster a row against clusters looping over rows")   \
	X(gpu_wide_pack_factor, 1.5, G, "packs wider than one 16-byte access")                     \
	X(gpu_many_packs_factor, 1.5, G, "more than 8 packs per worker, W < 1024")                 \
	X(gpu_staged_lone_factor, 1.2, G,                                                          \
	  "a raw keep of one block an SM: a cluster, or fewer than 1024 threads")                  \
	X(gpu_reread_twice_factor, 1.4, G, "a row read from memory three times (two re-reads)")    \
	X(gpu_grid_shared_sm_factor, 1.3, G,                                                       \
	  "S=grid of two rounds or more with more blocks than SMs")                                \
	X(gpu_element_phase_us, 0.0074, G,                                                         \
	  "one launch wave: a worker's element in one phase (serial work)")                        \
	X(gpu_head_phase_us, 0.18, G, "one launch wave: the head's guarded code in one phase")     \
	X(gpu_head_row_cycles, 32.0, G,                                                            \
	  "SM issue cycles of one row's head in one phase, past a wave")                           \
	X(gpu_scattered_access_eff, 0.75, G,                                                       \
	  "bandwidth efficiency of a warp access over 16 lines (several rows)")                    \
	X(gpu_trip_us, 0.1, G, "one launch wave: a trip to memory after the first (not flat)")     \
	X(gpu_wave_level_us, 0.04, G, "one launch wave: a level of the in-warp tree in one round") \
	X(cpu_bandwidth_per_thread, 8.0e9, C, "B/s of memory per thread")                          \
	X(cpu_pack_ns, 0.4, C, "one vector operation on up to 32 bytes")                           \
	X(cpu_ilp_u2, 0.9, C, "pack time factor with 2 or 3 chunks per iteration")                 \
	X(cpu_ilp_u4, 0.8, C, "pack time factor with 4 or more chunks per iteration")              \
	X(cpu_worker_ns, 2.0, C, "setting up one simulated worker in a pass")                      \
	X(cpu_tree_level_ns, 1.0, C, "one level of the simulated tree")                            \
	X(cpu_chain_ns, 1.5, C, "latency of one dependent vector add of a reduction's chain")      \
	X(cpu_transcendental_ns, 2.7, C, "an exp, log or tanh on a vector of one or two lanes")    \
	X(cpu_kept_pass_factor, 0.9, C, "a later pass over kept rows against a re-read pass")      \
	X(cpu_group_ns, 40.0, C, "taking one group of rows off the queue")                         \
	X(cpu_cached_row_bytes, 262144.0, C, "kept row bytes that stay in cache for a re-read")    \
	X(cpu_launch_us, 5.0, C, "fixed cost of one call")

typedef enum rr__coeff_id {
#define RR__COEFF_ENUM(name, value, backend, doc) RR__COEFF_##name,
	RR__COST_COEFFS(RR__COEFF_ENUM)
#undef RR__COEFF_ENUM
	    RR__COEFF_COUNT
} rr__coeff_id;

/* One device class's coefficients. */
typedef struct rr__cost_coeffs {
	char device_class[64]; /* "cuda/sm_90", "cpu/x86-64", or "default" (the hand values) */
	char source[256];      /* where the values came from, for results and messages */
	double value[RR__COEFF_COUNT];
} rr__cost_coeffs;

/* The name, hand value, backend letter and description of coefficient `id`. */
const char *rr__coeff_name(int id);
double rr__coeff_hand_value(int id);
char rr__coeff_backend(int id);
const char *rr__coeff_doc(int id);
/* The id of a name, -1 when no coefficient has it. */
int rr__coeff_find(const char *name);

/* The documented default set: every hand value, class "default". */
void rr__cost_coeffs_default(rr__cost_coeffs *out);
/* The device class of a target: "cuda/sm_XY" from its compute capability, "cpu/<arch>" (x86-64,
 * aarch64, ...) for the CPU. */
void rr__cost_coeffs_class_of(const rr__target *target, char *out, size_t size);
/* The coefficients the planner uses on `target`: the file named by $RR_COST_COEFFS when set (to
 * try a fit before it is checked in; its class must be the target's), else the embedded file of
 * the target's class, else the default set. RR_ERR_INVALID_ARG (and the default set in *out)
 * when $RR_COST_COEFFS cannot be read, does not parse or is of another class. */
rr_status rr__cost_coeffs_for(const rr__target *target, rr__cost_coeffs *out);

/* Parses a coefficients file: '#' comments, one "class NAME" line, then "name value" lines,
 * each name once; names not given keep their hand value. RR_ERR_INVALID_ARG with the line and
 * what is wrong (an unknown name, a duplicate, a value that is not a positive finite number). */
rr_status rr__cost_coeffs_parse(const char *text, const char *origin, rr__cost_coeffs *out);
/* The text of a coefficients file for `c`: `header` (lines, each already starting with '#'),
 * the class line, then every coefficient of the class's backend with its description. Returns a
 * malloc'd string, NULL when out of memory. */
char *rr__cost_coeffs_format(const rr__cost_coeffs *c, const char *header);

/* The embedded class files (generated by cmake/embed_files.cmake). */
typedef struct rr__coeff_file {
	const char *name, *text;
} rr__coeff_file;
extern const rr__coeff_file rr__coeff_files[];

#endif

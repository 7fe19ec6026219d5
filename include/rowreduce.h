/* rowreduce: compile, tune and measure row-reduction kernels for NVIDIA GPUs and CPUs.
 *
 * This is the one public header. Every fallible function returns rr_status; on failure the
 * message of the last error of the calling thread, with its cause chain, is rr_last_error().
 * Handles are opaque. Nothing here calls exit().
 */
#ifndef ROWREDUCE_H
#define ROWREDUCE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the public functions: the shared library is built with hidden visibility, so these
 * documented names are all it exports. */
#ifndef RR_API
#if defined(__GNUC__) || defined(__clang__)
#define RR_API __attribute__((visibility("default")))
#else
#define RR_API
#endif
#endif

/* ---------------------------------------------------------------- status and errors */

typedef enum rr_status {
	RR_OK = 0,
	RR_ERR_PARSE,          /* kernel text is not in the language (syntax) */
	RR_ERR_TYPE,           /* kernel text parses but does not type-check */
	RR_ERR_INVALID_ARG,    /* a caller passed a bad value (shape, dtype, flag, NULL) */
	RR_ERR_ILLEGAL_LAYOUT, /* a plan was rejected by the legality check; see the reason */
	RR_ERR_COMPILE,        /* the backend compiler rejected generated code */
	RR_ERR_NO_DEVICE,      /* the backend is absent: no GPU, no driver, no NVRTC */
	RR_ERR_DEVICE,         /* the device or driver reported an error while running */
	RR_ERR_IO,             /* a file could not be read or written */
	RR_ERR_NOMEM,          /* an allocation failed */
	RR_ERR_VALIDATION,     /* an output disagreed with the float64 reference */
	RR_ERR_UNSUPPORTED,    /* a valid request this build or backend cannot do */
	RR_ERR_INTERNAL        /* a bug in rowreduce: please report it */
} rr_status;

/* The message of the calling thread's last failure ("" if none): what was wrong, where, and
 * what is allowed, followed by its causes. Valid until the thread's next rowreduce call. */
RR_API const char *rr_last_error(void);

/* A short constant name for a status, e.g. "parse error". */
RR_API const char *rr_status_string(rr_status status);

/* The library version ("0.1.0") and the git commit it was built from. */
RR_API const char *rr_version(void);
RR_API const char *rr_git_commit(void);

/* ---------------------------------------------------------------- numbers */

/* The one reader of the numbers users type (seeds, params, shapes, layouts, counts), so every
 * flag says the same thing about the same mistake. A whole number is decimal digits only: no
 * sign, no spaces, no fraction or exponent, so "-1" is refused like "abc" and nothing wraps
 * around. On success *out (may be NULL) receives the value. On failure RR_ERR_INVALID_ARG with
 * one of: "'abc' is not a whole number from 0 to 9", "'65536' exceeds the most allowed, 1024",
 * "'0' is below the least allowed, 1". The message does not name the flag: callers add it. */
RR_API rr_status rr_parse_whole(const char *text, uint64_t least, uint64_t most, uint64_t *out);

/* A finite real number in [least, most] in decimal (strtod) syntax with nothing after it; NaN,
 * infinities and hexadecimal are refused. Messages as rr_parse_whole's ("'abc' is not a number
 * from 0.001 to 60000"; with least = -DBL_MAX and most = DBL_MAX, "'abc' is not a finite
 * number"). */
RR_API rr_status rr_parse_real(const char *text, double least, double most, double *out);

/* A shape "MxN": M rows and N columns, each a whole number from 1 to 2^31 read by
 * rr_parse_whole ("shape '0x5': M (rows): '0' is below the least allowed, 1"). */
RR_API rr_status rr_parse_shape(const char *text, int64_t *rows, int64_t *cols);

/* ---------------------------------------------------------------- element types */

typedef enum rr_dtype {
	RR_F32 = 0,
	RR_BF16,
	RR_F16,
	RR_F64,
	RR_I64 /* only for index inputs */
} rr_dtype;

/* "f32", "bf16", "f16", "f64", "i64". */
RR_API const char *rr_dtype_name(rr_dtype dtype);
/* Parses a dtype name; RR_ERR_INVALID_ARG with the allowed names otherwise. */
RR_API rr_status rr_dtype_parse(const char *name, rr_dtype *out);
RR_API size_t rr_dtype_size(rr_dtype dtype);
/* RR_OK when `dtype` is an element type kernels run in (f32, bf16 or f16); otherwise
 * RR_ERR_INVALID_ARG with "dtype f64 is not an element type kernels run in: allowed are f32,
 * bf16, f16". The one place that rule is written. */
RR_API rr_status rr_dtype_check_element(rr_dtype dtype);

/* ---------------------------------------------------------------- kernels */

typedef struct rr_kernel rr_kernel;

typedef enum rr_kind {
	RR_KIND_ROW = 0,   /* M×N: the rows being reduced, or a row-shaped output */
	RR_KIND_COL,       /* N values shared by every row (a weight) */
	RR_KIND_ROWSCALAR, /* M values, one per row (a loss) */
	RR_KIND_INDEX,     /* M integers, one per row (a target class); int64 */
	RR_KIND_PARAM      /* one launch-time scalar with a default */
} rr_kind;

RR_API const char *rr_kind_name(rr_kind kind);

/* One input or output of a kernel, as declared in its text. */
typedef struct rr_io_info {
	const char *name;
	rr_kind kind;
	double default_value; /* params only */
} rr_io_info;

/* What the analysis found (DESIGN.md §3). */
typedef struct rr_analysis_info {
	int rounds;     /* reduction rounds; a new round starts where a reduction needs another */
	int reductions; /* reduction nodes after rewrites (an online pair counts as one) */
	int online_rewrites; /* max/sum pairs fused into one online (max, sum) reduction */
	int exact_reductions;
	int row_outputs;       /* outputs of kind row */
	int rowscalar_outputs; /* outputs of kind rowscalar */
} rr_analysis_info;

/* The largest kernel file rr_kernel_load_file reads: 1 MiB. */
#define RR_KERNEL_FILE_MAX_BYTES ((size_t)1 << 20)

/* Loads, parses and type-checks a kernel. Errors name file:line:column. The file must be a
 * regular file (a device, pipe or folder is refused unread, RR_ERR_IO) of at most
 * RR_KERNEL_FILE_MAX_BYTES (else RR_ERR_INVALID_ARG); a UTF-8 byte-order mark at its start is
 * skipped. */
RR_API rr_status rr_kernel_load_file(const char *path, rr_kernel **out);
/* As above from text; name_for_errors is used in messages (e.g. "<string>"). */
RR_API rr_status rr_kernel_load_string(const char *text, size_t length, const char *name_for_errors,
                                       rr_kernel **out);
/* One of the built-ins embedded in the library (the files of specs/). */
RR_API rr_status rr_kernel_load_builtin(const char *name, rr_kernel **out);
/* NAME of a built-in, else a path to a file. */
RR_API rr_status rr_kernel_load(const char *name_or_path, rr_kernel **out);
RR_API void rr_kernel_free(rr_kernel *kernel);

/* The names of the built-ins, NULL-terminated. */
RR_API const char *const *rr_builtin_names(void);

RR_API const char *rr_kernel_name(const rr_kernel *kernel);
/* The SHA-256 (hex) of the kernel's text. */
RR_API const char *rr_kernel_source_hash(const rr_kernel *kernel);
RR_API int rr_kernel_num_inputs(const rr_kernel *kernel);
RR_API int rr_kernel_num_outputs(const rr_kernel *kernel);
RR_API rr_status rr_kernel_input(const rr_kernel *kernel, int i, rr_io_info *out);
RR_API rr_status rr_kernel_output(const rr_kernel *kernel, int i, rr_io_info *out);
/* Index of the input named `name`, or -1 (outputs are not searched). */
RR_API int rr_kernel_find_input(const rr_kernel *kernel, const char *name);
RR_API rr_status rr_kernel_analysis(const rr_kernel *kernel, rr_analysis_info *out);
/* Writes the human-readable analysis that `rowreduce check` prints. */
RR_API rr_status rr_kernel_print(const rr_kernel *kernel, FILE *out);
/* One-line signature, e.g. "rmsnorm(x: row, w: col, eps = 1e-06) -> (y: row)". */
RR_API rr_status rr_kernel_signature(const rr_kernel *kernel, char *buf, size_t size);

/* ---------------------------------------------------------------- arguments */

/* One argument of a launch, in the order of the kernel's inputs. Arrays use `data` (row: M×N
 * with row pitch N elements; col: N; rowscalar: M; index: M int64); params use `value`. */
typedef struct rr_arg {
	const void *data;
	rr_dtype dtype;
	double value;
} rr_arg;

/* ---------------------------------------------------------------- float64 reference */

/* Runs the kernel over M rows of N elements in double precision, in index order, with no
 * rewrites: the oracle every backend is validated against. outputs[j] receives M×N doubles for
 * a row output and M doubles for a rowscalar output. An index outside [0, N) is an error.
 * M = 0 does nothing and succeeds; N < 1 is RR_ERR_INVALID_ARG.
 *
 * NaN and infinities (the same on every backend): IEEE arithmetic throughout, so a NaN in a
 * row makes every value computed from that row's sums NaN (softmax, rmsnorm, layernorm and
 * cross-entropy of the row are NaN, as in PyTorch), and a softmax row of all -inf is NaN
 * (-inf - -inf), as in PyTorch. max and min (the reductions and max(a, b)) follow C's fmax and
 * fmin: a NaN operand is ignored unless both are NaN (PyTorch's max would return NaN). */
RR_API rr_status rr_reference_run(const rr_kernel *kernel, int64_t rows, int64_t cols,
                                  const rr_arg *inputs, double *const *outputs);

/* ---------------------------------------------------------------- layouts and plans */

typedef enum rr_storage {
	RR_STORAGE_AUTO = 0,
	RR_STORAGE_REGS,    /* the row stays in registers between rounds */
	RR_STORAGE_SMEM,    /* the row stays in shared memory */
	RR_STORAGE_CLUSTER, /* a thread-block cluster shares partial results (sm_90) */
	RR_STORAGE_REREAD,  /* each round reads the inputs again */
	/* A row split over C blocks spread over the grid (more than a cluster holds): each
	 * block keeps its segment on chip (or, when that is over a block's shared memory,
	 * reads it again from L2 after the barrier), per-block partials meet in the program's
	 * workspace behind a per-row barrier of a cooperative launch (cuda only, G=persistent). */
	RR_STORAGE_GRID
} rr_storage;

typedef enum rr_grid {
	RR_GRID_AUTO = 0,
	RR_GRID_ROWS,      /* one group per R rows */
	RR_GRID_PERSISTENT /* a fixed number of groups loop over the rows */
} rr_grid;

/* The layout of DESIGN.md §4. Zero in a field means "let the planner choose". */
typedef struct rr_layout {
	int workers_per_row; /* W: power of two, 1..1024 */
	int vec;             /* V: consecutive elements per worker, 1, 2, 4, 8 or 16 */
	int unroll;          /* U: chunks per loop iteration, 1..8 */
	int rows_per_group;  /* R: rows handled by one group of W·R workers */
	int blocks_per_row;  /* C > 1: a row is split over a cluster (or, S=grid, the grid) */
	rr_storage storage;
	rr_grid grid;
} rr_layout;

/* Parses "W=32,V=4,U=1,R=1[,C=2][,S=regs|smem|cluster|reread|grid][,G=rows|persistent]". */
RR_API rr_status rr_layout_parse(const char *text, rr_layout *out);
/* Formats a layout in the syntax rr_layout_parse reads. */
RR_API int rr_layout_format(const rr_layout *layout, char *buf, size_t size);

/* ---------------------------------------------------------------- devices and programs */

typedef struct rr_device rr_device;
typedef struct rr_program rr_program;

/* Opens a backend: "cpu", "cuda" or "auto" (cuda when a device answers, else cpu). */
RR_API rr_status rr_device_open(const char *backend, rr_device **out);
RR_API void rr_device_close(rr_device *device);
/* "cpu" or "cuda". */
RR_API const char *rr_device_backend(const rr_device *device);
/* A human-readable device description, e.g. "NVIDIA H200 (sm_90, 132 SMs)". */
RR_API const char *rr_device_name(const rr_device *device);

/* Memory the device's kernels can read and write (host memory on the CPU backend). */
RR_API rr_status rr_device_alloc(rr_device *device, size_t bytes, void **out);
RR_API void rr_device_free(rr_device *device, void *ptr);
RR_API rr_status rr_device_upload(rr_device *device, void *dst, const void *src, size_t bytes);
RR_API rr_status rr_device_download(rr_device *device, void *dst, const void *src, size_t bytes);
RR_API rr_status rr_device_synchronize(rr_device *device);

/* Plans, checks legality, emits, compiles and loads the kernel for element type `dtype` and row
 * length `cols` (N >= 1: N = 0 is RR_ERR_INVALID_ARG, a row of no elements has no reduction);
 * `rows_hint` (the expected M, 0 if unknown) guides the planner's grid and R, and on CUDA whether
 * odd 16-bit rows read their col inputs from per-phase copies the launch writes first (from 128
 * rows a col input and 4M elements, or M unknown); the program stays valid for any M.
 * layout == NULL or fields set to 0 let the planner choose. An illegal layout
 * fails with RR_ERR_ILLEGAL_LAYOUT and the named reason in rr_last_error(). `param_values` are not
 * needed: params are launch arguments. */
RR_API rr_status rr_program_build(rr_device *device, const rr_kernel *kernel, rr_dtype dtype,
                                  int64_t rows_hint, int64_t cols, const rr_layout *layout,
                                  rr_program **out);
RR_API void rr_program_free(rr_program *program);
/* The plan actually used, the generated source and its SHA-256, the compiled binary's SHA-256. */
RR_API const rr_layout *rr_program_layout(const rr_program *program);
RR_API const char *rr_program_source(const rr_program *program);
RR_API const char *rr_program_source_hash(const rr_program *program);
RR_API const char *rr_program_binary_hash(const rr_program *program);

/* How the planner reached the program's layout. `planned` is 0 when the caller gave every
 * field (the layout was only checked). Otherwise: the layouts of the product considered, those
 * rejected as illegal, those merged because they realise the same kernel as another, and the
 * distinct legal candidates the cost model ranked (considered = rejected + merged + candidates). */
typedef struct rr_plan_stats {
	int planned;
	int considered;
	int rejected;
	int merged;
	int candidates;
} rr_plan_stats;
RR_API void rr_program_plan_stats(const rr_program *program, rr_plan_stats *out);

/* Runs the program over `rows` rows. inputs follow the kernel's inputs (array data are device
 * pointers of the program's dtype; index data int64); outputs[j] are device pointers of the
 * program's dtype. stream: a CUstream on cuda (NULL = the default stream), ignored on cpu.
 * Asynchronous on cuda. M = 0 does nothing and succeeds (no pointer is read); M < 0 is
 * RR_ERR_INVALID_ARG. Index inputs (e.g. cross-entropy targets) must lie in [0, N): there is
 * no ignore index (PyTorch's -100 is out of range too). On cpu the launch checks them
 * (RR_ERR_INVALID_ARG naming the row); on cuda it cannot without a copy and a synchronize, so
 * it does not: the kernel's gather never reads outside the row and gives NaN for such a row.
 * Check untrusted indices with rr_program_check_indices. A program whose plan splits rows over
 * the grid (S=grid) owns one workspace for its per-row barriers, and one whose odd 16-bit rows
 * read their col inputs from copies (rr_program_build) owns those copies, written by each
 * launch: the launches of such a program must not overlap (launch it on one stream, or order
 * the streams). */
RR_API rr_status rr_program_launch(rr_program *program, int64_t rows, const rr_arg *inputs,
                                   void *const *outputs, void *stream);
/* Checks every index input of a launch's arguments against [0, N) (copying them to the host
 * on cuda, synchronously): RR_OK, or RR_ERR_INVALID_ARG naming the first bad row and value. */
RR_API rr_status rr_program_check_indices(rr_program *program, int64_t rows, const rr_arg *inputs);

/* ---------------------------------------------------------------- source without a device */

/* Plans a kernel as rr_program_build does and returns the generated source without compiling
 * it, for the backend named `backend` ("cpu" or "cuda"). `arch` names a target architecture
 * ("sm_90") for backends that have them, so no device is needed; NULL means the backend's own
 * target (cpu) or the architecture of the GPU that answers (cuda; RR_ERR_NO_DEVICE when none
 * does). *source receives the text, the plan in a comment on top (free it with rr_free);
 * `used` (may be NULL) the complete layout. RR_ERR_ILLEGAL_LAYOUT for a layout the legality
 * check rejects, with the reason. */
RR_API rr_status rr_source_emit(const char *backend, const char *arch, const rr_kernel *kernel,
                                rr_dtype dtype, int64_t rows_hint, int64_t cols,
                                const rr_layout *layout, char **source, rr_layout *used);

/* Compiles a generated source for `backend` and architecture `arch` without loading it or
 * needing a device (NVRTC on cuda), as a check. RR_ERR_COMPILE with the head of the compiler's
 * log when it fails; *local_memory (may be NULL) is set to 1 when the compiler reports a stack
 * frame or spills, else 0. With source NULL it only checks that the compiler is there.
 * RR_ERR_UNSUPPORTED for a backend without such a check (cpu); RR_ERR_NO_DEVICE when its
 * compiler is absent. Safe to call from several threads at once. */
RR_API rr_status rr_source_compile_check(const char *backend, const char *arch, const char *source,
                                         int *local_memory);

/* Frees memory rowreduce handed to the caller (a source from rr_source_emit); NULL is fine. */
RR_API void rr_free(void *ptr);

#ifdef __cplusplus
}
#endif
#endif

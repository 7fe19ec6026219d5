/* The fixed C around a plan in the cpu backend's generated source: the includes, the counts
 * of a worker's private slots, the head and complete packs (DESIGN.md section 4), and the entry
 * that runs rows in groups of R. src/codegen/c_emit.c prints these sections around the plan's
 * constants and its one_row (sections: see codegen/device_files.h). */
//@ includes
#include <math.h>
#include <stdint.h>
#include <string.h>

//@ stand-in
/* What the emitted source defines between the sections (the plan's constants, its one_row):
 * here only so that the file compiles on its own. */
#define W 4
#define V 4
#define R 1
#define HEAD_BYTES 16
#define HS 1
#define KEPT_INPUTS 1
#define SPLIT_MAX_N 0
#define CACHED_VALUES 0
#define ROW_INPUTS 1
#define WIDE_COLS 0
#define EARLY_ROWS 0
typedef float io_t;
#if defined(__SSE__)
#include <xmmintrin.h> /* _mm_sfence; the emitted source has it from cpu_vec.h's types */
#endif
#define OUTPUTS 1
typedef struct rr_carry {
	float *line;
	unsigned have;
} rr_carry;
static inline void rr_carry_flush(rr_carry *c)
{
	(void)c;
}
void one_row(int64_t row, int64_t N, const void *const *inputs, const double *params,
             void *const *outputs, float *scratch, int stream, rr_carry *carry);
void widen_cols(int64_t N, const void *const *inputs, float *to);
int piped_rows(int64_t row_begin, int64_t row_end, int64_t N, const void *const *inputs,
               const double *params, void *const *outputs, float *scratch, int stream,
               rr_carry *carry);
#define BLOCKS 1
#define PART_LEAST_BYTES 512
typedef float vf __attribute__((vector_size(16)));
typedef struct rr_row_share {
	int parts;
} rr_row_share;
rr_row_share rr_row_share_of(unsigned long long *arrived, float *shared, int parts);
void row_body(int64_t row, int64_t N, const void *const *inputs, const double *params,
              void *const *outputs, float *scratch, int stream, rr_carry *carry, int b_lo,
              int b_hi, rr_row_share *share);
//@ slots
/* Private slots per worker: floor(N / (W * V)) * V + min(N % (W * V), V) (the body of N - h
 * elements needs no more than a row of N; the head takes none). */
static inline int64_t slot_bound(int64_t N)
{
	const int64_t rest = N % ((int64_t)W * V);
	return N / ((int64_t)W * V) * V + (rest < V ? rest : V);
}

/* The head: elements from p up to the first HEAD_BYTES boundary, at most len (layout.h). */
static inline int64_t head_length(const io_t *p, int64_t len)
{
	const uintptr_t misaligned = (uintptr_t)p % HEAD_BYTES;
	const int64_t h = (int64_t)((HEAD_BYTES - misaligned) % HEAD_BYTES / sizeof(io_t));
	return h < len ? h : len;
}

/* Packs p = chunk * W + worker with all V elements valid: those with p < N / V. */
static inline int64_t complete_packs(int64_t N, int worker)
{
	const int64_t packs = N / V;
	return packs > worker ? (packs - worker + W - 1) / W : 0;
}

/* The one partial pack, p = N / V, belongs to worker p % W. */
static inline int has_partial_pack(int64_t N, int worker)
{
	return N % V != 0 && (N / V) % W == worker;
}

/* Elements from a row's element to the element a pass prefetches (c_emit.c): the next row's,
 * but two rows on in launches past the caches (`stream`) whose row inputs take less than 8 KiB
 * a row, so that a prefetch is issued about as long before its line is read as for longer
 * rows. Two threads, rows from DRAM (bench/NOTES.md, session 21), two rows on against one:
 * rows of 4 KiB f32 (16384x1024) 0.80-0.96 of the time (cross_entropy, softmax, rmsnorm,
 * layernorm; add_layernorm's two inputs make 8 KiB and it ran 1.03-1.06 two rows on), 2 KiB
 * bf16 rows 0.82-1.00 (four rows on level with two); rows of 8 KiB and more 1.00-1.06. In
 * cache the next row: two or more rows on cost 1.02-1.05 there (sum, softmax, cross_entropy
 * at 1024x1024 and 17x257). No division: one a row cost short rows 7-8 %. */
static inline int64_t prefetch_ahead(int64_t N, int stream)
{
	const int64_t row_bytes = (int64_t)ROW_INPUTS * N * (int64_t)sizeof(io_t);
	return stream && row_bytes < 8192 ? 2 * N : N;
}

/* Elements from a row's element to the element a single pass (sum: c_emit.c's
 * prefetch_in_single_pass) prefetches: prefetch_ahead's, but 8 KiB on in rows of more than
 * 16 KiB of row inputs, where a row on is too far. On the AVX-512 Xeon (bench/NOTES.md,
 * session 45 CPU; two threads, rows 16 bytes in, paired) 8 KiB on against a row on: sum bf16
 * 256x65536 0.87, 64x262144 0.81, 1024x16384 0.89-0.95, 128x65536 in L3 0.89; f32 2048x8192
 * 0.87; against no prefetch (f32 from 16384 elements) 256x65536 0.97-0.98, 64x262144 and
 * 512x32768 0.97-0.98; rows of 16 KiB (f32 4096x4096, bf16 2048x8192) level. */
static inline int64_t prefetch_single(int64_t N, int stream)
{
	const int64_t row_bytes = (int64_t)ROW_INPUTS * N * (int64_t)sizeof(io_t);
	return row_bytes > 16384 ? 8192 / (int64_t)sizeof(io_t) : prefetch_ahead(N, stream);
}

/* Round 1 of a kernel whose output phase prefetches the next row (c_emit.c's
 * prefetch_lead_in_round) reads its row from cache while the memory would idle: in launches
 * past the caches (its copy of the pass for them) it fetches the first eighth of the row the
 * output phase fetches, a line every eight lines of its own row (i - h steps by whole
 * vectors), the rest left to the output phase. */
#define LEAD_SHIFT 3
#define LEAD_MASK ((((int64_t)64 / (int64_t)sizeof(io_t)) << LEAD_SHIFT) - 1)
static inline void prefetch_lead(const io_t *p, int64_t N, int64_t h, int64_t i)
{
	if (((i - h) & LEAD_MASK) == 0)
		__builtin_prefetch(p + prefetch_ahead(N, 1) + h + ((i - h) >> LEAD_SHIFT));
}

/* Elements of a 64-byte line less one: passes over 16-bit rows prefetch a line where i - h is
 * a multiple of the line's elements (c_emit.c's prefetch_by_line). */
#define PREFETCH_LINE_MASK ((int64_t)64 / (int64_t)sizeof(io_t) - 1)

/* Floats of scratch before the widened cols: the kept slots and the split's cache, up to a
 * line; and from one widened col to the next (N up to a line). */
static inline int64_t wide_cols_at(int64_t N)
{
	const int64_t cached = N <= SPLIT_MAX_N ? CACHED_VALUES : 0;
	return (((int64_t)KEPT_INPUTS + cached) * W * slot_bound(N) + 15) / 16 * 16;
}

static inline int64_t wide_col_stride(int64_t N)
{
	return (N + 15) / 16 * 16;
}

/* Floats of scratch before the rows written early: the kept inputs' slots, the split's cache
 * where it runs, and the 16-bit cols as f32. */
static inline int64_t scratch_before_early(int64_t N)
{
	const int64_t cached = N <= SPLIT_MAX_N ? CACHED_VALUES : 0;
	const int64_t kept = ((int64_t)KEPT_INPUTS + cached) * W * slot_bound(N);
	return WIDE_COLS > 0 ? wide_cols_at(N) + (int64_t)WIDE_COLS * wide_col_stride(N) : kept;
}

/* Where the rows written early start in scratch (EARLY_ROWS of them, wide_col_stride(N)
 * floats apart; used where the launch streams): from the next line. */
static inline int64_t early_rows_at(int64_t N)
{
	return (scratch_before_early(N) + 15) / 16 * 16;
}

/* All of the above (rr__c_scratch_floats). */
int64_t rr_cpu_scratch_floats(int64_t N)
{
	return EARLY_ROWS > 0 ? early_rows_at(N) + (int64_t)EARLY_ROWS * wide_col_stride(N)
	                      : scratch_before_early(N);
}

//@ entry
void rr_cpu_kernel(int64_t row_begin, int64_t row_end, int64_t N, const void *const *inputs,
		   const double *params, void *const *outputs, float *scratch, int stream)
{
	/* A 16-bit kernel's cols as f32 in scratch, once a thread and launch: the caller sets
	 * RR_CPU_COLS_READY (2) in stream on the calls after the thread's first. */
	if (WIDE_COLS > 0 && !(stream & 2))
		widen_cols(N, inputs, scratch + wide_cols_at(N));
	stream &= 1;
	/* groups of R rows; the grouping never changes a row's arithmetic */
	rr_carry carry[OUTPUTS]; /* a streamed row output's pieces between rows (cpu_vec.h) */
	memset(carry, 0, sizeof carry);
	if (!piped_rows(row_begin, row_end, N, inputs, params, outputs, scratch, stream, carry))
		for (int64_t group = row_begin; group < row_end; group += R)
			for (int64_t row = group; row < group + R && row < row_end; row++)
				one_row(row, N, inputs, params, outputs, scratch, stream, carry);
	for (int j = 0; stream && j < OUTPUTS; j++)
		rr_carry_flush(&carry[j]);
#if defined(__SSE__)
	if (stream) /* stores past the caches are weakly ordered: done before the launch is */
		_mm_sfence();
#endif
}
//@ parts_entry
/* Rows split over threads (c_emit.h's rr_cpu_row_part), in two parts: each takes half the
 * blocks, in a copy of the row's code of its own whose span of blocks is a constant (the
 * blocks' accumulators stay in registers; with the span a variable they lived in memory:
 * rmsnorm f32 7x777777 1.06 of the time of whole rows, 0.97 with the copies), its stores
 * through the caches. Each part's span of a chunk is at least PART_LEAST_BYTES of a row
 * array: where two cores write within 128 bytes of each other (the line pairs their
 * prefetchers fetch together) the lines travel between them (one row of 131072 f32, W = 64,
 * parts of 128 bytes: rmsnorm 2.5 times and softmax 2.6-3.6 times the time of the whole row;
 * bench/NOTES.md, session 40). */
int rr_cpu_row_parts(void)
{
	return BLOCKS % 2 == 0 && (int64_t)W * V * (int64_t)sizeof(io_t) >= 2 * PART_LEAST_BYTES
	           ? 2
	           : 1;
}

int64_t rr_cpu_row_share_floats(void)
{
	return 2 * (int64_t)BLOCKS * (int64_t)(sizeof(vf) / sizeof(float));
}

void rr_cpu_row_part(int64_t row_begin, int64_t row_end, int part, int parts, int64_t N,
		     const void *const *inputs, const double *params, void *const *outputs,
		     float *scratch, int flags, unsigned long long *arrived, float *shared)
{
	if (WIDE_COLS > 0 && !(flags & 2))
		widen_cols(N, inputs, scratch + wide_cols_at(N));
	rr_row_share share = rr_row_share_of(arrived, shared, parts);
	rr_carry carry[OUTPUTS];
	memset(carry, 0, sizeof carry);
	for (int64_t row = row_begin; row < row_end; row++)
		if (parts != 2)
			row_body(row, N, inputs, params, outputs, scratch, 0, carry, 0, BLOCKS,
			         &share);
		else if (part == 0)
			row_body(row, N, inputs, params, outputs, scratch, 0, carry, 0, BLOCKS / 2,
			         &share);
		else
			row_body(row, N, inputs, params, outputs, scratch, 0, carry, BLOCKS / 2,
			         BLOCKS, &share);
}

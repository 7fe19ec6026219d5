#!/usr/bin/env python3
"""pipe_bf16.py BASE.c OUT.c: the bf16 softmax source with its output phase piped by hand
(each row's output chunks inside the next row's pass of the sums, as the emitter's f32
piped rows): the round-1 text of one_row copied into one_row_piped, the cache by the row's
parity, pending_chunk after each chunk of the sum pass. A lab prototype, not the emitter."""
import os, re, sys
PAIRS = os.environ.get("APART") is None

src = open(sys.argv[1]).read()
src = src.replace("#define PIPED 0 /* no output phase to pipe (rr__c_piped) */",
                  "#define PIPED 1\n#define PIPED_MAX_N SPLIT_MAX_N")
src = src.replace("#define CACHED_VALUES 1 ", "#define CACHED_VALUES 2 ")
start = src.index("static void one_row(")
body_from = src.index("\tfloat s1, s4;\n", start)
body_to = src.index("\t} else { /* one online pass */", start)
r1 = src[body_from:body_to]
r1 = r1.replace("if (N <= SPLIT_MAX_N) { /* the max, then the sum of exp(e - m) */",
                "{ /* the max, then the sum of exp(e - m) */")
r1 = r1.replace("float *cache_tail = scratch + (int64_t)KEPT_INPUTS * W * slots; /* e3 */",
                "float *cache_tail = scratch + ((int64_t)KEPT_INPUTS + (row & 1)) * W * slots;")
# after each complete chunk of the sum pass: the pending row's chunk c
r1 = r1.replace("\t" * 9 + "acc4[b] = acc4[b] + e3;\n" + "\t" * 8 + "}\n" + "\t" * 7 + "}\n" + "\t" * 6 + "}\n",
                "\t" * 9 + "acc4[b] = acc4[b] + e3;\n" + "\t" * 8 + "}\n" + "\t" * 7 + "}\n" + "\t" * 6 + "}\n" +
                "\t" * 6 + "PENDING2(pend, chunk);\n")
r1 = r1.replace("\t" * 8 + "acc4[b] = acc4[b] + e3;\n" + "\t" * 7 + "}\n" + "\t" * 6 + "}\n",
                "\t" * 8 + "acc4[b] = acc4[b] + e3;\n" + "\t" * 7 + "}\n" + "\t" * 6 + "}\n" +
                "\t" * 6 + "pending_chunk(pend, c);\n")
assert r1.count("pending_chunk") == 2 and r1.count("PENDING2") == 2
r1 = r1.replace("PENDING2", "pending_chunk2" if PAIRS else "pending_chunk2_apart")
r1 = r1 + "\t}\n"  # closes the block opened by "{ /* the max ..."

piped = r'''
#if PIPED
#define RR_INLINE static inline __attribute__((always_inline))
typedef struct rr_pending {
	int live;
	int64_t chunks;
	float *cache;
	io_t *out0;
	float inv; /* 1.0f / s4 */
} rr_pending;

RR_INLINE void pending_chunk(const rr_pending *restrict pend, int64_t c)
{
	if (!pend->live)
		return;
	vf run0[BLOCKS];
	for (int b = 0; b < BLOCKS; b++) {
		const vf e3 = load_kept(pend->cache, c * W + b * L);
		run0[b] = e3 * pend->inv;
	}
	rr_store_bf16_run(pend->out0 + c * W, run0, BLOCKS, 1);
}

/* chunks c and c + 1: one 64-byte line where the row is aligned */
RR_INLINE void pending_chunk2(const rr_pending *restrict pend, int64_t c)
{
	if (!pend->live)
		return;
	vf run0[2 * BLOCKS];
	for (int b = 0; b < 2 * BLOCKS; b++)
		run0[b] = load_kept(pend->cache, c * W + b * L) * pend->inv;
	rr_store_bf16_run(pend->out0 + c * W, run0, 2 * BLOCKS, 1);
}

RR_INLINE void pending_chunk2_apart(const rr_pending *restrict pend, int64_t c)
{
	pending_chunk(pend, c);
	pending_chunk(pend, c + 1);
}

RR_INLINE void pending_finish(rr_pending *restrict pend, int64_t from, int64_t N,
			      rr_carry *carry)
{
	if (!pend->live)
		return;
	for (int64_t c = from; c < pend->chunks; c++)
		pending_chunk(pend, c);
	if (pend->chunks * W * V < N) {
		const int64_t c = pend->chunks;
		for (int b = 0; b < BLOCKS; b++) {
			const int64_t i = c * W + b * L;
			if (i >= N)
				break;
			const vf e3 = load_kept(pend->cache, c * W + b * L);
			const vf e5 = e3 * pend->inv;
			store_tail(pend->out0, i, N, 1, carry + 0, e5);
		}
	}
	pend->live = 0;
	pend->chunks = 0;
}

RR_INLINE void one_row_piped(int64_t row, int64_t N, const void *const *inputs,
			     float *scratch, int stream, rr_pending *restrict pend,
			     rr_carry *carry)
{
	const int b_lo = 0, b_hi = BLOCKS;
	rr_row_share *const share = NULL;
	(void)share;
	const io_t *in0 = (const io_t *)inputs[0] + row * N;
	const int64_t slots = slot_bound(N);
	const int64_t h = 0;
''' + r1 + r'''	const int64_t chunks = N / ((int64_t)W * V);
	pending_finish(pend, chunks, N, carry);
	pend->chunks = chunks;
	pend->cache = scratch + ((int64_t)KEPT_INPUTS + (row & 1)) * W * slots;
	pend->inv = 1.0f / s4;
	pend->live = 1;
}
#endif
'''
piped = piped.replace("pend->inv = 1.0f / s4;", "pend->inv = 1.0f / s4;\n\tpend->out0 = (io_t *)OUTS + row * N;")
piped = piped.replace("RR_INLINE void one_row_piped(int64_t row, int64_t N, const void *const *inputs,",
                      "RR_INLINE void one_row_piped(int64_t row, int64_t N, const void *const *inputs, void *const *outputs,")
piped = piped.replace("(io_t *)OUTS", "(io_t *)outputs[0]")
pr = src.index("/* Rows [row_begin, row_end) in order, each row's output phase")
src = src[:pr] + piped + src[pr:]
old = re.search(r"(static int piped_rows\(.*?\n\{\n)(.*?)(\treturn 0;\n\})", src, re.S)
newbody = r'''#if PIPED
	if (stream && N <= PIPED_MAX_N) {
		(void)params;
		rr_pending pend;
		memset(&pend, 0, sizeof pend);
		for (int64_t row = row_begin; row < row_end; row++)
			one_row_piped(row, N, inputs, outputs, scratch, stream, &pend, carry);
		pending_finish(&pend, 0, N, carry);
		return 1;
	}
#endif
'''
src = src[:old.start(2)] + newbody + src[old.end(2):]
open(sys.argv[2], "w").write(src)

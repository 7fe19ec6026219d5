#!/usr/bin/env python3
"""Session 50's hand edits of generated CUDA sources, as a script: each variant is the source
`rowreduce emit` prints for layernorm bf16 2047x6143 (W=128,V=8,U=1,R=1,C=1,S=regs, G=rows or,
for `staged`, G=persistent) with its col loads replaced. Timing labs only (occ.cu); none of
them is validated.

  python3 lab_sources.py VARIANT EMITTED.cu OUT.cu
    staged    (G=persistent source) w and b copied into shared memory once a block, shifted
              into place by rr_load_shifted; every row of the block must share its phase (a
              grid that is a multiple of 8)
    rstaged1  every row copies w and b into shared memory element by element at its start
    rstaged3  the same, four-byte loads and two 2-byte stores a word
    async     every row copies w and b by 16-byte cp.async at its start; the shifted pack is
              read there as five 4-byte loads and four byte permutes
    preshift  w and b read as aligned packs from 8 pre-shifted copies of each (an extra
              pointer before `rows`; copy h holds w[i] at i + (8 - h) % 8)
    batched   edge.patch's form: the shifted loads of the chunks between the first and the
              last without a branch, so ptxas issues them together (96 registers as emitted;
              for a copy at a register cap, edit MIN_BLOCKS_HEAD)
"""
import sys

LOAD1 = "rr_load_shifted<VEC>(ld1[u], x1 + at, seg_begin + at);"
LOAD2 = "rr_load_shifted<VEC>(ld2[u], x2 + at, seg_begin + at);"
TAIL1 = "rr_load_tail_shifted<VEC>(ld1[0]"
TAIL2 = "rr_load_tail_shifted<VEC>(ld2[0]"
HEAD = "const int h = HEADED ? rr_head("
OUTPUT = "/* output phase: each worker writes the elements it owns */"

STAGED_LOAD = """__shared__ __align__(16) io_t rr_cols[2][(N + 16) / 8 * 8];
__device__ __forceinline__ void rr_load_staged(float (&v)[V], const io_t *p)
{
	const uint4 w = *reinterpret_cast<const uint4 *>(p);
	rr_in2(w.x, v[0], v[1]);
	rr_in2(w.y, v[2], v[3]);
	rr_in2(w.z, v[4], v[5]);
	rr_in2(w.w, v[6], v[7]);
}
"""
ASYNC_LOAD = """__shared__ __align__(16) unsigned rr_cw[2][(N + 7) / 8 * 4 + 4];
__device__ __forceinline__ void rr_load_smem_shifted(float (&v)[V], const unsigned *cw, int i)
{
	const unsigned *p = cw + (i >> 1);
	unsigned pack[5];
	#pragma unroll
	for (int j = 0; j < 5; j++)
		pack[j] = p[j];
	rr_in_shifted<4>(v, pack, i & 1);
}
"""


BATCHED_LOAD = """template <bool VEC>
__device__ __forceinline__ void rr_load_shifted_nb(float (&v)[V], const io_t *p, int i, bool edge)
{
	const int s = (int)((reinterpret_cast<unsigned long long>(p) & (HEAD_BYTES - 1)) / sizeof(io_t));
	if (!VEC || (edge && s != 0 && (i < s || i - s + V + RR_BLOCK_ELEMS > N))) {
		rr_load<false>(v, p);
		return;
	}
	constexpr int BLOCKS = RR_PACK_WORDS / RR_BLOCK_WORDS + 1;
	const int last = s != 0 ? BLOCKS - 1 : BLOCKS - 2;
	unsigned w[RR_PACK_WORDS + RR_BLOCK_WORDS];
	#pragma unroll
	for (int b = 0; b < BLOCKS; b++) {
		const uint4 t = __ldg(reinterpret_cast<const uint4 *>(p - s + (b < BLOCKS - 1 ? b : last) * RR_BLOCK_ELEMS));
		w[4 * b] = t.x;
		w[4 * b + 1] = t.y;
		w[4 * b + 2] = t.z;
		w[4 * b + 3] = t.w;
	}
	const int words = s * (int)sizeof(io_t) / 4;
	#pragma unroll
	for (int bit = 1; bit < RR_BLOCK_WORDS; bit *= 2) {
		const bool take = (words & bit) != 0;
		#pragma unroll
		for (int k = 0; k + bit < RR_PACK_WORDS + RR_BLOCK_WORDS; k++)
			w[k] = take ? w[k + bit] : w[k];
	}
	unsigned pack[RR_PACK_WORDS + 1];
	#pragma unroll
	for (int k = 0; k <= RR_PACK_WORDS; k++)
		pack[k] = w[k];
	rr_in_shifted<RR_PACK_WORDS>(v, pack, s);
}
"""
EDGE = "c0 + u == 0 || c0 + u + 1 >= FULL || W * V < 2 * RR_BLOCK_ELEMS"


def before_row(s, text):
    """text inserted before rr_row's template line."""
    i = s.index("__device__ __forceinline__ void rr_row(")
    i = s.rfind("template", 0, i)
    return s[:i] + text + s[i:]


def edit_lines(s, loads, after_head=None, before_output=None):
    """loads: (load1, load2, tail1, tail2) replacements (tails get `if (valid >= V) X; else`)."""
    out = []
    for ln in s.split("\n"):
        st = ln.strip()
        ind = ln[: len(ln) - len(ln.lstrip())]
        if st == LOAD1:
            out.append(ind + loads[0])
            continue
        if st == LOAD2:
            out.append(ind + loads[1])
            continue
        if st.startswith(TAIL1):
            out.append(ind + "if (valid >= V) " + loads[2] + " else " + st)
            continue
        if st.startswith(TAIL2):
            out.append(ind + "if (valid >= V) " + loads[3] + " else " + st)
            continue
        if before_output and st == OUTPUT:
            out += [ind + x for x in before_output]
        out.append(ln)
        if after_head and st.startswith(HEAD):
            out += [ind + x for x in after_head]
    return "\n".join(out)


def variant(name, s):
    if name == "staged":
        s = before_row(s, STAGED_LOAD)
        s = edit_lines(s, ("rr_load_staged(ld1[u], rr_cols[0] + (at - h));",
                           "rr_load_staged(ld2[u], rr_cols[1] + (at - h));",
                           "rr_load_staged(ld1[0], rr_cols[0] + (at - h));",
                           "rr_load_staged(ld2[0], rr_cols[1] + (at - h));"))
        old = "\tlong long group = blockIdx.x / C;\n"
        return s.replace(old, old + """	{
		const int h0 = rr_head(a.in0 + group * N, N);
		for (int k = worker; h0 + (k + 1) * V <= N; k += W) {
			const int at = h0 + k * V;
			float v[V], u[V];
			rr_load_shifted<true>(v, a.in1 + at, at);
			rr_load_shifted<true>(u, a.in2 + at, at);
			#pragma unroll
			for (int e = 0; e < V; e++) {
				rr_cols[0][k * V + e] = rr_out(v[e]);
				rr_cols[1][k * V + e] = rr_out(u[e]);
			}
		}
		__syncthreads();
	}
""")
    if name in ("rstaged1", "rstaged3"):
        s = before_row(s, STAGED_LOAD)
        copy = ["for (int j = threadIdx.x; j < N; j += THREADS) {",
                "\trr_cols[0][j + d] = a.in1[j];",
                "\trr_cols[1][j + d] = a.in2[j];",
                "}"] if name == "rstaged1" else [
                "for (int j = threadIdx.x; j < N / 2; j += THREADS) {",
                "\tconst unsigned u0 = __ldg(reinterpret_cast<const unsigned *>(a.in1) + j);",
                "\tconst unsigned u1 = __ldg(reinterpret_cast<const unsigned *>(a.in2) + j);",
                "\trr_cols[0][2 * j + d] = (io_t)(u0);",
                "\trr_cols[0][2 * j + 1 + d] = (io_t)(u0 >> 16);",
                "\trr_cols[1][2 * j + d] = (io_t)(u1);",
                "\trr_cols[1][2 * j + 1 + d] = (io_t)(u1 >> 16);",
                "}",
                "if (threadIdx.x == 0) { rr_cols[0][N - 1 + d] = a.in1[N - 1]; "
                "rr_cols[1][N - 1 + d] = a.in2[N - 1]; }"]
        return edit_lines(s, ("rr_load_staged(ld1[u], rr_cols[0] + d + at);",
                              "rr_load_staged(ld2[u], rr_cols[1] + d + at);",
                              "rr_load_staged(ld1[0], rr_cols[0] + d + at);",
                              "rr_load_staged(ld2[0], rr_cols[1] + d + at);"),
                          after_head=["const int d = h != 0 ? HEAD_BYTES / (int)sizeof(io_t) - h : 0;",
                                      "#pragma unroll 1"] + copy)
    if name == "async":
        s = before_row(s, ASYNC_LOAD)
        cp = 'asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\\n" :: "r"((unsigned)' \
             '__cvta_generic_to_shared(&rr_cw[{c}][4 * k])), "l"(a.in{i} + 8 * k) : "memory");'
        return edit_lines(s, ("rr_load_smem_shifted(ld1[u], rr_cw[0], at);",
                              "rr_load_smem_shifted(ld2[u], rr_cw[1], at);",
                              "rr_load_smem_shifted(ld1[0], rr_cw[0], at);",
                              "rr_load_smem_shifted(ld2[0], rr_cw[1], at);"),
                          after_head=["for (int k = threadIdx.x; k < (N * 2 + 15) / 16; k += THREADS) {",
                                      "\t" + cp.format(c=0, i=1), "\t" + cp.format(c=1, i=2), "}",
                                      'asm volatile("cp.async.commit_group;\\n" ::: "memory");'],
                          before_output=['asm volatile("cp.async.wait_all;\\n" ::: "memory");',
                                         "__syncthreads();"])
    if name == "preshift":
        s = s.replace("struct rr_args {\n\tconst io_t *in0; /* x: row */",
                      "constexpr int RR_SH_STRIDE = (N + 8 + 7) / 8 * 8; /* elements of a copy */\n"
                      "struct rr_args {\n\tconst io_t *sh; /* 8 shifted copies of w, then 8 of b */\n"
                      "\tconst io_t *in0; /* x: row */", 1)
        w = "a.sh + (h * RR_SH_STRIDE + (8 - h) % 8 + at)"
        b = "a.sh + ((8 + h) * RR_SH_STRIDE + (8 - h) % 8 + at)"
        s = edit_lines(s, (f"rr_load<VEC>(ld1[u], {w});", f"rr_load<VEC>(ld2[u], {b});",
                           f"rr_load<VEC>(ld1[0], {w});", f"rr_load<VEC>(ld2[0], {b});"))
        s = s.replace("io_t *__restrict__ out0, const long long rows)",
                      "io_t *__restrict__ out0, const io_t *__restrict__ sh, const long long rows)")
        s = s.replace("const rr_args a = {in0, in1, in2, in3, out0};",
                      "const rr_args a = {sh, in0, in1, in2, in3, out0};")
        i = s.find('#if !defined(__CUDA_ARCH__)\nextern "C" void rr_sim_entry')
        if i >= 0:
            s = s[:i] + s[s.find("#endif", i) + 6:]
        return s
    if name == "batched":
        s = before_row(s, BATCHED_LOAD)
        return edit_lines(s, (f"rr_load_shifted_nb<VEC>(ld1[u], x1 + at, seg_begin + at, {EDGE});",
                              f"rr_load_shifted_nb<VEC>(ld2[u], x2 + at, seg_begin + at, {EDGE});",
                              "rr_load_shifted_nb<VEC>(ld1[0], x1 + at, seg_begin + at, true);",
                              "rr_load_shifted_nb<VEC>(ld2[0], x2 + at, seg_begin + at, true);"))
    raise SystemExit(f"unknown variant {name}")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    text = open(sys.argv[2]).read()
    out = variant(sys.argv[1], text)
    if out == text:
        raise SystemExit("nothing edited: not the source this script expects")
    open(sys.argv[3], "w").write(out)

#!/usr/bin/env python3
"""Probe (session 32): layernorm bf16's streamed output phase with its lanes in the order one
32-byte load gives through vpunpcklwd / vpunpckhwd (P = elements 0-3 and 8-11 of 16, Q = 4-7
and 12-15), the widened cols written in that order, and the run store's vpermq left out
(vpackusdw of P and Q puts 16 elements back in order). Valid only where every chunk of the
phase is in the run loop (no odd chunk, no guarded one) and rows hold no NaN; the lab compares
the bits.  usage: pq.py IN.c OUT.c (IN: this branch's emit of layernorm bf16, S=reread)"""
import sys,re
src=open(sys.argv[1]).read()
# 1. widened cols in P/Q order per 16 elements
old="""	int64_t i = 0;
	for (; i + L <= N; i += L) {
		const vf v = load_packed(from + i);
		memcpy(to + i, &v, L * sizeof(float));
	}
	for (; i < N; i++)
		to[i] = load_io(from, i);
}"""
new="""	int64_t i = 0;
	for (; i + 16 <= N; i += 16) {
		const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(from + i));
		const __m256i pe = _mm256_unpacklo_epi16(_mm256_setzero_si256(), v);
		const __m256i qe = _mm256_unpackhi_epi16(_mm256_setzero_si256(), v);
		memcpy(to + i, &pe, 32);
		memcpy(to + i + 8, &qe, 32);
	}
	for (; i < N; i++)
		to[i] = load_io(from, i);
}
static inline vf load_pq(const io_t *p, int64_t i)
{
	const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(p + (i & ~(int64_t)15)));
	return (vf)((i & 8) ? _mm256_unpackhi_epi16(_mm256_setzero_si256(), v) : _mm256_unpacklo_epi16(_mm256_setzero_si256(), v));
}"""
assert src.count(old)==1; src=src.replace(old,new)
# 2. the stream branch's run loop (the first run loop after 'output phase') loads x in P/Q order
k=src.index('/* output phase')
k2=src.index('vf run0[2 * BLOCKS]', k)
k3=src.index('rr_store_bf16_run(', k2)
seg=src[k2:k3]
assert seg.count('load_lanes(in0, i); /* x */')==1
seg=seg.replace('load_lanes(in0, i); /* x */','load_pq(in0, i); /* x */')
seg=seg.replace('rr_store_bf16_run(','rr_store_bf16_run_pq(')
src=src[:k2]+seg+src[k3:].replace('rr_store_bf16_run(out0','rr_store_bf16_run_pq(out0',1)
# 3. a run store without the permute
k=src.index('static inline void rr_store_bf16_run(')
e=src.index('\n}\n',k)+3
fn=src[k:e].replace('rr_store_bf16_run(','rr_store_bf16_run_pq(').replace('_mm256_permute4x64_epi64(\n\t\t\t    _mm256_packus_epi32(rr_bf16_rounded8((__m256i)v[k]),\n\t\t\t                        rr_bf16_rounded8((__m256i)v[k + 1])),\n\t\t\t    0xd8)','_mm256_packus_epi32(rr_bf16_rounded8((__m256i)v[k]), rr_bf16_rounded8((__m256i)v[k + 1]))')
assert '0xd8' not in fn, fn
src=src[:e]+fn+src[e:]
open(sys.argv[2],'w').write(src)

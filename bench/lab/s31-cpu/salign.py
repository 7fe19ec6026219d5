# Probe: streamed f32 stores of a row 16 bytes off a 32-byte boundary as aligned 32-byte
# non-temporal stores (AVX2: the top half of the last vector and the bottom of this one).
import sys
s = open(sys.argv[1]).read()
helper = r'''
typedef struct rr_sa { vf last; int half, started; int64_t last_i; } rr_sa;
static inline rr_sa rr_sa_begin(const float *p, int stream)
{
	rr_sa a; memset(&a, 0, sizeof a);
	a.half = stream && (uintptr_t)p % 32 == 16;
	return a;
}
static inline void rr_sa_store(rr_sa *a, float *p, int64_t i, int stream, vf v)
{
	if (!a->half) { store_lanes(p, i, stream, v); return; }
	if (a->started)
		_mm256_stream_ps(p + i - 4, _mm256_permute2f128_ps((__m256)a->last, (__m256)v, 0x21));
	else
		_mm_stream_ps(p + i, _mm256_castps256_ps128((__m256)v));
	a->last = v; a->started = 1; a->last_i = i;
}
static inline void rr_sa_end(const rr_sa *a, float *p)
{
	if (a->half && a->started)
		_mm_stream_ps(p + a->last_i + 4, _mm256_extractf128_ps((__m256)a->last, 1));
}
'''
k = s.index('static inline vf load_lanes_guarded')
s = s[:k] + helper + s[k:]
o = s.index('/* output phase: each worker')
st = 'store_lanes(out0, i, stream, e5);'
a = s.index(st, o)
s = s[:a] + 'rr_sa_store(&sa, out0, i, stream, e5);' + s[a + len(st):]
loop = '\t\t\tfor (; chunk + U <= chunks; chunk += U) {'
b = s.index(loop, o)
s = s[:b] + '\t\t\trr_sa sa = rr_sa_begin(out0 + h, stream);\n' + s[b:]
tail = '\t\t\tif (chunks * W * V < N - h) {'
c = s.index(tail, b)
s = s[:c] + '\t\t\trr_sa_end(&sa, out0);\n' + s[c:]
open(sys.argv[2], 'w').write(s)

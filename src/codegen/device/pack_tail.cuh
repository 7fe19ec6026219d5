/* The guarded parts of a row (or of a cluster block's segment) for generated CUDA C: the pack
 * at the end (a whole pack goes through the plan's rr_load/rr_store, a partial one element by
 * element) and the head before the first aligned pack (DESIGN.md §4, layout.h: head element
 * j = t * W + (W - 1 - worker), t < HS: the last workers). src/codegen/cuda_emit.c prints the section "pack_tail" after
 * the plan's rr_load/rr_store, and "head" when the plan has a head (HS > 0). */
//@ stand-in
/* What the emitted source defines before this file (the plan's V, the dtype's conversions, the
 * plan's whole-pack accesses), in their simplest form: here only so that the file compiles on
 * its own. */
constexpr int W = 4;
constexpr int V = 4;
constexpr int HEAD_BYTES = 16;
constexpr int HS = 1;
typedef float io_t;
__device__ __forceinline__ float rr_in(io_t v) { return v; }
__device__ __forceinline__ io_t rr_out(float v) { return v; }
template <bool VEC> __device__ __forceinline__ void rr_load(float (&v)[V], const io_t *p)
{
	for (int e = 0; e < V; e++)
		v[e] = p[e];
}
template <bool VEC> __device__ __forceinline__ void rr_store(io_t *p, const float (&v)[V])
{
	for (int e = 0; e < V; e++)
		p[e] = v[e];
}
//@ pack_tail
/* The pack at the end of the row: `valid` of its elements exist. */
template <bool VEC>
__device__ __forceinline__ void rr_load_tail(float (&v)[V], const io_t *p, int valid)
{
	if (valid >= V) {
		rr_load<VEC>(v, p);
		return;
	}
	#pragma unroll
	for (int e = 0; e < V; e++)
		v[e] = e < valid ? rr_in(__ldg(p + e)) : 0.0f;
}
template <bool VEC>
__device__ __forceinline__ void rr_store_tail(io_t *p, const float (&v)[V], int valid)
{
	if (valid >= V) {
		rr_store<VEC>(p, v);
		return;
	}
	#pragma unroll
	for (int e = 0; e < V; e++)
		if (e < valid)
			p[e] = rr_out(v[e]);
}

//@ head
/* Elements of the head: from p to the first HEAD_BYTES boundary, at most len. */
__device__ __forceinline__ int rr_head(const io_t *p, int len)
{
	const unsigned misaligned = (unsigned)(reinterpret_cast<unsigned long long>(p) & (HEAD_BYTES - 1));
	const int h = (int)(((HEAD_BYTES - misaligned) & (HEAD_BYTES - 1)) / sizeof(io_t));
	return h < len ? h : len;
}
/* This worker's head elements j = t * W + (W - 1 - worker) < h, into v[t] (0 for absent ones). */
__device__ __forceinline__ void rr_load_head(float (&v)[V], const io_t *p, int worker, int h)
{
	#pragma unroll
	for (int t = 0; t < HS; t++) {
		const int j = t * W + (W - 1 - worker);
		v[t] = j < h ? rr_in(__ldg(p + j)) : 0.0f;
	}
}
__device__ __forceinline__ void rr_store_head(io_t *p, const float (&v)[V], int worker, int h)
{
	#pragma unroll
	for (int t = 0; t < HS; t++) {
		const int j = t * W + (W - 1 - worker);
		if (j < h)
			p[j] = rr_out(v[t]);
	}
}

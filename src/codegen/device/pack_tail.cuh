/* The guarded pack at the end of a row (or of a cluster block's segment) for generated CUDA C:
 * a whole pack goes through the plan's rr_load/rr_store, a partial one element by element.
 * src/codegen/cuda_emit.c prints the section "pack_tail" after the plan's rr_load/rr_store. */
//@ stand-in
/* What the emitted source defines before this file (the plan's V, the dtype's conversions, the
 * plan's whole-pack accesses), in their simplest form: here only so that the file compiles on
 * its own. */
constexpr int V = 4;
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


/* The guarded parts of a row (or of a cluster block's segment) for generated CUDA C: the pack
 * at the end (a whole pack goes through the plan's rr_load/rr_store, a partial one element by
 * element) and the head before the first aligned pack (DESIGN.md §4, layout.h: head element
 * j = t * W + (W - 1 - worker), t < HS: the last workers). src/codegen/cuda_emit.c prints the
 * section "vec_store" before the plan's rr_load/rr_store when they use 8- or 16-byte accesses,
 * "pack_tail" after them, "head" when the plan has a head (HS > 0), and "shifted" when col
 * inputs do not share the body's alignment (COLS_VEC false). */
//@ stand-in
/* What the emitted source defines before this file (the plan's V, the dtype's conversions, the
 * plan's whole-pack accesses), in their simplest form: here only so that the file compiles on
 * its own. */
constexpr int N = 64;
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
template <bool VEC, bool ONE = true> __device__ __forceinline__ void rr_store(io_t *p, const float (&v)[V])
{
	for (int e = 0; e < V; e++)
		p[e] = v[e];
}
template <int WORDS>
__device__ __forceinline__ void rr_in_shifted(float (&v)[WORDS], const unsigned (&w)[WORDS + 1], int s)
{
	for (int k = 0; k < WORDS; k++)
		v[k] = __uint_as_float(w[k]);
}
//@ vec_store
/* One store of a pack's 16 (or 8) bytes as one PTX vector store. A uint4 built word by word and
 * assigned through a pointer may reach the device as four 4-byte stores (the generated PTX of
 * rr_store showed it for every first chunk of an unrolled group): four requests where one does,
 * each a quarter of the warp's bytes. The host simulation stores the words plainly. rr_store's
 * ONE = false keeps the plain assignment (plans that keep their values in registers). */
__device__ __forceinline__ void rr_st16(void *p, const uint4 &w)
{
#if defined(__CUDA_ARCH__)
	asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(w.x), "r"(w.y), "r"(w.z),
	             "r"(w.w)
	             : "memory");
#else
	*static_cast<uint4 *>(p) = w;
#endif
}
__device__ __forceinline__ void rr_st8(void *p, const uint2 &w)
{
#if defined(__CUDA_ARCH__)
	asm volatile("st.global.v2.b32 [%0], {%1, %2};" ::"l"(p), "r"(w.x), "r"(w.y) : "memory");
#else
	*static_cast<uint2 *>(p) = w;
#endif
}
//@ pack_tail
/* The pack at the end of the row: `valid` of its elements exist. Where `room` says that the
 * whole pack lies inside the input array (the rows after this one), a partial pack is read
 * with the plan's accesses like a complete one, so that all the workers of a warp take the
 * same path; its elements past `valid` then hold the next row's values, which every use
 * skips (each accumulation and store of a partial pack is guarded by `valid`). */
template <bool VEC>
__device__ __forceinline__ void rr_load_tail(float (&v)[V], const io_t *p, int valid, bool room)
{
	if (valid >= V || (VEC && room)) {
		rr_load<VEC>(v, p);
		return;
	}
	#pragma unroll
	for (int e = 0; e < V; e++)
		v[e] = e < valid ? rr_in(__ldg(p + e)) : 0.0f;
}
template <bool VEC, bool ONE = true>
__device__ __forceinline__ void rr_store_tail(io_t *p, const float (&v)[V], int valid)
{
	if (valid >= V) {
		rr_store<VEC, ONE>(p, v);
		return;
	}
	#pragma unroll
	for (int e = 0; e < V; e++)
		if (e < valid)
			p[e] = rr_out(v[e]);
}
/* One element stored where `live`, as a predicated store: rows of a few elements a thread
 * (rr__realisation_short_rows) guard each store by their row's being live, and with an `if`
 * around each one ptxas branched round every store and computed its address again inside the
 * branch (a constant load and three integer operations a store, SASS of add_layernorm f32
 * 65536x5; bench/NOTES.md session 60). The host simulation tests `live`. */
__device__ __forceinline__ void rr_st_live(float *p, float x, bool live)
{
#if defined(__CUDA_ARCH__)
	asm volatile("{\n\t.reg .pred q;\n\tsetp.ne.b32 q, %2, 0;\n\t"
	             "@q st.global.f32 [%0], %1;\n\t}" ::"l"(p), "f"(x), "r"((int)live)
	             : "memory");
#else
	if (live)
		*p = x;
#endif
}
__device__ __forceinline__ void rr_st_live(unsigned short *p, unsigned short x, bool live)
{
#if defined(__CUDA_ARCH__)
	asm volatile("{\n\t.reg .pred q;\n\tsetp.ne.b32 q, %2, 0;\n\t"
	             "@q st.global.b16 [%0], %1;\n\t}" ::"l"(p), "h"(x), "r"((int)live)
	             : "memory");
#else
	if (live)
		*p = x;
#endif
}
/* The pack at p (`valid` of its elements in the row) stored where `live`: a whole pack of the
 * vector entry through rr_store under an `if`, elements one predicated store each. */
template <bool VEC, bool ONE = true>
__device__ __forceinline__ void rr_store_live(io_t *p, const float (&v)[V], int valid, bool live)
{
	if (VEC && valid >= V) {
		if (live)
			rr_store<VEC, ONE>(p, v);
		return;
	}
	#pragma unroll
	for (int e = 0; e < V; e++)
		if (e < valid)
			rr_st_live(p + e, rr_out(v[e]), live);
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
//@ shifted
/* Col inputs where rows do not share their phase (COLS_VEC false): the packs of a row's body
 * stand s elements past a HEAD_BYTES boundary in a col input, s the same for all of the row's
 * packs. A complete pack is read as the V * size / HEAD_BYTES + 1 aligned blocks that cover it
 * and shifted into place: by whole words through selects on the bits of the word offset (every
 * index a constant, so the words stay in registers), then by half a word in 16-bit types
 * (rr_in_shifted, io_*.cuh). The bits are those of an element-by-element load. A pack whose
 * blocks would reach outside the col array's N elements (at most a row's first and last ones)
 * goes element by element. i: the pack's first element in the col array. */
constexpr int RR_PACK_WORDS = V * (int)sizeof(io_t) / 4;
constexpr int RR_BLOCK_WORDS = HEAD_BYTES / 4;
constexpr int RR_BLOCK_ELEMS = HEAD_BYTES / (int)sizeof(io_t);
template <bool VEC>
__device__ __forceinline__ void rr_load_shifted(float (&v)[V], const io_t *p, int i)
{
	const int s = (int)((reinterpret_cast<unsigned long long>(p) & (HEAD_BYTES - 1)) / sizeof(io_t));
	if (!VEC || s == 0) {
		rr_load<VEC>(v, p);
		return;
	}
	if (i < s || i - s + V + RR_BLOCK_ELEMS > N) {
		rr_load<false>(v, p);
		return;
	}
	unsigned w[RR_PACK_WORDS + RR_BLOCK_WORDS];
	#pragma unroll
	for (int b = 0; b < RR_PACK_WORDS / RR_BLOCK_WORDS + 1; b++) {
		const io_t *block = p - s + b * RR_BLOCK_ELEMS;
		if constexpr (HEAD_BYTES == 16) {
			const uint4 t = __ldg(reinterpret_cast<const uint4 *>(block));
			w[4 * b] = t.x;
			w[4 * b + 1] = t.y;
			w[4 * b + 2] = t.z;
			w[4 * b + 3] = t.w;
		} else if constexpr (HEAD_BYTES == 8) {
			const uint2 t = __ldg(reinterpret_cast<const uint2 *>(block));
			w[2 * b] = t.x;
			w[2 * b + 1] = t.y;
		} else {
			w[b] = __ldg(reinterpret_cast<const unsigned *>(block));
		}
	}
	const int words = s * (int)sizeof(io_t) / 4; /* whole words before the pack */
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
/* The pack at the end of the row of a col input read as above: `valid` of its elements exist,
 * a partial pack element by element. */
template <bool VEC>
__device__ __forceinline__ void rr_load_tail_shifted(float (&v)[V], const io_t *p, int valid, int i)
{
	if (valid >= V)
		rr_load_shifted<VEC>(v, p, i);
	else
		rr_load_tail<false>(v, p, valid, false);
}
//@ col_copies
/* The launch of the row entries may begin before the copies' entry has finished (a
 * programmatic dependent launch, sm_90 and up): a phase that reads the copies waits for it
 * here first, which returns at once when there was nothing to wait for. */
__device__ __forceinline__ void rr_wait_copies()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
	asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/* The pack of a col input at the end of the row from its copy (cuda_emit.c,
 * rr__realisation.col_copies): a complete one as one aligned access, a partial one element by
 * element from the col array itself. */
template <bool VEC>
__device__ __forceinline__ void rr_load_tail_copy(float (&v)[V], const io_t *copy, const io_t *p, int valid)
{
	if (valid >= V)
		rr_load<VEC>(v, copy);
	else
		rr_load_tail<false>(v, p, valid, false);
}

/* Pack t of the copy for phase q of col input k (the k-th of the kernel's col inputs, `from`,
 * N elements; the copies at `cc`, COL_STRIDE elements each): the copy's elements
 * t * COL_PHASES .. + COL_PHASES - 1 hold from[j] at j + (COL_PHASES - q) % COL_PHASES, 0 where
 * no element falls; one 16-byte store (the copies are of 16-bit rows: COL_PHASES elements a
 * pack). The copies' entry writes one pack a thread; the tests' simulation calls it too. A
 * template (of io_t) so that the file compiles on its own (test_device_sources), without the
 * COL_PHASES that the emitted source defines. */
template <typename T>
__device__ __forceinline__ void rr_cols_pack(T *cc, int k, const T *from, int q, long long t)
{
	static_assert(COL_PHASES * sizeof(T) == 16, "the col copies are of 16-bit elements");
	T *const copy = cc + ((long long)k * COL_PHASES + q) * COL_STRIDE;
	const long long first = t * COL_PHASES - (COL_PHASES - q) % COL_PHASES;
	unsigned e[COL_PHASES];
#pragma unroll
	for (int i = 0; i < COL_PHASES; i++) {
		const long long j = first + i;
		e[i] = j >= 0 && j < N ? (unsigned)from[j] : 0u;
	}
	uint4 v;
	v.x = e[0] | e[1] << 16;
	v.y = e[2] | e[3] << 16;
	v.z = e[4] | e[5] << 16;
	v.w = e[6] | e[7] << 16;
	*reinterpret_cast<uint4 *>(copy + t * COL_PHASES) = v;
}

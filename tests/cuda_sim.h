/* A host simulation of the CUDA features the generated kernels use, so tests run the emitted
 * CUDA C on the CPU with one fiber per CUDA thread: shuffles, __syncthreads, cluster barriers
 * and the mailboxes' mbarriers meet in the test's barriers (tests/test_cuda_sim.c), reached
 * through the hooks the test installs. Shared memory is the file-scope arrays of each
 * loaded copy of the kernel's shared object (one copy per block of a cluster, or of a row group of
 * S=grid, whose per-row barrier meets in the test too; its workspace is host memory the test
 * passes).
 *
 * Every read through __ldg (all of a kernel's loads of its inputs) is shown to the test's
 * check_read hook when it is set, so the test can hold each read inside the arrays it passed.
 *
 * Included twice: by the simulated source (C++), and by the test (C) for the hooks only. */
#ifndef RR_TESTS_CUDA_SIM_H
#define RR_TESTS_CUDA_SIM_H

#ifdef __cplusplus
extern "C" {
#endif

/* What a simulated thread calls back into the test for. */
typedef struct rr_sim_hooks_t {
	void (*sync_block)(void);
	float (*shfl_xor)(float value, int offset);
	void (*cluster_sync)(void);
	unsigned (*cluster_rank)(void);
	float (*cluster_load)(const float *local, unsigned rank);
	/* the mailboxes (cluster.cuh): a barrier word of a block's shared memory; a push stores
	 * into block `rank`'s copy of `slot` and counts 4 bytes off its copy of `bar` */
	void (*mbar_init)(unsigned long long *bar, int count);
	unsigned long long (*mbar_arrive)(unsigned long long *bar, unsigned bytes); /* a state */
	void (*mail_push)(float *slot, unsigned rank, float v, unsigned long long *bar);
	void (*mbar_wait)(unsigned long long *bar, unsigned long long state);
	void (*grid_sync)(void); /* S=grid: the barrier of one row group's blocks */
	void (*check_read)(const void *p, unsigned long bytes); /* may be NULL: no check */
} rr_sim_hooks_t;

#ifdef __cplusplus
}
#endif

#ifdef __cplusplus
#include <math.h>
#include <string.h>

extern "C" {
rr_sim_hooks_t *rr_sim_hooks = nullptr;
}

struct dim3 {
	unsigned x, y, z;
};
/* The running fiber's: the test sets them again whenever a fiber resumes. Not thread_local:
 * every fiber of a launch runs in one OS thread, and the leak check at exit failed on the
 * dynamic TLS of the thousands of copies loaded and unloaded in it. */
static dim3 threadIdx, blockIdx, gridDim;

extern "C" void rr_sim_set_ids(unsigned thread, unsigned block, unsigned grid)
{
	threadIdx = dim3{thread, 0, 0};
	blockIdx = dim3{block, 0, 0};
	gridDim = dim3{grid, 1, 1};
}

#define __device__
#define __forceinline__ inline
#define __global__
#define __launch_bounds__(...)
#define __restrict__ __restrict
#define __shared__

struct uint4 {
	unsigned x, y, z, w;
};
struct uint2 {
	unsigned x, y;
};
struct float4 {
	float x, y, z, w;
};
struct float2 {
	float x, y;
};
static inline float4 make_float4(float x, float y, float z, float w)
{
	return float4{x, y, z, w};
}
static inline float2 make_float2(float x, float y)
{
	return float2{x, y};
}

template <class T> static inline T __ldg(const T *p)
{
	if (rr_sim_hooks && rr_sim_hooks->check_read)
		rr_sim_hooks->check_read(p, sizeof(T));
	return *p;
}
template <class T> static inline T __ldcg(const T *p)
{
	return *p;
}

static inline float __uint_as_float(unsigned u)
{
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}
static inline unsigned __float_as_uint(float f)
{
	unsigned u;
	memcpy(&u, &f, sizeof u);
	return u;
}
/* Byte n of the result is byte (s >> 4n) & 7 of the eight bytes x (0-3), y (4-7). */
static inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s)
{
	const unsigned long long bytes = (unsigned long long)y << 32 | x;
	unsigned r = 0;
	for (int n = 0; n < 4; n++)
		r |= (unsigned)(bytes >> 8 * ((s >> 4 * n) & 7) & 0xffu) << 8 * n;
	return r;
}
static inline float __int_as_float(int i)
{
	float f;
	memcpy(&f, &i, sizeof f);
	return f;
}
static inline float __fmul_rn(float a, float b)
{
	return a * b;
}
static inline float rsqrtf(float x)
{
	return 1.0f / sqrtf(x);
}

static inline float rr_sim_f16_in(unsigned short bits)
{
	_Float16 h;
	memcpy(&h, &bits, sizeof h);
	return (float)h;
}
static inline unsigned short rr_sim_f16_out(float v)
{
	_Float16 h = (_Float16)v;
	unsigned short bits;
	memcpy(&bits, &h, sizeof bits);
	return bits;
}

static inline void __syncthreads()
{
	rr_sim_hooks->sync_block();
}
static inline float __shfl_xor_sync(unsigned mask, float value, int offset, int width = 32)
{
	(void)mask;
	(void)width;
	return rr_sim_hooks->shfl_xor(value, offset);
}
static inline unsigned rr_sim_cluster_rank()
{
	return rr_sim_hooks->cluster_rank();
}
static inline void rr_sim_cluster_sync()
{
	rr_sim_hooks->cluster_sync();
}
static inline void rr_sim_grid_sync()
{
	rr_sim_hooks->grid_sync();
}
static inline float rr_sim_cluster_load(const float *local, unsigned rank)
{
	return rr_sim_hooks->cluster_load(local, rank);
}
static inline void rr_sim_mbar_init(unsigned long long *bar, int count)
{
	rr_sim_hooks->mbar_init(bar, count);
}
static inline unsigned long long rr_sim_mbar_arrive(unsigned long long *bar, unsigned bytes)
{
	return rr_sim_hooks->mbar_arrive(bar, bytes);
}
static inline void rr_sim_mail_push(float *slot, unsigned rank, float v, unsigned long long *bar)
{
	rr_sim_hooks->mail_push(slot, rank, v, bar);
}
static inline void rr_sim_mbar_wait(unsigned long long *bar, unsigned long long state)
{
	rr_sim_hooks->mbar_wait(bar, state);
}
/* Lane `from`'s value (the mailboxes' 64-bit barrier state), as two 32-bit shuffles. */
static inline unsigned long long __shfl_sync(unsigned mask, unsigned long long value, int from)
{
	(void)mask;
	const int lane = (int)(threadIdx.x & 31);
	unsigned half[2];
	memcpy(half, &value, sizeof half);
	for (int k = 0; k < 2; k++)
		half[k] =
		    __float_as_uint(rr_sim_hooks->shfl_xor(__uint_as_float(half[k]), lane ^ from));
	memcpy(&value, half, sizeof value);
	return value;
}

/* The generated source defines these with device intrinsics. */
#undef INFINITY
#undef NAN
#endif

#endif

/* The CUDA driver API and NVRTC, opened at run time with dlopen: our own minimal declarations
 * of the few types and entry points the cuda backend uses, so the library builds without CUDA
 * headers and runs (saying CUDA is absent) on machines without a driver. */
#ifndef RR_BACKEND_CUDA_SHIM_H
#define RR_BACKEND_CUDA_SHIM_H

#include <stddef.h>
#include <stdint.h>

#include "rowreduce.h"

/* ---------------------------------------------------------------- driver API types */

typedef int CUresult; /* 0 = CUDA_SUCCESS */
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;
typedef unsigned long long CUdeviceptr;

#define RR_CUDA_SUCCESS 0
#define RR_CUDA_ERROR_NO_DEVICE 100

/* Device attributes (values of CUdevice_attribute). */
enum {
	RR_CU_ATTR_MAX_THREADS_PER_BLOCK = 1,
	RR_CU_ATTR_CLOCK_RATE = 13, /* kHz */
	RR_CU_ATTR_MULTIPROCESSOR_COUNT = 16,
	RR_CU_ATTR_MEMORY_CLOCK_RATE = 36, /* kHz */
	RR_CU_ATTR_L2_CACHE_SIZE = 38,
	RR_CU_ATTR_CC_MAJOR = 75,
	RR_CU_ATTR_CC_MINOR = 76,
	RR_CU_ATTR_SMEM_PER_BLOCK_OPTIN = 97,
	RR_CU_ATTR_CLUSTER_LAUNCH = 120
};

/* Function attributes (CUfunction_attribute). */
enum {
	RR_CU_FUNC_NUM_REGS = 4,
	RR_CU_FUNC_LOCAL_SIZE_BYTES = 3,
	RR_CU_FUNC_SHARED_SIZE_BYTES = 1,
	RR_CU_FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
	RR_CU_FUNC_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14
};

#define RR_CU_LAUNCH_ATTRIBUTE_COOPERATIVE 2
#define RR_CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION 4
#define RR_CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION 6
#define RR_CU_STREAM_NON_BLOCKING 1
#define RR_CU_STREAM_CAPTURE_MODE_THREAD_LOCAL 1

/* The layouts of CUlaunchAttribute (8-byte id slot, 64-byte value) and CUlaunchConfig. */
typedef struct rr__cu_launch_attribute {
	int id;
	char pad[4];
	union {
		char raw[64];
		struct {
			unsigned int x, y, z;
		} cluster_dim;
		int cooperative;
		int programmatic; /* programmaticStreamSerializationAllowed */
	} value;
} rr__cu_launch_attribute;

typedef struct rr__cu_launch_config {
	unsigned int grid_x, grid_y, grid_z;
	unsigned int block_x, block_y, block_z;
	unsigned int shared_mem_bytes;
	CUstream stream;
	rr__cu_launch_attribute *attrs;
	unsigned int num_attrs;
} rr__cu_launch_config;

typedef struct rr__cu_uuid {
	unsigned char bytes[16];
} rr__cu_uuid;

/* The entry points, with the versioned symbol names the driver exports. NULL entries are
 * optional (older drivers). */
typedef struct rr__cuda_driver {
	void *handle;
	CUresult (*cuInit)(unsigned int);
	CUresult (*cuDriverGetVersion)(int *);
	CUresult (*cuGetErrorString)(CUresult, const char **);
	CUresult (*cuGetErrorName)(CUresult, const char **);
	CUresult (*cuDeviceGetCount)(int *);
	CUresult (*cuDeviceGet)(CUdevice *, int);
	CUresult (*cuDeviceGetName)(char *, int, CUdevice);
	CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
	CUresult (*cuDeviceTotalMem)(size_t *, CUdevice);
	CUresult (*cuDeviceGetUuid)(rr__cu_uuid *, CUdevice);
	CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
	CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
	CUresult (*cuCtxSetCurrent)(CUcontext);
	CUresult (*cuCtxSynchronize)(void);
	CUresult (*cuModuleLoadData)(CUmodule *, const void *);
	CUresult (*cuModuleUnload)(CUmodule);
	CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
	CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
	CUresult (*cuFuncGetAttribute)(int *, int, CUfunction);
	CUresult (*cuLaunchKernelEx)(const rr__cu_launch_config *, CUfunction, void **, void **);
	CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *, CUfunction, int, size_t);
	CUresult (*cuOccupancyMaxActiveClusters)(int *, CUfunction, const rr__cu_launch_config *);
	CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
	CUresult (*cuMemGetInfo)(size_t *free, size_t *total); /* optional */
	CUresult (*cuMemFree)(CUdeviceptr);
	CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
	CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
	CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
	CUresult (*cuStreamCreate)(CUstream *, unsigned int);
	CUresult (*cuStreamDestroy)(CUstream);
	CUresult (*cuStreamSynchronize)(CUstream);
	CUresult (*cuEventCreate)(CUevent *, unsigned int);
	CUresult (*cuEventDestroy)(CUevent);
	CUresult (*cuEventRecord)(CUevent, CUstream);
	CUresult (*cuEventSynchronize)(CUevent);
	CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
	CUresult (*cuStreamBeginCapture)(CUstream, int);
	CUresult (*cuStreamEndCapture)(CUstream, CUgraph *);
	CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec *, CUgraph, unsigned long long);
	CUresult (*cuGraphLaunch)(CUgraphExec, CUstream);
	CUresult (*cuGraphExecDestroy)(CUgraphExec);
	CUresult (*cuGraphDestroy)(CUgraph);
} rr__cuda_driver;

/* ---------------------------------------------------------------- NVRTC */

typedef int nvrtcResult; /* 0 = NVRTC_SUCCESS */
typedef struct _nvrtcProgram *nvrtcProgram;

typedef struct rr__nvrtc {
	void *handle;
	char library[64]; /* which name dlopen found */
	int major, minor;
	nvrtcResult (*nvrtcVersion)(int *, int *);
	const char *(*nvrtcGetErrorString)(nvrtcResult);
	nvrtcResult (*nvrtcCreateProgram)(nvrtcProgram *, const char *, const char *, int,
	                                  const char *const *, const char *const *);
	nvrtcResult (*nvrtcDestroyProgram)(nvrtcProgram *);
	nvrtcResult (*nvrtcCompileProgram)(nvrtcProgram, int, const char *const *);
	nvrtcResult (*nvrtcGetProgramLogSize)(nvrtcProgram, size_t *);
	nvrtcResult (*nvrtcGetProgramLog)(nvrtcProgram, char *);
	nvrtcResult (*nvrtcGetPTXSize)(nvrtcProgram, size_t *);
	nvrtcResult (*nvrtcGetPTX)(nvrtcProgram, char *);
	nvrtcResult (*nvrtcGetCUBINSize)(nvrtcProgram, size_t *);
	nvrtcResult (*nvrtcGetCUBIN)(nvrtcProgram, char *);
} rr__nvrtc;

/* Opens libcuda.so.1 once per process and resolves the entry points. RR_ERR_NO_DEVICE with a
 * sentence when the library or a required entry is missing. The table lives until exit. */
rr_status rr__cuda_driver_get(const rr__cuda_driver **out);
/* Opens NVRTC once per process (libnvrtc.so, .so.13, .so.12, then under /usr/local/cuda).
 * RR_ERR_NO_DEVICE with a sentence when none loads. */
rr_status rr__nvrtc_get(const rr__nvrtc **out);

/* A driver-API failure as a status: "<what>: CUDA error 700 (CUDA_ERROR_ILLEGAL_ADDRESS: ...)". */
rr_status rr__cuda_check(const rr__cuda_driver *driver, CUresult result, const char *what);

/* The output of one NVRTC compilation (malloc'd; free with rr__cuda_compiled_free). */
typedef struct rr__cuda_compiled {
	char *cubin;
	size_t cubin_size;
	char *ptx; /* zero-terminated; NULL unless asked for */
	char *log; /* the NVRTC log, with the ptxas report (zero-terminated, may be "") */
	int from_cache;
	char cache_key[65];
} rr__cuda_compiled;

/* Compiles CUDA C `source` for `arch` ("sm_90") with NVRTC into a cubin, through the cache
 * $RR_CACHE_DIR/cuda/<key>.cubin (.log, .ptx beside it), key = SHA-256 of the source, the arch,
 * the NVRTC version and the options. want_ptx also fetches (or caches) the PTX. A rejected
 * source gives RR_ERR_COMPILE with the log's head in rr_last_error() and the full log in
 * out->log. A source with `#ifndef RR_MIN_BLOCKS_CAPPED` (launch bounds raised for rows in
 * flight) that ptxas compiles to local memory is compiled again with that macro defined, and
 * the second build is returned. */
rr_status rr__cuda_compile(const char *source, const char *arch, int want_ptx,
                           rr__cuda_compiled *out);
void rr__cuda_compiled_free(rr__cuda_compiled *compiled);
/* Whether a ptxas log (--ptxas-options=-v) reports a stack frame or spill stores: local memory. */
int rr__cuda_log_local_memory(const char *log);
/* The defines of a second compile of `source` after a first whose ptxas -v log is `log`, into
 * `defines`; returns how many (0: the first build stands). RR_MIN_BLOCKS_CAPPED where the
 * source has raised bounds and an entry spilled; RR_HEAD_CAPPED where its entry with a head
 * has a bound of its own (the col copies') and spilled more than a few registers there. */
int rr__cuda_second_defines(const char *source, const char *log, const char *defines[2]);
/* Removes the cached files of `key` after the driver refused its cubin, saying so (with `why`)
 * once on stderr; the next rr__cuda_compile of that source compiles it again. */
void rr__cuda_cache_discard(const char *key, const char *why);
/* The folder of the cubin cache: $RR_CACHE_DIR/cuda, else ~/.cache/rowreduce/cuda. Every file
 * has a digest file beside it, checked before use (see rr__cache_dir_prepare in util.h). */
void rr__cuda_cache_dir(char *out, size_t size);
/* How many NVRTC compilations this process ran (cache misses), for tests. */
long rr__cuda_nvrtc_runs(void);

#endif

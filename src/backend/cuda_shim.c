/* Opening the CUDA driver and NVRTC with dlopen, and compiling CUDA C to a cubin through a
 * content-addressed cache. Nothing here needs a GPU: NVRTC alone compiles for any arch. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/cuda_shim.h"
#include "util/util.h"

/* ---------------------------------------------------------------- the driver */

static rr__cuda_driver driver_table;
static rr_status driver_status = RR_ERR_NO_DEVICE;
static char driver_error[512];
static pthread_once_t driver_once = PTHREAD_ONCE_INIT;

/* Resolves `name` into *slot; a required entry that is missing fails the whole table. */
static int resolve(void *handle, void *slot, const char *name, int required, char *missing,
                   size_t missing_size)
{
	void *symbol = dlsym(handle, name);
	memcpy(slot, &symbol, sizeof symbol);
	if (!symbol && required && !missing[0])
		snprintf(missing, missing_size, "%s", name);
	return symbol != NULL;
}

#define NEED(field, symbol) resolve(h, &d->field, symbol, 1, missing, sizeof missing)
#define WANT(field, symbol) resolve(h, &d->field, symbol, 0, missing, sizeof missing)

static void driver_open_once(void)
{
	rr__cuda_driver *d = &driver_table;
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(driver_error, sizeof driver_error,
		         "CUDA is not available: libcuda.so.1 not found (no NVIDIA driver on this "
		         "machine)");
		return;
	}
	d->handle = h;
	char missing[128] = "";
	NEED(cuInit, "cuInit");
	NEED(cuDriverGetVersion, "cuDriverGetVersion");
	WANT(cuGetErrorString, "cuGetErrorString");
	WANT(cuGetErrorName, "cuGetErrorName");
	NEED(cuDeviceGetCount, "cuDeviceGetCount");
	NEED(cuDeviceGet, "cuDeviceGet");
	NEED(cuDeviceGetName, "cuDeviceGetName");
	NEED(cuDeviceGetAttribute, "cuDeviceGetAttribute");
	NEED(cuDeviceTotalMem, "cuDeviceTotalMem_v2");
	if (!WANT(cuDeviceGetUuid, "cuDeviceGetUuid_v2"))
		WANT(cuDeviceGetUuid, "cuDeviceGetUuid");
	NEED(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
	NEED(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
	NEED(cuCtxSetCurrent, "cuCtxSetCurrent");
	NEED(cuCtxSynchronize, "cuCtxSynchronize");
	NEED(cuModuleLoadData, "cuModuleLoadData");
	NEED(cuModuleUnload, "cuModuleUnload");
	NEED(cuModuleGetFunction, "cuModuleGetFunction");
	NEED(cuFuncSetAttribute, "cuFuncSetAttribute");
	NEED(cuFuncGetAttribute, "cuFuncGetAttribute");
	NEED(cuLaunchKernelEx, "cuLaunchKernelEx");
	NEED(cuOccupancyMaxActiveBlocksPerMultiprocessor,
	     "cuOccupancyMaxActiveBlocksPerMultiprocessor");
	WANT(cuOccupancyMaxActiveClusters, "cuOccupancyMaxActiveClusters");
	NEED(cuMemAlloc, "cuMemAlloc_v2");
	WANT(cuMemGetInfo, "cuMemGetInfo_v2");
	NEED(cuMemFree, "cuMemFree_v2");
	NEED(cuMemcpyHtoD, "cuMemcpyHtoD_v2");
	NEED(cuMemcpyDtoH, "cuMemcpyDtoH_v2");
	NEED(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2");
	NEED(cuStreamCreate, "cuStreamCreate");
	NEED(cuStreamDestroy, "cuStreamDestroy_v2");
	NEED(cuStreamSynchronize, "cuStreamSynchronize");
	NEED(cuEventCreate, "cuEventCreate");
	NEED(cuEventDestroy, "cuEventDestroy_v2");
	NEED(cuEventRecord, "cuEventRecord");
	NEED(cuEventSynchronize, "cuEventSynchronize");
	if (!WANT(cuEventElapsedTime, "cuEventElapsedTime_v2"))
		NEED(cuEventElapsedTime, "cuEventElapsedTime");
	NEED(cuStreamBeginCapture, "cuStreamBeginCapture_v2");
	NEED(cuStreamEndCapture, "cuStreamEndCapture");
	NEED(cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags");
	NEED(cuGraphLaunch, "cuGraphLaunch");
	NEED(cuGraphExecDestroy, "cuGraphExecDestroy");
	NEED(cuGraphDestroy, "cuGraphDestroy");
	if (missing[0]) {
		snprintf(
		    driver_error, sizeof driver_error,
		    "CUDA is not available: the driver's libcuda.so.1 lacks %s (it is older than "
		    "CUDA 12; update the NVIDIA driver)",
		    missing);
		return;
	}
	driver_status = RR_OK;
}

rr_status rr__cuda_driver_get(const rr__cuda_driver **out)
{
	pthread_once(&driver_once, driver_open_once);
	*out = driver_status == RR_OK ? &driver_table : NULL;
	if (driver_status != RR_OK)
		return rr__fail(RR_ERR_NO_DEVICE, "%s", driver_error);
	return RR_OK;
}

rr_status rr__cuda_check(const rr__cuda_driver *driver, CUresult result, const char *what)
{
	if (result == RR_CUDA_SUCCESS)
		return RR_OK;
	const char *name = NULL, *text = NULL;
	if (driver && driver->cuGetErrorName)
		driver->cuGetErrorName(result, &name);
	if (driver && driver->cuGetErrorString)
		driver->cuGetErrorString(result, &text);
	return rr__fail(result == RR_CUDA_ERROR_NO_DEVICE ? RR_ERR_NO_DEVICE : RR_ERR_DEVICE,
	                "%s: CUDA error %d (%s: %s)", what, result, name ? name : "unknown",
	                text ? text : "no description");
}

/* ---------------------------------------------------------------- NVRTC */

static rr__nvrtc nvrtc_table;
static rr_status nvrtc_status = RR_ERR_NO_DEVICE;
static pthread_once_t nvrtc_once = PTHREAD_ONCE_INIT;

static void nvrtc_open_once(void)
{
	static const char *const names[] = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12",
	                                    "/usr/local/cuda/lib64/libnvrtc.so"};
	rr__nvrtc *d = &nvrtc_table;
	void *h = NULL;
	const char *override = getenv("RR_NVRTC");
	if (override && override[0]) {
		h = dlopen(override, RTLD_NOW | RTLD_LOCAL);
		snprintf(d->library, sizeof d->library, "%s", override);
	}
	for (size_t i = 0; !h && i < sizeof names / sizeof names[0]; i++) {
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
		snprintf(d->library, sizeof d->library, "%s", names[i]);
	}
	if (!h)
		return;
	char missing[128] = "";
	NEED(nvrtcVersion, "nvrtcVersion");
	NEED(nvrtcGetErrorString, "nvrtcGetErrorString");
	NEED(nvrtcCreateProgram, "nvrtcCreateProgram");
	NEED(nvrtcDestroyProgram, "nvrtcDestroyProgram");
	NEED(nvrtcCompileProgram, "nvrtcCompileProgram");
	NEED(nvrtcGetProgramLogSize, "nvrtcGetProgramLogSize");
	NEED(nvrtcGetProgramLog, "nvrtcGetProgramLog");
	NEED(nvrtcGetPTXSize, "nvrtcGetPTXSize");
	NEED(nvrtcGetPTX, "nvrtcGetPTX");
	NEED(nvrtcGetCUBINSize, "nvrtcGetCUBINSize");
	NEED(nvrtcGetCUBIN, "nvrtcGetCUBIN");
	if (missing[0] || d->nvrtcVersion(&d->major, &d->minor) != 0) {
		dlclose(h);
		return;
	}
	d->handle = h;
	nvrtc_status = RR_OK;
}

#undef NEED
#undef WANT

rr_status rr__nvrtc_get(const rr__nvrtc **out)
{
	pthread_once(&nvrtc_once, nvrtc_open_once);
	*out = nvrtc_status == RR_OK ? &nvrtc_table : NULL;
	if (nvrtc_status != RR_OK)
		return rr__fail(
		    RR_ERR_NO_DEVICE,
		    "NVRTC is not available: none of libnvrtc.so, libnvrtc.so.13, "
		    "libnvrtc.so.12 could be opened (install the CUDA toolkit's NVRTC, or "
		    "point RR_NVRTC at the library)");
	return RR_OK;
}

/* ---------------------------------------------------------------- compile with a cache */

static long nvrtc_runs;
static pthread_mutex_t runs_lock = PTHREAD_MUTEX_INITIALIZER;

long rr__cuda_nvrtc_runs(void)
{
	pthread_mutex_lock(&runs_lock);
	long runs = nvrtc_runs;
	pthread_mutex_unlock(&runs_lock);
	return runs;
}

void rr__cuda_cache_dir(char *out, size_t size)
{
	const char *dir = getenv("RR_CACHE_DIR");
	if (dir && dir[0]) {
		snprintf(out, size, "%s/cuda", dir);
		return;
	}
	const char *home = getenv("HOME");
	if (home && home[0])
		snprintf(out, size, "%s/.cache/rowreduce/cuda", home);
	else /* per user: a shared /tmp folder could be another user's */
		snprintf(out, size, "/tmp/rowreduce-cache-%ld/cuda", (long)geteuid());
}

void rr__cuda_compiled_free(rr__cuda_compiled *compiled)
{
	if (!compiled)
		return;
	free(compiled->cubin);
	free(compiled->ptx);
	free(compiled->log);
	memset(compiled, 0, sizeof *compiled);
}

static void options_for(const char *arch, char *arch_option, size_t size, const char *options[4])
{
	snprintf(arch_option, size, "--gpu-architecture=%s", arch);
	options[0] = arch_option;
	options[1] = "-default-device";
	options[2] = "--std=c++17";
	options[3] = "--ptxas-options=-v"; /* the second compile adds its defines (rr__cuda_compile) */
}

/* The number written just before `at` in `log` ("128 bytes ..."), 0 without one. */
static int number_before(const char *log, const char *at)
{
	while (at > log && at[-1] == ' ')
		at--;
	while (at > log && at[-1] >= '0' && at[-1] <= '9')
		at--;
	return atoi(at);
}

/* An entry with a head may spill this much at the col copies' bound and keep it: layernorm
 * bf16 512x32003 at W = 512 spilled 16 bytes there and ran 0.79 of the time of the shifted
 * loads, add_layernorm bf16 1024x20001 spilled 432 and ran 1.50x (H100, bench/NOTES.md
 * session 51). */
#define HEAD_SPILL_BYTES 32

/* Bytes of local memory ptxas gave entries whose names end in "_head" (`head` 1) or the
 * others (`head` 0), per the -v log: stack frames plus spill stores, summed. */
static int entry_spills(const char *log, int head)
{
	int bytes = 0;
	const char *at = "Function properties for ";
	for (const char *p = log; p && (p = strstr(p, at)) != NULL;) {
		p += strlen(at);
		size_t name = strcspn(p, " \n");
		int is_head = name >= 5 && strncmp(p + name - 5, "_head", 5) == 0;
		const char *frame = strstr(p, "bytes stack frame");
		const char *spill = strstr(p, "bytes spill stores");
		const char *next = strstr(p, at);
		if (!frame || (next && frame > next) || is_head != head)
			continue;
		bytes += number_before(log, frame);
		if (spill && (!next || spill < next))
			bytes += number_before(log, spill);
	}
	return bytes;
}

int rr__cuda_second_defines(const char *source, const char *log, const char *defines[2])
{
	if (!rr__cuda_log_local_memory(log))
		return 0;
	int n = 0;
	int own_head = strstr(source, "#ifndef RR_HEAD_CAPPED") != NULL;
	int head_over = own_head && entry_spills(log, 1) > HEAD_SPILL_BYTES;
	if (head_over)
		defines[n++] = "-DRR_HEAD_CAPPED";
	if (strstr(source, "#ifndef RR_MIN_BLOCKS_CAPPED") &&
	    (!own_head || head_over || entry_spills(log, 0)))
		defines[n++] = "-DRR_MIN_BLOCKS_CAPPED";
	return n;
}

int rr__cuda_log_local_memory(const char *log)
{
	for (const char *p = log; p && (p = strstr(p, "bytes stack frame")) != NULL; p++) {
		const char *spill = strstr(p, "bytes spill stores");
		if (number_before(log, p) != 0 || (spill && number_before(log, spill) != 0))
			return 1;
	}
	return 0;
}

static void cache_key(const rr__nvrtc *nv, const char *source, const char *const *options,
                      int n_options, char key[65])
{
	rr__buf text = {0};
	rr__buf_printf(&text, "nvrtc %d.%d\n", nv->major, nv->minor);
	for (int i = 0; i < n_options; i++)
		rr__buf_printf(&text, "%s\n", options[i]);
	rr__buf_append(&text, source, strlen(source));
	rr__sha256_hex(text.data ? text.data : "", text.length, key);
	rr__buf_free(&text);
}

/* Loads <dir>/<key>.<ext> into *data after checking it against its digest file; 0 when absent.
 * A file that fails the check is removed, said once on stderr, and reads as absent, so it is
 * compiled and written again. */
static int cache_read(const char *dir, const char *key, const char *ext, char **data, size_t *size)
{
	char path[1200];
	snprintf(path, sizeof path, "%s/%s.%s", dir, key, ext);
	struct stat st;
	if (lstat(path, &st) != 0)
		return 0;
	char digest[65];
	rr_status status =
	    S_ISREG(st.st_mode) && st.st_uid == geteuid()
	        ? rr__read_regular_file(path, (size_t)1 << 30, "cached file", data, size)
	        : rr__fail(RR_ERR_IO, "is not a regular file owned by this user");
	if (status == RR_OK) {
		rr__sha256_hex(*data, *size, digest);
		status = rr__cache_digest_check(path, digest);
		if (status != RR_OK) {
			free(*data);
			*data = NULL;
		}
	}
	if (status == RR_OK)
		return 1;
	rr__warn("the cached CUDA file %s %s: rebuilding it", path, rr_last_error());
	rr__clear_error();
	rr__cache_remove(path);
	return 0;
}

/* A cache that cannot be written only costs a recompilation next time. The digest goes first,
 * so a reader that finds the new file finds its digest. */
static void cache_write(const char *dir, const char *key, const char *ext, const void *data,
                        size_t size)
{
	char path[1200], digest[65];
	snprintf(path, sizeof path, "%s/%s.%s", dir, key, ext);
	rr__sha256_hex(data, size, digest);
	if (rr__cache_digest_write(path, digest) != RR_OK ||
	    rr__write_file_atomic(path, data, size) != RR_OK)
		rr__clear_error();
}

void rr__cuda_cache_discard(const char *key, const char *why)
{
	char dir[1024], path[1200];
	rr__cuda_cache_dir(dir, sizeof dir);
	rr__warn("the cached cubin %s/%s.cubin was refused (%s): rebuilding it", dir, key, why);
	static const char *const extensions[] = {"cubin", "ptx", "log"};
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof path, "%s/%s.%s", dir, key, extensions[i]);
		rr__cache_remove(path);
	}
}

static char *program_log(const rr__nvrtc *nv, nvrtcProgram program)
{
	size_t size = 0;
	if (nv->nvrtcGetProgramLogSize(program, &size) != 0)
		size = 0;
	char *log = calloc(size + 1, 1);
	if (log && size > 0 && nv->nvrtcGetProgramLog(program, log) != 0)
		log[0] = 0;
	return log;
}

/* The first lines of a log that say what is wrong, for the one-line error. */
static void log_head(const char *log, char *out, size_t size)
{
	size_t n = 0;
	int lines = 0;
	for (const char *p = log; *p && n + 1 < size && lines < 6; p++) {
		out[n++] = *p == '\n' ? ' ' : *p;
		lines += *p == '\n';
	}
	out[n] = 0;
}

static rr_status nvrtc_run(const rr__nvrtc *nv, const char *source, const char *const *options,
                           int n_options, int want_ptx, rr__cuda_compiled *out)
{
	nvrtcProgram program = NULL;
	int result = nv->nvrtcCreateProgram(&program, source, "rowreduce.cu", 0, NULL, NULL);
	if (result != 0)
		return rr__fail(RR_ERR_COMPILE, "NVRTC could not create a program: %s",
		                nv->nvrtcGetErrorString(result));
	pthread_mutex_lock(&runs_lock);
	nvrtc_runs++;
	pthread_mutex_unlock(&runs_lock);
	result = nv->nvrtcCompileProgram(program, n_options, options);
	out->log = program_log(nv, program);
	rr_status status = out->log ? RR_OK : rr__fail(RR_ERR_NOMEM, "out of memory for the log");
	if (status == RR_OK && result != 0) {
		char head[600];
		log_head(out->log, head, sizeof head);
		status = rr__fail(RR_ERR_COMPILE, "NVRTC rejected the generated CUDA C (%s): %s",
		                  nv->nvrtcGetErrorString(result), head);
	}
	size_t size = 0;
	if (status == RR_OK && nv->nvrtcGetCUBINSize(program, &size) == 0 && size > 0) {
		out->cubin = malloc(size);
		out->cubin_size = size;
		if (!out->cubin || nv->nvrtcGetCUBIN(program, out->cubin) != 0)
			status = rr__fail(RR_ERR_COMPILE, "NVRTC produced no cubin");
	} else if (status == RR_OK) {
		status = rr__fail(RR_ERR_COMPILE, "NVRTC produced no cubin (is the arch a real "
		                                  "sm_XY rather than compute_XY?)");
	}
	if (status == RR_OK && want_ptx && nv->nvrtcGetPTXSize(program, &size) == 0 && size > 0) {
		out->ptx = calloc(size + 1, 1);
		if (!out->ptx || nv->nvrtcGetPTX(program, out->ptx) != 0)
			status = rr__fail(RR_ERR_COMPILE, "NVRTC produced no PTX");
	}
	nv->nvrtcDestroyProgram(&program);
	return status;
}

/* One compile of `source` with the first n_options options, through the cache. */
static rr_status compile_once(const rr__nvrtc *nv, const char *dir, const char *source,
                              const char *const *options, int n_options, int want_ptx,
                              rr__cuda_compiled *out)
{
	memset(out, 0, sizeof *out);
	cache_key(nv, source, options, n_options, out->cache_key);
	size_t size = 0;
	if (cache_read(dir, out->cache_key, "cubin", &out->cubin, &out->cubin_size)) {
		if (!cache_read(dir, out->cache_key, "log", &out->log, &size))
			out->log = calloc(1, 1);
		if (!want_ptx || cache_read(dir, out->cache_key, "ptx", &out->ptx, &size)) {
			out->from_cache = 1;
			return out->log ? RR_OK : rr__fail(RR_ERR_NOMEM, "out of memory");
		}
		rr__cuda_compiled_free(out);
		cache_key(nv, source, options, n_options, out->cache_key);
	}
	rr_status status = nvrtc_run(nv, source, options, n_options, want_ptx, out);
	if (status != RR_OK)
		return status; /* out->log keeps the compiler's words for the caller */
	cache_write(dir, out->cache_key, "log", out->log, strlen(out->log));
	if (out->ptx)
		cache_write(dir, out->cache_key, "ptx", out->ptx, strlen(out->ptx));
	cache_write(dir, out->cache_key, "cubin", out->cubin, out->cubin_size);
	return RR_OK;
}

rr_status rr__cuda_compile(const char *source, const char *arch, int want_ptx,
                           rr__cuda_compiled *out)
{
	memset(out, 0, sizeof *out);
	const rr__nvrtc *nv = NULL;
	rr_status status = rr__nvrtc_get(&nv);
	if (status != RR_OK)
		return status;
	char arch_option[64];
	const char *options[6];
	options_for(arch, arch_option, sizeof arch_option, options);
	char dir[1024];
	rr__cuda_cache_dir(dir, sizeof dir);
	status = rr__cache_dir_prepare(dir, "cubin cache");
	if (status != RR_OK)
		return status;
	status = compile_once(nv, dir, source, options, 4, want_ptx, out);
	/* A source whose launch bounds were raised for rows in flight (realise.c,
	 * rows_in_flight_blocks) carries the capped ones too: where ptxas spilled at the raised
	 * bounds, the capped build is the one used. One whose entry with a head reads the col
	 * copies under a bound of its own (RR_HEAD_CAPPED) takes the scalar entry's bound there
	 * where that entry spilled more than HEAD_SPILL_BYTES, and only there. */
	if (status != RR_OK)
		return status;
	int n = rr__cuda_second_defines(source, out->log, options + 4);
	if (n == 0)
		return status;
	rr__cuda_compiled capped;
	status = compile_once(nv, dir, source, options, 4 + n, want_ptx, &capped);
	if (status != RR_OK) {
		rr__cuda_compiled_free(&capped);
		return status;
	}
	rr__cuda_compiled_free(out);
	*out = capped;
	return RR_OK;
}

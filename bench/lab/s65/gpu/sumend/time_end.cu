/* Session 64 lab (for the next GPU session): where sum's few-row S=grid kernel spends its time
 * at the end. Session 65 adds the base source timed again under three shared-memory carve-out
 * preferences (the attribute CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT at 0, 50 and
 * 100 %): if the SM's repartition between the memset (no shared memory) and the kernel costs
 * time, the three differ. Loads cubins of one emitted entry (rowreduce emit, compiled by nvcc: see
 * run.sh) and times each, L2 cold, in a CUDA graph of REPS launches, each after a 256 MiB
 * memset that evicts the L2; the memset alone is timed the same way and subtracted. The
 * variants differ only at the end: `base` as emitted, `cut` with the last block's arrive and
 * combine left out (every block writes its partial and leaves: its output is not the sum and
 * is not checked), `noop` an empty kernel of the same grid. base's outputs are checked
 * against a float64 sum on the host first.
 * Usage: time_end M N C THREADS ENTRY SOURCE...  (prints µs per launch for each source) */
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvrtc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <algorithm>
#include <vector>

#define CK(x)                                                                                      \
	do {                                                                                       \
		cudaError_t e_ = (x);                                                              \
		if (e_ != cudaSuccess) {                                                           \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)
#define CU(x)                                                                                      \
	do {                                                                                       \
		CUresult r_ = (x);                                                                 \
		if (r_ != CUDA_SUCCESS) {                                                          \
			const char *s_ = "";                                                       \
			cuGetErrorString(r_, &s_);                                                 \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, s_);                    \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

enum { REPS = 20, TRIES = 15 };

/* The cubin of `path` by NVRTC; exits with the log on failure. */
static std::vector<char> compile(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "cannot read %s\n", path);
		exit(1);
	}
	std::vector<char> text;
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		text.insert(text.end(), buf, buf + n);
	fclose(f);
	text.push_back(0);
	nvrtcProgram prog;
	if (nvrtcCreateProgram(&prog, text.data(), path, 0, NULL, NULL) != NVRTC_SUCCESS)
		exit(1);
	const char *opts[] = {"--gpu-architecture=sm_90", "-default-device", "--std=c++17"};
	nvrtcResult r = nvrtcCompileProgram(prog, 3, opts);
	if (r != NVRTC_SUCCESS) {
		size_t size;
		nvrtcGetProgramLogSize(prog, &size);
		std::vector<char> log(size + 1);
		nvrtcGetProgramLog(prog, log.data());
		fprintf(stderr, "%s: %s\n", path, log.data());
		exit(1);
	}
	size_t size;
	nvrtcGetCUBINSize(prog, &size);
	std::vector<char> cubin(size);
	nvrtcGetCUBIN(prog, cubin.data());
	nvrtcDestroyProgram(&prog);
	return cubin;
}
static const size_t FLUSH = (size_t)256 << 20;

/* µs per launch of `fn` (NULL: the memset alone) in a graph of REPS (memset, launch) pairs,
 * the median of TRIES replays. */
static double graph_us(CUfunction fn, unsigned grid, unsigned threads, void **args, void *flush,
                       cudaStream_t st)
{
	cudaGraph_t g;
	cudaGraphExec_t ge;
	CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
	for (int r = 0; r < REPS; r++) {
		CK(cudaMemsetAsync(flush, r & 0xff, FLUSH, st));
		if (fn)
			CU(cuLaunchKernel(fn, grid, 1, 1, threads, 1, 1, 0, (CUstream)st, args, NULL));
	}
	CK(cudaStreamEndCapture(st, &g));
	CK(cudaGraphInstantiate(&ge, g, 0));
	CK(cudaGraphLaunch(ge, st)); /* warm-up */
	CK(cudaStreamSynchronize(st));
	std::vector<double> t;
	cudaEvent_t a, b;
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	for (int k = 0; k < TRIES; k++) {
		CK(cudaEventRecord(a, st));
		CK(cudaGraphLaunch(ge, st));
		CK(cudaEventRecord(b, st));
		CK(cudaEventSynchronize(b));
		float ms;
		CK(cudaEventElapsedTime(&ms, a, b));
		t.push_back(1000.0 * ms / REPS);
	}
	std::sort(t.begin(), t.end());
	CK(cudaGraphExecDestroy(ge));
	CK(cudaGraphDestroy(g));
	return t[TRIES / 2];
}

int main(int argc, char **argv)
{
	if (argc < 7) {
		fprintf(stderr, "usage: %s M N C THREADS ENTRY SOURCE...\n", argv[0]);
		return 2;
	}
	const long long M = atoll(argv[1]), N = atoll(argv[2]);
	const unsigned C = (unsigned)atoi(argv[3]), threads = (unsigned)atoi(argv[4]);
	const char *entry = argv[5];
	CK(cudaFree(0));
	float *in, *out, *ws;
	void *flush;
	CK(cudaMalloc(&in, (size_t)(M * N) * 4));
	CK(cudaMalloc(&out, (size_t)M * 4));
	CK(cudaMalloc(&ws, (size_t)1 << 20));
	CK(cudaMalloc(&flush, FLUSH));
	CK(cudaMemset(ws, 0, (size_t)1 << 20));
	std::vector<float> host((size_t)(M * N));
	for (size_t i = 0; i < host.size(); i++)
		host[i] = (float)((i * 2654435761u >> 8) % 2001) / 1000.0f - 1.0f;
	CK(cudaMemcpy(in, host.data(), host.size() * 4, cudaMemcpyHostToDevice));
	cudaStream_t st;
	CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
	long long rows = M;
	void *args[] = {&in, &out, &rows, &ws};
	const unsigned grid = (unsigned)(M * C); /* one row group a block's group: no loop */
	const double flush_us = graph_us(NULL, grid, threads, args, flush, st);
	printf("memset alone %.2f us (subtracted below)\n", flush_us);
	for (int k = 6; k < argc; k++) {
		CUmodule mod;
		CUfunction fn;
		std::vector<char> cubin = compile(argv[k]);
		CU(cuModuleLoadData(&mod, cubin.data()));
		CU(cuModuleGetFunction(&fn, mod, entry));
		if (k == 6) { /* base: the sums checked */
			CK(cudaMemset(out, 0xff, (size_t)M * 4));
			CU(cuLaunchKernel(fn, grid, 1, 1, threads, 1, 1, 0, (CUstream)st, args, NULL));
			CK(cudaStreamSynchronize(st));
			std::vector<float> got((size_t)M);
			CK(cudaMemcpy(got.data(), out, (size_t)M * 4, cudaMemcpyDeviceToHost));
			for (long long r = 0; r < M; r++) {
				double want = 0, mag = 0;
				for (long long i = 0; i < N; i++) {
					want += host[(size_t)(r * N + i)];
					mag += fabs(host[(size_t)(r * N + i)]);
				}
				if (!(fabs(got[(size_t)r] - want) <= 1e-4 * mag))
					printf("row %lld: got %.6g, want %.6g: FAILED\n", r, got[(size_t)r], want);
			}
		}
		printf("%-40s %8.2f us\n", argv[k],
		       graph_us(fn, grid, threads, args, flush, st) - flush_us);
		if (k == 6) {
			const int carve[] = {0, 50, 100, -1};
			for (int c = 0; c < 4; c++) {
				CU(cuFuncSetAttribute(
				    fn, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, carve[c]));
				printf("  base, carve-out %4d %%                  %8.2f us\n", carve[c],
				       graph_us(fn, grid, threads, args, flush, st) - flush_us);
			}
		}
		CU(cuModuleUnload(mod));
	}
	return 0;
}

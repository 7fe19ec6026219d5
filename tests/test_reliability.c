/* Inputs users hit, on the cpu backend (reliability_cases.h; gpu_reliability.c runs the same on
 * cuda), and the cubin cache's digests, which need only NVRTC: a cut or swapped cubin is
 * compiled again, never used. */
#include <sys/stat.h>
#include <unistd.h>

#include "backend/cuda_shim.h"
#include "reliability_cases.h"

static void write_bytes(const char *path, const char *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	if (f) {
		fwrite(data, 1, size, f);
		fclose(f);
	}
}

/* Compiles `source` through the cache; returns the cubin's SHA-256 and whether it came from
 * the cache. */
static int compile_cached(const char *source, char digest[65], int *from_cache)
{
	rr__cuda_compiled compiled;
	rr_status status = rr__cuda_compile(source, "sm_90", 0, &compiled);
	CHECKF(status == RR_OK, "%s", rr_last_error());
	if (status != RR_OK)
		return 0;
	rr__sha256_hex(compiled.cubin, compiled.cubin_size, digest);
	*from_cache = compiled.from_cache;
	rr__cuda_compiled_free(&compiled);
	return 1;
}

static void test_cubin_cache(void)
{
	const rr__nvrtc *nvrtc = NULL;
	if (rr__nvrtc_get(&nvrtc) != RR_OK) {
		printf("cubin cache: skipped (no NVRTC): %s\n", rr_last_error());
		return;
	}
	char dir[] = "/tmp/rr-reliability-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	const char *saved = getenv("RR_CACHE_DIR");
	char saved_dir[1024] = "";
	if (saved)
		snprintf(saved_dir, sizeof saved_dir, "%s", saved);
	setenv("RR_CACHE_DIR", dir, 1);
	const char *a = "extern \"C\" __global__ void a(float *x) { x[threadIdx.x] *= 2.0f; }\n";
	const char *b = "extern \"C\" __global__ void b(float *x) { x[threadIdx.x] += 1.0f; }\n";
	char built[65], again[65], other[65];
	int cached = 0;
	CHECK(compile_cached(a, built, &cached) && !cached);
	CHECK(compile_cached(b, other, &cached) && !cached);
	CHECK(compile_cached(a, again, &cached) && cached && strcmp(built, again) == 0);
	rr__cuda_compiled first;
	CHECK(rr__cuda_compile(a, "sm_90", 0, &first) == RR_OK);
	rr__cuda_compiled second;
	CHECK(rr__cuda_compile(b, "sm_90", 0, &second) == RR_OK);
	char cubin[1400], cubin_b[1400];
	snprintf(cubin, sizeof cubin, "%s/cuda/%s.cubin", dir, first.cache_key);
	snprintf(cubin_b, sizeof cubin_b, "%s/cuda/%s.cubin", dir, second.cache_key);
	/* Cut short at several lengths: each is compiled again, to the same bytes. */
	const size_t cuts[] = {0, 100, 4096, first.cubin_size - 1};
	for (int c = 0; c < 4; c++) {
		write_bytes(cubin, first.cubin, cuts[c]);
		long runs = rr__cuda_nvrtc_runs();
		CHECK(compile_cached(a, again, &cached) && !cached && strcmp(built, again) == 0);
		CHECKF(rr__cuda_nvrtc_runs() == runs + 1, "cut to %zu bytes: recompiled", cuts[c]);
		CHECK(compile_cached(a, again, &cached) && cached && strcmp(built, again) == 0);
	}
	/* Another kernel's cubin in its place, then with its digest file too. */
	write_bytes(cubin, second.cubin, second.cubin_size);
	CHECK(compile_cached(a, again, &cached) && !cached && strcmp(built, again) == 0);
	char command[6000];
	snprintf(command, sizeof command, "cp '%s' '%s' && cp '%s.sha256' '%s.sha256'", cubin_b,
	         cubin, cubin_b, cubin);
	CHECK(system(command) == 0);
	CHECK(compile_cached(a, again, &cached) && !cached && strcmp(built, again) == 0);
	/* A cache folder others may write is refused. */
	char cuda_dir[1100];
	snprintf(cuda_dir, sizeof cuda_dir, "%s/cuda", dir);
	chmod(cuda_dir, 0777);
	rr__cuda_compiled refused;
	CHECK(rr__cuda_compile(a, "sm_90", 0, &refused) == RR_ERR_IO);
	CHECKF(strstr(rr_last_error(), "writable by others"), "%s", rr_last_error());
	rr__cuda_compiled_free(&refused);
	rr__cuda_compiled_free(&first);
	rr__cuda_compiled_free(&second);
	snprintf(command, sizeof command, "rm -rf '%s'", dir);
	CHECK(system(command) == 0);
	if (saved_dir[0])
		setenv("RR_CACHE_DIR", saved_dir, 1);
	else
		unsetenv("RR_CACHE_DIR");
}

int main(void)
{
	test_cubin_cache();
	return run_reliability_cases("cpu", "test_reliability");
}

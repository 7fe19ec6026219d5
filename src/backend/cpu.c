/* The cpu backend: emits C for a plan, compiles it with the system C compiler ($RR_CC) into a
 * shared object cached by the hash of source, compiler and flags (its SHA-256 checked before
 * every load), loads it with dlopen, and spreads rows over the process's thread pool
 * (cpu_pool.c). Device memory is host memory. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/backend.h"
#include "backend/cpu.h"
#include "backend/cpu_pool.h"
#include "backend/launch.h"
#include "codegen/c_emit.h"

extern char **environ;

#define CPU_MAX_WORDS 64
#define CPU_MAX_THREADS 512
#define CPU_OUTPUT_LIMIT 65536

/* Fixed flags: no reassociation beyond the plan (never -ffast-math), no fused multiply-add;
 * -fno-math-errno changes no value (sqrt stays correctly rounded) but lets a vector square
 * root be one instruction. */
static const char *const base_flags[] = {
    "-O3", "-march=native", "-ffp-contract=off", "-fno-math-errno", "-fPIC", "-shared", "-std=c11"};

static atomic_long compiler_runs;
static atomic_long row_part_runs;
static atomic_long temp_counter;

typedef struct cpu_impl {
	int threads;
	pthread_mutex_t lock;  /* guards the two fields below */
	char identity_cc[512]; /* the $RR_CC the identity was taken from */
	char identity[256];    /* first line of `$RR_CC --version` */
	/* SHA-256 of the CPU model and feature flags: objects built with -march=native run only
	 * where these match, so they are part of the cache key. */
	char machine[65];
	/* Whether loads stall behind streamed stores to addresses that alias theirs modulo 4 KiB
	 * (rr__cpu_outputs_alias, rr__cpu_alias_stalls) */
	int alias_stalls;
} cpu_impl;

typedef struct cpu_module {
	void *handle;
	rr__cpu_kernel_fn kernel;
	rr__cpu_scratch_fn scratch_floats;
	int64_t scratch; /* floats a thread at the program's N, checked against the realisation */
	/* Rows split over threads (c_emit.h): NULL where the source has no rr_cpu_row_part */
	rr__cpu_row_part_fn row_part;
	int row_parts;        /* the parts a row takes: 2, or 1 */
	int64_t share_floats; /* the floats the parts exchange their partials through */
} cpu_module;

long rr__cpu_compiler_runs(void)
{
	return atomic_load(&compiler_runs);
}

long rr__cpu_row_part_runs(void)
{
	return atomic_load(&row_part_runs);
}

void rr__cpu_cache_dir(char *out, size_t size)
{
	const char *dir = getenv("RR_CACHE_DIR");
	const char *home = getenv("HOME");
	if (dir && dir[0])
		snprintf(out, size, "%s/cpu", dir);
	else if (home && home[0])
		snprintf(out, size, "%s/.cache/rowreduce/cpu", home);
	else /* per user: a shared /tmp folder could be another user's */
		snprintf(out, size, "/tmp/rowreduce-cache-%ld/cpu", (long)geteuid());
}

static const char *compiler_command(void)
{
	const char *cc = getenv("RR_CC");
	return cc && cc[0] ? cc : "cc";
}

/* Splits `text` on blanks into words[] (pointing into storage); returns the count. */
static int split_words(const char *text, char *storage, size_t size, char **words, int max)
{
	snprintf(storage, size, "%s", text ? text : "");
	int count = 0;
	char *save = NULL;
	for (char *word = strtok_r(storage, " \t\n", &save); word && count < max;
	     word = strtok_r(NULL, " \t\n", &save))
		words[count++] = word;
	return count;
}

/* Runs argv[0] (searched in PATH) with stdout and stderr captured into `output`. An executable
 * that cannot be started is RR_ERR_COMPILE naming it; otherwise *exit_status is its status. */
static rr_status run_captured(char *const argv[], rr__buf *output, int *exit_status)
{
	int fds[2];
	if (pipe(fds) != 0)
		return rr__fail(RR_ERR_COMPILE, "cannot create a pipe for the C compiler: %s",
		                strerror(errno));
	/* Only the dup2'ed copies reach the compiler. */
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	posix_spawn_file_actions_t actions;
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
	posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
	pid_t pid;
	int error = posix_spawnp(&pid, argv[0], &actions, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	close(fds[1]);
	if (error != 0) {
		close(fds[0]);
		return rr__fail(
		    RR_ERR_COMPILE,
		    "cannot run the C compiler '%s': %s (set RR_CC to a working C compiler)",
		    argv[0], strerror(error));
	}
	char chunk[4096];
	ssize_t n;
	while ((n = read(fds[0], chunk, sizeof chunk)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (output->length < CPU_OUTPUT_LIMIT)
			rr__buf_append(output, chunk, (size_t)n);
	}
	close(fds[0]);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	*exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	return RR_OK;
}

/* The first line of `$RR_CC --version`, remembered per device while $RR_CC stays the same. */
static void compiler_identity(cpu_impl *impl, const char *cc, char *out, size_t size)
{
	pthread_mutex_lock(&impl->lock);
	if (impl->identity[0] && strcmp(impl->identity_cc, cc) == 0) {
		snprintf(out, size, "%s", impl->identity);
		pthread_mutex_unlock(&impl->lock);
		return;
	}
	pthread_mutex_unlock(&impl->lock);
	char storage[1024];
	char *words[CPU_MAX_WORDS + 2];
	int count = split_words(cc, storage, sizeof storage, words, CPU_MAX_WORDS);
	words[count++] = "--version";
	words[count] = NULL;
	rr__buf text = {0};
	int exit_status = 0;
	char identity[256] = "unknown compiler";
	if (run_captured(words, &text, &exit_status) == RR_OK && text.data) {
		size_t length = strcspn(text.data, "\n");
		snprintf(identity, sizeof identity, "%.*s", (int)length, text.data);
	}
	rr__buf_free(&text);
	rr__clear_error();
	pthread_mutex_lock(&impl->lock);
	snprintf(impl->identity_cc, sizeof impl->identity_cc, "%s", cc);
	snprintf(impl->identity, sizeof impl->identity, "%s", identity);
	pthread_mutex_unlock(&impl->lock);
	snprintf(out, size, "%s", identity);
}

/* ---------------------------------------------------------------- open and close */

/* The value of the first "field : value" line of /proc/cpuinfo ("" when absent). */
static void cpuinfo_field(const char *field, char *out, size_t size)
{
	out[0] = 0;
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return;
	char *text = NULL;
	size_t capacity = 0;
	size_t length = strlen(field);
	while (getline(&text, &capacity, f) > 0) {
		/* the whole name: "model" is not "model name" */
		if (strncmp(text, field, length) != 0 || !strchr(" \t:", text[length]) ||
		    !strchr(text, ':'))
			continue;
		char *value = strchr(text, ':') + 1;
		value += strspn(value, " \t");
		value[strcspn(value, "\n")] = 0;
		snprintf(out, size, "%s", value);
		break;
	}
	free(text);
	fclose(f);
}

int rr__cpu_alias_stalls(const char *vendor, int family, int model)
{
	if (strcmp(vendor, "GenuineIntel") == 0)
		return 0;
	/* family 25's Zen 4 models: 0x10-0x1f, 0x60-0x7f, 0xa0-0xaf */
	const int zen4 =
	    family == 25 && ((model >= 0x10 && model <= 0x1f) || (model >= 0x60 && model <= 0x7f) ||
	                     (model >= 0xa0 && model <= 0xaf));
	return !(strcmp(vendor, "AuthenticAMD") == 0 && zen4);
}

static void cpu_model(char *out, size_t size)
{
	cpuinfo_field("model name", out, size);
	if (!out[0])
		snprintf(out, size, "CPU");
}

static rr_status cpu_open(rr_device *device)
{
	cpu_impl *impl = calloc(1, sizeof *impl);
	if (!impl)
		return rr__fail(RR_ERR_NOMEM, "out of memory opening the cpu backend");
	pthread_mutex_init(&impl->lock, NULL);
	impl->threads = rr__pool_threads();
	device->impl = impl;
	rr__target_cpu(&device->target);
	char model[128];
	cpu_model(model, sizeof model);
	char flags[8192];
	cpuinfo_field("flags", flags, sizeof flags);
	rr__buf machine = {0};
	rr__buf_printf(&machine, "%s\n%s", model, flags);
	rr__sha256_hex(machine.data ? machine.data : "", machine.length, impl->machine);
	rr__buf_free(&machine);
	snprintf(device->name, sizeof device->name, "%s (%d threads)", model, impl->threads);
	char vendor[64];
	cpuinfo_field("vendor_id", vendor, sizeof vendor);
	char family[32], model_number[32];
	cpuinfo_field("cpu family", family, sizeof family);
	cpuinfo_field("model", model_number, sizeof model_number);
	impl->alias_stalls = rr__cpu_alias_stalls(vendor, atoi(family), atoi(model_number));
	return RR_OK;
}

static void cpu_close(rr_device *device)
{
	cpu_impl *impl = device->impl;
	if (!impl)
		return;
	pthread_mutex_destroy(&impl->lock);
	free(impl);
	device->impl = NULL;
}

static rr_status cpu_emit(rr_device *device, const rr_program *program, rr__buf *source)
{
	rr__emit_request request = {.kernel = program->kernel,
	                            .dtype = program->dtype,
	                            .cols = program->cols,
	                            .layout = &program->layout,
	                            .target = &device->target,
	                            .realisation = &program->realisation};
	return rr__c_emit(&request, source);
}

int64_t rr__cpu_scratch_floats(const rr_kernel *kernel, const rr__realisation *r)
{
	return rr__c_scratch_floats(kernel, r);
}

/* ---------------------------------------------------------------- compile and load */

/* Loads an object whose digest was checked (or just computed) as `digest`. */
static rr_status load_module(rr_program *program, const char *so_path, const char digest[65])
{
	cpu_module *module = calloc(1, sizeof *module);
	if (!module)
		return rr__fail(RR_ERR_NOMEM, "out of memory loading '%s'", so_path);
	module->handle = dlopen(so_path, RTLD_NOW | RTLD_LOCAL);
	if (!module->handle) {
		const char *why = dlerror();
		free(module);
		return rr__fail(RR_ERR_COMPILE, "cannot load the compiled kernel '%s': %s", so_path,
		                why ? why : "unknown reason");
	}
	module->kernel = (rr__cpu_kernel_fn)dlsym(module->handle, RR_CPU_KERNEL_SYMBOL);
	module->scratch_floats = (rr__cpu_scratch_fn)dlsym(module->handle, RR_CPU_SCRATCH_SYMBOL);
	if (!module->kernel || !module->scratch_floats) {
		dlclose(module->handle);
		free(module);
		return rr__fail(RR_ERR_COMPILE, "the compiled kernel '%s' lacks %s or %s", so_path,
		                RR_CPU_KERNEL_SYMBOL, RR_CPU_SCRATCH_SYMBOL);
	}
	const int64_t floats = rr__cpu_scratch_floats(program->kernel, &program->realisation);
	const int64_t asked = module->scratch_floats(program->cols);
	if (asked != floats) {
		dlclose(module->handle);
		free(module);
		return rr__fail(RR_ERR_INTERNAL,
		                "kernel '%s' asks for %lld floats of scratch per thread but its "
		                "realisation says %lld",
		                program->kernel->name, (long long)asked, (long long)floats);
	}
	module->scratch = floats;
	module->row_part = (rr__cpu_row_part_fn)dlsym(module->handle, RR_CPU_ROW_PART_SYMBOL);
	rr__cpu_row_parts_fn parts =
	    (rr__cpu_row_parts_fn)dlsym(module->handle, RR_CPU_ROW_PARTS_SYMBOL);
	rr__cpu_row_share_fn share =
	    (rr__cpu_row_share_fn)dlsym(module->handle, RR_CPU_ROW_SHARE_SYMBOL);
	module->row_parts = module->row_part && parts && share ? parts() : 1;
	module->share_floats = module->row_part && parts && share ? share() : 0;
	memcpy(program->binary_hash, digest, 65);
	program->module = module;
	return RR_OK;
}

/* The compiler's command line: `words` (compiler and flags), the prelude when there is one,
 * then the object, the source and libm. */
static void compile_argv(char **argv, char *const *words, int count, const char *prelude,
                         char *object, char *source)
{
	int n = 0;
	for (int k = 0; k < count; k++)
		argv[n++] = words[k];
	if (prelude) {
		argv[n++] = "-include";
		argv[n++] = (char *)prelude;
	}
	argv[n++] = "-o";
	argv[n++] = object;
	argv[n++] = source;
	argv[n++] = "-lm";
	argv[n] = NULL;
}

/* Writes <key>.c and compiles it into <key>.so, with its digest <key>.so.sha256 (written
 * first: a reader that finds the new object finds its digest). Each file is first written under
 * a name of this process and call, then renamed, so concurrent builds (threads or processes) of
 * one program never see half a file; the compiler always reads <key>.c, whose name ends up in
 * the object, so the object's bytes (and digest) do not depend on who built it. */
static rr_status run_compiler(const rr_program *program, char **words, int count,
                              const char *prelude, const char *key_path, char digest[65])
{
	char unique[4300], temp_source[4400], temp_so[4400], source[4400], so_path[4400];
	snprintf(unique, sizeof unique, "%s.%ld.%ld", key_path, (long)getpid(),
	         atomic_fetch_add(&temp_counter, 1));
	snprintf(temp_source, sizeof temp_source, "%s.c.tmp", unique);
	snprintf(temp_so, sizeof temp_so, "%s.so.tmp", unique);
	snprintf(source, sizeof source, "%s.c", key_path);
	snprintf(so_path, sizeof so_path, "%s.so", key_path);
	rr_status status =
	    rr__write_file_atomic(temp_source, program->source, strlen(program->source));
	if (status == RR_OK && rename(temp_source, source) != 0)
		status =
		    rr__fail(RR_ERR_IO, "cannot move the generated source into place at '%s': %s",
		             source, strerror(errno));
	if (status != RR_OK) {
		unlink(temp_source);
		return status;
	}
	char *argv[2 * CPU_MAX_WORDS + 16];
	rr__buf output = {0};
	int exit_status = 0;
	atomic_fetch_add(&compiler_runs, 1);
	compile_argv(argv, words, count, prelude, temp_so, source);
	status = run_captured(argv, &output, &exit_status);
	if (status == RR_OK && exit_status != 0 && prelude) {
		/* Perhaps a damaged precompiled prelude: once more without it, and remove it. */
		char gch[4400];
		snprintf(gch, sizeof gch, "%s.gch", prelude);
		unlink(gch);
		compile_argv(argv, words, count, NULL, temp_so, source);
		rr__buf_free(&output);
		status = run_captured(argv, &output, &exit_status);
	}
	if (status == RR_OK && exit_status != 0) {
		status = rr__fail(
		    RR_ERR_COMPILE,
		    "the C compiler '%s' rejected the generated source of kernel '%s' "
		    "(exit status %d; source kept at %s)%s%s",
		    words[0], program->kernel->name, exit_status, source,
		    output.length ? ":\n" : " and printed nothing", output.data ? output.data : "");
	}
	rr__buf_free(&output);
	if (status == RR_OK)
		status = rr__sha256_file(temp_so, digest);
	if (status == RR_OK)
		status = rr__cache_digest_write(so_path, digest);
	if (status == RR_OK && rename(temp_so, so_path) != 0)
		status =
		    rr__fail(RR_ERR_IO, "cannot move the compiled kernel into place at '%s': %s",
		             so_path, strerror(errno));
	if (status != RR_OK)
		unlink(temp_so);
	return status;
}

/* ---------------------------------------------------------------- the precompiled prelude */

/* Whether `path` starts as GCC's ("gpch") or Clang's ("CPCH") precompiled headers do. */
static int precompiled_header(const char *path)
{
	char magic[4] = {0};
	FILE *f = fopen(path, "rb");
	size_t got = f ? fread(magic, 1, sizeof magic, f) : 0;
	if (f)
		fclose(f);
	return got == sizeof magic &&
	       (memcmp(magic, "gpch", 4) == 0 || memcmp(magic, "CPCH", 4) == 0);
}

/* The system headers of every generated source (rr__c_prelude), precompiled once per compiler,
 * machine and flags into <cache>/prelude-<key>/rr_prelude.h.gch. A kernel's compile passes
 * `-include rr_prelude.h`, and a compiler that reads precompiled headers then loads the binary
 * form instead of parsing the intrinsics headers again (GCC on x86-64, -O1 -march=native: a
 * kernel's compile 0.61-0.68 s with the headers as text, 0.18-0.21 s with them precompiled,
 * into the same bytes; tests/test_cpu.c checks the bytes). Only the time depends on it: a
 * compiler that cannot build or read it includes the same headers as text, a failed build is
 * remembered (the file `unusable`), a .gch that does not start as one is rebuilt, and a kernel
 * compile that fails with the prelude is run again without it (a cut .gch), which removes it.
 * Sets `header` and returns 1 when the prelude is ready. */
static int prelude_ready(char **words, int count, const char *identity, const char *machine,
                         const char *dir, char *header, size_t size)
{
	rr__buf text = {0}, key_text = {0};
	rr__c_prelude(&text);
	rr__buf_printf(&key_text, "%s\n--\n%s\n%s\n", text.data ? text.data : "", identity,
	               machine);
	for (int k = 0; k < count; k++)
		rr__buf_printf(&key_text, "%s%s", k ? " " : "", words[k]);
	int ready = 0;
	if (text.failed || key_text.failed || !text.data)
		goto done;
	char key[65], folder[4200], gch[4400], unusable[4400], temp[4500];
	rr__sha256_hex(key_text.data, key_text.length, key);
	snprintf(folder, sizeof folder, "%s/prelude-%.24s", dir, key);
	snprintf(header, size, "%s/rr_prelude.h", folder);
	snprintf(gch, sizeof gch, "%s.gch", header);
	snprintf(unusable, sizeof unusable, "%s/unusable", folder);
	struct stat st;
	if (lstat(gch, &st) == 0 && S_ISREG(st.st_mode)) {
		if (precompiled_header(gch)) {
			ready = 1;
			goto done;
		}
		unlink(gch); /* damaged: GCC would skip it silently and parse the text each time */
	}
	if (lstat(unusable, &st) == 0 || rr__mkdir_p_mode(folder, 0700) != RR_OK)
		goto done;
	if (rr__write_file_atomic(header, text.data, text.length) != RR_OK)
		goto done;
	snprintf(temp, sizeof temp, "%s.%ld.%ld.tmp", gch, (long)getpid(),
	         atomic_fetch_add(&temp_counter, 1));
	char *argv[2 * CPU_MAX_WORDS + 16];
	int n = 0;
	for (int k = 0; k < count; k++)
		if (strcmp(words[k], "-shared") != 0)
			argv[n++] = words[k];
	argv[n++] = "-x";
	argv[n++] = "c-header";
	argv[n++] = header;
	argv[n++] = "-o";
	argv[n++] = temp;
	argv[n] = NULL;
	rr__buf output = {0};
	int exit_status = 1;
	if (run_captured(argv, &output, &exit_status) == RR_OK && exit_status == 0 &&
	    lstat(temp, &st) == 0 && S_ISREG(st.st_mode) && rename(temp, gch) == 0)
		ready = 1;
	else
		(void)rr__write_file_atomic(unusable, output.data ? output.data : "",
		                            output.data ? output.length : 0);
	rr__buf_free(&output);
	unlink(temp);
done:
	rr__clear_error();
	rr__buf_free(&text);
	rr__buf_free(&key_text);
	return ready;
}

/* A cached object is loaded only after its digest matched: dlopen of a cut object can die of
 * SIGBUS, and a swapped one would run another kernel. A mismatch or a failed load rebuilds it,
 * said once on stderr; a failure of the fresh build is the caller's error. A build first makes
 * sure of the precompiled prelude (prelude_ready). */
static rr_status load_or_build(rr_program *program, char **words, int count, const cpu_impl *impl,
                               const char *identity, const char *dir, const char *key_path)
{
	char so_path[4300], digest[65];
	snprintf(so_path, sizeof so_path, "%s.so", key_path);
	struct stat st;
	if (lstat(so_path, &st) == 0) {
		rr_status status = rr__cache_object_check(so_path, digest);
		if (status == RR_OK) {
			status = load_module(program, so_path, digest);
			if (status != RR_OK)
				rr__fail_context(status, "failed to load");
		}
		if (status == RR_OK)
			return RR_OK;
		rr__warn("the cached kernel object %s %s: rebuilding it", so_path, rr_last_error());
		rr__clear_error();
		rr__cache_remove(so_path);
	}
	char header[4300];
	int prelude =
	    prelude_ready(words, count, identity, impl->machine, dir, header, sizeof header);
	rr_status status =
	    run_compiler(program, words, count, prelude ? header : NULL, key_path, digest);
	if (status != RR_OK)
		return status;
	return load_module(program, so_path, digest);
}

static rr_status cpu_compile(rr_device *device, rr_program *program)
{
	cpu_impl *impl = device->impl;
	const char *cc = compiler_command();
	char cc_storage[1024], flag_storage[1024];
	char *words[2 * CPU_MAX_WORDS + 16];
	int count = split_words(cc, cc_storage, sizeof cc_storage, words, CPU_MAX_WORDS);
	if (count == 0)
		return rr__fail(RR_ERR_COMPILE, "RR_CC is blank: set it to a C compiler, e.g. cc");
	for (size_t k = 0; k < sizeof base_flags / sizeof base_flags[0]; k++)
		words[count++] = (char *)base_flags[k];
	count += split_words(getenv("RR_CFLAGS"), flag_storage, sizeof flag_storage, words + count,
	                     CPU_MAX_WORDS);

	/* The key: the source, the compiler's identity and every flag. */
	char identity[256];
	compiler_identity(impl, cc, identity, sizeof identity);
	rr__buf key_text = {0};
	rr__buf_printf(&key_text, "%s\n--\n%s\n%s\n", program->source, identity, impl->machine);
	for (int k = 0; k < count; k++)
		rr__buf_printf(&key_text, "%s%s", k ? " " : "", words[k]);
	if (key_text.failed) {
		rr__buf_free(&key_text);
		return rr__fail(RR_ERR_NOMEM, "out of memory compiling kernel '%s'",
		                program->kernel->name);
	}
	char key[65];
	rr__sha256_hex(key_text.data, key_text.length, key);
	rr__buf_free(&key_text);

	char dir[4096], key_path[4200];
	rr__cpu_cache_dir(dir, sizeof dir);
	rr_status status = rr__cache_dir_prepare(dir, "cpu compile cache");
	if (status != RR_OK)
		return status;
	snprintf(key_path, sizeof key_path, "%s/%s", dir, key);
	return load_or_build(program, words, count, impl, identity, dir, key_path);
}

static void cpu_unload(rr_device *device, rr_program *program)
{
	(void)device;
	cpu_module *module = program->module;
	if (!module)
		return;
	dlclose(module->handle);
	free(module);
	program->module = NULL;
}

/* ---------------------------------------------------------------- launch */

typedef struct cpu_task {
	rr__cpu_kernel_fn kernel;
	int64_t cols;
	const void *const *inputs;
	const double *params;
	void *const *outputs;
	int stream;
	/* called[t]: thread t ran a chunk of this launch, so the cols the kernel widened into
	 * its scratch then still hold (RR_CPU_COLS_READY); each thread writes its own entry. */
	unsigned char called[CPU_MAX_THREADS];
	/* rows [split_begin, rows) split over threads (split_rows) */
	rr__cpu_row_part_fn row_part;
	int64_t split_begin, rows;
	unsigned long long *arrived;
	float *shared;
} cpu_task;

static void run_rows(void *context, int thread, int64_t begin, int64_t end, float *scratch)
{
	cpu_task *task = context;
	int flags = task->stream;
	if (thread >= 0 && thread < CPU_MAX_THREADS) {
		flags |= task->called[thread] ? RR_CPU_COLS_READY : 0;
		task->called[thread] = 1;
	}
	task->kernel(begin, end, task->cols, task->inputs, task->params, task->outputs, scratch,
	             flags);
}

/* Part `part` of `parts` of each row split over threads: 16-bit cols widened again (the run
 * may give a thread scratch of its own anew). */
static void run_parts(void *context, int thread, int64_t part, int64_t parts, float *scratch)
{
	cpu_task *task = context;
	(void)thread;
	task->row_part(task->split_begin, task->rows, (int)part, (int)parts, task->cols,
	               task->inputs, task->params, task->outputs, scratch, 0, task->arrived,
	               task->shared);
}

static int launch_threads(const cpu_impl *impl, int64_t rows)
{
	int threads = impl->threads;
	const char *env = getenv("RR_THREADS");
	if (env && atoi(env) > 0 && atoi(env) < threads)
		threads = atoi(env);
	if (rows < threads)
		threads = (int)rows;
	return threads < 1 ? 1 : threads;
}

/* The distance of two addresses modulo 4 KiB, either way round. */
static unsigned page_distance(const void *a, const void *b)
{
	unsigned d = (unsigned)(((uintptr_t)a - (uintptr_t)b) % 4096);
	return d < 4096 - d ? d : 4096 - d;
}

int rr__cpu_outputs_alias(const void *const *inputs, int n_in, void *const *outputs, int n_out)
{
	for (int j = 0; j < n_out; j++)
		for (int o = j + 1; o < n_out; o++) {
			if (page_distance(outputs[j], outputs[o]) > RR_CPU_ALIAS_BYTES)
				continue;
			for (int k = 0; k < n_in; k++)
				if (page_distance(inputs[k], outputs[j]) <= RR_CPU_ALIAS_BYTES ||
				    page_distance(inputs[k], outputs[o]) <= RR_CPU_ALIAS_BYTES)
					return 1;
		}
	return 0;
}

/* From RR_CPU_STREAM_BYTES of row bytes (target/target.h) a launch writes its row outputs past
 * the caches: a launch this large does not stay in the last-level cache anyway, and a
 * non-temporal store spares the read of each output line before it is written. rmsnorm f32 W=16
 * S=reread, e2e: 16384x1024 (128 MiB) 3.05-3.18 ms
 * -> 2.60-2.67, 1024x4096 (32 MiB) 451-492 µs -> 435-449; 768x4096 (24 MiB) 266-288 -> 316-326
 * and 256x4096 57 -> 103 (there the output stays in cache for the next call). RR_STREAM_BYTES
 * sets another bound (tests force it on small launches). Not where the row arrays alias as
 * rr__cpu_outputs_alias says, on CPUs where that stalls (cpu_impl.alias_stalls). */
static int streams(const cpu_impl *impl, const rr_program *program, int64_t rows,
                   const void *const *inputs, void *const *outputs)
{
	const void *row_in[RR_MAX_IO];
	void *row_out[RR_MAX_IO];
	int n_in = 0, n_out = 0;
	for (int k = 0; k < program->kernel->n_inputs; k++)
		if (program->kernel->inputs[k].kind == RR_KIND_ROW)
			row_in[n_in++] = inputs[k];
	for (int j = 0; j < program->kernel->n_outputs; j++)
		if (program->kernel->outputs[j].kind == RR_KIND_ROW)
			row_out[n_out++] = outputs[j];
	double bound = RR_CPU_STREAM_BYTES;
	const char *env = getenv("RR_STREAM_BYTES");
	if (env && *env)
		bound = atof(env);
	return (double)(n_in + n_out) * (double)rows * (double)program->cols *
	               (double)rr_dtype_size(program->dtype) >=
	           bound &&
	       !(impl->alias_stalls && rr__cpu_outputs_alias(row_in, n_in, row_out, n_out));
}

/* Floats the parts of a split row exchange through, at most (on the launching thread's stack):
 * two sets of 64 vectors of 16, W = 1024 with AVX-512. */
#define CPU_SHARE_FLOATS 2048

/* Rows a launch splits over threads, the last ones: where M rows leave `left` = M mod T of T
 * threads and `left` is under the parts P a row takes (two, at most T), each of those rows
 * runs in P parts on P threads (same bits: c_emit.h's rr_cpu_row_part), left / P of a row's
 * time instead of one row's with T - left threads idle (7 rows on 2 threads: 3.5 rows' time
 * instead of 4). Only on sources that have parts (rows of RR_CPU_PARTS_MIN_N and more), rows
 * of RR_CPU_SPLIT_ROW_BYTES (RR_CPU_SPLIT_WRITTEN_ROW_BYTES where the kernel writes rows;
 * target/target.h), and not where the launch streams its row
 * outputs: the parts store through the caches (rmsnorm f32 7x777777, streamed, 1.05 of the
 * time split). The planner knows the same rule (plan.c's prefer_part_spans).
 * RR_CPU_ROW_PARTS=0 splits none, =all every row whatever its length (tests). */
static int64_t split_rows(const cpu_module *module, const rr_program *program, int threads,
                          int64_t rows, int stream)
{
	const char *env = getenv("RR_CPU_ROW_PARTS");
	if (!module->row_part || module->share_floats > CPU_SHARE_FLOATS || threads < 2 ||
	    module->row_parts < 2 || (env && strcmp(env, "0") == 0))
		return 0;
	if (env && strcmp(env, "all") == 0)
		return rows;
	int arrays = 0, outputs = 0;
	for (int k = 0; k < program->kernel->n_inputs; k++)
		arrays += program->kernel->inputs[k].kind == RR_KIND_ROW;
	for (int j = 0; j < program->kernel->n_outputs; j++)
		outputs += program->kernel->outputs[j].kind == RR_KIND_ROW;
	/* the online pair's split (max pass, then the sum's): its whole-row passes (aligned
	 * extrema, the cache finished in place) are not the parts', which ran softmax f32 1x131073
	 * at W = 1024 in 1.96 times the whole row's time (bench/NOTES.md, session 40) */
	if ((stream && outputs > 0) ||
	    program->cols <= rr__c_split_max_cols(program->kernel, program->dtype))
		return 0;
	arrays += outputs;
	if ((double)arrays * (double)program->cols * (double)rr_dtype_size(program->dtype) <
	    (outputs > 0 ? RR_CPU_SPLIT_WRITTEN_ROW_BYTES : RR_CPU_SPLIT_ROW_BYTES))
		return 0;
	const int parts = module->row_parts < threads ? module->row_parts : threads;
	const int64_t left = rows % threads;
	return left < parts ? left : 0;
}

/* Rows per chunk: about 32 chunks per thread, so a thread done with its own share takes small
 * pieces of the others' and the launch ends nearly together (8 a thread before; on the
 * AVX-512 Xeon, two threads, sum f32 1024x4096 0.90-0.92 of the time, softmax bf16 1024x1024
 * 0.89-0.95: bench/NOTES.md, session 18), but no chunk under ~64 KiB of row data (a chunk
 * costs one atomic add, and neighbouring rows stay on one thread). */
static int64_t rows_per_chunk(int64_t rows, int64_t cols, int threads)
{
	int64_t chunk = (rows + 32 * threads - 1) / (32 * threads);
	int64_t least = cols > 0 ? (16384 + cols - 1) / cols : 1;
	chunk = chunk < least ? least : chunk;
	return chunk < 1 ? 1 : chunk;
}

static rr_status cpu_launch(rr_device *device, rr_program *program, int64_t rows,
                            const rr_arg *inputs, void *const *outputs, void *stream)
{
	(void)stream;
	const cpu_module *module = program->module;
	const void *pointers[RR_MAX_IO] = {0};
	double params[RR_MAX_IO] = {0};
	for (int k = 0; k < program->kernel->n_inputs; k++) {
		pointers[k] = inputs[k].data;
		params[k] = inputs[k].value;
	}
	const int all = launch_threads(device->impl, INT64_MAX);
	const int streamed = streams(device->impl, program, rows, pointers, outputs);
	const int64_t split = split_rows(module, program, all, rows, streamed),
	              whole = rows - split;
	int threads = launch_threads(device->impl, whole);
	_Alignas(64) float shared[CPU_SHARE_FLOATS];
	_Alignas(64) unsigned long long arrived = 0;
	cpu_task task = {.kernel = module->kernel,
	                 .cols = program->cols,
	                 .inputs = pointers,
	                 .params = params,
	                 .outputs = outputs,
	                 .stream = streamed,
	                 .row_part = module->row_part,
	                 .split_begin = whole,
	                 .rows = rows,
	                 .arrived = &arrived,
	                 .shared = shared};
	rr_status status =
	    rr__pool_run(threads, whole, rows_per_chunk(whole, program->cols, threads),
	                 module->scratch, run_rows, &task);
	if (status == RR_OK && split > 0) {
		status = rr__pool_run_each(module->row_parts < all ? module->row_parts : all,
		                           module->scratch, run_parts, &task);
		atomic_fetch_add(&row_part_runs, 1);
	}
	return status;
}

/* ---------------------------------------------------------------- memory */

static rr_status cpu_alloc(rr_device *device, size_t bytes, void **out)
{
	(void)device;
	void *ptr = NULL;
	/* Device memory is host memory: checked first, so a huge buffer fails instead of
	 * swapping. */
	rr_status status = rr__host_memory_check(bytes, "a buffer of the cpu backend");
	if (status != RR_OK)
		return status;
	if (posix_memalign(&ptr, 64, bytes ? bytes : 64) != 0)
		return rr__fail(RR_ERR_NOMEM, "out of memory allocating %zu bytes", bytes);
	*out = ptr;
	return RR_OK;
}

static void cpu_free(rr_device *device, void *ptr)
{
	(void)device;
	free(ptr);
}

static rr_status cpu_copy_bytes(rr_device *device, void *dst, const void *src, size_t bytes)
{
	(void)device;
	if (bytes)
		memmove(dst, src, bytes);
	return RR_OK;
}

/* ---------------------------------------------------------------- ceilings */

/* One thread's share of a ceiling pass: a copy (dst set) or a read (sum kept in `sink`). */
typedef struct cpu_span {
	char *dst;
	const char *src;
	size_t bytes;
	float sink;
} cpu_span;

static void copy_span(cpu_span *span)
{
	memcpy(span->dst, span->src, span->bytes);
}

/* Sixteen independent lanes: the compiler turns the inner loop into vector loads and adds
 * without reassociating anything, so the pass is bound by memory, not by a dependency chain. */
static void read_span(cpu_span *span)
{
	const float *p = (const float *)(const void *)span->src;
	size_t n = span->bytes / sizeof(float), i = 0;
	float lanes[16] = {0};
	for (; i + 16 <= n; i += 16)
		for (int l = 0; l < 16; l++)
			lanes[l] += p[i + l];
	for (; i < n; i++)
		lanes[0] += p[i];
	float total = 0;
	for (int l = 0; l < 16; l++)
		total += lanes[l];
	span->sink = total;
}

typedef struct cpu_spans {
	cpu_span span[CPU_MAX_THREADS];
	void (*fn)(cpu_span *);
} cpu_spans;

static void run_spans(void *context, int thread, int64_t begin, int64_t end, float *scratch)
{
	(void)thread;
	(void)scratch;
	cpu_spans *spans = context;
	for (int64_t t = begin; t < end; t++)
		spans->fn(&spans->span[t]);
}

/* Splits `bytes` into one 64-byte aligned span per launch thread, on the pool kernels use. */
static float over_threads(rr_device *device, void *dst, const void *src, size_t bytes,
                          void (*fn)(cpu_span *))
{
	int threads = launch_threads(device->impl, (int64_t)(bytes / 4096) + 1);
	static cpu_spans spans; /* the pool runs one launch at a time; too big for the stack */
	static pthread_mutex_t spans_lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_lock(&spans_lock);
	spans.fn = fn;
	size_t at = 0;
	for (int t = 0; t < threads; t++) {
		size_t end =
		    t + 1 == threads ? bytes : bytes / (size_t)threads * (size_t)(t + 1) / 64 * 64;
		spans.span[t] = (cpu_span){.dst = dst ? (char *)dst + at : NULL,
		                           .src = (const char *)src + at,
		                           .bytes = end - at};
		at = end;
	}
	rr_status status = rr__pool_run(threads, threads, 1, 0, run_spans, &spans);
	if (status != RR_OK) /* no scratch was asked for: cannot happen, but never skip work */
		for (int t = 0; t < threads; t++)
			fn(&spans.span[t]);
	float sink = 0;
	for (int t = 0; t < threads; t++)
		sink += spans.span[t].sink;
	pthread_mutex_unlock(&spans_lock);
	return sink;
}

static rr_status cpu_copy(rr_device *device, void *dst, const void *src, size_t bytes, void *stream)
{
	(void)stream;
	if (bytes)
		over_threads(device, dst, src, bytes, copy_span);
	return RR_OK;
}

static volatile float read_sink; /* keeps the read pass from being optimised away */

static rr_status cpu_read_pass(rr_device *device, const void *src, size_t bytes, void *stream)
{
	(void)stream;
	if (bytes)
		read_sink = over_threads(device, NULL, src, bytes, read_span);
	return RR_OK;
}

static void cpu_read_pass_words(rr_device *device, char *out, size_t size)
{
	const cpu_impl *impl = device->impl;
	snprintf(out, size,
	         "a vectorised sum over %d thread%s, the library's own loop rather than a "
	         "rowreduce kernel",
	         launch_threads(impl, INT64_MAX), launch_threads(impl, INT64_MAX) == 1 ? "" : "s");
}

static rr_status cpu_target_for_arch(const char *arch, rr__target *out)
{
	if (arch)
		return rr__fail(RR_ERR_INVALID_ARG,
		                "the cpu backend has no architectures to choose (got '%s')", arch);
	rr__target_cpu(out);
	return RR_OK;
}

static rr_status cpu_synchronize(rr_device *device)
{
	(void)device;
	return RR_OK; /* launches return when their rows are done */
}

static rr_status cpu_properties(rr_device *device, rr__device_properties *out)
{
	cpu_impl *impl = device->impl;
	memset(out, 0, sizeof *out);
	cpu_model(out->name, sizeof out->name);
	out->multiprocessors = impl->threads;
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	out->memory_bytes = pages > 0 && page > 0 ? (int64_t)pages * page : 0;
#ifdef _SC_LEVEL2_CACHE_SIZE
	long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
	out->l2_bytes = l2 > 0 ? l2 : 0;
#endif
	compiler_identity(impl, compiler_command(), out->compiler_version,
	                  sizeof out->compiler_version);
	return RR_OK;
}

const rr__backend_ops rr__cpu_backend = {
    .version = RR_BACKEND_OPS_VERSION,
    .name = "cpu",
    .report =
        {
            .copy_words = "memory copy",
            .cache_words = "last-level cache",
            .source_suffix = "c",
            .bandwidth_unit = "GB/s",
            .bandwidth_bytes_per_us = 1e3,
            .headline_on_device = 0,
            .ceiling_note = NULL,
            .copy_bytes = (int64_t)256 << 20,
            .read_rows = 2048,
            .read_cols = 16384,
            .cold_cache_bytes = (int64_t)64 << 20,
            .numbered_devices = 0,
        },
    .target_for_arch = cpu_target_for_arch,
    .open = cpu_open,
    .close = cpu_close,
    .emit = cpu_emit,
    .compile = cpu_compile,
    .unload = cpu_unload,
    .launch = cpu_launch,
    .alloc = cpu_alloc,
    .free = cpu_free,
    .upload = cpu_copy_bytes,
    .download = cpu_copy_bytes,
    .copy = cpu_copy,
    .synchronize = cpu_synchronize,
    .read_pass = cpu_read_pass,
    .read_pass_words = cpu_read_pass_words,
    .properties = cpu_properties,
};

/* The generated CUDA C run on the CPU: each plan's source is compiled by the host C++ compiler
 * with tests/cuda_sim.h (one fiber, a stack of its own, per CUDA thread; barriers for
 * __syncthreads, warp shuffles and cluster barriers where a thread waits for all the others;
 * one copy of the shared object per cluster block, so shared memory and distributed shared
 * memory are per block) and its outputs are validated against the float64 reference. This
 * checks the emitter's indexing, tails, trees, storage and clusters without a GPU; it does not
 * check PTX-only details (those are test_cuda_ptx's). Skipped (77) without a C++ compiler. */
#include <dlfcn.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "program/program.h"
#include "codegen/cuda_emit.h"
#include "cuda_sim.h"
#include "harness.h"
#include "rowreduce.h"
#include "util/util.h"
#include "validate/validate.h"

#define MAX_RANKS 64
#define MAX_THREADS 1024

#if defined(__SANITIZE_ADDRESS__)
#define SIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SIM_ASAN 1
#endif
#endif
#ifdef SIM_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

/* ---------------------------------------------------------------- the simulated machine */

typedef struct sim_module {
	int copies;
	void *handle[MAX_RANKS];
	void (*entry[MAX_RANKS])(int, void **);
	void (*set_ids[MAX_RANKS])(unsigned, unsigned, unsigned);
	void (*cols)(void **); /* rr_sim_cols: writes the col inputs' copies */
	float *cl[MAX_RANKS];                /* each block's rr_cl, for distributed shared memory */
	unsigned long long *mbar[MAX_RANKS]; /* each block's rr_mbar, the mailboxes' barriers */
} sim_module;

/* A barrier of `count` simulated threads: the last to arrive starts the next round. */
typedef struct sim_barrier {
	int count, arrived;
	unsigned round;
} sim_barrier;

static struct {
	int threads, ranks;
	sim_barrier block[MAX_RANKS];
	sim_barrier warp[MAX_RANKS][MAX_THREADS / 32];
	sim_barrier cluster;
	float exchange[2][MAX_RANKS][MAX_THREADS]; /* a shuffle's values, two slots in turn */
	float *cl[MAX_RANKS];
	unsigned long long *mbar[MAX_RANKS];
} sim;

typedef struct sim_thread {
	const sim_module *module;
	int rank, thread;
	unsigned block, grid;
	int vec;
	void **params;
} sim_thread;

/* One simulated thread: a fiber with its own stack, all of a launch's in the test's thread. */
typedef struct sim_fiber {
	ucontext_t context;
	char *stack;       /* FIBER_STACK bytes above a guard page */
	unsigned shuffles; /* this launch's shuffles so far */
	const sim_thread *task;
	int index, done;
	void *fake_stack; /* AddressSanitizer's, while switched away */
} sim_fiber;

static sim_fiber *me; /* the fiber running now */

#define my_rank (me->task->rank)
#define my_thread (me->task->thread)

static void fiber_yield(void);

static void barrier_wait(sim_barrier *b)
{
	unsigned round = b->round;
	if (++b->arrived == b->count) {
		b->arrived = 0;
		b->round++;
		return;
	}
	while (b->round == round)
		fiber_yield();
}

static void barrier_init(sim_barrier *b, int count)
{
	*b = (sim_barrier){.count = count};
}

static void hook_sync_block(void)
{
	barrier_wait(&sim.block[my_rank]);
}

/* One barrier a shuffle: the lanes write slot k % 2 of the exchange, meet, read their partner.
 * A lane writes that slot again only at shuffle k + 2, after the barrier of shuffle k + 1,
 * which every lane of the warp reaches only after its read of shuffle k. */
static float hook_shfl_xor(float value, int offset)
{
	sim_barrier *warp = &sim.warp[my_rank][my_thread / 32];
	float(*slot)[MAX_THREADS] = sim.exchange[me->shuffles++ & 1u];
	slot[my_rank][my_thread] = value;
	barrier_wait(warp);
	int lane = my_thread % 32;
	return slot[my_rank][my_thread - lane + (lane ^ offset)];
}

static void hook_cluster_sync(void)
{
	barrier_wait(&sim.cluster);
}

static unsigned hook_cluster_rank(void)
{
	return (unsigned)my_rank;
}

static float hook_cluster_load(const float *local, unsigned rank)
{
	return sim.cl[rank][local - sim.cl[my_rank]];
}

/* An mbarrier as the mailboxes use it: bit 63 the phase's parity, bits 48-62 the arrivals a
 * phase, bits 32-47 those still pending, bits 0-31 the transaction count (signed: pushes may
 * come before the arrival that expects them). A phase completes when both are zero. A state
 * is the parity of the phase it was taken in. */
#define MBAR_PHASE (1ull << 63)
#define MBAR_COUNT(w) ((w) >> 48 & 0x7fffull)
#define MBAR_PENDING(w) ((w) >> 32 & 0xffffull)

static unsigned long long mbar_word(unsigned long long phase, unsigned long long count,
                                    unsigned long long pending, int32_t tx)
{
	return phase | count << 48 | pending << 32 | (uint32_t)tx;
}

static void mbar_complete_if_done(unsigned long long *bar)
{
	unsigned long long w = *bar;
	if (MBAR_PENDING(w) == 0 && (int32_t)(uint32_t)w == 0)
		*bar = mbar_word((w & MBAR_PHASE) ^ MBAR_PHASE, MBAR_COUNT(w), MBAR_COUNT(w), 0);
}

static void hook_mbar_init(unsigned long long *bar, int count)
{
	*bar = mbar_word(0, (unsigned long long)count, (unsigned long long)count, 0);
}

static unsigned long long hook_mbar_arrive(unsigned long long *bar, unsigned bytes)
{
	unsigned long long w = *bar, state = w & MBAR_PHASE;
	if (MBAR_PENDING(w) == 0) {
		fprintf(stderr, "mbarrier: an arrival on a phase that has none pending\n");
		abort();
	}
	*bar = mbar_word(state, MBAR_COUNT(w), MBAR_PENDING(w) - 1,
	                 (int32_t)(uint32_t)w + (int32_t)bytes);
	mbar_complete_if_done(bar);
	return state;
}

/* The remote copies: the same offset in block `rank`'s arrays as `local` in this block's. */
static void hook_mail_push(float *slot, unsigned rank, float v, unsigned long long *bar)
{
	sim.cl[rank][slot - sim.cl[my_rank]] = v;
	unsigned long long *remote = sim.mbar[rank] + (bar - sim.mbar[my_rank]), w = *remote;
	*remote =
	    mbar_word(w & MBAR_PHASE, MBAR_COUNT(w), MBAR_PENDING(w), (int32_t)(uint32_t)w - 4);
	mbar_complete_if_done(remote);
}

static void hook_mbar_wait(unsigned long long *bar, unsigned long long state)
{
	while ((*bar & MBAR_PHASE) == state)
		fiber_yield();
}

/* The arrays a launch may read (run_checked names them; none: reads go unchecked). */
static struct {
	int count;
	uintptr_t begin[RR_MAX_IO + 1], end[RR_MAX_IO + 1];
	atomic_long stray;      /* reads that fall outside every one of them */
	atomic_long misaligned; /* reads not on a multiple of their size (a fault on the GPU) */
} readable;

static void hook_check_read(const void *p, unsigned long bytes)
{
	uintptr_t at = (uintptr_t)p;
	if (readable.count > 0 && at % bytes != 0)
		atomic_fetch_add(&readable.misaligned, 1);
	for (int k = 0; k < readable.count; k++)
		if (at >= readable.begin[k] && at + bytes <= readable.end[k])
			return;
	if (readable.count > 0)
		atomic_fetch_add(&readable.stray, 1);
}

/* The blocks of one row group run together (sim_launch), so the group's barrier is all of
 * their threads: the cluster's barrier. */
static rr_sim_hooks_t hooks = {hook_sync_block,   hook_shfl_xor,     hook_cluster_sync,
                               hook_cluster_rank, hook_cluster_load, hook_mbar_init,
                               hook_mbar_arrive,  hook_mail_push,    hook_mbar_wait,
                               hook_cluster_sync, hook_check_read};

/* The simulated threads: fibers that take turns in the test's own thread, a simulated thread
 * running until it must wait (a barrier, an mbarrier's phase) and yielding to the next then.
 * OS threads, one a simulated thread, spent most of this test's time in the kernel's futex
 * wake-ups and context switches (up to a thousand threads meeting at each shuffle's barrier
 * on two cores). The turns go up the thread index in one run of a cluster and down it in the
 * next, so a read of another thread's store that lacks a barrier between them finds the old
 * value in one of the two orders. Fibers and their stacks are made once, reused by every
 * launch. */
#define FIBER_STACK (256 << 10)

static struct {
	int count; /* fibers made so far */
	int n, live, step;
	unsigned launches;
	sim_fiber *fiber[MAX_RANKS * MAX_THREADS];
	sim_thread task[MAX_RANKS * MAX_THREADS];
	ucontext_t main; /* the test's own stack, while the fibers run */
	void *main_fake_stack;
	const void *main_bottom; /* AddressSanitizer's switches back to it need its bounds */
	size_t main_size;
	int leaving_main;
} pool;

/* AddressSanitizer's interceptor of swapcontext clears the shadow of the whole stack it
 * switches to, before and after (two thirds of this test's time, and its leak check at exit
 * failed); the fiber annotations below tell it of every switch, so the C library's own
 * swapcontext is called. */
static int (*real_swapcontext)(ucontext_t *, const ucontext_t *) = swapcontext;

static void swapcontext_find(void)
{
#ifdef SIM_ASAN
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	void *found = libc ? dlsym(libc, "swapcontext") : NULL;
	if (found)
		*(void **)&real_swapcontext = found;
#endif
}

/* `f` (NULL: the test's stack) runs again: its fiber-local state is put back. */
static void fiber_resumed(sim_fiber *f)
{
#ifdef SIM_ASAN
	if (pool.leaving_main)
		__sanitizer_finish_switch_fiber(f->fake_stack, &pool.main_bottom, &pool.main_size);
	else
		__sanitizer_finish_switch_fiber(f ? f->fake_stack : pool.main_fake_stack, NULL,
		                                NULL);
#endif
	pool.leaving_main = 0;
	me = f;
	/* the simulated source's threadIdx and blockIdx: one per loaded copy (tests/cuda_sim.h) */
	if (f)
		f->task->module->set_ids[f->task->rank]((unsigned)f->task->thread, f->task->block,
		                                        f->task->grid);
}

/* From `from` to `to` (either NULL: the test's stack); returns when `from` runs again. */
static void fiber_switch(sim_fiber *from, sim_fiber *to)
{
	pool.leaving_main = from == NULL;
#ifdef SIM_ASAN
	void **save = !from ? &pool.main_fake_stack : from->done ? NULL : &from->fake_stack;
	__sanitizer_start_switch_fiber(save, to ? to->stack : pool.main_bottom,
	                               to ? FIBER_STACK : pool.main_size);
#endif
	me = to; /* a fiber's first turn (fiber_start) reads it */
	real_swapcontext(from ? &from->context : &pool.main, to ? &to->context : &pool.main);
	fiber_resumed(from);
}

/* The next fiber after `f` in this launch's order that has not returned; NULL: none. */
static sim_fiber *fiber_next(const sim_fiber *f)
{
	for (int k = 1; k <= pool.n; k++) {
		int j = ((f->index + k * pool.step) % pool.n + pool.n) % pool.n;
		if (!pool.fiber[j]->done)
			return pool.fiber[j];
	}
	return NULL;
}

static void fiber_yield(void)
{
	sim_fiber *next = fiber_next(me);
	if (next == me) {
		fprintf(stderr,
		        "simulated thread %d of block %d waits with no other thread left to "
		        "run: a barrier it can never pass\n",
		        my_thread, my_rank);
		abort();
	}
	fiber_switch(me, next);
}

static void fiber_start(void)
{
	sim_fiber *f = me;
	fiber_resumed(f);
	f->task->module->entry[f->task->rank](f->task->vec, f->task->params);
	f->done = 1;
	pool.live--;
	fiber_switch(f, fiber_next(f)); /* never returns: the next launch makes it anew */
}

static sim_fiber *fiber_new(int index)
{
	sim_fiber *f = calloc(1, sizeof *f);
	long page = sysconf(_SC_PAGESIZE);
	char *map = mmap(NULL, FIBER_STACK + (size_t)page, PROT_READ | PROT_WRITE,
	                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (!f || map == MAP_FAILED || mprotect(map, (size_t)page, PROT_NONE) != 0 ||
	    getcontext(&f->context) != 0) {
		fprintf(stderr, "cannot make simulated thread %d\n", index);
		abort();
	}
	f->stack = map + page; /* a stack overflow meets the guard page below it */
	f->index = index;
	return f;
}

/* Runs pool.task[0 .. n - 1], one fiber each, and returns when all have returned. */
static void pool_run(int n)
{
	if (pool.count == 0)
		swapcontext_find();
	for (; pool.count < n; pool.count++)
		pool.fiber[pool.count] = fiber_new(pool.count);
	pool.n = pool.live = n;
	pool.step = pool.launches++ % 2 ? -1 : 1;
	for (int i = 0; i < n; i++) {
		sim_fiber *f = pool.fiber[i];
		f->task = &pool.task[i];
		f->shuffles = 0;
		f->done = 0;
		f->fake_stack = NULL;
		f->context.uc_stack.ss_sp = f->stack;
		f->context.uc_stack.ss_size = FIBER_STACK;
		f->context.uc_link = NULL;
		makecontext(&f->context, fiber_start, 0);
	}
	fiber_switch(NULL, pool.fiber[pool.step > 0 ? 0 : n - 1]);
	me = NULL;
}

static void pool_stop(void)
{
	long page = sysconf(_SC_PAGESIZE);
	for (int i = 0; i < pool.count; i++) {
		munmap(pool.fiber[i]->stack - page, FIBER_STACK + (size_t)page);
		free(pool.fiber[i]);
	}
	pool.count = 0;
}

/* Seconds one simulated launch may take before it counts as hung (the longest takes a few). */
#define SIM_HANG_SECONDS 120

/* One cluster (C blocks) at a time. A grid of a group a block without a loop over groups
 * (rr__realisation_no_loop) has a block for every group, as on the device. Otherwise two
 * clusters, and the kernel's own loop over row groups covers every row, so the loop's stride
 * and the alternating scratch slots are exercised. */
static void sim_launch(const sim_module *m, const rr__realisation *g, int vec, int64_t rows,
                       void **params)
{
	int64_t groups = (rows + g->rows_per_group - 1) / g->rows_per_group;
	int clusters = rr__realisation_no_loop(g) ? (int)groups : groups > 1 ? 2 : 1;
	int ranks = g->blocks_per_row, threads = g->threads;
	sim.threads = threads;
	sim.ranks = ranks;
	for (int r = 0; r < ranks; r++) {
		sim.cl[r] = m->cl[r];
		sim.mbar[r] = m->mbar[r];
	}
	/* A barrier bug hangs a launch (waiting fibers yield to one another forever): fail it
	 * instead. One launch, not the whole run, has a bound, so a loaded machine slows the test
	 * down without failing it; CTest's TIMEOUT bounds the whole. */
	alarm(SIM_HANG_SECONDS);
	for (int q = 0; q < clusters; q++) {
		for (int r = 0; r < ranks; r++) {
			barrier_init(&sim.block[r], threads);
			for (int w = 0; w * 32 < threads; w++)
				barrier_init(&sim.warp[r][w], threads < 32 ? threads : 32);
		}
		barrier_init(&sim.cluster, ranks * threads);
		int started = 0;
		for (int r = 0; r < ranks; r++)
			for (int t = 0; t < threads; t++, started++) {
				pool.task[started] = (sim_thread){m,
				                                  r,
				                                  t,
				                                  (unsigned)(q * ranks + r),
				                                  (unsigned)(clusters * ranks),
				                                  vec,
				                                  params};
			}
		pool_run(started);
	}
	alarm(0);
}

/* ---------------------------------------------------------------- compiling the source */

static char cache_dir[1024];
static int full_grid; /* RR_SIM_FULL=1: also the GPU test's whole grid (minutes) */

/* The host compile of a simulated source. -O0: the simulated kernels' time is the threads'
 * barriers, not their arithmetic, and -O0 compiles in half the time of -O1 (a few hundred
 * sources: most of CI's time for this test); the results are the same bits (IEEE f32 on SSE,
 * no contraction). Part of the cache key. */
#define SIM_CXX "c++ -std=c++17 -O0 -w -ffp-contract=off -fPIC"

/* `-include PRELUDE` where the system headers of tests/cuda_sim.h (math.h, string.h: C++'s
 * <cmath>, half of a source's compile) were precompiled for this run, or "" where they could
 * not be: then each source parses them as text, into the same code. */
static char prelude_option[1200];
static char prelude_header[1100], prelude_gch[1200];

static void prelude_remove(void)
{
	unlink(prelude_gch);
	unlink(prelude_header);
}

static void prelude_prepare(void)
{
	static const char text[] = "#include <math.h>\n#include <string.h>\n";
	char command[3000];
	snprintf(prelude_header, sizeof prelude_header, "%s/prelude.%d.h", cache_dir,
	         (int)getpid());
	snprintf(prelude_gch, sizeof prelude_gch, "%s.gch", prelude_header);
	if (rr__write_file_atomic(prelude_header, text, sizeof text - 1) != RR_OK)
		return;
	atexit(prelude_remove);
	snprintf(command, sizeof command, SIM_CXX " -x c++-header -o '%s' '%s' > /dev/null 2>&1",
	         prelude_gch, prelude_header);
	if (system(command) == 0)
		snprintf(prelude_option, sizeof prelude_option, "-include '%s'", prelude_header);
}

static int copy_file(const char *from, const char *to)
{
	char *data = NULL;
	size_t size = 0;
	if (rr__read_file(from, &data, &size) != RR_OK)
		return -1;
	FILE *f = fopen(to, "wb");
	int ok = f && fwrite(data, 1, size, f) == size;
	if (f && fclose(f) != 0)
		ok = 0;
	free(data);
	return ok ? 0 : -1;
}

/* Compiles (cached by the source's hash) and loads one copy per cluster block (a cluster's
 * blocks push into one another's rr_cl and rr_mbar; a grid's do not: `grid`). */
static int sim_load(const char *source, int ranks, int grid, sim_module *m)
{
	char header[1200], hash[65], so[1200], cpp[1200], tmp[1200], command[4096];
	snprintf(header, sizeof header, "%s/tests/cuda_sim.h", getenv("RR_SOURCE_DIR"));
	rr__buf text = {0};
	rr__buf_printf(&text, "#include \"%s\"\n%s", header, source);
	/* The cache key covers the simulation header's text too: a changed hook table must not
	 * meet an object compiled against the old one. */
	char *header_text = NULL;
	size_t header_size = 0;
	if (rr__read_file(header, &header_text, &header_size) != RR_OK) {
		rr__buf_free(&text);
		return -1;
	}
	rr__buf keyed = {0};
	rr__buf_printf(&keyed, "%s\n", SIM_CXX);
	rr__buf_append(&keyed, header_text, header_size);
	rr__buf_append(&keyed, text.data, text.length);
	free(header_text);
	rr__sha256_hex(keyed.data, keyed.length, hash);
	rr__buf_free(&keyed);
	snprintf(so, sizeof so, "%s/%s.so", cache_dir, hash);
	if (access(so, R_OK) != 0) {
		snprintf(cpp, sizeof cpp, "%s/%s.cpp", cache_dir, hash);
		snprintf(tmp, sizeof tmp, "%s/%s.%d.so", cache_dir, hash, (int)getpid());
		if (rr__write_file_atomic(cpp, text.data, text.length) != RR_OK) {
			rr__buf_free(&text);
			return -1;
		}
		snprintf(command, sizeof command, SIM_CXX " %s -shared -Wl,-Bsymbolic -o '%s' '%s'",
		         prelude_option, tmp, cpp);
		int failed = system(command) != 0;
		if (failed && prelude_option[0]) { /* again with the headers as text */
			snprintf(command, sizeof command,
			         SIM_CXX " -shared -Wl,-Bsymbolic -o '%s' '%s'", tmp, cpp);
			failed = system(command) != 0;
		}
		if (failed || rename(tmp, so) != 0) {
			fprintf(stderr, "simulation compile failed: %s\n", command);
			rr__buf_free(&text);
			return -1;
		}
	}
	rr__buf_free(&text);
	memset(m, 0, sizeof *m);
	for (int r = 0; r < ranks; r++) {
		/* dlopen shares one handle per file: each block gets its own copy of the file. */
		snprintf(tmp, sizeof tmp, "%s/%s.%d.r%d.so", cache_dir, hash, (int)getpid(), r);
		if (copy_file(so, tmp) != 0)
			return -1;
		m->handle[r] = dlopen(tmp, RTLD_NOW | RTLD_LOCAL);
		unlink(tmp);
		if (!m->handle[r]) {
			fprintf(stderr, "dlopen: %s\n", dlerror());
			return -1;
		}
		m->copies++;
		rr_sim_hooks_t **slot = dlsym(m->handle[r], "rr_sim_hooks");
		*(void **)&m->entry[r] = dlsym(m->handle[r], "rr_sim_entry");
		*(void **)&m->set_ids[r] = dlsym(m->handle[r], "rr_sim_set_ids");
		if (r == 0)
			*(void **)&m->cols = dlsym(m->handle[r], "rr_sim_cols");
		m->cl[r] = dlsym(m->handle[r], "rr_cl");
		m->mbar[r] = dlsym(m->handle[r], "rr_mbar");
		if (!slot || !m->entry[r] || !m->set_ids[r] || (ranks > 1 && !grid && !m->cl[r]))
			return -1;
		*slot = &hooks;
	}
	return 0;
}

static void sim_unload(sim_module *m)
{
	for (int r = 0; r < m->copies; r++)
		dlclose(m->handle[r]);
}

/* ---------------------------------------------------------------- running a plan */

/* The driver's parameter array, as the cuda backend builds it. */
typedef struct packed_params {
	const void *pointers[2 * RR_MAX_IO];
	float values[RR_MAX_IO];
	long long rows;
	void *workspace; /* S=grid: the program's workspace, after rows */
	void *copies;    /* the col inputs' copies, after rows (and the workspace) */
	void *params[2 * RR_MAX_IO + 3];
} packed_params;

static void pack(const rr_kernel *kernel, int64_t rows, const rr_arg *inputs, void *const *outputs,
                 packed_params *p)
{
	int n = 0;
	for (int k = 0; k < kernel->n_inputs; k++) {
		if (kernel->inputs[k].kind == RR_KIND_PARAM) {
			p->values[k] = (float)inputs[k].value;
			p->params[n++] = &p->values[k];
		} else {
			p->pointers[k] = inputs[k].data;
			p->params[n++] = &p->pointers[k];
		}
	}
	for (int j = 0; j < kernel->n_outputs; j++) {
		p->pointers[RR_MAX_IO + j] = outputs[j];
		p->params[n++] = &p->pointers[RR_MAX_IO + j];
	}
	p->rows = rows;
	p->params[n] = &p->rows;
	p->workspace = NULL;
	p->params[n + 1] = &p->workspace;
	p->copies = NULL;
	p->params[n + 2] = &p->copies;
}

typedef struct plan {
	int64_t cols;
	int W, V, U, R, C; /* V = 0: 16 bytes per pack */
	rr_storage storage;
	rr_grid grid;
	int64_t rows;
} plan;

static const plan plans[] = {
    {33, 4, 2, 2, 4, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 5},              /* tail, R > 1, idle rows */
    {1000, 64, 0, 2, 1, 1, RR_STORAGE_SMEM, RR_GRID_PERSISTENT, 5},     /* warps via smem, vec */
    {1001, 128, 4, 1, 1, 1, RR_STORAGE_REREAD, RR_GRID_ROWS, 3},        /* scalar entry only */
    {1999, 32, 4, 1, 1, 4, RR_STORAGE_CLUSTER, RR_GRID_ROWS, 3},        /* cluster, short last */
    {4103, 256, 0, 2, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 2},          /* misaligned N */
    {20000, 64, 4, 1, 1, 2, RR_STORAGE_CLUSTER, RR_GRID_PERSISTENT, 3}, /* cluster in smem */
    {31, 4, 2, 1, 1, 4, RR_STORAGE_CLUSTER, RR_GRID_ROWS, 4},           /* tiny segments */
    {1, 2, 1, 1, 1, 2, RR_STORAGE_CLUSTER, RR_GRID_PERSISTENT, 3},      /* an empty block */
    {257, 1, 4, 2, 8, 1, RR_STORAGE_REREAD, RR_GRID_ROWS, 5},           /* one worker per row */
    {1999, 32, 4, 1, 1, 4, RR_STORAGE_GRID, RR_GRID_PERSISTENT, 3},     /* grid, short last */
    {20000, 32, 4, 1, 1, 2, RR_STORAGE_GRID, RR_GRID_PERSISTENT, 3},    /* grid, kept in smem */
    {31, 32, 1, 1, 1, 4, RR_STORAGE_GRID, RR_GRID_PERSISTENT, 4},       /* grid, empty blocks */
    {4103, 64, 0, 2, 1, 16, RR_STORAGE_GRID, RR_GRID_PERSISTENT, 2},    /* grid, C = 16 */
    {4103, 32, 0, 1, 1, 64, RR_STORAGE_GRID, RR_GRID_PERSISTENT, 2},    /* grid, C > 32 lanes */
    {4103, 64, 0, 1, 1, 64, RR_STORAGE_GRID, RR_GRID_PERSISTENT, 3},    /* grid, warp 0 combines */
    {4103, 64, 0, 1, 1, 32, RR_STORAGE_GRID, RR_GRID_PERSISTENT, 2},    /* grid, C = 32, two warps */
    {4103, 32, 0, 1, 1, 16, RR_STORAGE_CLUSTER, RR_GRID_ROWS, 2},       /* a cluster of 16 */
    {4099, 4, 2, 1, 1, 8, RR_STORAGE_CLUSTER, RR_GRID_PERSISTENT, 3},   /* more ranks than lanes */
    {120011, 64, 4, 1, 1, 2, RR_STORAGE_GRID, RR_GRID_PERSISTENT, 3},   /* grid, re-read */
    {3100, 32, 0, 1, 1, 16, RR_STORAGE_GRID, RR_GRID_PERSISTENT, 2},    /* grid, 3/4 of a chunk */
    {4103, 32, 0, 1, 1, 3, RR_STORAGE_GRID, RR_GRID_PERSISTENT, 3},     /* grid, C = 3 */
    {4103, 64, 0, 1, 1, 40, RR_STORAGE_GRID, RR_GRID_PERSISTENT, 2},    /* grid, C = 40 > 32 */
    {3, 1, 1, 3, 128, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 300},          /* 50000x3's blocks */
    {1, 1, 1, 1, 256, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 300},          /* rows of one element */
    {7, 1, 4, 2, 64, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 200},           /* short rows, heads */
};

static int64_t *element_counts(const rr_kernel *kernel, int64_t rows, int64_t cols, int64_t *out)
{
	for (int j = 0; j < kernel->n_outputs; j++)
		out[j] = rr__output_elements(kernel, j, rows, cols);
	return out;
}

/* Where a run's arrays start: row inputs, col inputs and outputs this many elements into
 * their buffers (0 to 7). */
typedef struct placement {
	int rows, cols, outputs;
} placement;

/* The entry these arrays take (rr__realisation_vec_allowed): a vector entry when the row
 * arrays share one phase, and col inputs, when read by vector (cols_vec), share it too; the
 * entry without heads when that phase is 0 and the plan has it. */
static int entry_wanted(const rr_kernel *kernel, const rr__realisation *g, placement at)
{
	int row_outputs = 0, cols = 0;
	for (int j = 0; j < kernel->n_outputs; j++)
		row_outputs += kernel->outputs[j].kind == RR_KIND_ROW;
	for (int k = 0; k < kernel->n_inputs; k++)
		cols += kernel->inputs[k].kind == RR_KIND_COL;
	int same_phase = (at.rows - at.outputs) % g->head_align == 0 || row_outputs == 0;
	int cols_at_phase = !cols || !g->cols_vec || (at.cols - at.rows) % g->head_align == 0;
	int aligned = at.rows % g->head_align == 0 && g->has_aligned_entry;
	return !g->has_vec_entry || !same_phase || !cols_at_phase ? RR_ENTRY_SCALAR
	       : aligned                                          ? RR_ENTRY_VEC
	                                                          : RR_ENTRY_HEAD;
}

/* Launches entry `vec` on the outputs, poisoned first; every read of the kernel must fall
 * inside an input array (`inputs`, the views, of `bytes` each) and stand on a multiple of its
 * own size, as the GPU's loads must. */
static void launch_checked(const sim_module *m, const rr_kernel *kernel, const rr__realisation *g,
                           int vec, int64_t rows, const rr_arg *inputs, const size_t *bytes,
                           void *const *outputs, const int64_t *counts, rr_dtype dtype,
                           const char *label)
{
	readable.count = 0;
	atomic_store(&readable.stray, 0);
	atomic_store(&readable.misaligned, 0);
	for (int k = 0; k < kernel->n_inputs; k++) {
		if (kernel->inputs[k].kind == RR_KIND_PARAM)
			continue;
		readable.begin[readable.count] = (uintptr_t)inputs[k].data;
		readable.end[readable.count++] = (uintptr_t)inputs[k].data + bytes[k];
	}
	for (int j = 0; j < kernel->n_outputs; j++)
		rr__poison(outputs[j], dtype, counts[j]);
	packed_params p;
	pack(kernel, rows, inputs, outputs, &p);
	/* S=grid: two groups' workspace (sim_launch's two groups), zeroed as the launcher does;
	 * the barrier words do not matter here (the test's barrier stands in), the partials do. */
	if (g->grid_split)
		p.workspace = calloc(2, (size_t)g->workspace_per_group);
	/* col copies: written first as the launcher does, their slot right after rows
	 * (and the workspace), readable by the kernel */
	if (g->col_copies > 0) {
		int at = kernel->n_inputs + kernel->n_outputs + 1 + (g->grid_split ? 1 : 0);
		p.copies = malloc((size_t)g->col_copies_bytes);
		p.params[at] = &p.copies;
		void *cols[RR_MAX_IO + 1];
		int c = 0;
		for (int k = 0; k < kernel->n_inputs; k++)
			if (kernel->inputs[k].kind == RR_KIND_COL)
				cols[c++] = &p.pointers[k];
		cols[c] = &p.copies;
		CHECKF(m->cols != NULL, "%s: no rr_sim_cols in the source", label);
		if (p.copies && m->cols)
			m->cols(cols);
		readable.begin[readable.count] = (uintptr_t)p.copies;
		readable.end[readable.count++] = (uintptr_t)p.copies + (size_t)g->col_copies_bytes;
	}
	sim_launch(m, g, vec, rows, p.params);
	free(p.workspace);
	free(p.copies);
	long stray = atomic_load(&readable.stray);
	CHECKF(stray == 0, "%s (entry %d): %ld reads outside the input arrays", label, vec, stray);
	long misaligned = atomic_load(&readable.misaligned);
	CHECKF(misaligned == 0, "%s (entry %d): %ld reads not aligned to their size", label, vec,
	       misaligned);
	readable.count = 0;
}

/* Runs of the aligned entry's twin compared with the vec entry (run_checked). */
static int twins_compared;

/* Runs one entry on fresh inputs whose row and col arrays are views `at` elements into their
 * buffers and outputs `at.outputs` elements in, and validates every output. Arrays at one
 * phase take the vector entry (each row's head aligns its body); outputs at another phase
 * than the inputs take the scalar entry, with the same map. `bitwise`: a vector entry's
 * outputs must also be those of the scalar entry (element by element) bit for bit. */
/* run_checked masks every other row of its row inputs (masked_rows): -inf from two fifths of
 * the row on, as a causal mask leaves attention scores, so that whole workers hold only -inf
 * under a row's finite max. */
static int masked_rows = 0;

static void mask_rows(const rr_kernel *kernel, rr__host_inputs *in, int64_t rows, int64_t cols,
                      rr_dtype dtype)
{
	for (int k = 0; k < in->count; k++) {
		if (kernel->inputs[k].kind != RR_KIND_ROW || !in->owned[k])
			continue;
		for (int64_t r = 1; r < rows; r += 2)
			for (int64_t c = cols * 2 / 5; c < cols; c++) {
				int64_t at = r * cols + c;
				if (dtype == RR_F32)
					((float *)in->owned[k])[at] = -INFINITY;
				else
					((uint16_t *)in->owned[k])[at] = dtype == RR_BF16 ? 0xff80u : 0xfc00u;
			}
	}
}

/* run_checked adds this to every f32 row input element (simulate_grid_shift): rows whose mean
 * stands far from zero against their spread. */
static float lifted_rows = 0.0f;

static void lift_rows(const rr_kernel *kernel, rr__host_inputs *in, int64_t rows, int64_t cols)
{
	for (int k = 0; k < in->count; k++)
		if (kernel->inputs[k].kind == RR_KIND_ROW && in->owned[k])
			for (int64_t at = 0; at < rows * cols; at++)
				((float *)in->owned[k])[at] += lifted_rows;
}

static void run_checked(const sim_module *m, const rr_program *program, const rr__realisation *g,
                        int64_t rows, placement at, int bitwise, const char *label, unsigned seed)
{
	const rr_kernel *kernel = program->kernel;
	int64_t cols = program->cols;
	size_t es = rr_dtype_size(program->dtype);
	rr__host_inputs inputs;
	CHECK(rr__inputs_make(kernel, rows, cols, program->dtype, seed, NULL, &inputs) == RR_OK);
	if (masked_rows)
		mask_rows(kernel, &inputs, rows, cols, program->dtype);
	if (lifted_rows != 0.0f && program->dtype == RR_F32)
		lift_rows(kernel, &inputs, rows, cols);
	rr_arg shifted[RR_MAX_IO];
	void *copies[RR_MAX_IO] = {0};
	for (int k = 0; k < inputs.count; k++) {
		shifted[k] = inputs.args[k];
		rr_kind kind = kernel->inputs[k].kind;
		int offset = kind == RR_KIND_ROW ? at.rows : kind == RR_KIND_COL ? at.cols : 0;
		if (!offset)
			continue;
		copies[k] = malloc(inputs.bytes[k] + 8 * es);
		memcpy((char *)copies[k] + (size_t)offset * es, inputs.owned[k], inputs.bytes[k]);
		shifted[k].data = (char *)copies[k] + (size_t)offset * es;
	}
	int64_t counts[RR_MAX_IO];
	element_counts(kernel, rows, cols, counts);
	void *buffers[RR_MAX_IO] = {0}, *outputs[RR_MAX_IO] = {0};
	void *again[RR_MAX_IO] = {0}, *again_outputs[RR_MAX_IO] = {0};
	for (int j = 0; j < kernel->n_outputs; j++) {
		buffers[j] = malloc((size_t)counts[j] * es + 8 * es);
		outputs[j] = (char *)buffers[j] + (size_t)at.outputs * es;
		again[j] = malloc((size_t)counts[j] * es + 8 * es);
		again_outputs[j] = (char *)again[j] + (size_t)at.outputs * es;
	}
	int vec = rr__realisation_vec_allowed(program->kernel, g, shifted, outputs);
	int want = entry_wanted(kernel, g, at);
	CHECKF(vec == want,
	       "%s: rows %d, cols %d and outputs %d elements in took entry %d, want %d", label,
	       at.rows, at.cols, at.outputs, vec, want);
	launch_checked(m, kernel, g, vec, rows, shifted, inputs.bytes, outputs, counts,
	               program->dtype, label);
	rr__validation report;
	rr_status status = rr__validate_outputs(kernel, rows, cols, program->dtype, &inputs,
	                                        outputs, NULL, &report);
	CHECKF(status == RR_OK, "%s (%s entry, M=%lld, views %d/%d/%d in): %s", label,
	       vec == RR_ENTRY_VEC ? "vec"
	       : vec               ? "head"
	                           : "scalar",
	       (long long)rows, at.rows, at.cols, at.outputs, rr_last_error());
	/* The aligned entry's twin (its few-chunk body unrolled whole) is the same computation:
	 * the same bits. */
	if (vec == RR_ENTRY_VEC && g->has_twin_entry) {
		launch_checked(m, kernel, g, RR_ENTRY_TWIN, rows, shifted, inputs.bytes,
		               again_outputs, counts, program->dtype, label);
		for (int j = 0; j < kernel->n_outputs; j++)
			CHECKF(memcmp(outputs[j], again_outputs[j], (size_t)counts[j] * es) == 0,
			       "%s: output %s of the twin entry differs in bits from the vec entry's",
			       label, kernel->outputs[j].name);
		twins_compared++;
	}
	if (bitwise && vec != RR_ENTRY_SCALAR) {
		launch_checked(m, kernel, g, RR_ENTRY_SCALAR, rows, shifted, inputs.bytes,
		               again_outputs, counts, program->dtype, label);
		for (int j = 0; j < kernel->n_outputs; j++)
			CHECKF(memcmp(outputs[j], again_outputs[j], (size_t)counts[j] * es) == 0,
			       "%s (views %d/%d/%d in): output %s of the %s entry differs in bits "
			       "from the scalar entry's",
			       label, at.rows, at.cols, at.outputs, kernel->outputs[j].name,
			       vec == RR_ENTRY_VEC ? "vec" : "head");
	}
	for (int j = 0; j < kernel->n_outputs; j++) {
		free(buffers[j]);
		free(again[j]);
	}
	for (int k = 0; k < inputs.count; k++)
		free(copies[k]);
	rr__inputs_free(&inputs);
}

static rr_device cuda_target_device(void)
{
	rr_device device;
	memset(&device, 0, sizeof device);
	device.ops = &rr__cuda_backend;
	rr__target_for_cuda_arch("sm_90", &device.target);
	return device;
}

/* Views 1 .. views elements in that simulate() runs besides the aligned arrays. */
static int views = 1;
/* simulate() runs col inputs at the other phases than the rows' instead, each against the
 * scalar entry bit for bit (simulate_col_views). */
static int col_views = 0;
/* simulate() builds for rows not known (a rows hint of 0), so 16-bit odd rows with col inputs
 * read them from the copies the launch writes first (realise.c, col_copies), and checks that
 * they do (simulate_col_copies). */
static int col_copies = 0;

static int simulate(rr_device *device, const rr_kernel *kernel, rr_dtype dtype, const plan *pl,
                    unsigned seed)
{
	int v = pl->V ? pl->V : (int)(16 / rr_dtype_size(dtype));
	rr_layout layout = {pl->W, v, pl->U, pl->R, pl->C, pl->storage, pl->grid};
	char label[256], text[128];
	rr_layout_format(&layout, text, sizeof text);
	snprintf(label, sizeof label, "%s %s N=%lld %s", rr_kernel_name(kernel),
	         rr_dtype_name(dtype), (long long)pl->cols, text);
	rr_program *program = NULL;
	int64_t hint = col_copies ? 0 : pl->rows;
	rr_status status =
	    rr__program_emit_only(device, kernel, dtype, hint, pl->cols, &layout, &program);
	if (status == RR_ERR_ILLEGAL_LAYOUT && full_grid && layout.storage != RR_STORAGE_REREAD) {
		layout.storage = RR_STORAGE_REREAD; /* as the GPU grid does */
		layout.blocks_per_row = 1;
		status = rr__program_emit_only(device, kernel, dtype, hint, pl->cols, &layout,
		                               &program);
	}
	if (status == RR_ERR_ILLEGAL_LAYOUT)
		return 0;
	CHECKF(status == RR_OK, "%s: emit: %s", label, rr_last_error());
	if (status != RR_OK)
		return 0;
	rr__realisation g = program->realisation;
	sim_module m;
	int loaded = sim_load(rr_program_source(program), g.blocks_per_row, g.grid_split, &m);
	CHECKF(loaded == 0, "%s: the simulation did not compile or load", label);
	CHECKF(!col_views || (g.head_slots > 0 && !g.cols_vec),
	       "%s: rows without heads or col inputs at the body's phase (nothing shifted)", label);
	CHECKF(!col_copies || g.col_copies > 0, "%s: no col copies for rows not known", label);
	CHECKF(col_copies || g.col_copies == 0, "%s: col copies for %lld rows", label,
	       (long long)pl->rows);
	if (loaded == 0 && col_views) {
		/* col inputs at other phases than the rows' (rows aligned, then a view 1 in, whose
		 * head is a - 1 long): the odd views of the col inputs give their packs every phase
		 * 1 .. a - 1 over the two row placements, so each bit of the shift is taken */
		for (int rows_in = 0; rows_in < 2; rows_in++)
			for (int cols_in = 1; cols_in < g.head_align; cols_in += 2)
				run_checked(&m, program, &g, pl->rows,
				            (placement){rows_in, cols_in, rows_in}, 1, label,
				            seed + (unsigned)cols_in);
		sim_unload(&m);
	} else if (loaded == 0) {
		run_checked(&m, program, &g, pl->rows, (placement){0, 0, 0}, 0, label, seed);
		for (int offset = 1; g.has_vec_entry && offset <= views; offset++)
			run_checked(&m, program, &g, pl->rows, (placement){offset, offset, offset},
			            0, label, seed + 1);
		if (g.has_vec_entry) /* inputs a view 1 in, outputs aligned: the scalar entry */
			run_checked(&m, program, &g, pl->rows, (placement){1, 1, 0}, 0, label,
			            seed + 2);
		sim_unload(&m);
	}
	rr_program_free(program);
	return loaded == 0;
}

/* Kernels beyond the built-ins: no reduction; an input read only in the output phase, a kept
 * value that is not an input, min, gathers, rowscalar inputs, params and the functions; an
 * exact sum (one worker only). */
static const char *const custom_kernels[] = {
    "kernel scale\n  in x : row\n  out y : row\n  y = x * 2 + 1\n",
    "kernel mixed\n  in x : row\n  in r : row\n  in t : index\n  in b : rowscalar\n"
    "  param p = 2\n  out o : rowscalar\n  out y : row\n  s = sum(x)\n  a = x * x\n"
    "  m = max(a * s)\n  lo = min(x)\n"
    "  y = r * s + a / (abs(m) + 1) - lo + tanh(x) * abs(x) + sqrt(abs(x))\n"
    "  o = x[t] * p + b + log(abs(m) + 1) + lo\n",
    "kernel exact_sum\n  in x : row\n  out s : rowscalar\n  s = sum(x * 2, exact)\n",
};

static int simulate_custom(rr_device *device)
{
	int simulated = 0;
	for (size_t i = 0; i < sizeof custom_kernels / sizeof custom_kernels[0]; i++) {
		rr_kernel *kernel = NULL;
		CHECKF(rr_kernel_load_string(custom_kernels[i], strlen(custom_kernels[i]),
		                             "<custom>", &kernel) == RR_OK,
		       "custom kernel %zu: %s", i, rr_last_error());
		for (size_t p = 0; kernel && p < sizeof plans / sizeof plans[0]; p++)
			simulated +=
			    simulate(device, kernel, RR_F32, &plans[p], 500u + (unsigned)p);
		if (kernel)
			simulated += simulate(device, kernel, RR_BF16, &plans[1], 600u);
		rr_kernel_free(kernel);
	}
	return simulated;
}

/* The layouts and lengths of the GPU test's grid (tests/gpu_cuda.c), every dtype. */
static void simulate_full_grid(rr_device *device)
{
	static const plan layouts[] = {
	    {0, 1, 1, 1, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 5},
	    {0, 1, 8, 3, 4, 1, RR_STORAGE_REREAD, RR_GRID_ROWS, 5},
	    {0, 4, 2, 1, 4, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 5},
	    {0, 4, 4, 3, 1, 1, RR_STORAGE_REREAD, RR_GRID_PERSISTENT, 5},
	    {0, 32, 4, 1, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 5},
	    {0, 32, 1, 3, 4, 1, RR_STORAGE_REREAD, RR_GRID_ROWS, 5},
	    {0, 128, 8, 3, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 5},
	    {0, 128, 2, 1, 4, 1, RR_STORAGE_REREAD, RR_GRID_PERSISTENT, 5},
	    {0, 64, 4, 2, 2, 1, RR_STORAGE_SMEM, RR_GRID_PERSISTENT, 5},
	    {0, 32, 4, 1, 1, 2, RR_STORAGE_CLUSTER, RR_GRID_ROWS, 5},
	    {0, 64, 8, 1, 1, 1, RR_STORAGE_SMEM, RR_GRID_ROWS, 5},
	};
	static const int64_t lengths[] = {1, 31, 33, 127, 128, 129, 257, 4103};
	static const rr_dtype dtypes[] = {RR_F32, RR_BF16, RR_F16};
	const char *const *names = rr_builtin_names();
	int simulated = 0;
	for (int k = 0; names[k]; k++) {
		rr_kernel *kernel = NULL;
		CHECK(rr_kernel_load_builtin(names[k], &kernel) == RR_OK);
		for (size_t d = 0; kernel && d < 3; d++)
			for (size_t n = 0; n < sizeof lengths / sizeof lengths[0]; n++)
				for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
					plan pl = layouts[l];
					pl.cols = lengths[n];
					simulated += simulate(device, kernel, dtypes[d], &pl,
					                      (unsigned)(k * 1000 + n * 10 + l));
				}
		rr_kernel_free(kernel);
		fprintf(stderr, "full grid: %s done (%d plans so far)\n", names[k], simulated);
	}
}

/* Odd row lengths (the odd suite's kind) on views 1, 2 and 3 elements in, in every storage
 * mode and grid, bf16 and f32: each row's head, its body of aligned packs and the partial
 * pack, with kept values in registers, shared memory, a cluster, or read again. */
static int simulate_odd_views(rr_device *device)
{
	static const plan odd[] = {
	    {1001, 64, 0, 2, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 3},
	    {1001, 32, 0, 1, 1, 1, RR_STORAGE_SMEM, RR_GRID_PERSISTENT, 3},
	    {4099, 128, 0, 2, 1, 1, RR_STORAGE_REREAD, RR_GRID_ROWS, 2},
	    {2047, 32, 0, 1, 1, 4, RR_STORAGE_CLUSTER, RR_GRID_ROWS, 2},
	    {129, 4, 0, 1, 4, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 7},
	    {3, 1, 0, 1, 8, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 9},
	};
	const char *const *names = rr_builtin_names();
	int simulated = 0, saved = views;
	views = 3;
	for (int k = 0; names[k]; k++) {
		rr_kernel *kernel = NULL;
		CHECK(rr_kernel_load_builtin(names[k], &kernel) == RR_OK);
		for (size_t p = 0; kernel && p < sizeof odd / sizeof odd[0]; p++) {
			simulated += simulate(device, kernel, RR_BF16, &odd[p],
			                      300u + 10u * (unsigned)k + (unsigned)p);
			if (p % 2 == 0)
				simulated += simulate(device, kernel, RR_F32, &odd[p],
				                      700u + 10u * (unsigned)k + (unsigned)p);
		}
		rr_kernel_free(kernel);
	}
	views = saved;
	return simulated;
}

/* The source of one built-in under one plan of 16-byte packs (emitted, not compiled), or
 * NULL after a failed check. The caller frees it. */
static char *emitted_source(rr_device *device, const char *name, rr_dtype dtype, const plan *pl)
{
	rr_kernel *kernel = NULL;
	CHECK(rr_kernel_load_builtin(name, &kernel) == RR_OK);
	int v = (int)(16 / rr_dtype_size(dtype));
	rr_layout l = {pl->W, v, pl->U, pl->R, pl->C, pl->storage, pl->grid};
	rr_program *program = NULL;
	char *source = NULL;
	if (kernel &&
	    rr__program_emit_only(device, kernel, dtype, pl->rows, pl->cols, &l, &program) == RR_OK)
		source = strdup(rr_program_source(program));
	else
		CHECKF(0, "%s %s %lldx%lld: emit: %s", name, rr_dtype_name(dtype),
		       (long long)pl->rows, (long long)pl->cols, rr_last_error());
	rr_program_free(program);
	rr_kernel_free(kernel);
	return source;
}

/* The head entry's U: all of U for 16-bit rows whose kept value combines two row inputs
 * (add_layernorm) in blocks of whole rows, half of it otherwise (one-input kernels, f32,
 * clusters, re-reads). The odd plans above simulate both. */
static void check_head_unroll(rr_device *device)
{
	static const struct {
		const char *kernel;
		rr_dtype dtype;
		plan pl;
		int u_head;
	} cases[] = {
	    {"add_layernorm", RR_BF16, {1001, 64, 0, 2, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 3}, 2},
	    {"add_layernorm", RR_F16, {32003, 512, 0, 2, 1, 1, RR_STORAGE_SMEM, RR_GRID_ROWS, 3}, 2},
	    {"layernorm", RR_BF16, {1001, 64, 0, 2, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 3}, 1},
	    {"add_layernorm", RR_F32, {1001, 64, 0, 2, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 3}, 1},
	    {"add_layernorm", RR_BF16, {4099, 128, 0, 2, 1, 1, RR_STORAGE_REREAD, RR_GRID_ROWS, 3}, 1},
	    {"add_layernorm", RR_BF16, {8191, 256, 0, 2, 1, 2, RR_STORAGE_CLUSTER, RR_GRID_ROWS, 3}, 1},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		char *source = emitted_source(device, cases[c].kernel, cases[c].dtype, &cases[c].pl);
		if (!source)
			continue;
		char want[64];
		snprintf(want, sizeof want, "constexpr int U_HEAD = %d;", cases[c].u_head);
		CHECKF(strstr(source, want) != NULL, "%s %s N=%lld: want %s", cases[c].kernel,
		       rr_dtype_name(cases[c].dtype), (long long)cases[c].pl.cols, want);
		free(source);
	}
}

/* The aligned body of fewer than 16 chunks is unrolled whole (unroll_aligned in
 * cuda_emit_row.c) in blocks of whole 16-bit rows at U >= 8 and for kernels with an online
 * pair, and in blocks of several f32 rows; f32 rows one a block, clusters and S=grid
 * segments keep the loop of one iteration at a time (their picks ran slower unrolled). */
static void check_aligned_unroll(rr_device *device)
{
	static const struct {
		const char *kernel;
		rr_dtype dtype;
		plan pl;
		int unrolled;
	} cases[] = {
	    {"sum", RR_BF16, {32000, 256, 0, 8, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 512}, 1},
	    {"cross_entropy", RR_BF16, {4096, 64, 0, 4, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 1024}, 1},
	    {"cross_entropy", RR_F32, {320, 16, 0, 4, 8, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 12344}, 1},
	    {"sum", RR_BF16, {4000, 64, 0, 2, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 3000}, 0},
	    {"cross_entropy", RR_F32, {32000, 256, 0, 8, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 512}, 0},
	    {"cross_entropy", RR_BF16, {1000000, 256, 0, 4, 1, 64, RR_STORAGE_GRID, RR_GRID_PERSISTENT, 6}, 0},
	    {"layernorm", RR_BF16, {131072, 256, 0, 2, 1, 8, RR_STORAGE_CLUSTER, RR_GRID_PERSISTENT, 512}, 0},
	};
	static const char *const unrolled = "#pragma unroll (FULL / UL <= 4 && FULL < 16 ? 4 : 1)";
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		char *source = emitted_source(device, cases[c].kernel, cases[c].dtype, &cases[c].pl);
		if (!source)
			continue;
		int has = strstr(source, unrolled) != NULL;
		CHECKF(has == cases[c].unrolled, "%s %s %lldx%lld: the aligned body %s", cases[c].kernel,
		       rr_dtype_name(cases[c].dtype), (long long)cases[c].pl.rows,
		       (long long)cases[c].pl.cols, has ? "is unrolled" : "is not unrolled");
		free(source);
	}
}

/* The norms (layernorm, rmsnorm, add_layernorm: every kind of col input) over `set` and
 * `dtypes`: layernorm on each pair, the other two on every `every`-th (p + d + k), each at seed
 * `seed` + 10 p + d. Returns the plans simulated. */
static int simulate_norms(rr_device *device, const plan *set, size_t n_plans,
                          const rr_dtype *dtypes, size_t n_dtypes, size_t every, unsigned seed)
{
	static const char *const kernels[] = {"layernorm", "rmsnorm", "add_layernorm"};
	int simulated = 0;
	for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
		rr_kernel *kernel = NULL;
		CHECK(rr_kernel_load_builtin(kernels[k], &kernel) == RR_OK);
		for (size_t p = 0; kernel && p < n_plans; p++)
			for (size_t d = 0; d < n_dtypes; d++)
				if (k == 0 || (p + d + k) % every == 0) /* layernorm: all */
					simulated += simulate(device, kernel, dtypes[d], &set[p],
					                      seed + 10u * (unsigned)p + (unsigned)d);
		rr_kernel_free(kernel);
	}
	return simulated;
}

/* Col inputs at every phase but the rows' (views 1 .. a - 1 elements in, a the access width
 * in elements) in plans whose rows have heads and whose N·size is not a multiple of the access
 * width: the head entry reads the complete packs of col inputs by the aligned blocks that
 * cover them, shifted into place. Its outputs must be the scalar entry's bit for bit, and no
 * read may leave the arrays (the blocks of a row's first and last packs). Every storage mode,
 * a flat row, accesses of 4, 8 and 16 bytes, packs of two blocks. */
static int simulate_col_views(rr_device *device)
{
	static const plan shifted[] = {
	    {1001, 32, 0, 2, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 9},
	    {127, 16, 0, 1, 4, 1, RR_STORAGE_REREAD, RR_GRID_ROWS, 9}, /* one chunk a row */
	    {1001, 32, 0, 1, 1, 1, RR_STORAGE_SMEM, RR_GRID_PERSISTENT, 9},
	    {2047, 32, 0, 1, 1, 4, RR_STORAGE_CLUSTER, RR_GRID_ROWS, 5},
	    {4099, 32, 0, 1, 1, 4, RR_STORAGE_GRID, RR_GRID_PERSISTENT, 5},
	    {129, 16, 0, 4, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 9},     /* flat */
	    {1001, 32, 16, 1, 1, 1, RR_STORAGE_REREAD, RR_GRID_ROWS, 9}, /* packs of 2+ blocks */
	    {1001, 32, 2, 1, 1, 1, RR_STORAGE_REREAD, RR_GRID_ROWS, 9},  /* 4- and 8-byte access */
	};
	static const rr_dtype dtypes[] = {RR_BF16, RR_F32, RR_F16};
	col_views = 1;
	int simulated = simulate_norms(device, shifted, sizeof shifted / sizeof shifted[0], dtypes,
	                               sizeof dtypes / sizeof dtypes[0], 3, 900u);
	col_views = 0;
	return simulated;
}

/* The same col views, 16-bit rows of one row a block and of many, their col inputs read from the
 * copies the launch writes first (rr_sim_cols; realise.c, col_copies): each copy's packs aligned
 * for the rows of its phase, every storage mode, a cluster and a grid split. */
static int simulate_col_copies(rr_device *device)
{
	static const plan copied[] = {
	    {1001, 32, 0, 2, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 9},
	    {1001, 32, 0, 1, 1, 1, RR_STORAGE_SMEM, RR_GRID_PERSISTENT, 9},
	    {2047, 32, 0, 1, 1, 4, RR_STORAGE_CLUSTER, RR_GRID_ROWS, 5},
	    {4099, 32, 0, 1, 1, 4, RR_STORAGE_GRID, RR_GRID_PERSISTENT, 5},
	    {513, 64, 0, 4, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 9}, /* flat */
	    {1001, 32, 16, 1, 1, 1, RR_STORAGE_REREAD, RR_GRID_ROWS, 9},
	    {1023, 16, 0, 2, 8, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 19}, /* blocks of 8 rows */
	    {519, 16, 0, 1, 4, 1, RR_STORAGE_REGS, RR_GRID_PERSISTENT, 19},
	};
	static const rr_dtype dtypes[] = {RR_BF16, RR_F16};
	col_views = col_copies = 1;
	int simulated = simulate_norms(device, copied, sizeof copied / sizeof copied[0], dtypes,
	                               sizeof dtypes / sizeof dtypes[0], 2, 1900u);
	col_views = col_copies = 0;
	return simulated;
}

/* Online pairs (softmax, cross_entropy) whose values stay in registers: a worker's max over
 * its packs, then one sum (cuda_emit_row.c, deferred_online). Flat rows of one to eight packs
 * a worker, rows kept in registers across blocks of many rows, partial packs, and a plan with
 * a head (V > 1), which keeps the pack-by-pack form; each source must use the form its plan
 * asks for. */
static int simulate_deferred_online(rr_device *device)
{
	static const plan deferred[] = {
	    {129, 32, 1, 8, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 3},   /* flat, partial pack */
	    {1000, 256, 1, 4, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 2}, /* flat, W > 32 */
	    {127, 32, 1, 2, 8, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 19},  /* kept, many rows */
	    {257, 16, 1, 4, 4, 1, RR_STORAGE_REGS, RR_GRID_PERSISTENT, 9},
	    {3, 4, 1, 1, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 5}, /* fewer elements than W */
	};
	static const char *const kernels[] = {"softmax", "cross_entropy"};
	static const rr_dtype dtypes[] = {RR_F32, RR_BF16, RR_F16};
	int simulated = 0;
	for (size_t k = 0; k < 2; k++) {
		rr_kernel *kernel = NULL;
		CHECK(rr_kernel_load_builtin(kernels[k], &kernel) == RR_OK);
		for (size_t p = 0; kernel && p < sizeof deferred / sizeof deferred[0]; p++)
			for (size_t d = 0; d < 3; d++) {
				simulated += simulate(device, kernel, dtypes[d], &deferred[p],
				                      1300u + 10u * (unsigned)p + (unsigned)d);
				rr_layout l = {deferred[p].W,   deferred[p].V, deferred[p].U,
				               deferred[p].R,   deferred[p].C, deferred[p].storage,
				               deferred[p].grid};
				rr_program *program = NULL;
				if (rr__program_emit_only(device, kernel, dtypes[d],
				                          deferred[p].rows, deferred[p].cols, &l,
				                          &program) != RR_OK)
					continue;
				/* cross_entropy keeps nothing: only its flat rows defer */
				const rr__realisation *g = &program->realisation;
				int wanted =
				    k == 0 || (g->rows_per_group == 1 && g->blocks_per_row == 1 &&
				               g->layout.unroll >= g->chunks);
				CHECKF((strstr(rr_program_source(program), "rr_online_max(m") !=
				        NULL) == wanted,
				       "%s %s N=%lld: the online pair %s", kernels[k],
				       rr_dtype_name(dtypes[d]), (long long)deferred[p].cols,
				       wanted ? "is not deferred" : "is deferred");
				/* softmax's exp(x - max) is kept from round 1, scaled in the output
				 */
				CHECKF((strstr(rr_program_source(program),
				               "rr_online_sum_keep(z") != NULL) == (k == 0),
				       "%s %s N=%lld: kept exponentials %s", kernels[k],
				       rr_dtype_name(dtypes[d]), (long long)deferred[p].cols,
				       k == 0 ? "missing" : "where nothing is kept");
				rr_program_free(program);
			}
		/* packs of 16 bytes: rows have heads. The entry for rows on a boundary defers the
		 * pair (softmax keeping its exponentials); so does the headed entry where the row
		 * is kept in registers or flat (its head's elements added after the body's max),
		 * pack by pack otherwise. simulate() runs both: aligned rows and views 1-3 in. */
		plan headed[] = {{129, 32, 0, 2, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 3},
		                 {1000, 64, 0, 1, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 5},
		                 {300, 32, 0, 1, 2, 1, RR_STORAGE_REGS, RR_GRID_PERSISTENT, 7},
		                 {4001, 64, 0, 1, 1, 2, RR_STORAGE_CLUSTER, RR_GRID_PERSISTENT, 5}};
		for (size_t p = 0; p < sizeof headed / sizeof headed[0]; p++)
			for (size_t d = 0; d < 3; d++)
				simulated += simulate(device, kernel, dtypes[d], &headed[p],
				                      1390u + 10u * (unsigned)p + (unsigned)d);
		/* masked rows (-inf from two fifths on, every other row) through both forms of the
		 * tree: pairwise within a warp, maxes then rescaled sums across warps (W > 32, a
		 * cluster of two at W = 64) */
		plan masked[] = {{300, 32, 0, 1, 2, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 6},
		                 {1000, 256, 1, 4, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 6},
		                 {1000, 64, 0, 1, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 6},
		                 {1000, 128, 0, 1, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS, 6},
		                 {4001, 64, 0, 1, 1, 2, RR_STORAGE_CLUSTER, RR_GRID_PERSISTENT, 6}};
		masked_rows = 1;
		for (size_t p = 0; p < sizeof masked / sizeof masked[0]; p++)
			for (size_t d = 0; d < 3; d++)
				simulated += simulate(device, kernel, dtypes[d], &masked[p],
				                      1450u + 10u * (unsigned)p + (unsigned)d);
		masked_rows = 0;
		/* a flat row (two chunks at U = 2): both entries defer, the head pack by pack */
		rr_layout l = {32, 4, 2, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS};
		rr_program *program = NULL;
		CHECK(rr__program_emit_only(device, kernel, RR_F32, 3, 129, &l, &program) == RR_OK);
		const char *source = program ? rr_program_source(program) : "";
		CHECKF(strstr(source, "rr_online_max(m") && strstr(source, "rr_online_add(m"),
		       "%s N=129 V=4: the pair is not deferred in the aligned entry alone",
		       kernels[k]);
		int flat_sums = 0;
		for (const char *at = source; (at = strstr(at, "this worker's max first")) != NULL;
		     at++)
			flat_sums++;
		CHECKF(flat_sums == 2, "%s N=129 V=4 U=2 (flat): %d deferred sums, want 2",
		       kernels[k], flat_sums);
		CHECKF((strstr(source, "rr_online_sum_keep(z") != NULL) == (k == 0),
		       "%s N=129 V=4: kept exponentials %s", kernels[k],
		       k == 0 ? "missing" : "where nothing is kept");
		rr_program_free(program);
		/* four chunks at U = 1 (not flat): softmax keeps x in registers and defers in both
		 * entries, cross_entropy keeps nothing and defers in neither */
		rr_layout kept = {64, 4, 1, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS};
		program = NULL;
		CHECK(rr__program_emit_only(device, kernel, RR_F32, 5, 1000, &kept, &program) ==
		      RR_OK);
		int sums = 0;
		for (const char *at = program ? rr_program_source(program) : "";
		     (at = strstr(at, "this worker's max first")) != NULL; at++)
			sums++;
		CHECKF(sums == (k == 0 ? 2 : 0), "%s N=1000 V=4 U=1: %d deferred sums, want %d",
		       kernels[k], sums, k == 0 ? 2 : 0);
		rr_program_free(program);
		rr_kernel_free(kernel);
	}
	return simulated;
}

/* Shared-memory keeps of row inputs as stored (keep_raw): the vector entries copy every
 * complete pack before round 1 reads it back (asynchronously, or through registers for
 * persistent clusters of one partial a row and at most 8 packs a thread), the scalar entry
 * stores what it loaded. Aligned rows, odd rows (the headed entry stages FULL - 1 chunks) and
 * clusters, in every dtype; each source must use the form its realisation says: a kernel that
 * keeps a computed value (add_layernorm's x + r), and blocks of two rows, keep f32. */
static int simulate_raw_keeps(rr_device *device)
{
	static const plan raw[] = {
	    {2048, 64, 0, 1, 1, 1, RR_STORAGE_SMEM, RR_GRID_ROWS, 3},          /* aligned */
	    {2051, 64, 0, 2, 1, 1, RR_STORAGE_SMEM, RR_GRID_PERSISTENT, 5},    /* heads */
	    {40001, 32, 0, 1, 1, 2, RR_STORAGE_CLUSTER, RR_GRID_ROWS, 3},      /* cluster */
	    {2000, 32, 0, 1, 2, 1, RR_STORAGE_SMEM, RR_GRID_PERSISTENT, 7},    /* two rows: f32 */
	    {4080, 32, 0, 1, 1, 2, RR_STORAGE_CLUSTER, RR_GRID_PERSISTENT, 5}, /* 8 packs, 16-bit */
	};
	/* the dtypes each plan is simulated in (bit d: dtypes[d]); every pair is emitted and
	 * checked. A simulation compiles the source with the host compiler: CI's time. */
	static const unsigned simulated_dtypes[] = {7, 3, 2, 1, 2};
	static const char *const kernels[] = {"rmsnorm", "softmax", "layernorm", "add_layernorm"};
	static const rr_dtype dtypes[] = {RR_F32, RR_BF16, RR_F16};
	int simulated = 0;
	for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
		rr_kernel *kernel = NULL;
		CHECK(rr_kernel_load_builtin(kernels[k], &kernel) == RR_OK);
		for (size_t p = 0; kernel && p < sizeof raw / sizeof raw[0]; p++)
			for (size_t d = 0; d < 3; d++) {
				const plan *pl = &raw[p];
				if (p == 4 && dtypes[d] == RR_F32)
					continue; /* its f32 segment is kept in registers */
				/* the 8-pack cluster simulated where it stages through registers */
				if ((simulated_dtypes[p] >> d & 1u) && (k < 3 || p == 0) &&
				    (p != 4 || k == 0))
					simulated +=
					    simulate(device, kernel, dtypes[d], pl,
					             1700u + 10u * (unsigned)p + (unsigned)d);
				int v = (int)(16 / rr_dtype_size(dtypes[d]));
				rr_layout l = {pl->W, v,           pl->U,   pl->R,
				               pl->C, pl->storage, pl->grid};
				rr_program *program = NULL;
				if (rr__program_emit_only(device, kernel, dtypes[d], pl->rows,
				                          pl->cols, &l, &program) != RR_OK) {
					CHECKF(0, "%s %s N=%lld: emit: %s", kernels[k],
					       rr_dtype_name(dtypes[d]), (long long)pl->cols,
					       rr_last_error());
					continue;
				}
				const rr__realisation *g = &program->realisation;
				/* blocks of many rows keep f32 (raw keeps are for one row a group)
				 */
				int wanted = k != 3 && pl->R == 1;
				CHECKF(g->keep == RR_KEEP_SMEM && g->keep_raw == wanted,
				       "%s %s N=%lld: keep %d, raw %d", kernels[k],
				       rr_dtype_name(dtypes[d]), (long long)pl->cols, (int)g->keep,
				       g->keep_raw);
				/* through registers: a persistent cluster of one partial a row
				 * (rmsnorm) with 8 packs a thread (N = 4080 over 2 blocks of 32
				 * workers: 8 packs of 8 elements in bf16 and f16) */
				const char *src = rr_program_source(program);
				int regs = wanted && k == 0 && p == 4;
				CHECKF((strstr(src, "rr_keep_stage(keep") != NULL) ==
				           (wanted && !regs),
				       "%s %s N=%lld: asynchronous copies %s", kernels[k],
				       rr_dtype_name(dtypes[d]), (long long)pl->cols,
				       wanted && !regs ? "missing" : "not wanted");
				CHECKF((strstr(src, "rr_keep_put(keep") != NULL) == regs,
				       "%s %s N=%lld: copies through registers %s", kernels[k],
				       rr_dtype_name(dtypes[d]), (long long)pl->cols,
				       regs ? "missing" : "not wanted");
				/* as stored: the element size an element, not 4 bytes */
				int64_t bytes = (int64_t)g->kept_values * g->chunks *
				                g->layout.vec * g->threads *
				                (wanted ? g->elem_bytes : 4);
				CHECKF(g->dynamic_smem == bytes,
				       "%s %s N=%lld: %lld bytes kept, want %lld", kernels[k],
				       rr_dtype_name(dtypes[d]), (long long)pl->cols,
				       (long long)g->dynamic_smem, (long long)bytes);
				rr_program_free(program);
			}
		rr_kernel_free(kernel);
	}
	return simulated;
}

/* The cpu backend follows the same ownership map and tree: for `sum` one plan's results agree
 * bit for bit with the simulated CUDA code (plain f32 adds in the same order on both). */
static void compare_sum_with_cpu(rr_device *device, const rr_kernel *kernel, rr_dtype dtype,
                                 rr_layout layout, int64_t rows, int64_t cols)
{
	rr_device *cpu = NULL;
	rr_program *gpu_plan = NULL, *cpu_plan = NULL;
	char text[128];
	rr_layout_format(&layout, text, sizeof text);
	CHECK(rr_device_open("cpu", &cpu) == RR_OK);
	CHECK(rr__program_emit_only(device, kernel, dtype, rows, cols, &layout, &gpu_plan) ==
	      RR_OK);
	rr_layout on_cpu = layout;
	on_cpu.storage = RR_STORAGE_REGS;
	on_cpu.grid = RR_GRID_ROWS;
	CHECKF(cpu && rr_program_build(cpu, kernel, dtype, rows, cols, &on_cpu, &cpu_plan) == RR_OK,
	       "cpu build of %s: %s", text, rr_last_error());
	static rr__realisation g;
	sim_module m;
	int ready = gpu_plan && cpu_plan && (g = gpu_plan->realisation, 1) &&
	            sim_load(rr_program_source(gpu_plan), 1, 0, &m) == 0;
	CHECKF(ready, "sum %s %s: no simulation to compare", rr_dtype_name(dtype), text);
	if (ready) {
		rr__host_inputs inputs;
		CHECK(rr__inputs_make(kernel, rows, cols, dtype, 4242, NULL, &inputs) == RR_OK);
		size_t es = rr_dtype_size(dtype), bytes = (size_t)rows * es;
		void *a = malloc(bytes), *b = malloc(bytes);
		char *view = malloc(inputs.bytes[0] + 4 * es);
		/* Aligned rows, then views 1, 2 and 3 elements in: the same heads on both. */
		for (int offset = 0; offset < 4; offset++) {
			rr_arg arg = inputs.args[0];
			arg.data = view + (size_t)offset * es;
			memcpy(view + (size_t)offset * es, inputs.owned[0], inputs.bytes[0]);
			packed_params p;
			pack(kernel, rows, &arg, &a, &p);
			sim_launch(&m, &g,
			           rr__realisation_vec_allowed(gpu_plan->kernel, &g, &arg, &a),
			           rows, p.params);
			CHECK(rr_program_launch(cpu_plan, rows, &arg, &b, NULL) == RR_OK);
			CHECKF(memcmp(a, b, bytes) == 0,
			       "sum %s %s N=%lld view %d in: cuda and cpu differ in bits",
			       rr_dtype_name(dtype), text, (long long)cols, offset);
		}
		free(view);
		free(a);
		free(b);
		rr__inputs_free(&inputs);
		sim_unload(&m);
	}
	rr_program_free(gpu_plan);
	rr_program_free(cpu_plan);
	rr_device_close(cpu);
}

static void bitwise_sums(rr_device *device)
{
	static const rr_layout layouts[] = {
	    {64, 1, 1, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS},
	    {128, 2, 2, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS},
	    {256, 4, 2, 1, 1, RR_STORAGE_REGS, RR_GRID_PERSISTENT},
	    {256, 3 + 1, 1, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS},
	    {16, 2, 1, 4, 1, RR_STORAGE_REGS, RR_GRID_ROWS},
	};
	rr_kernel *kernel = NULL;
	CHECK(rr_kernel_load_builtin("sum", &kernel) == RR_OK);
	for (size_t i = 0; kernel && i < sizeof layouts / sizeof layouts[0]; i++) {
		compare_sum_with_cpu(device, kernel, RR_F32, layouts[i], 6, 5003);
		compare_sum_with_cpu(device, kernel, RR_BF16, layouts[i], 3, 4096);
		compare_sum_with_cpu(device, kernel, RR_BF16, layouts[i], 5, 1001);
	}
	rr_kernel_free(kernel);
}

/* S=grid and cluster plans with the aligned entry's twin (4 chunks of U = 2 a block), every
 * built-in in bf16: the twin's outputs are the vec entry's bit for bit. */
static void simulate_twins(rr_device *device)
{
	static const plan twin_plans[] = {
	    {4096, 32, 0, 2, 1, 4, RR_STORAGE_GRID, RR_GRID_PERSISTENT, 3},
	    {4096, 32, 0, 2, 1, 4, RR_STORAGE_CLUSTER, RR_GRID_PERSISTENT, 3},
	};
	static const rr_dtype dtypes[] = {RR_BF16};
	const char *const *names = rr_builtin_names();
	for (int k = 0; names[k]; k++) {
		rr_kernel *kernel = NULL;
		CHECK(rr_kernel_load_builtin(names[k], &kernel) == RR_OK);
		for (size_t p = 0; kernel && p < sizeof twin_plans / sizeof twin_plans[0]; p++)
			for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++)
				simulate(device, kernel, dtypes[d], &twin_plans[p],
				         300u + 10u * (unsigned)k + (unsigned)p);
		rr_kernel_free(kernel);
	}
	CHECKF(twins_compared >= 6, "only %d runs compared the twin entry with the vec entry",
	       twins_compared);
}

/* S=grid's one barrier for LayerNorm's two rounds (rr__realisation.grid_shift), on rows lifted
 * 300 from zero (the table above runs it on centred rows): empty blocks, C = 16, and C = 64
 * with warp 0 combining, in f32, one in bf16, validated against float64; each emitted with
 * rr_grid_shifted. With RR_GRID_SHIFT=0 every plan is emitted without it (two barriers) and
 * one is simulated. */
static int simulate_grid_shift(rr_device *device)
{
	static const char *const kernels[] = {"layernorm", "add_layernorm"};
	static const plan grids[] = {
	    {4103, 64, 0, 2, 1, 16, RR_STORAGE_GRID, RR_GRID_PERSISTENT, 2},
	    {31, 32, 1, 1, 1, 4, RR_STORAGE_GRID, RR_GRID_PERSISTENT, 4},
	    {4103, 64, 0, 1, 1, 64, RR_STORAGE_GRID, RR_GRID_PERSISTENT, 3},
	};
	int simulated = 0;
	lifted_rows = 300.0f;
	for (int two = 0; two < 2; two++) {
		if (two)
			setenv("RR_GRID_SHIFT", "0", 1);
		for (int k = 0; k < 2; k++) {
			rr_kernel *kernel = NULL;
			CHECK(rr_kernel_load_builtin(kernels[k], &kernel) == RR_OK);
			for (size_t p = 0; kernel && p < sizeof grids / sizeof grids[0]; p++) {
				const plan *pl = &grids[p];
				rr_layout l = {pl->W, pl->V ? pl->V : 4, pl->U, pl->R, pl->C, pl->storage,
				               pl->grid};
				rr_program *program = NULL;
				CHECK(rr__program_emit_only(device, kernel, RR_F32, pl->rows, pl->cols, &l,
				                            &program) == RR_OK);
				const char *source = program ? rr_program_source(program) : "";
				CHECKF((strstr(source, "rr_grid_shifted(cl") == NULL) == two,
				       "%s N=%lld C=%d: rr_grid_shifted %s", kernels[k],
				       (long long)pl->cols, pl->C, two ? "with RR_GRID_SHIFT=0" : "missing");
				CHECKF(!program || program->realisation.grid_shift == !two,
				       "%s N=%lld: grid_shift %d", kernels[k], (long long)pl->cols,
				       program ? program->realisation.grid_shift : -1);
				rr_program_free(program);
				if (!two || p == 0)
					simulated += simulate(device, kernel, RR_F32, pl, 1700u + 10u * (unsigned)p);
				if (!two && p == 0)
					simulated += simulate(device, kernel, RR_BF16, pl, 1701u);
			}
			rr_kernel_free(kernel);
		}
		unsetenv("RR_GRID_SHIFT");
	}
	lifted_rows = 0.0f;
	return simulated;
}

int main(void)
{
	if (system("c++ --version > /dev/null 2>&1") != 0) {
		fprintf(stderr, "no host C++ compiler: skipping the CUDA simulation\n");
		return RR_TEST_SKIP;
	}
	if (!getenv("RR_SOURCE_DIR")) {
		fprintf(stderr, "RR_SOURCE_DIR is not set: skipping\n");
		return RR_TEST_SKIP;
	}
	full_grid = getenv("RR_SIM_FULL") && atoi(getenv("RR_SIM_FULL")) > 0;
	const char *base = getenv("RR_CACHE_DIR");
	snprintf(cache_dir, sizeof cache_dir, "%s/cuda-sim", base && base[0] ? base : "/tmp");
	CHECK(rr__mkdir_p(cache_dir) == RR_OK);
	prelude_prepare();
	rr_device device = cuda_target_device();
	const char *const *names = rr_builtin_names();
	int simulated = 0;
	for (int k = 0; names[k]; k++) {
		rr_kernel *kernel = NULL;
		CHECK(rr_kernel_load_builtin(names[k], &kernel) == RR_OK);
		if (!kernel)
			continue;
		for (size_t p = 0; p < sizeof plans / sizeof plans[0]; p++)
			simulated += simulate(&device, kernel, RR_F32, &plans[p],
			                      100u * (unsigned)k + (unsigned)p);
		/* the 16-bit conversions and their vector forms */
		simulated += simulate(&device, kernel, RR_BF16, &plans[1], 7u + (unsigned)k);
		simulated += simulate(&device, kernel, RR_F16, &plans[1], 9u + (unsigned)k);
		simulated += simulate(&device, kernel, RR_BF16, &plans[3], 11u + (unsigned)k);
		rr_kernel_free(kernel);
	}
	CHECKF(simulated >= 40, "only %d plans were simulated", simulated);
	int custom = simulate_custom(&device);
	CHECKF(custom >= 12, "only %d plans of the custom kernels were simulated", custom);
	int odd = simulate_odd_views(&device);
	check_head_unroll(&device);
	check_aligned_unroll(&device);
	simulate_twins(&device);
	CHECKF(odd >= 40, "only %d plans of odd rows were simulated", odd);
	int cols = simulate_col_views(&device);
	CHECKF(cols >= 30, "only %d plans with col inputs off the rows' phase were simulated",
	       cols);
	int copies = simulate_col_copies(&device);
	CHECKF(copies >= 20, "only %d plans reading col copies were simulated", copies);
	int deferred = simulate_deferred_online(&device);
	CHECKF(deferred >= 30, "only %d plans with deferred online pairs were simulated", deferred);
	int shifted = simulate_grid_shift(&device);
	CHECKF(shifted >= 10, "only %d S=grid plans of one barrier for two rounds were simulated",
	       shifted);
	int raw = simulate_raw_keeps(&device);
	CHECKF(raw >= 20, "only %d plans with raw shared-memory keeps were simulated", raw);
	if (full_grid)
		simulate_full_grid(&device);
	bitwise_sums(&device);
	pool_stop();
	return rr_test_finish("test_cuda_sim");
}

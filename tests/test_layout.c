/* Tests of the layout: the ownership map and its inverse on random shapes, slot bounds and packs,
 * the fixed reduction tree, every legality reason with its sentence, and the text form. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "layout/layout.h"
#include "layout/realise.h"
#include "lang/ir.h"
#include "util/util.h"

/* ---------------------------------------------------------------- kernels and targets */

static rr_kernel *load(const char *text)
{
	rr_kernel *k = NULL;
	rr_status status = rr_kernel_load_string(text, strlen(text), "<test>", &k);
	CHECKF(status == RR_OK, "kernel does not load: %s", rr_last_error());
	return k;
}

/* s = sum(x), or sum(x, exact) */
static rr_kernel *sum_kernel(int exact)
{
	return load(exact
	                ? "kernel sum_exact\n in x : row\n out s : rowscalar\n s = sum(x, exact)\n"
	                : "kernel sum\n in x : row\n out s : rowscalar\n s = sum(x)\n");
}

/* Two rounds and an output phase over h: x is kept, and r too with the residual. */
static rr_kernel *norm_kernel(int residual)
{
	char text[512];
	snprintf(text, sizeof text,
	         "kernel %s\n in x : row\n%s param eps = 1e-5\n out y : row\n h = %s\n"
	         " mean = sum(h) / N\n d = h - mean\n var = sum(d * d) / N\n"
	         " y = d * rsqrt(var + eps)\n",
	         residual ? "add_norm" : "norm", residual ? " in r : row\n" : "",
	         residual ? "x + r" : "x * 2");
	return load(text);
}

static void cuda_like(rr__target *t)
{
	memset(t, 0, sizeof *t);
	t->backend = "cuda";
	t->kind = RR_TARGET_GPU;
	t->keeps_derived_values = 1;
	t->max_workers = 1024;
	t->warp_size = 32;
	t->register_slots = 64;
	t->smem_per_group = 227 * 1024;
	t->has_clusters = 1;
	t->max_cluster = 8;
	t->multiprocessors = 132;
	t->l2_bytes = 50 * 1000 * 1000;
	t->cc_major = 9;
}

static rr_layout make(int W, int V, int U, int R, int C, rr_storage S, rr_grid G)
{
	rr_layout l = {W, V, U, R, C, S, G};
	return l;
}

/* ---------------------------------------------------------------- ownership map */

static int64_t random_int(unsigned long long *state, int64_t lo, int64_t hi)
{
	return lo + (int64_t)rr_test_uniform(state, 0.0, (double)(hi - lo + 1));
}

/* Every i < N has one owner and maps back; every valid (chunk, worker, element) is some i. */
static void check_map(int64_t n, int W, int V)
{
	int *owned = calloc((size_t)W, sizeof *owned);
	int64_t chunks = (n + (int64_t)W * V - 1) / ((int64_t)W * V);
	int64_t bound = rr__slot_bound(n, W, V);
	int bad = 0;
	for (int64_t i = 0; i < n; i++) {
		int64_t chunk;
		int worker, element;
		rr__owner_of(i, W, V, &chunk, &worker, &element);
		bad += worker < 0 || worker >= W || element < 0 || element >= V || chunk >= chunks;
		bad += rr__owned_index(chunk, worker, element, W, V) != i;
		bad += chunk * V + element >= bound; /* the private slot fits the bound */
		owned[worker]++;
	}
	CHECKF(bad == 0, "N=%lld W=%d V=%d: %d map errors", (long long)n, W, V, bad);
	int64_t valid = 0, most = 0, packed = 0;
	for (int64_t c = 0; c < chunks; c++)
		for (int w = 0; w < W; w++)
			for (int e = 0; e < V; e++)
				valid += rr__owned_index(c, w, e, W, V) < n;
	for (int w = 0; w < W; w++) {
		int64_t complete = rr__complete_packs(n, W, V, w);
		int partial = rr__has_partial_pack(n, W, V, w);
		int64_t mine = complete * V + (partial ? n % V : 0);
		bad += mine != owned[w] || owned[w] > bound;
		packed += mine;
		most = owned[w] > most ? owned[w] : most;
	}
	CHECKF(valid == n, "N=%lld W=%d V=%d: %lld valid triples", (long long)n, W, V,
	       (long long)valid);
	CHECKF(bad == 0 && packed == n, "N=%lld W=%d V=%d: packs add to %lld", (long long)n, W, V,
	       (long long)packed);
	CHECKF(most == bound, "N=%lld W=%d V=%d: most owned %lld, bound %lld", (long long)n, W, V,
	       (long long)most, (long long)bound);
	free(owned);
}

static void test_ownership(void)
{
	unsigned long long state = 0x1234abcdull ^ (unsigned long long)rr__now();
	static const int vecs[] = {1, 2, 4, 8, 16};
	for (int trial = 0; trial < 300; trial++) {
		int64_t n = random_int(&state, 1, 5000);
		int W = 1 << random_int(&state, 0, 10);
		int V = vecs[random_int(&state, 0, 4)];
		check_map(n, W, V);
	}
	check_map(1, 1024, 16);
	check_map(4096, 128, 4);
	/* The bound's two parts: full chunks, then at most V of the last one. */
	CHECK(rr__slot_bound(100, 4, 4) == 6 * 4 + 4);
	CHECK(rr__slot_bound(10, 4, 4) == 4);
	CHECK(rr__slot_bound(3, 4, 4) == 3);
}

/* Every worker's element count (head and body) for a row of n at `address`, into count[W];
 * the head length is returned. */
static int64_t count_owned(int64_t n, int W, int V, int es, uintptr_t address, int64_t *count)
{
	rr_layout l = make(W, V, 1, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS);
	int access = rr__access_bytes(&l, n, es);
	int64_t h = rr__head_length(address, access, es, n);
	memset(count, 0, (size_t)W * sizeof *count);
	for (int64_t i = 0; i < n; i++) {
		int is_head, worker, element;
		int64_t chunk;
		rr__owner_of_headed(i, h, W, V, &is_head, &chunk, &worker, &element);
		count[worker]++;
	}
	return h;
}

/* The extended map of layout.h for a row of n elements of es bytes at `address`: the head is
 * shorter than a = access / es and ends on an access boundary; every element has one owner
 * and maps back; each (head step, worker) and (chunk, worker, element) that is valid names a
 * distinct element, n of them in all; body packs start aligned; body slots stay under the
 * slot bound; each worker's head count is rr__head_count; and rr__serial_length is the most
 * elements any worker adds over every head this row length can have. */
static void check_headed_map(int64_t n, int W, int V, int es, uintptr_t address)
{
	rr_layout l = make(W, V, 1, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS);
	int access = rr__access_bytes(&l, n, es), a = access / es;
	int64_t h = rr__head_length(address, access, es, n);
	int steps = rr__head_slots(a, W);
	int64_t bound = rr__slot_bound(n, W, V), *count = calloc((size_t)W, sizeof *count);
	unsigned char *seen = calloc((size_t)n, 1);
	int bad = 0;
	bad += access != (V * es < 16 ? V * es : 16) || h < 0 || h > n || (a > 1 ? h >= a : h != 0);
	bad += h < n && (address + (uintptr_t)(h * es)) % (uintptr_t)access != 0;
	for (int64_t i = 0; i < n; i++) {
		int is_head, worker, element;
		int64_t chunk;
		rr__owner_of_headed(i, h, W, V, &is_head, &chunk, &worker, &element);
		bad += worker < 0 || worker >= W || element < 0 || element >= V;
		bad += is_head ? chunk >= steps : chunk * V + element >= bound;
		bad += rr__owned_index_headed(is_head, h, chunk, worker, element, W, V) != i;
		bad += !is_head && element == 0 &&
		       (address + (uintptr_t)(i * es)) % (uintptr_t)access != 0;
		count[worker]++;
	}
	int64_t valid = 0;
	for (int w = 0; w < W; w++) {
		int64_t heads = 0;
		for (int t = 0; t < steps; t++) {
			int64_t i = rr__owned_index_headed(1, h, t, w, 0, W, V);
			if (i < h) {
				bad += seen[i]++ != 0;
				valid++, heads++;
			}
		}
		bad += heads != rr__head_count(h, W, w);
		for (int64_t c = 0; c * W * V < n; c++)
			for (int e = 0; e < V; e++) {
				int64_t i = rr__owned_index_headed(0, h, c, w, e, W, V);
				if (i < n) {
					bad += i < h || seen[i]++ != 0;
					valid++;
				}
			}
	}
	int64_t most = 0, *other = calloc((size_t)W, sizeof *other);
	for (int phase = 0; phase < access; phase += es) {
		count_owned(n, W, V, es, 4096 + (uintptr_t)phase, other);
		for (int w = 0; w < W; w++)
			most = other[w] > most ? other[w] : most;
	}
	int64_t serial = rr__serial_length(n, W, V, a);
	CHECKF(bad == 0 && valid == n,
	       "N=%lld W=%d V=%d size %d at %% 16 = %d (h = %lld): %d map errors, %lld valid",
	       (long long)n, W, V, es, (int)(address % 16), (long long)h, bad, (long long)valid);
	CHECKF(serial == most, "N=%lld W=%d V=%d size %d: serial length %lld, most added %lld",
	       (long long)n, W, V, es, (long long)serial, (long long)most);
	free(other);
	free(seen);
	free(count);
}

static void test_headed_ownership(void)
{
	unsigned long long state = 0x5eedull ^ (unsigned long long)rr__now();
	static const int vecs[] = {1, 2, 4, 8, 16}, sizes[] = {2, 4};
	for (int trial = 0; trial < 300; trial++) {
		int64_t n = random_int(&state, 1, 3000);
		int W = 1 << random_int(&state, 0, 10);
		int V = vecs[random_int(&state, 0, 4)], es = sizes[random_int(&state, 0, 1)];
		uintptr_t address = 1 << 20 | (uintptr_t)(es * random_int(&state, 0, 15));
		check_headed_map(n, W, V, es, address);
	}
	/* The corners: a row shorter than its head, one worker, W = 1024 over a short row. */
	check_headed_map(3, 1, 8, 2, 0x1002);
	check_headed_map(1, 1024, 16, 2, 0x100e);
	check_headed_map(4099, 1, 4, 4, 0x1004);
	/* By hand: bf16, V = 8, a view 3 elements in: h = 5 on workers W-1 ... W-5. */
	CHECK(rr__head_length(0x1006, 16, 2, 100) == 5 && rr__head_length(0x1006, 16, 2, 4) == 4);
	CHECK(rr__head_length(0x1000, 16, 2, 100) == 0 && rr__head_slots(8, 4) == 2);
	CHECK(rr__head_count(5, 4, 3) == 2 && rr__head_count(5, 4, 0) == 1);
	CHECK(rr__head_count(5, 8, 2) == 0 && rr__head_count(5, 8, 3) == 1);
	/* A W = 1 worker adds the whole row whatever the head: the chain is N, not N + h. */
	CHECK(rr__serial_length(32768, 1, 8, 4) == 32768);
}

/* ---------------------------------------------------------------- reduction tree */

static void test_tree(void)
{
	int offsets[16];
	CHECK(rr__tree_offsets(1, 32, offsets) == 0);
	CHECK(rr__tree_offsets(2, 32, offsets) == 1 && offsets[0] == 1);
	static const int w32[] = {16, 8, 4, 2, 1};
	CHECK(rr__tree_offsets(32, 32, offsets) == 5 && memcmp(offsets, w32, sizeof w32) == 0);
	static const int w64[] = {16, 8, 4, 2, 1, 32};
	CHECK(rr__tree_offsets(64, 32, offsets) == 6 && memcmp(offsets, w64, sizeof w64) == 0);
	static const int w128[] = {16, 8, 4, 2, 1, 64, 32};
	CHECK(rr__tree_offsets(128, 32, offsets) == 7 && memcmp(offsets, w128, sizeof w128) == 0);
	static const int w1024[] = {16, 8, 4, 2, 1, 512, 256, 128, 64, 32};
	CHECK(rr__tree_offsets(1024, 32, offsets) == 10 &&
	      memcmp(offsets, w1024, sizeof w1024) == 0);
	/* Applying the butterfly leaves every worker holding the total, for every W. */
	unsigned long long state = 99;
	for (int W = 1; W <= 1024; W *= 2) {
		long long value[1024], next[1024], total = 0;
		for (int w = 0; w < W; w++)
			total += value[w] = random_int(&state, -1000, 1000);
		int count = rr__tree_offsets(W, 32, offsets);
		for (int s = 0; s < count; s++) {
			for (int w = 0; w < W; w++)
				next[w] = value[w] + value[w ^ offsets[s]];
			memcpy(value, next, (size_t)W * sizeof value[0]);
		}
		int wrong = 0;
		for (int w = 0; w < W; w++)
			wrong += value[w] != total;
		CHECKF(wrong == 0, "W=%d: %d workers miss the total", W, wrong);
	}
}

/* ---------------------------------------------------------------- legality */

static void expect(const rr_kernel *k, int64_t cols, rr_layout l, const rr__target *t,
                   rr__illegal want, const char *phrase)
{
	char detail[512];
	rr__illegal got = rr__layout_check(k, cols, RR_F32, &l, t, detail, sizeof detail);
	CHECKF(got == want, "%s N=%lld W=%d V=%d U=%d R=%d C=%d S=%d on %s: got %d (%s), want %d",
	       k ? k->name : "-", (long long)cols, l.workers_per_row, l.vec, l.unroll,
	       l.rows_per_group, l.blocks_per_row, (int)l.storage, t->backend, (int)got, detail,
	       (int)want);
	if (want != RR_LEGAL)
		CHECKF(phrase && strstr(detail, phrase), "detail '%s' lacks '%s'", detail, phrase);
}

static void test_legality(void)
{
	rr__target cpu, gpu;
	rr__target_cpu(&cpu);
	cuda_like(&gpu);
	CHECK(strcmp(cpu.backend, "cpu") == 0 && cpu.multiprocessors >= 1 &&
	      cpu.max_workers == 1024);
	CHECK(cpu.smem_per_group == 0 && !cpu.has_clusters && cpu.register_slots == 64);
	rr_kernel *sum = sum_kernel(0), *exact = sum_kernel(1);
	rr_kernel *norm = norm_kernel(0), *add_norm = norm_kernel(1);
	const rr_storage R_ = RR_STORAGE_REGS;
	const rr_grid G = RR_GRID_ROWS;

	expect(sum, 4096, make(128, 4, 1, 1, 1, R_, G), &gpu, RR_LEGAL, NULL);
	expect(sum, 4096, make(0, 4, 1, 1, 1, R_, G), &gpu, RR_ILLEGAL_INCOMPLETE, "W");
	expect(sum, 4096, make(32, 4, 1, 1, 1, RR_STORAGE_AUTO, G), &gpu, RR_ILLEGAL_INCOMPLETE,
	       "storage");
	expect(sum, 4096, make(3, 4, 1, 1, 1, R_, G), &gpu, RR_ILLEGAL_WIDTH_NOT_POW2, "W = 3");
	expect(sum, 4096, make(2048, 4, 1, 1, 1, R_, G), &gpu, RR_ILLEGAL_WIDTH_NOT_POW2, "2048");
	expect(sum, 4096, make(64, 4, 1, 32, 1, R_, G), &gpu, RR_ILLEGAL_WIDTH_OVER_DEVICE, "2048");
	expect(sum, 4096, make(64, 5, 1, 1, 1, R_, G), &gpu, RR_ILLEGAL_VEC, "V = 5");
	expect(sum, 4096, make(64, 4, 9, 1, 1, R_, G), &gpu, RR_ILLEGAL_UNROLL, "U = 9");
	expect(sum, 4096, make(64, 4, 1, 2, 2, R_, G), &gpu, RR_ILLEGAL_ROWS, "R = 1");
	expect(sum, 4096, make(64, 4, 1, 1, 3, R_, G), &gpu, RR_ILLEGAL_NO_CLUSTER, "C = 3");
	expect(sum, 4096, make(64, 4, 1, 1, 16, R_, G), &gpu, RR_ILLEGAL_NO_CLUSTER, "1..8");
	expect(sum, 4096, make(64, 4, 1, 1, 2, R_, G), &cpu, RR_ILLEGAL_NO_CLUSTER, "clusters");
	expect(sum, 4096, make(64, 4, 1, 1, 2, R_, G), &gpu, RR_LEGAL, NULL);
	/* Storage is ignored when nothing is kept between phases. */
	expect(sum, 4096, make(4, 4, 1, 1, 1, RR_STORAGE_SMEM, G), &cpu, RR_LEGAL, NULL);

	expect(exact, 4096, make(1, 8, 4, 8, 1, R_, G), &gpu, RR_LEGAL, NULL);
	expect(exact, 4096, make(2, 4, 1, 1, 1, R_, G), &gpu, RR_ILLEGAL_EXACT_REASSOC, "exact");
	expect(exact, 4096, make(1, 4, 1, 1, 2, R_, G), &gpu, RR_ILLEGAL_EXACT_REASSOC, "C = 2");

	/* 2048 / 32 = 64 slots is the budget; one more element is over it. */
	expect(norm, 2048, make(32, 4, 1, 1, 1, R_, G), &gpu, RR_LEGAL, NULL);
	expect(norm, 2049, make(32, 4, 1, 1, 1, R_, G), &gpu, RR_ILLEGAL_SLOTS_OVER_BUDGET, "65");
	expect(add_norm, 4096, make(16, 4, 1, 1, 1, R_, G), &gpu, RR_ILLEGAL_SLOTS_OVER_BUDGET,
	       "2 row input");
	expect(add_norm, 4096, make(128, 4, 1, 1, 1, R_, G), &cpu, RR_LEGAL, NULL);
	/* Loads in flight on a GPU: V·U values of each input a phase reads, at most 1.5 × the
	 * budget (24 slots at 1024 threads: 36). add_norm reads x and r in every phase: V = 4,
	 * U = 4 keeps 32 values in flight, V = 8, U = 4 keeps 64; the CPU has no such limit. */
	expect(add_norm, 32768, make(1024, 4, 4, 1, 1, RR_STORAGE_REREAD, G), &gpu, RR_LEGAL, NULL);
	expect(add_norm, 32768, make(1024, 8, 4, 1, 1, RR_STORAGE_REREAD, G), &gpu,
	       RR_ILLEGAL_SLOTS_OVER_BUDGET, "64 values in flight");
	expect(add_norm, 32768, make(1024, 8, 4, 1, 1, RR_STORAGE_REREAD, G), &cpu, RR_LEGAL, NULL);
	expect(norm, 4096, make(8, 8, 1, 1, 1, RR_STORAGE_SMEM, G), &cpu, RR_ILLEGAL_STORAGE,
	       "registers or re-reads");
	expect(norm, 4096, make(8, 8, 1, 1, 1, RR_STORAGE_CLUSTER, G), &cpu, RR_ILLEGAL_NO_CLUSTER,
	       "cluster");
	expect(norm, 4096, make(8, 8, 1, 1, 1, RR_STORAGE_REREAD, G), &cpu, RR_LEGAL, NULL);
	expect(norm, 131072, make(1024, 4, 1, 1, 1, RR_STORAGE_SMEM, G), &gpu,
	       RR_ILLEGAL_SMEM_OVER_LIMIT, "shared memory");
	expect(norm, 32768, make(1024, 4, 1, 1, 1, RR_STORAGE_SMEM, G), &gpu, RR_LEGAL, NULL);
	expect(norm, 32768, make(256, 4, 1, 2, 1, RR_STORAGE_SMEM, G), &gpu,
	       RR_ILLEGAL_SMEM_OVER_LIMIT, "R = 2");
	expect(norm, 131072, make(1024, 4, 1, 1, 4, RR_STORAGE_CLUSTER, G), &gpu, RR_LEGAL, NULL);
	/* A cluster keeps its segment in registers when it fits, else in shared memory. A block
	 * of 1024 threads may keep 65536 / 1024 - 40 = 24 slots: C = 8 (16 slots) fits, C = 2
	 * (64 slots) does not, and its 65536 f32 = 256 KiB are over the shared-memory limit. */
	expect(norm, 131072, make(1024, 4, 1, 1, 2, RR_STORAGE_CLUSTER, G), &gpu,
	       RR_ILLEGAL_SMEM_OVER_LIMIT, "65536");
	expect(norm, 24576, make(1024, 4, 1, 1, 1, R_, G), &gpu, RR_LEGAL, NULL);
	expect(norm, 32768, make(1024, 4, 1, 1, 1, R_, G), &gpu, RR_ILLEGAL_SLOTS_OVER_BUDGET,
	       "budget of 24");
	expect(norm, 131072, make(512, 4, 1, 1, 2, RR_STORAGE_CLUSTER, G), &gpu,
	       RR_ILLEGAL_SMEM_OVER_LIMIT, "65536");
	expect(norm, 4096, make(256, 4, 1, 1, 1, RR_STORAGE_CLUSTER, G), &gpu, RR_ILLEGAL_STORAGE,
	       "C = 1");
	expect(norm, 131072, make(1024, 4, 1, 1, 4, R_, G), &gpu, RR_ILLEGAL_STORAGE, "S=regs");
	expect(norm, 131072, make(1024, 4, 1, 1, 4, RR_STORAGE_REREAD, G), &gpu, RR_LEGAL, NULL);

	/* Numerics: one f32 accumulator adds at most rr__serial_bound(RR_F32) = 2^15 elements in
	 * sequence. W = 1 over 2^15 is legal, one element more is not; W = 2 halves the chain. On a
	 * GPU C blocks per row split it further. An exact sum was asked to run in index order on
	 * one worker: it is not bounded. */
	const int64_t B = rr__serial_bound(RR_F32);
	CHECK(B == 32768);
	expect(sum, B, make(1, 8, 1, 1, 1, R_, G), &cpu, RR_LEGAL, NULL);
	expect(sum, B + 1, make(1, 8, 1, 1, 1, R_, G), &cpu, RR_ILLEGAL_SERIAL_LENGTH,
	       "serial length 32769");
	expect(sum, B + 1, make(2, 8, 1, 1, 1, R_, G), &cpu, RR_LEGAL, NULL);
	expect(norm, 1000000, make(1, 8, 1, 1, 1, RR_STORAGE_REREAD, G), &cpu,
	       RR_ILLEGAL_SERIAL_LENGTH, "W >= 31");
	expect(norm, 1000000, make(32, 8, 1, 1, 1, RR_STORAGE_REREAD, G), &cpu, RR_LEGAL, NULL);
	expect(norm, 1 << 24, make(256, 8, 1, 1, 1, RR_STORAGE_REREAD, G), &cpu,
	       RR_ILLEGAL_SERIAL_LENGTH, "f32 bound 32768");
	/* 2^24 over W = 512 is 32768 body elements for worker 510, plus one of a row's head
	 * (layout.h) when the row starts 2 or 3 elements before a 16-byte boundary: the bound is
	 * on the body's chain, the head's few elements inside its margin. */
	expect(norm, 1 << 24, make(512, 8, 1, 1, 1, RR_STORAGE_REREAD, G), &cpu, RR_LEGAL, NULL);
	expect(norm, (1 << 24) + 8, make(512, 8, 1, 1, 1, RR_STORAGE_REREAD, G), &cpu,
	       RR_ILLEGAL_SERIAL_LENGTH, "serial length 32776");
	expect(sum, 1 << 25, make(256, 8, 1, 1, 2, R_, G), &gpu, RR_ILLEGAL_SERIAL_LENGTH,
	       "C = 2 blocks");
	expect(sum, 1 << 25, make(256, 8, 1, 1, 8, R_, G), &gpu, RR_LEGAL, NULL);
	expect(exact, 1000000, make(1, 8, 1, 1, 1, R_, G), &cpu, RR_LEGAL, NULL);
	/* Past 2^25 no CPU plan is within the bound: the widest W stays legal so the row runs. */
	expect(sum, (int64_t)1 << 26, make(512, 8, 1, 1, 1, R_, G), &cpu, RR_ILLEGAL_SERIAL_LENGTH,
	       "W >= 2048");
	expect(sum, (int64_t)1 << 26, make(1024, 8, 1, 1, 1, R_, G), &cpu, RR_LEGAL, NULL);
	rr__realisation serial;
	rr_layout one = make(4, 8, 1, 1, 1, R_, G);
	CHECK(rr__realise(sum, RR_BF16, 100000, &one, &cpu, &serial) == RR_OK);
	/* 100000 bf16 over W = 4, V = 8: 25000 each without a head; with h = 7 (a row 1 element
	 * into a 16-byte unit) worker 2 keeps its whole last pack and adds head elements 1, 5. */
	CHECK(serial.serial_length == 25002 && serial.serial_bound == B);
	CHECK(rr__realise(exact, RR_F32, 100000, &one, &cpu, &serial) == RR_OK);
	CHECK(serial.serial_bound == 0);

	/* Every reason has its own sentence. */
	for (int a = RR_LEGAL; a <= RR_ILLEGAL_GRID_SPLIT; a++) {
		CHECK(strlen(rr__illegal_name((rr__illegal)a)) > 10);
		for (int b = RR_LEGAL; b < a; b++)
			CHECK(strcmp(rr__illegal_name((rr__illegal)a),
			             rr__illegal_name((rr__illegal)b)) != 0);
	}
	/* Segments of a cluster are whole 16-byte units; shared memory counts whole chunks. */
	CHECK(rr__block_segment(100, 1, 4, 2) == 100 && rr__block_segment(100, 8, 4, 2) == 16);
	CHECK(rr__block_segment(100, 8, 16, 4) == 16 && rr__block_segment(4096, 4, 4, 4) == 1024);
	rr_layout big = make(1024, 4, 1, 1, 1, RR_STORAGE_SMEM, G);
	rr__realisation r;
	CHECK(rr__realise(norm, RR_F32, 32768, &big, &gpu, &r) == RR_OK);
	CHECK(r.keep == RR_KEEP_SMEM && r.kept_inputs == 1 && r.kept_values == 1);
	/* One kept row in f32, plus 3 partials (2 reductions and a spare) × 2 × 32 warps. */
	CHECK(r.smem_bytes == 32768 * 4 + 2 * 3 * 32 * 4);
	CHECK(r.dynamic_smem == 32768 * 4 && r.static_smem == 2 * 2 * 32 * 4);
	CHECK(r.dynamic_smem + r.static_smem <= r.smem_bytes);
	CHECK(rr__realise(norm, RR_F32, 32769, &big, &gpu, &r) == RR_OK);
	CHECK(r.smem_bytes > (32768 + 4096) * 4 && r.chunks == 9);
	int phases[RR_MAX_IO];
	CHECK(rr__layout_kept_inputs(sum, phases) == 0 && phases[0] == 1);
	CHECK(rr__layout_kept_inputs(norm, phases) == 1 && phases[0] == 3);
	CHECK(rr__layout_kept_inputs(add_norm, phases) == 2);
	rr_kernel_free(sum);
	rr_kernel_free(exact);
	rr_kernel_free(norm);
	rr_kernel_free(add_norm);
}

/* ---------------------------------------------------------------- rows over the grid */

/* S=grid: legal on a GPU for C = 2..1024 co-resident blocks of W >= 32 on a persistent grid;
 * the segment is kept in registers when it fits, else in shared memory; the workspace per
 * group is a barrier line and the [parity][slot][block] partials in whole 128-byte lines. */
static void test_grid_split(void)
{
	rr__target cpu, gpu;
	rr__target_cpu(&cpu);
	cuda_like(&gpu);
	rr_kernel *sum = sum_kernel(0), *norm = norm_kernel(0), *exact = sum_kernel(1);
	const rr_storage S = RR_STORAGE_GRID;
	const rr_grid P = RR_GRID_PERSISTENT;
	expect(norm, 2097152, make(1024, 4, 1, 1, 128, S, P), &gpu, RR_LEGAL, NULL);
	expect(sum, 2097152, make(256, 4, 1, 1, 1024, S, P), &gpu, RR_LEGAL, NULL);
	expect(norm, 2097152, make(1024, 4, 1, 1, 128, S, P), &cpu, RR_ILLEGAL_GRID_SPLIT,
	       "cpu backend");
	/* Any C, a power of two or not (M x C blocks that fill the SMs). */
	expect(norm, 2097152, make(1024, 4, 1, 1, 96, S, P), &gpu, RR_LEGAL, NULL);
	expect(sum, 2097152, make(1024, 4, 1, 1, 66, S, P), &gpu, RR_LEGAL, NULL);
	expect(norm, 2097152, make(1024, 4, 1, 1, 1025, S, P), &gpu, RR_ILLEGAL_GRID_SPLIT,
	       "2..1024");
	expect(norm, 2097152, make(1024, 4, 1, 1, 1, S, P), &gpu, RR_ILLEGAL_GRID_SPLIT, "2..1024");
	expect(norm, 2097152, make(16, 4, 1, 1, 64, S, P), &gpu, RR_ILLEGAL_GRID_SPLIT, "W >= 32");
	expect(norm, 2097152, make(1024, 4, 1, 1, 128, S, RR_GRID_ROWS), &gpu,
	       RR_ILLEGAL_GRID_SPLIT, "G=persistent");
	expect(norm, 2097152, make(64, 4, 1, 2, 128, S, P), &gpu, RR_ILLEGAL_ROWS, "R = 1");
	/* 132 SMs hold 2 blocks of 1024 threads each: 264 < 512. */
	expect(norm, 2097152, make(1024, 4, 1, 1, 512, S, P), &gpu, RR_ILLEGAL_GRID_SPLIT,
	       "at most 264 blocks");
	/* 65536 kept f32 per block = 256 KiB, over the 227 KiB a block may have: the segment is
	 * re-read instead of kept (two passes over it, nothing in shared memory). */
	expect(norm, 1048576, make(128, 4, 1, 1, 16, S, P), &gpu, RR_LEGAL, NULL);
	rr__realisation over;
	CHECK(rr__realise(norm, RR_F32, 1048576, &(rr_layout){128, 4, 1, 1, 16, S, P}, &gpu,
	                  &over) == RR_OK);
	CHECK(over.keep == RR_KEEP_NONE && over.kept_values == 0 && over.dynamic_smem == 0);
	CHECK(rr__realise(norm, RR_F32, 1048576, &(rr_layout){128, 4, 1, 1, 128, S, P}, &gpu,
	                  &over) == RR_OK);
	CHECK(over.keep != RR_KEEP_NONE); /* 8192 per block: kept */
	expect(exact, 4096, make(32, 4, 1, 1, 4, S, P), &gpu, RR_ILLEGAL_EXACT_REASSOC, "exact");
	/* Clusters of 16 where the device opts in (sm_90): whole warps combine them. */
	rr__target sm90 = gpu;
	sm90.max_cluster = 16;
	expect(sum, 262144, make(1024, 4, 1, 1, 16, RR_STORAGE_CLUSTER, RR_GRID_ROWS), &sm90,
	       RR_LEGAL, NULL);
	expect(sum, 262144, make(16, 4, 1, 1, 16, RR_STORAGE_CLUSTER, RR_GRID_ROWS), &sm90,
	       RR_ILLEGAL_NO_CLUSTER, "at least 32");
	expect(sum, 262144, make(1024, 4, 1, 1, 32, RR_STORAGE_CLUSTER, RR_GRID_ROWS), &sm90,
	       RR_ILLEGAL_NO_CLUSTER, "1..16");
	expect(sum, 262144, make(1024, 4, 1, 1, 16, RR_STORAGE_CLUSTER, RR_GRID_ROWS), &gpu,
	       RR_ILLEGAL_NO_CLUSTER, "1..8");

	rr__realisation r;
	rr_layout regs = make(1024, 4, 1, 1, 128, S, P), smem = make(128, 4, 2, 1, 64, S, P);
	/* RR_GRID_SHIFT=0: two barriers, the kernel's own slots. */
	setenv("RR_GRID_SHIFT", "0", 1);
	CHECK(rr__realise(norm, RR_F32, 2097152, &regs, &gpu, &r) == RR_OK);
	CHECK(r.grid_split && r.persistent && r.blocks_per_row == 128 && r.segment == 16384);
	CHECK(r.keep == RR_KEEP_REGS && r.slots == 16 && r.dynamic_smem == 0 && !r.grid_shift);
	/* 32 barrier words + 2 parities × 2 slots (mean, variance) × 128 blocks = 544 words. */
	CHECK(r.red_slots == 2 && r.workspace_per_group == 544 * 4);
	CHECK(r.static_smem == 2 * 2 * 32 * 4); /* the warps' scratch; no cluster scratch */
	CHECK(rr__realise(norm, RR_F32, 1048576, &smem, &gpu, &r) == RR_OK);
	CHECK(r.keep == RR_KEEP_SMEM && r.segment == 16384 && r.dynamic_smem == 16384 * 4);
	CHECK(r.workspace_per_group == (32 + 2 * 2 * 64 + 31) / 32 * 128);
	int64_t smem_two = r.smem_bytes;
	unsetenv("RR_GRID_SHIFT");
	/* One barrier for both rounds (grid_shift): T_b and c_b take two more slots, 32 + 2 × 4 ×
	 * 128 = 1056 words, and two more partials in the shared-memory budget. */
	CHECK(rr__realise(norm, RR_F32, 2097152, &regs, &gpu, &r) == RR_OK);
	CHECK(r.grid_shift && r.red_slots == 4 && r.workspace_per_group == 1056 * 4);
	CHECK(r.static_smem == 2 * 4 * 32 * 4);
	CHECK(rr__realise(norm, RR_F32, 1048576, &smem, &gpu, &r) == RR_OK);
	CHECK(r.grid_shift && r.workspace_per_group == (32 + 2 * 4 * 64 + 31) / 32 * 128);
	CHECK(r.smem_bytes > smem_two && r.dynamic_smem + r.static_smem <= r.smem_bytes);
	rr_layout cluster = make(1024, 4, 1, 1, 8, RR_STORAGE_CLUSTER, RR_GRID_ROWS);
	CHECK(rr__realise(norm, RR_F32, 131072, &cluster, &gpu, &r) == RR_OK);
	CHECK(!r.grid_split && r.workspace_per_group == 0);
	rr_kernel_free(sum);
	rr_kernel_free(norm);
	rr_kernel_free(exact);
}

/* ---------------------------------------------------------------- text form */

static void expect_parse_error(const char *text, const char *phrase)
{
	rr_layout l = make(7, 7, 7, 7, 7, RR_STORAGE_SMEM, RR_GRID_ROWS);
	rr_status status = rr_layout_parse(text, &l);
	CHECKF(status == RR_ERR_INVALID_ARG, "'%s' parsed (status %d)", text, (int)status);
	CHECKF(strstr(rr_last_error(), phrase), "'%s': message '%s' lacks '%s'", text,
	       rr_last_error(), phrase);
	CHECK(l.workers_per_row == 7); /* the output is untouched on failure */
}

static void test_text(void)
{
	rr_layout l;
	char text[128];
	CHECK(rr_layout_parse("W=32,V=4,U=1,R=1", &l) == RR_OK);
	CHECK(l.workers_per_row == 32 && l.vec == 4 && l.unroll == 1 && l.rows_per_group == 1);
	CHECK(l.blocks_per_row == 0 && l.storage == RR_STORAGE_AUTO && l.grid == RR_GRID_AUTO);
	CHECK(rr_layout_parse(" workers = 64 , Vec=8,unroll=2,ROWS=1,blocks=2,storage=Cluster,"
	                      "grid=persistent ",
	                      &l) == RR_OK);
	CHECK(l.workers_per_row == 64 && l.vec == 8 && l.unroll == 2 && l.blocks_per_row == 2);
	CHECK(l.storage == RR_STORAGE_CLUSTER && l.grid == RR_GRID_PERSISTENT);
	CHECK(rr_layout_format(&l, text, sizeof text) == (int)strlen(text));
	CHECK(strcmp(text, "W=64,V=8,U=2,R=1,C=2,S=cluster,G=persistent") == 0);
	CHECK(rr_layout_parse("v=16", &l) == RR_OK && l.vec == 16 && l.workers_per_row == 0);
	CHECK(rr_layout_format(&l, text, sizeof text) == 4 && strcmp(text, "V=16") == 0);
	/* A short buffer is cut, and the full length is still returned. */
	l = make(1024, 16, 8, 1, 8, RR_STORAGE_REREAD, RR_GRID_PERSISTENT);
	int full = rr_layout_format(&l, text, sizeof text);
	char small[8];
	CHECK(rr_layout_format(&l, small, sizeof small) == full && strlen(small) == 7);

	unsigned long long state = 7;
	static const rr_storage storages[] = {RR_STORAGE_AUTO,   RR_STORAGE_REGS,
	                                      RR_STORAGE_SMEM,   RR_STORAGE_CLUSTER,
	                                      RR_STORAGE_REREAD, RR_STORAGE_GRID};
	for (int trial = 0; trial < 200; trial++) {
		rr_layout in =
		    make((int)random_int(&state, 1, 1024), (int)random_int(&state, 0, 16),
		         (int)random_int(&state, 1, 8), (int)random_int(&state, 0, 64),
		         (int)random_int(&state, 0, 1024), storages[random_int(&state, 0, 5)],
		         (rr_grid)random_int(&state, 0, 2));
		rr_layout out;
		rr_layout_format(&in, text, sizeof text);
		CHECKF(rr_layout_parse(text, &out) == RR_OK && memcmp(&in, &out, sizeof in) == 0,
		       "'%s' does not read back: %s", text, rr_last_error());
	}
	expect_parse_error("", "empty");
	expect_parse_error("  ", "empty");
	expect_parse_error("X=1", "allowed keys");
	expect_parse_error("W=1,w=2", "twice");
	expect_parse_error("W=abc", "whole number");
	expect_parse_error("W=", "whole number");
	expect_parse_error("W=-4", "whole number");
	expect_parse_error("W=4.5", "whole number");
	expect_parse_error("W=0", "'0' is below the least allowed, 1");
	expect_parse_error("W=65536", "'65536' exceeds the most allowed, 1024");
	expect_parse_error("U=9", "'9' exceeds the most allowed, 8");
	expect_parse_error("S=disk", "regs, smem, cluster, reread, grid");
	expect_parse_error("C=2048", "'2048' exceeds the most allowed, 1024");
	CHECK(rr_layout_parse("W=256,C=512,S=grid", &l) == RR_OK && l.blocks_per_row == 512 &&
	      l.storage == RR_STORAGE_GRID);
	CHECK(rr_layout_format(&l, text, sizeof text) > 0 &&
	      strcmp(text, "W=256,C=512,S=grid") == 0);
	expect_parse_error("G=cols", "rows, persistent");
	expect_parse_error("W=1,,V=2", "empty item");
	expect_parse_error("W=1,", "empty item");
	expect_parse_error("W", "KEY=VALUE");
}

/* The variance shift (rr__variance_shift_of): LayerNorm's mean, then the sum of squares about
 * it; none where round 2 sums anything else, the centre is not round 1's mean, or a round
 * has a second reduction. */
static void test_variance_shift(void)
{
	const char *head = "kernel k\n in x : row\n out y : row\n";
	const struct {
		const char *body;
		int shifted;
	} cases[] = {
	    {" m = sum(x) / N\n d = x - m\n v = sum(d * d) / N\n y = d * rsqrt(v + 1)\n", 1},
	    {" h = x * 3\n m = sum(h) / N\n d = h - m\n v = sum(d * d)\n y = d / v\n", 1},
	    {" m = sum(x) / N\n d = x - m\n v = sum(d * d * x)\n y = d / v\n", 0},
	    {" m = sum(x) / 7\n d = x - m\n v = sum(d * d)\n y = d / v\n", 0},
	    {" m = sum(x) / N\n d = x - m\n v = sum(d * x)\n y = d / v\n", 0},
	    {" m = sum(x * x) / N\n d = x - m\n v = sum(d * d)\n y = d / v\n", 0},
	    {" m = sum(x) / N\n d = x - m\n v = sum(d * d)\n u = max(d)\n y = d / v + u\n", 0},
	    {" m = sum(x) / N\n y = x - m\n", 0},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		char text[512];
		snprintf(text, sizeof text, "%s%s", head, cases[c].body);
		rr_kernel *k = load(text);
		if (!k)
			continue;
		rr__variance_shift v = rr__variance_shift_of(k);
		CHECKF((v.sq >= 0) == cases[c].shifted, "case %zu: shift %d, want %d", c, v.sq >= 0,
		       cases[c].shifted);
		if (v.sq >= 0)
			CHECKF(k->nodes[v.sq].op == RR_OP_REDUCE &&
			           k->nodes[v.sum].op == RR_OP_REDUCE &&
			           k->nodes[v.d].op == RR_OP_SUB && k->nodes[v.c].op == RR_OP_DIV,
			       "case %zu: the shift's nodes", c);
		rr_kernel_free(k);
	}
}

int main(void)
{
	test_variance_shift();
	test_ownership();
	test_headed_ownership();
	test_tree();
	test_legality();
	test_grid_split();
	test_text();
	return rr_test_finish("test_layout");
}

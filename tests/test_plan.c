/* Tests of the planner: candidate counts add up, no duplicates survive, every candidate is legal
 * and canonical, the mapper honours fixed fields and returns legal layouts for every built-in
 * and shape on a cpu and a cuda-like target, and the default model prefers the layouts fast
 * public kernels use. RR_PLAN_SHOW=1 prints the model's picks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "layout/realise.h"
#include "plan/plan.h"
#include "lang/ir.h"
#include "util/util.h"

/* ---------------------------------------------------------------- the built-ins, by hand */

static const char *const builtins[] = {"sum",       "softmax",       "rmsnorm",
                                       "layernorm", "add_layernorm", "cross_entropy"};

static rr_kernel *builtin(const char *name)
{
	rr_kernel *k = NULL;
	CHECKF(rr_kernel_load_builtin(name, &k) == RR_OK, "%s: %s", name, rr_last_error());
	return k;
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

static const char *show(const rr_layout *l)
{
	static char text[128];
	rr_layout_format(l, text, sizeof text);
	return text;
}

/* ---------------------------------------------------------------- candidates */

static void check_candidates(const rr__plan_request *req, const rr_layout *fixed)
{
	rr__candidates c;
	CHECKF(rr__plan_enumerate(req, fixed, &c) == RR_OK, "%s", rr_last_error());
	int by_reason = 0, bad = 0;
	for (int r = 0; r < 16; r++)
		by_reason += c.rejected_by_reason[r];
	CHECKF(c.count + c.merged + c.rejected == c.considered && by_reason == c.rejected,
	       "%s N=%lld on %s: %d kept + %d merged + %d rejected != %d considered",
	       req->kernel->name, (long long)req->cols, req->target->backend, c.count, c.merged,
	       c.rejected, c.considered);
	CHECK(c.count > 0 && c.considered >= c.count);
	for (int i = 0; i < c.count; i++) {
		const rr_layout *l = &c.items[i];
		char detail[256];
		rr_layout canonical = *l;
		rr__plan_canonical(req, fixed, &canonical);
		bad += !rr__layout_is_complete(l);
		bad += rr__layout_check(req->kernel, req->cols, req->dtype, l, req->target, detail,
		                        sizeof detail) != RR_LEGAL;
		bad += memcmp(&canonical, l, sizeof canonical) != 0;
		bad += i > 0 && memcmp(&c.items[i - 1], l, sizeof *l) == 0;
	}
	CHECKF(bad == 0, "%s N=%lld on %s: %d bad candidates", req->kernel->name,
	       (long long)req->cols, req->target->backend, bad);
	rr__candidates_free(&c);
}

/* ---------------------------------------------------------------- the mapper */

static rr_layout choose(const rr__plan_request *req, const rr_layout *requested)
{
	rr_layout out = {0};
	rr_status status = rr__plan_choose(req, requested, NULL, NULL, &out, NULL);
	CHECKF(status == RR_OK, "%s N=%lld on %s: %s", req->kernel->name, (long long)req->cols,
	       req->target->backend, rr_last_error());
	char detail[256];
	CHECKF(rr__layout_check(req->kernel, req->cols, req->dtype, &out, req->target, detail,
	                        sizeof detail) == RR_LEGAL,
	       "%s picked %s: %s", req->kernel->name, show(&out), detail);
	return out;
}

/* Fixes a random subset of a legal layout's fields and checks the pick keeps them. */
static void check_fixed(const rr__plan_request *req, const rr_layout *legal,
                        unsigned long long *state)
{
	rr_layout fixed = {0};
	int mask = (int)rr_test_uniform(state, 1, 127);
	if (mask & 1)
		fixed.workers_per_row = legal->workers_per_row;
	if (mask & 2)
		fixed.vec = legal->vec;
	if (mask & 4)
		fixed.unroll = legal->unroll;
	if (mask & 8)
		fixed.rows_per_group = legal->rows_per_group;
	if (mask & 16)
		fixed.blocks_per_row = legal->blocks_per_row;
	if (mask & 32)
		fixed.storage = legal->storage;
	if (mask & 64)
		fixed.grid = legal->grid;
	rr_layout out = choose(req, &fixed);
	int kept = (!fixed.workers_per_row || out.workers_per_row == fixed.workers_per_row) &&
	           (!fixed.vec || out.vec == fixed.vec) &&
	           (!fixed.unroll || out.unroll == fixed.unroll) &&
	           (!fixed.rows_per_group || out.rows_per_group == fixed.rows_per_group) &&
	           (!fixed.blocks_per_row || out.blocks_per_row == fixed.blocks_per_row) &&
	           (!fixed.storage || out.storage == fixed.storage) &&
	           (!fixed.grid || out.grid == fixed.grid);
	char want[128];
	rr_layout_format(&fixed, want, sizeof want);
	CHECKF(kept, "%s N=%lld: fixed %s, picked %s", req->kernel->name, (long long)req->cols,
	       want, show(&out));
}

static void test_all_builtins(const rr__target *cpu, const rr__target *gpu)
{
	static const int64_t lengths[] = {1, 127, 4096, 131072};
	unsigned long long state = 0x5eed ^ (unsigned long long)rr__now();
	const rr__target *targets[] = {cpu, gpu};
	for (int b = 0; b < 6; b++) {
		rr_kernel *k = builtin(builtins[b]);
		for (int t = 0; t < 2; t++)
			for (int n = 0; n < 4; n++) {
				rr__plan_request req = {
				    k,   n % 2 ? RR_BF16 : RR_F32, 0, lengths[n], targets[t], NULL,
				    NULL};
				req.rows = n == 1 ? 3 : 0;
				check_candidates(&req, NULL);
				rr_layout picked = choose(&req, NULL);
				check_fixed(&req, &picked, &state);
				/* A random legal candidate, partly fixed, must stay reachable. */
				rr__candidates c;
				if (rr__plan_enumerate(&req, NULL, &c) == RR_OK && c.count > 0) {
					int i = (int)rr_test_uniform(&state, 0, c.count);
					check_fixed(&req, &c.items[i], &state);
					rr_layout complete = choose(&req, &c.items[i]);
					CHECK(memcmp(&complete, &c.items[i], sizeof complete) == 0);
				}
				rr__candidates_free(&c);
			}
		rr_kernel_free(k);
	}
}

/* Rows of the odd suite's lengths (N·size not a multiple of 16 bytes): no candidate with V > 1
 * lacks a vector access (each row's head aligns the body), so the planner never picks packs
 * read element by element, lanes V apart; the pick's access is min(V·size, 16) bytes. */
static void test_odd_rows_vectorised(const rr__target *gpu)
{
	static const int64_t lengths[] = {129, 321, 1023, 6143, 32003, 50265, 131073};
	for (int b = 0; b < 6; b++) {
		rr_kernel *k = builtin(builtins[b]);
		for (int n = 0; n < 7; n++)
			for (int d = 0; d < 2; d++) {
				rr_dtype dtype = d ? RR_BF16 : RR_F32;
				int es = d ? 2 : 4;
				rr__plan_request req = {k,   dtype, 1000, lengths[n],
				                        gpu, NULL,  NULL};
				rr_layout l = choose(&req, NULL);
				rr__realisation r;
				CHECK(rr__realise(k, dtype, lengths[n], &l, gpu, &r) == RR_OK);
				int want = l.vec * es < 16 ? l.vec * es : 16;
				if (l.blocks_per_row == 1)
					CHECKF(r.access_bytes == (l.vec > 1 ? want : es) &&
					           r.has_vec_entry == (l.vec > 1) &&
					           !r.has_aligned_entry,
					       "%s %s N=%lld picked %s: access %d bytes",
					       builtins[b], rr_dtype_name(dtype),
					       (long long)lengths[n], show(&l), r.access_bytes);
				rr__candidates c;
				int scalar_packs = 0;
				CHECK(rr__plan_enumerate(&req, NULL, &c) == RR_OK);
				for (int i = 0; i < c.count; i++) {
					rr__realisation ri;
					CHECK(rr__realise(k, dtype, lengths[n], &c.items[i], gpu,
					                  &ri) == RR_OK);
					scalar_packs += c.items[i].vec > 1 && !ri.has_vec_entry;
				}
				CHECKF(scalar_packs == 0,
				       "%s N=%lld: %d candidates read packs element "
				       "by element",
				       builtins[b], (long long)lengths[n], scalar_packs);
				rr__candidates_free(&c);
			}
		rr_kernel_free(k);
	}
}

/* ---------------------------------------------------------------- failures */

static double prefer_narrow(const rr__plan_request *req, const rr_layout *l, void *ctx)
{
	(void)req;
	++*(int *)ctx;
	return l->workers_per_row * 100.0 + l->vec;
}

static double no_answer(const rr__plan_request *req, const rr_layout *l, void *ctx)
{
	(void)req, (void)l, (void)ctx;
	return NAN;
}

static void test_errors(const rr__target *gpu)
{
	rr_kernel *k = builtin("layernorm");
	rr__plan_request req = {k, RR_F32, 1024, 4096, gpu, NULL, NULL};
	rr_layout out;
	rr_layout bad = {3, 4, 1, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS};
	CHECK(rr__plan_choose(&req, &bad, NULL, NULL, &out, NULL) == RR_ERR_ILLEGAL_LAYOUT);
	CHECKF(strstr(rr_last_error(), "layout W=3,V=4,U=1,R=1,C=1,S=regs,G=rows: W = 3"), "%s",
	       rr_last_error());
	rr_layout partial = {3, 0, 0, 0, 0, RR_STORAGE_AUTO, RR_GRID_AUTO};
	rr__candidates stats;
	CHECK(rr__plan_choose(&req, &partial, NULL, NULL, &out, &stats) == RR_ERR_ILLEGAL_LAYOUT);
	CHECKF(strstr(rr_last_error(), "fixed fields W=3") && strstr(rr_last_error(), "W = 3"),
	       "%s", rr_last_error());
	CHECK(stats.items == NULL && stats.count == 0);
	rr_layout smem_too_big = {1024, 4, 1, 1, 1, RR_STORAGE_SMEM, RR_GRID_AUTO};
	req.cols = 131072;
	CHECK(rr__plan_choose(&req, &smem_too_big, NULL, NULL, &out, NULL) ==
	      RR_ERR_ILLEGAL_LAYOUT);
	CHECKF(strstr(rr_last_error(), "shared memory"), "%s", rr_last_error());
	req.cols = 0;
	CHECK(rr__plan_choose(&req, NULL, NULL, NULL, &out, NULL) == RR_ERR_INVALID_ARG);
	req.cols = 4096;

	/* A caller's model is used, with its context, and ties go to the first candidate. */
	int calls = 0;
	CHECK(rr__plan_choose(&req, NULL, prefer_narrow, &calls, &out, &stats) == RR_OK);
	CHECK(calls == stats.count && out.workers_per_row == stats.items[0].workers_per_row);
	CHECK(out.vec == stats.items[0].vec && out.vec <= 16);
	rr__candidates_free(&stats);
	CHECK(rr__plan_choose(&req, NULL, no_answer, NULL, &out, NULL) == RR_ERR_INTERNAL);
	rr_kernel_free(k);
}

/* ---------------------------------------------------------------- the model */

static void test_features(const rr__target *gpu, const rr__target *cpu)
{
	rr_kernel *k = builtin("layernorm");
	/* The features' arithmetic under the documented default set (the hand values): a fitted
	 * class may move the near-tie of kept and re-read rows below either way. */
	rr__cost_coeffs hand;
	rr__cost_coeffs_default(&hand);
	rr__plan_request req = {k, RR_F32, 4096, 131072, gpu, NULL, &hand};
	rr__plan_features kept_f, reread_f;
	rr_layout cluster = {1024, 4, 2, 1, 4, RR_STORAGE_CLUSTER, RR_GRID_ROWS};
	rr_layout reread = {1024, 4, 2, 1, 4, RR_STORAGE_REREAD, RR_GRID_ROWS};
	rr__plan_features_compute(&req, &cluster, &kept_f);
	rr__plan_features_compute(&req, &reread, &reread_f);
	double row_bytes = 4096.0 * 131072 * 4;
	CHECK(fabs(kept_f.minimal_bytes - (2 * row_bytes + 2 * 131072 * 4.0)) < 1);
	CHECK(kept_f.passes == 1 && reread_f.passes == 3 && kept_f.kept_inputs == 1);
	CHECK(reread_f.dram_bytes + reread_f.cache_bytes >= kept_f.dram_bytes + 2 * row_bytes - 1);
	CHECK(kept_f.predicted_us == rr__cost_default(&req, &cluster, NULL));
	CHECK(kept_f.predicted_us < reread_f.predicted_us && kept_f.predicted_us > 0);
	CHECK(kept_f.row_share == 32768 && kept_f.live_lanes == 1.0 && kept_f.groups == 4096 * 4);
	/* Half the lanes idle: N = 96 over W·V = 128. */
	rr_layout wide = {32, 4, 1, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS};
	req.cols = 96;
	rr__plan_features_compute(&req, &wide, &kept_f);
	CHECK(kept_f.live_lanes == 0.75 && kept_f.access_bytes == 16);
	req.target = cpu;
	rr__plan_features_compute(&req, &wide, &kept_f);
	CHECK(kept_f.predicted_us > 0 && isfinite(kept_f.predicted_us));

	/* One partial wave of rows with outputs: a worker's elements are serial work in each of
	 * layernorm's three phases, and a head's guarded code runs in each (257 elements of bf16:
	 * every row but one in eight has a head under V = 8). 17 rows: W = 128, V = 1 (3
	 * elements a worker, no head) is cheaper than W = 32, V = 8 (16 and a head); at 17 * 1024
	 * rows, several waves, the terms are not counted. Both load their rows at once (U covers
	 * the packs), as the planner's tiny plans do: a launch of fewer blocks than SMs waits on
	 * each further step of rows kept in registers (gpu_features). */
	rr_layout narrow = {128, 1, 4, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS};
	rr_layout packed = {32, 8, 2, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS};
	rr__cost_coeffs h200;
	CHECK(rr__cost_coeffs_for(gpu, &h200) == RR_OK);
	req = (rr__plan_request){k, RR_BF16, 17, 257, gpu, NULL, &h200};
	rr__plan_features narrow_f, packed_f;
	rr__plan_features_compute(&req, &narrow, &narrow_f);
	rr__plan_features_compute(&req, &packed, &packed_f);
	double phases = 3, head = h200.value[RR__COEFF_gpu_head_phase_us],
	       elem = h200.value[RR__COEFF_gpu_element_phase_us];
	CHECK(narrow_f.waves <= 1 && packed_f.waves <= 1);
	CHECKF(narrow_f.predicted_us < packed_f.predicted_us, "W=128,V=1 %g against W=32,V=8 %g",
	       narrow_f.predicted_us, packed_f.predicted_us);
	req.rows = 17 * 1024;
	rr__plan_features_compute(&req, &packed, &kept_f);
	CHECK(kept_f.waves > 1);
	rr__cost_coeffs none = h200;
	none.value[RR__COEFF_gpu_head_phase_us] = 0;
	none.value[RR__COEFF_gpu_element_phase_us] = 0;
	req.coeffs = &none;
	rr__plan_features_compute(&req, &packed, &reread_f);
	CHECK(reread_f.latency_us == kept_f.latency_us);
	req.rows = 17;
	rr__plan_features_compute(&req, &packed, &reread_f);
	CHECKF(fabs(packed_f.latency_us - reread_f.latency_us - phases * (16 * elem + head)) < 1e-9,
	       "latency %g without the terms %g", packed_f.latency_us, reread_f.latency_us);
	rr_kernel_free(k);
}

/* Registers a thread: a kernel of two rounds keeps a value derived from each kept one (ptxas:
 * layernorm bf16 65536x128 at W = 4, V = 8, 32 kept slots, 105 registers; rmsnorm 64). */
static void test_two_round_registers(const rr__target *gpu)
{
	rr_kernel *ln = builtin("layernorm"), *rms = builtin("rmsnorm");
	rr__plan_request req = {ln, RR_BF16, 65536, 128, gpu, NULL, NULL};
	rr_layout l = {4, 8, 1, 128, 1, RR_STORAGE_REGS, RR_GRID_ROWS};
	rr__plan_features two, one;
	rr__plan_features_compute(&req, &l, &two);
	req.kernel = rms;
	rr__plan_features_compute(&req, &l, &one);
	CHECKF(two.registers_per_thread >= 96 && two.registers_per_thread <= 112,
	       "layernorm %g registers", two.registers_per_thread);
	CHECKF(one.registers_per_thread <= 72, "rmsnorm %g registers", one.registers_per_thread);
	CHECK(two.groups_per_sm == 1 && one.groups_per_sm == 2);
	rr_kernel_free(ln);
	rr_kernel_free(rms);
}

/* Launches of fewer groups than SMs, kernels without row outputs (sum, cross_entropy): rows of
 * 3 to 1024 elements take one flat pass of one-element packs (the H200, session 23: 0.60-0.97x
 * the time of the V = 4-8 plans); one-element rows and rows of 4096 are priced as before. */
static void test_few_group_readers(const rr__target *gpu)
{
	static const char *const readers[] = {"sum", "cross_entropy"};
	static const int64_t tiny[][2] = {{1, 129}, {1, 127}, {3, 3}, {17, 257}, {50000, 3}};
	for (int k = 0; k < 2; k++) {
		rr_kernel *kernel = builtin(readers[k]);
		for (int d = 0; d < 2; d++) {
			rr_dtype dt = d ? RR_BF16 : RR_F32;
			for (int s = 0; s < 5; s++) {
				rr__plan_request req = {kernel, dt,   tiny[s][0], tiny[s][1],
				                        gpu,    NULL, NULL};
				rr_layout l = choose(&req, NULL);
				CHECKF(l.vec == 1, "%s %s %lldx%lld: %s", readers[k],
				       d ? "bf16" : "f32", (long long)tiny[s][0],
				       (long long)tiny[s][1], show(&l));
			}
			rr__plan_request wide = {kernel, dt, 64, 4096, gpu, NULL, NULL};
			rr_layout l = choose(&wide, NULL);
			CHECKF(l.vec * rr_dtype_size(dt) == 16, "%s %s 64x4096: %s", readers[k],
			       d ? "bf16" : "f32", show(&l));
		}
		rr_kernel_free(kernel);
	}
}

/* Rows of one and of three elements over many rows: the memory bound of groups moving a few
 * bytes each counts every SM past one group an SM, so blocks of 128-256 rows (the H100 in the
 * compare's replay, session 58: 0.96-0.98x the time of 512-1024) are not priced out by a
 * one-SM bound, and the picks keep one-element packs. */
static void test_small_groups_all_sms(const rr__target *gpu)
{
	static const char *const names[] = {"rmsnorm", "softmax", "sum"};
	static const int64_t shapes[][2] = {{100000, 1}, {50000, 3}};
	for (int k = 0; k < 3; k++) {
		rr_kernel *kernel = builtin(names[k]);
		for (int d = 0; d < 2; d++)
			for (int s = 0; s < 2; s++) {
				rr__plan_request req = {kernel, d ? RR_BF16 : RR_F32, shapes[s][0],
				                        shapes[s][1], gpu, NULL, NULL};
				rr_layout l = choose(&req, NULL);
				CHECKF(l.rows_per_group >= 128 && l.rows_per_group <= 256 &&
				           l.vec == 1 && l.workers_per_row == 1,
				       "%s %s %lldx%lld: %s", names[k], d ? "bf16" : "f32",
				       (long long)shapes[s][0], (long long)shapes[s][1], show(&l));
			}
		rr_kernel_free(kernel);
	}
}

/* The defaults the design asks for, as public fast kernels choose them. */
static void test_defaults(const rr__target *gpu, const rr__target *cpu)
{
	rr_kernel *rms = builtin("rmsnorm"), *ln = builtin("layernorm"), *sm = builtin("softmax");
	rr__plan_request req = {rms, RR_F32, 0, 4096, gpu, NULL, NULL};
	rr_layout l = choose(&req, NULL);
	CHECKF(l.workers_per_row >= 128 && l.workers_per_row <= 256 && l.vec == 4,
	       "rmsnorm f32 N=4096: %s", show(&l));
	req.dtype = RR_BF16;
	l = choose(&req, NULL);
	CHECKF(l.vec * 2 >= 16, "rmsnorm bf16 N=4096: %s", show(&l));
	req.dtype = RR_F32;
	req.cols = 128;
	l = choose(&req, NULL);
	CHECKF(l.workers_per_row <= 32 && l.rows_per_group > 1, "rmsnorm N=128: %s", show(&l));
	req.kernel = ln;
	req.cols = 131072;
	l = choose(&req, NULL);
	CHECKF(l.workers_per_row >= 512 &&
	           (l.storage == RR_STORAGE_SMEM || l.storage == RR_STORAGE_CLUSTER),
	       "layernorm N=131072: %s", show(&l));
	req.kernel = sm;
	req.cols = 4096;
	req.target = cpu;
	l = choose(&req, NULL);
	/* The C emitter runs workers as vector lanes: one element per lane (V = 1) over at least
	 * a vector's worth of workers (softmax f32 1024x4096 on this project's 2-core machine:
	 * W=16,V=1 1.5 ms, W=1,V=8 15.8 ms). */
	CHECKF(l.workers_per_row >= 8 && l.vec == 1, "cpu softmax N=4096: %s", show(&l));
	/* The planner keeps the CPU's accumulation chains within 4096 elements where it can. */
	rr_kernel *sum = builtin("sum");
	req.kernel = sum;
	req.cols = 131073;
	req.rows = 1;
	l = choose(&req, NULL);
	CHECKF((req.cols + l.workers_per_row - 1) / l.workers_per_row <= 4096,
	       "cpu sum N=131073: %s", show(&l));
	rr_kernel_free(sum);
	rr_kernel_free(rms);
	rr_kernel_free(ln);
	rr_kernel_free(sm);
}

/* The CPU model prices a reduction's chain of dependent vector adds: with W = 16 each of
 * layernorm f32's two rounds is one chain (16 lanes), with W = 32 two, so at 4096 columns the
 * model ranks W = 32 below W = 16 and the planner picks it; four chains (W = 64) gain nothing
 * over two; a 16-bit row read alone (layernorm bf16) the same, its first 32 adds free where an
 * f32 row's first 64 are (at 1024 columns W = 32 is planned for it, not for f32). Short rows,
 * 16-bit rows read with another (add_layernorm), kernels without row outputs (sum) and online
 * pairs (softmax) are left as they were priced: the term moves nothing there, nor any GPU
 * prediction. */
static void test_cpu_chains(const rr__target *gpu, const rr__target *cpu)
{
	rr_kernel *ln = builtin("layernorm"), *sm = builtin("softmax"), *sum = builtin("sum"),
	          *aln = builtin("add_layernorm");
	rr__cost_coeffs hand, unchained;
	rr__cost_coeffs_default(&hand);
	unchained = hand;
	unchained.value[RR__COEFF_cpu_chain_ns] = 1e-9;
	rr_layout w16 = {16, 1, 1, 1, 1, RR_STORAGE_REREAD, RR_GRID_ROWS};
	rr_layout w32 = w16, w64 = w16;
	w32.workers_per_row = 32;
	w64.workers_per_row = 64;
	rr__plan_request req = {ln, RR_F32, 64, 4096, cpu, NULL, &hand};
	rr__plan_features f16, f32, f64;
	rr__plan_features_compute(&req, &w16, &f16);
	rr__plan_features_compute(&req, &w32, &f32);
	rr__plan_features_compute(&req, &w64, &f64);
	CHECKF(f16.latency_us > f32.latency_us, "layernorm f32 64x4096: W=16 %g, W=32 %g",
	       f16.latency_us, f32.latency_us);
	CHECKF(f64.latency_us >= f32.latency_us, "layernorm f32 64x4096: W=64 %g, W=32 %g",
	       f64.latency_us, f32.latency_us);
	/* One chain of 256 adds a round at 4096 columns, 64 of them not charged: two rounds of
	 * 192 adds past the issue time, on each of a thread's rows. */
	rr__plan_features flat;
	req.coeffs = &unchained;
	rr__plan_features_compute(&req, &w16, &flat);
	double threads = cpu->multiprocessors > 0 ? cpu->multiprocessors : 1;
	double rows_per_thread = ceil(64 / threads);
	double issue_ns = 256 * 16 * hand.value[RR__COEFF_cpu_pack_ns] / 16;
	double added = rows_per_thread * 2 * (192 * hand.value[RR__COEFF_cpu_chain_ns] - issue_ns);
	CHECKF(fabs((f16.latency_us - flat.latency_us) * 1000 - added) < 1e-6,
	       "layernorm f32 W=16: %g µs more with the chain term, expected %g ns",
	       f16.latency_us - flat.latency_us, added);
	req.coeffs = NULL;
	rr_layout l = choose(&req, NULL);
	CHECKF(l.workers_per_row == 32 && l.vec == 1, "cpu layernorm f32 64x4096: %s", show(&l));
	/* A 16-bit row read alone is charged the same adds (its vectors hold as many elements),
	 * past its first 32, and the planner takes W = 32 for it. */
	rr__plan_features half, half_flat;
	req = (rr__plan_request){ln, RR_BF16, 64, 4096, cpu, NULL, &hand};
	rr__plan_features_compute(&req, &w16, &half);
	req.coeffs = &unchained;
	rr__plan_features_compute(&req, &w16, &half_flat);
	double added_half =
	    rows_per_thread * 2 * (224 * hand.value[RR__COEFF_cpu_chain_ns] - issue_ns);
	CHECKF(fabs((half.latency_us - half_flat.latency_us) * 1000 - added_half) < 1e-6,
	       "layernorm bf16 W=16: %g µs more with the chain term, expected %g ns",
	       half.latency_us - half_flat.latency_us, added_half);
	req.coeffs = NULL;
	l = choose(&req, NULL);
	CHECKF(l.workers_per_row == 32 && l.vec == 1, "cpu layernorm bf16 64x4096: %s", show(&l));
	/* At 1024 columns a 16-bit row's 64 adds a round at W = 16 are charged past the first 32
	 * (an f32 row's are not: in the list below), and W = 32 is planned. */
	req = (rr__plan_request){ln, RR_BF16, 64, 1024, cpu, NULL, &hand};
	rr__plan_features_compute(&req, &w16, &half);
	req.coeffs = &unchained;
	rr__plan_features_compute(&req, &w16, &half_flat);
	double issue_1024 = 64 * 16 * hand.value[RR__COEFF_cpu_pack_ns] / 16;
	double added_1024 =
	    rows_per_thread * 2 * (32 * hand.value[RR__COEFF_cpu_chain_ns] - issue_1024);
	CHECKF(fabs((half.latency_us - half_flat.latency_us) * 1000 - added_1024) < 1e-6,
	       "layernorm bf16 64x1024 W=16: %g µs more with the chain term, expected %g ns",
	       half.latency_us - half_flat.latency_us, added_1024);
	req = (rr__plan_request){ln, RR_BF16, 16384, 1024, cpu, NULL, NULL};
	l = choose(&req, NULL);
	CHECKF(l.workers_per_row == 32 && l.vec == 1, "cpu layernorm bf16 16384x1024: %s",
	       show(&l));

	/* Where the term does not apply, the chain's coefficient moves no prediction. */
	struct {
		rr_kernel *kernel;
		rr_dtype dtype;
		int64_t cols;
		const rr__target *target;
	} same[] = {{ln, RR_F32, 1024, cpu},   {ln, RR_F32, 321, cpu},  {aln, RR_BF16, 4096, cpu},
	            {aln, RR_F16, 4096, cpu},  {ln, RR_BF16, 512, cpu}, {sum, RR_F32, 4096, cpu},
	            {sum, RR_BF16, 4096, cpu}, {sm, RR_F32, 4096, cpu}, {ln, RR_F32, 4096, gpu},
	            {ln, RR_BF16, 4096, gpu}};
	for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
		rr_layout gpu_l = {256, 4, 1, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS};
		const rr_layout *lay = same[i].target == gpu ? &gpu_l : &w16;
		rr__plan_features with, without;
		req = (rr__plan_request){same[i].kernel, same[i].dtype, 64,   same[i].cols,
		                         same[i].target, NULL,          &hand};
		rr__plan_features_compute(&req, lay, &with);
		req.coeffs = &unchained;
		rr__plan_features_compute(&req, lay, &without);
		CHECKF(isfinite(with.predicted_us) && with.predicted_us == without.predicted_us,
		       "%s %s N=%lld on %s: %g against %g", same[i].kernel->name,
		       rr_dtype_name(same[i].dtype), (long long)same[i].cols,
		       same[i].target->backend, with.predicted_us, without.predicted_us);
	}
	rr_kernel_free(ln);
	rr_kernel_free(sm);
	rr_kernel_free(sum);
	rr_kernel_free(aln);
}

/* Rows of a few elements on the CPU: softmax and cross_entropy, whose exp runs once per vector,
 * take vectors of four lanes or more (W >= 4), where one or two lanes ran 1.9-3.9x longer
 * (cost.c, cpu_transcendental_ns); up to rr__cpu_lanes_max_n() elements W = 1, whose rows run as
 * the lanes (cost.c, cpu_lanes_row_ns: 2-6x faster than W = 4 there, cross_entropy's 7 and
 * 8 included since its log is charged to the per-row code too); rmsnorm, without one, keeps
 * its narrow plan. */
static void test_cpu_narrow_transcendentals(const rr__target *cpu)
{
	static const char *const heavy[] = {"softmax", "cross_entropy"};
	static const int64_t shapes[][2] = {{50000, 3}, {20000, 5}, {4096, 7}, {30000, 10}};
	for (int k = 0; k < 2; k++) {
		rr_kernel *kernel = builtin(heavy[k]);
		for (int d = 0; d < 2; d++) {
			rr_dtype dt = d ? RR_BF16 : RR_F32;
			for (int s = 0; s < 4; s++) {
				rr__plan_request req = {kernel, dt,   shapes[s][0], shapes[s][1],
				                        cpu,    NULL, NULL};
				rr_layout l = choose(&req, NULL);
				const int lanes = shapes[s][1] <= rr__cpu_lanes_max_n();
				CHECKF(lanes ? l.workers_per_row == 1 : l.workers_per_row >= 4,
				       "%s %s %lldx%lld: %s", heavy[k], d ? "bf16" : "f32",
				       (long long)shapes[s][0], (long long)shapes[s][1], show(&l));
			}
		}
		rr_kernel_free(kernel);
	}
	rr_kernel *rms = builtin("rmsnorm");
	rr__plan_request req = {rms, RR_F32, 50000, 3, cpu, NULL, NULL};
	rr_layout l = choose(&req, NULL);
	CHECKF(l.workers_per_row <= 2, "rmsnorm f32 50000x3: %s", show(&l));
	rr_kernel_free(rms);
}

/* A CPU launch that runs its last row in two parts (M mod T = 1, rows of 8 MiB of arrays or
 * more, not streamed) plans part spans of RR_CPU_PART_SPAN_BYTES for a kernel writing one row
 * without an online pair (plan.c's prefer_part_spans): rmsnorm and layernorm f32 on 1 and 3
 * rows of 1048576-2000000 on two threads; not with an even row count, rows under the bound, a
 * launch past RR_CPU_STREAM_BYTES, softmax (an online pair), add_layernorm (two row
 * outputs) or bf16 (no parts where 16-bit rows are written), whose picks are those of a target
 * of one thread. */
static void test_cpu_part_spans(const rr__target *cpu)
{
	rr__target two = *cpu, one = *cpu;
	two.multiprocessors = 2;
	one.multiprocessors = 1;
	static const char *const names[] = {"rmsnorm", "layernorm", "softmax", "add_layernorm"};
	static const int64_t shapes[][2] = {{1, 1100000}, {3, 1100000}, {1, 2000000}, {1, 1048576},
	                                    {2, 1100000}, {1, 500000}, {5, 1100000}};
	for (int k = 0; k < 8; k++) {
		rr_kernel *kernel = builtin(names[k % 4]);
		const rr_dtype dtype = k < 4 ? RR_F32 : RR_BF16;
		for (int s = 0; s < 7; s++) {
			rr__plan_request req = {kernel, dtype, shapes[s][0], shapes[s][1],
			                        &two,   NULL,  NULL};
			rr_layout l = choose(&req, NULL);
			req.target = &one;
			rr_layout alone = choose(&req, NULL);
			const int spans = l.workers_per_row * l.vec * 4 / 2 >= RR_CPU_PART_SPAN_BYTES;
			if (k < 2 && s < 4)
				CHECKF(spans, "%s f32 %lldx%lld on two threads: %s", names[k % 4],
				       (long long)shapes[s][0], (long long)shapes[s][1], show(&l));
			else
				CHECKF(l.workers_per_row == alone.workers_per_row && l.vec == alone.vec,
				       "%s %s %lldx%lld: W = %d, V = %d on two threads, W = %d, V = %d "
				       "on one",
				       names[k % 4], rr_dtype_name(dtype), (long long)shapes[s][0], (long long)shapes[s][1],
				       l.workers_per_row, l.vec, alone.workers_per_row, alone.vec);
		}
		rr_kernel_free(kernel);
	}
}

/* bf16 launches from memory in pair order (cost.c cpu_pair_order): add_layernorm bf16 plans
 * W = 32 where rows hold whole pairs and the launch streams (measured 0.84-0.97 of W = 16's
 * time), W = 16 in cache (64x4096: 1.01-1.05) and on rows of other lengths (2047x6143,
 * 512x32003: 1.07-1.08), and f16 (no pair order) keeps W = 16. */
static void test_cpu_pair_order(const rr__target *cpu)
{
	rr_kernel *aln = builtin("add_layernorm");
	static const struct {
		rr_dtype dtype;
		int64_t rows, cols;
		int W;
	} cases[] = {
	    {RR_BF16, 4096, 4096, 32}, {RR_BF16, 1024, 4096, 32}, {RR_BF16, 256, 65536, 32},
	    {RR_BF16, 64, 4096, 16},   {RR_BF16, 2047, 6143, 16}, {RR_BF16, 512, 32003, 16},
	    {RR_F16, 4096, 4096, 16},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		rr__plan_request req = {aln, cases[i].dtype, cases[i].rows, cases[i].cols, cpu,
		                        NULL, NULL};
		rr_layout l = choose(&req, NULL);
		CHECKF(l.workers_per_row == cases[i].W && l.vec == 1,
		       "cpu add_layernorm %s %lldx%lld: %s (W = %d expected)",
		       rr_dtype_name(cases[i].dtype), (long long)cases[i].rows,
		       (long long)cases[i].cols, show(&l), cases[i].W);
	}
	rr_kernel_free(aln);
}

/* The 16-bit keep: a later pass over a row kept in the pool's scratch is priced at the class's
 * cpu_kept_pass_factor of a re-read pass, refit in session 24 on the scratch the pool places a
 * page apart (0.96; 0.865 before, from runs with the old placement). With it, layernorm bf16 at
 * 4096 columns plans W = 32 re-read (measured 0.86-0.92 of W = 64 kept at 4096x4096), and at
 * 1024 columns W = 32 (0.89-0.95 of W = 16), where the old factor kept W = 16's kept passes
 * ahead (in f16: bf16 at W = 32 is priced in pair order as well). The factor moves no f32
 * prediction. */
static void test_cpu_kept_16bit(const rr__target *cpu)
{
	rr_kernel *ln = builtin("layernorm");
	rr__cost_coeffs fitted, old;
	CHECK(rr__cost_coeffs_for(cpu, &fitted) == RR_OK);
	CHECKF(fabs(fitted.value[RR__COEFF_cpu_kept_pass_factor] - 0.96) < 1e-9, "%s: %g",
	       fitted.device_class, fitted.value[RR__COEFF_cpu_kept_pass_factor]);
	old = fitted;
	old.value[RR__COEFF_cpu_kept_pass_factor] = 0.865385;
	static const int64_t rows[] = {4096, 1024};
	for (int i = 0; i < 2; i++) {
		rr__plan_request req = {ln, RR_BF16, rows[i], 4096, cpu, NULL, &fitted};
		rr_layout l = choose(&req, NULL);
		CHECKF(l.workers_per_row == 32 && l.vec == 1 && l.storage == RR_STORAGE_REREAD,
		       "cpu layernorm bf16 %lldx4096: %s", (long long)rows[i], show(&l));
	}
	rr__plan_request wide = {ln, RR_BF16, 16384, 1024, cpu, NULL, &fitted};
	rr_layout l = choose(&wide, NULL);
	CHECKF(l.workers_per_row == 32, "cpu layernorm bf16 16384x1024: %s", show(&l));
	/* the old factor in f16 (bf16 at W = 32 is in pair order too, cost.c cpu_pair_order,
	 * which moves it there whatever the factor) */
	wide.dtype = RR_F16;
	l = choose(&wide, NULL);
	CHECKF(l.workers_per_row == 32, "cpu layernorm f16 16384x1024: %s", show(&l));
	wide.coeffs = &old;
	l = choose(&wide, NULL);
	CHECKF(l.workers_per_row == 16 && l.storage == RR_STORAGE_REGS,
	       "cpu layernorm f16 16384x1024, factor 0.865: %s", show(&l));
	rr_layout kept = {16, 1, 1, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS};
	rr__plan_features with, without;
	rr__plan_request req = {ln, RR_F32, 12345, 321, cpu, NULL, &fitted};
	rr__plan_features_compute(&req, &kept, &with);
	req.coeffs = &old;
	rr__plan_features_compute(&req, &kept, &without);
	CHECKF(isfinite(with.predicted_us) && with.predicted_us == without.predicted_us,
	       "layernorm f32 12345x321 kept: %g against %g", with.predicted_us,
	       without.predicted_us);
	req = (rr__plan_request){ln, RR_BF16, 12345, 321, cpu, NULL, &fitted};
	rr__plan_features_compute(&req, &kept, &with);
	req.coeffs = &old;
	rr__plan_features_compute(&req, &kept, &without);
	CHECKF(with.latency_us > without.latency_us, "layernorm bf16 12345x321 kept: %g against %g",
	       with.latency_us, without.latency_us);
	rr_kernel_free(ln);
}

/* How many candidates of `req` are S=grid at C blocks a row (the tuner's where `measured`). */
static int grid_candidates_at(const rr__plan_request *req, int C, int measured)
{
	rr__candidates c;
	int n = 0;
	if ((measured ? rr__plan_enumerate_measured : rr__plan_enumerate)(req, NULL, &c) != RR_OK)
		return -1;
	for (int i = 0; i < c.count; i++)
		n += c.items[i].storage == RR_STORAGE_GRID && c.items[i].blocks_per_row == C;
	rr__candidates_free(&c);
	return n;
}

/* S=grid's filling C (132 SMs / M, no power of two) is offered for kernels that write rows
 * where the largest power of two under it leaves a fifth of the SMs idle (M = 3: C = 44 against
 * 32's 96 blocks), not for sum, not at M = 2 (C = 66 against 64's 128 blocks); to the tuner
 * (rr__plan_enumerate_measured) at both, sum too; RR_GRID_FILL=1 offers it wherever it
 * qualifies, RR_GRID_FILL=0 nowhere, to either. */
static void test_grid_fill(const rr__target *gpu)
{
	static const char *const names[] = {"sum", "softmax", "rmsnorm", "layernorm"};
	for (int k = 0; k < 4; k++) {
		rr_kernel *kernel = builtin(names[k]);
		rr__plan_request three = {kernel, RR_F32, 3, 2000000, gpu, NULL, NULL};
		rr__plan_request two = {kernel, RR_F32, 2, 4000037, gpu, NULL, NULL};
		unsetenv("RR_GRID_FILL");
		int at44 = grid_candidates_at(&three, 44, 0);
		int at66 = grid_candidates_at(&two, 66, 0);
		CHECKF((at44 > 0) == (k > 0) && at66 == 0,
		       "%s: %d at C = 44 (3 rows), %d at C = 66", names[k], at44, at66);
		CHECKF(grid_candidates_at(&three, 32, 0) > 0, "%s: none at C = 32", names[k]);
		at44 = grid_candidates_at(&three, 44, 1);
		at66 = grid_candidates_at(&two, 66, 1);
		CHECKF(at44 > 0 && at66 > 0, "%s, the tuner's: %d at C = 44, %d at C = 66",
		       names[k], at44, at66);
		setenv("RR_GRID_FILL", "1", 1);
		at44 = grid_candidates_at(&three, 44, 0);
		at66 = grid_candidates_at(&two, 66, 0);
		CHECKF(at44 > 0 && at66 > 0, "%s with RR_GRID_FILL=1: %d at C = 44, %d at C = 66",
		       names[k], at44, at66);
		setenv("RR_GRID_FILL", "0", 1);
		at44 = grid_candidates_at(&three, 44, 0);
		at66 = grid_candidates_at(&two, 66, 1);
		CHECKF(at44 == 0 && at66 == 0,
		       "%s with RR_GRID_FILL=0: %d at C = 44, %d at C = 66 (the tuner's)", names[k],
		       at44, at66);
		unsetenv("RR_GRID_FILL");
		rr_kernel_free(kernel);
	}
}

/* S=grid where the other modes cannot fill the device: a few rows of millions of elements (M
 * rows × at most 8 cluster blocks <= 132 SMs), or rows whose kept values a cluster cannot
 * hold; never with M unknown, for many rows that a cluster keeps, or on the CPU. */
static void test_grid_choice(const rr__target *gpu, const rr__target *cpu)
{
	static const char *const names[] = {"sum", "softmax", "rmsnorm", "layernorm"};
	for (int k = 0; k < 4; k++) {
		rr_kernel *kernel = builtin(names[k]);
		rr__plan_request req = {kernel, RR_F32, 4, 2097152, gpu, NULL, NULL};
		/* Offered by default; RR_PLAN_GRID=0 takes it away. */
		setenv("RR_PLAN_GRID", "0", 1);
		rr_layout l = choose(&req, NULL);
		CHECKF(l.storage != RR_STORAGE_GRID && !rr__plan_offers_grid(),
		       "%s f32 4x2097152 with RR_PLAN_GRID=0: %s", names[k], show(&l));
		unsetenv("RR_PLAN_GRID");
		l = choose(&req, NULL);
		CHECKF(l.storage == RR_STORAGE_GRID && l.blocks_per_row > 8 &&
		           l.grid == RR_GRID_PERSISTENT,
		       "%s f32 4x2097152: %s", names[k], show(&l));
		req.rows = 0;
		l = choose(&req, NULL);
		CHECKF(l.storage != RR_STORAGE_GRID, "%s M unknown: %s", names[k], show(&l));
		req.rows = 1024;
		req.cols = 131072;
		l = choose(&req, NULL);
		CHECKF(l.storage != RR_STORAGE_GRID, "%s 1024x131072: %s", names[k], show(&l));
		req.rows = 16; /* 16 rows x 8 blocks <= 132 SMs, rows over a cluster's smem: grid */
		req.cols = 1048576;
		l = choose(&req, NULL);
		CHECKF(l.storage == RR_STORAGE_GRID, "%s 16x1048576: %s", names[k], show(&l));
		/* 17 x 8 > 132: S=grid only where a cluster's shared memory cannot keep the row's
		 * values (4 MiB of f32 against 8 blocks' smem); sum keeps nothing */
		req.rows = 17;
		req.cols = 1048576;
		l = choose(&req, NULL);
		CHECKF((l.storage == RR_STORAGE_GRID) == (k > 0), "%s 17x1048576: %s", names[k],
		       show(&l));
		req.rows = 64;
		req.cols = 524288;
		l = choose(&req, NULL);
		CHECKF((l.storage == RR_STORAGE_GRID) == (k > 0), "%s 64x524288: %s", names[k],
		       show(&l));
		req.rows = 256; /* 1 MiB of f32 a row: a cluster keeps it */
		req.cols = 262144;
		l = choose(&req, NULL);
		CHECKF(l.storage != RR_STORAGE_GRID, "%s 256x262144: %s", names[k], show(&l));
		req.rows = 2;
		req.cols = 4000037;
		req.target = cpu;
		l = choose(&req, NULL);
		CHECKF(l.storage != RR_STORAGE_GRID && l.blocks_per_row == 1, "%s cpu: %s",
		       names[k], show(&l));
		/* A fixed S=grid is completed by the planner. */
		rr_layout fixed = {0};
		fixed.storage = RR_STORAGE_GRID;
		req.target = gpu;
		l = choose(&req, &fixed);
		CHECKF(l.storage == RR_STORAGE_GRID && l.blocks_per_row >= 16, "%s S=grid: %s",
		       names[k], show(&l));
		/* A fixed S=grid is completed the same with RR_PLAN_GRID=0. */
		setenv("RR_PLAN_GRID", "0", 1);
		rr_layout again = choose(&req, &fixed);
		CHECKF(again.storage == RR_STORAGE_GRID && again.blocks_per_row >= 16,
		       "%s S=grid with RR_PLAN_GRID=0: %s", names[k], show(&again));
		unsetenv("RR_PLAN_GRID");
		rr_kernel_free(kernel);
	}
}

/* The choices the H200 measured in session 11 (bench/NOTES.md): on many rows of 99-255
 * elements (every plan of wider packs runs a head) the row-writing kernels take one-element
 * packs of 16-32 workers, while aligned rows of the same size, cross_entropy, and odd rows of
 * 1023 keep wider packs. */
static void test_odd_row_choices(const rr__target *gpu)
{
	static const char *const writers[] = {"softmax", "rmsnorm", "layernorm", "add_layernorm"};
	static const int64_t odd[][2] = {{65535, 127}, {40000, 99}};
	for (int k = 0; k < 4; k++) {
		rr_kernel *kernel = builtin(writers[k]);
		for (int d = 0; d < 2; d++) {
			rr_dtype dt = d ? RR_BF16 : RR_F32;
			for (int s = 0; s < 2; s++) {
				rr__plan_request req = {kernel, dt,   odd[s][0], odd[s][1],
				                        gpu,    NULL, NULL};
				rr_layout l = choose(&req, NULL);
				CHECKF(l.vec == 1 && l.workers_per_row >= 16 &&
				           l.workers_per_row <= 32 &&
				           l.workers_per_row * l.rows_per_group <= 256,
				       "%s %s %lldx%lld: %s", writers[k], d ? "bf16" : "f32",
				       (long long)odd[s][0], (long long)odd[s][1], show(&l));
			}
			rr__plan_request aligned = {kernel, dt, 65536, 128, gpu, NULL, NULL};
			rr_layout l = choose(&aligned, NULL);
			CHECKF(l.vec > 1, "%s 65536x128: %s", writers[k], show(&l));
			rr__plan_request longer = {kernel, dt, 8191, 1023, gpu, NULL, NULL};
			l = choose(&longer, NULL);
			CHECKF(l.vec > 1, "%s 8191x1023: %s", writers[k], show(&l));
		}
		rr_kernel_free(kernel);
	}
	/* The head charge is the same for every headed plan of a request: where a headed plan
	 * wins, it is the one the model picks without that charge. */
	rr__cost_coeffs uncharged;
	CHECK(rr__cost_coeffs_for(gpu, &uncharged) == RR_OK);
	uncharged.value[RR__COEFF_gpu_head_row_cycles] = 0;
	static const int64_t headed[][2] = {{12345, 321}, {20000, 383}};
	for (int k = 0; k < 4; k++) {
		rr_kernel *kernel = builtin(writers[k]);
		for (int d = 0; d < 2; d++)
			for (int s = 0; s < 2; s++) {
				rr__plan_request req = {kernel,       d ? RR_BF16 : RR_F32,
				                        headed[s][0], headed[s][1],
				                        gpu,          NULL,
				                        NULL};
				rr_layout l = choose(&req, NULL);
				req.coeffs = &uncharged;
				rr_layout without = choose(&req, NULL);
				char a[128], b[128];
				rr_layout_format(&l, a, sizeof a);
				rr_layout_format(&without, b, sizeof b);
				CHECKF(l.vec == 1 || without.vec == 1 || strcmp(a, b) == 0,
				       "%s %lldx%lld: %s with the head charge, %s without",
				       writers[k], (long long)headed[s][0], (long long)headed[s][1],
				       a, b);
			}
		rr_kernel_free(kernel);
	}
	/* cross_entropy keeps wider packs; sum's f32 rows no longer (test_plain_odd_heads). */
	rr_kernel *kernel = builtin("cross_entropy");
	rr__plan_request req = {kernel, RR_F32, 65535, 127, gpu, NULL, NULL};
	rr_layout l = choose(&req, NULL);
	CHECKF(l.vec > 1, "cross_entropy 65535x127: %s", show(&l));
	rr_kernel_free(kernel);
}

/* Short rows of several rows a block (session 22, bench/NOTES.md): a warp access of W <= 2
 * workers of 16-byte packs spans 16 rows and 16 cache lines, which the H200 ran in 1.2-1.3x the
 * time of W = 4-8 on 65536x128 and 131072x64, so the kernels that write rows pick at most 8
 * lines an access there. On odd rows of 255 and 321 elements, 32 workers of one-element packs
 * ran 0.73-0.98x the time of the headed V = 8 picks (16-bit rows, and f32 at 321, where more
 * than 8 packs a worker are no longer doubted). */
static void test_short_row_choices(const rr__target *gpu)
{
	static const char *const writers[] = {"softmax", "rmsnorm", "layernorm", "add_layernorm"};
	static const int64_t shapes[][2] = {{65536, 128}, {131072, 64}};
	for (int k = 0; k < 4; k++) {
		rr_kernel *kernel = builtin(writers[k]);
		for (int d = 0; d < 2; d++)
			for (int s = 0; s < 2; s++) {
				rr_dtype dt = d ? RR_BF16 : RR_F32;
				rr__plan_request req = {kernel, dt,   shapes[s][0], shapes[s][1],
				                        gpu,    NULL, NULL};
				rr_layout l = choose(&req, NULL);
				int64_t W = l.workers_per_row, span = W * l.vec;
				int64_t run = span * (int64_t)rr_dtype_size(dt);
				int64_t lanes =
				    W * l.rows_per_group < 32 ? W * l.rows_per_group : 32;
				int64_t lines =
				    W < 32 && l.rows_per_group > 1 && span < shapes[s][1]
				        ? lanes / W * ((run + 127) / 128)
				        : 1;
				CHECKF(lines <= 8, "%s %s %lldx%lld: %s (%lld lines a warp access)",
				       writers[k], d ? "bf16" : "f32", (long long)shapes[s][0],
				       (long long)shapes[s][1], show(&l), (long long)lines);
			}
		static const int64_t odd[][2] = {{32767, 255}, {12345, 321}};
		for (int d = 0; d < 2; d++)
			for (int s = 0; s < 2; s++) {
				/* f32 at 255: not measured against the headed plans */
				if (!d && s == 0)
					continue;
				rr__plan_request req = {
				    kernel, d ? RR_BF16 : RR_F32, odd[s][0], odd[s][1], gpu, NULL,
				    NULL};
				rr_layout l = choose(&req, NULL);
				CHECKF(l.vec == 1 && l.workers_per_row == 32, "%s %s %lldx%lld: %s",
				       writers[k], d ? "bf16" : "f32", (long long)odd[s][0],
				       (long long)odd[s][1], show(&l));
			}
		rr_kernel_free(kernel);
	}
}

/* A launch of a few one-row blocks waits on its trips to memory: every built-in on a few short
 * rows gets a flat plan (one block a row, one row a block, every pack of a worker loaded at
 * once: chunks <= U); U = 8 is offered only there. */
static void test_tiny_flat_choices(const rr__target *gpu)
{
	static const int64_t tiny[][2] = {{1, 129}, {17, 257}, {64, 257}, {3, 3}, {1, 127}};
	for (int k = 0; k < 6; k++) {
		rr_kernel *kernel = builtin(builtins[k]);
		for (int d = 0; d < 2; d++)
			for (int s = 0; s < 5; s++) {
				rr__plan_request req = {
				    kernel, d ? RR_BF16 : RR_F32, tiny[s][0], tiny[s][1], gpu, NULL,
				    NULL};
				rr_layout l = choose(&req, NULL);
				int64_t span = (int64_t)l.workers_per_row * l.vec;
				int64_t chunks = (tiny[s][1] + span - 1) / span;
				CHECKF(l.rows_per_group == 1 && l.blocks_per_row == 1 &&
				           l.storage != RR_STORAGE_SMEM && chunks <= l.unroll,
				       "%s %s %lldx%lld: %s (%lld chunks a worker)", builtins[k],
				       d ? "bf16" : "f32", (long long)tiny[s][0],
				       (long long)tiny[s][1], show(&l), (long long)chunks);
			}
		/* Many rows: U = 8 is not offered (the model was fitted with U of 1, 2 and 4), but
		 * to plain reductions whose workers read their row in 5-8 packs (rr__plain_flat).
		 */
		rr__plan_request many = {kernel, RR_F32, 65536, 1024, gpu, NULL, NULL};
		rr_layout l = choose(&many, NULL);
		CHECKF(l.unroll <= 4 || rr__plain_flat(&many, &l), "%s 65536x1024: %s", builtins[k],
		       show(&l));
		rr_kernel_free(kernel);
	}
}

/* Launches of a few rows shorter than a warp: each level of the in-warp tree waits on a shuffle
 * in every round, so fewer workers with several packs each win where one element a worker lost
 * (the H200, session 26: 3x3 at W = 1 0.84-0.92x the time of W = 4, 1x17 and 8x31 at W = 4-8
 * 0.90-0.98x that of W = 32). Fails on the model before (W = 4 at 3x3, W = 32 at 1x17). */
static void test_few_short_row_workers(const rr__target *gpu)
{
	static const int64_t shapes[][2] = {{3, 3}, {1, 17}, {8, 31}, {100, 10}};
	for (int k = 0; k < 6; k++) {
		rr_kernel *kernel = builtin(builtins[k]);
		for (int d = 0; d < 2; d++)
			for (int s = 0; s < 4; s++) {
				rr__plan_request req = {kernel,       d ? RR_BF16 : RR_F32,
				                        shapes[s][0], shapes[s][1],
				                        gpu,          NULL,
				                        NULL};
				rr_layout l = choose(&req, NULL);
				CHECKF(2 * l.workers_per_row <= shapes[s][1],
				       "%s %s %lldx%lld: %s (a worker of one element)", builtins[k],
				       d ? "bf16" : "f32", (long long)shapes[s][0],
				       (long long)shapes[s][1], show(&l));
			}
		rr_kernel_free(kernel);
	}
}

/* add_layernorm f32 over 1000 rows of 50265: one block keeps h = x + r (201 KB) in shared memory,
 * 0.76x the time of the C = 4 cluster picked before (the H200, session 26); on 64 such rows a
 * cluster still spreads the rows over the device. Fails on the model before. */
static void test_block_kept_f32_rows(const rr__target *gpu)
{
	rr_kernel *kernel = builtin("add_layernorm");
	rr__plan_request req = {kernel, RR_F32, 1000, 50265, gpu, NULL, NULL};
	rr_layout l = choose(&req, NULL);
	CHECKF(l.blocks_per_row == 1 && l.storage == RR_STORAGE_SMEM, "add_layernorm f32 %s",
	       show(&l));
	rr_kernel_free(kernel);
	kernel = builtin("sum");
	rr__plan_request few = {kernel, RR_F32, 64, 50257, gpu, NULL, NULL};
	l = choose(&few, NULL);
	CHECKF(l.blocks_per_row > 1 || l.storage == RR_STORAGE_GRID, "sum f32 64x50257: %s",
	       show(&l));
	rr_kernel_free(kernel);
}

/* add_layernorm 16-bit rows of 16384 elements keep h in one block's shared memory, three
 * blocks an SM, not in registers one block an SM: the H100 ran the shared-memory plan in
 * 0.93-0.95x the time on 1024-6144 rows, bf16 and f16 (bench/results/
 * 2026-12-07-h100-ab-aln-smem-s61). Fails on the model before (S=regs each). Rows of 8192
 * keep theirs in registers (two blocks an SM there). */
static void test_pair_rows_smem(const rr__target *gpu)
{
	rr_kernel *kernel = builtin("add_layernorm");
	const rr_dtype types[] = {RR_BF16, RR_F16};
	const int64_t rows[] = {1024, 2048, 6144};
	for (int t = 0; t < 2; t++) {
		for (int i = 0; i < 3; i++) {
			rr__plan_request req = {kernel, types[t], rows[i], 16384, gpu, NULL, NULL};
			rr_layout l = choose(&req, NULL);
			CHECKF(l.storage == RR_STORAGE_SMEM && l.blocks_per_row == 1,
			       "add_layernorm %s %lldx16384: %s", rr_dtype_name(types[t]),
			       (long long)rows[i], show(&l));
		}
	}
	rr__plan_request narrow = {kernel, RR_BF16, 8192, 8192, gpu, NULL, NULL};
	rr_layout l = choose(&narrow, NULL);
	CHECKF(l.storage == RR_STORAGE_REGS, "add_layernorm bf16 8192x8192: %s", show(&l));
	rr_kernel_free(kernel);
}

/* rmsnorm and softmax f32 on a few rows of more data than half the L2 keep their S=grid
 * segments in registers (W <= 512, C >= 32) rather than re-read them (W = 1024, C = 8-32): the
 * H100 ran them in 0.74-0.92x the time (bench/results/2026-12-07-h100-ab-grid-regs-s61).
 * Fails on the model before (re-read each); layernorm f32 and rmsnorm bf16 did not move. */
static void test_grid_regs_beyond_l2(const rr__target *gpu)
{
	const char *names[] = {"rmsnorm", "softmax"};
	const int64_t shapes[][2] = {{16, 1048576}, {64, 524288}, {4, 2097152}};
	for (int k = 0; k < 2; k++) {
		rr_kernel *kernel = builtin(names[k]);
		for (int i = 0; i < 3; i++) {
			rr__plan_request req = {kernel, RR_F32, shapes[i][0], shapes[i][1],
			                        gpu,    NULL,   NULL};
			rr_layout l = choose(&req, NULL);
			CHECKF(l.storage == RR_STORAGE_GRID && l.workers_per_row <= 512 &&
			           l.blocks_per_row >= 32,
			       "%s f32 %lldx%lld: %s", names[k], (long long)shapes[i][0],
			       (long long)shapes[i][1], show(&l));
		}
		rr_kernel_free(kernel);
	}
}

/* A few rows over the grid in a kernel of two rounds: the H200 ran the C = 128 picks of four
 * rows of 2097152 one row group at a time (their entries took 69-100 registers: one block an
 * SM), 1.25-2.1x the time of C = 32-64 plans that hold two or all four rows at once (layernorm
 * bf16 37.6 µs against 17.7, f32 50.2 against 37.6, add_layernorm f32 71.6 against 57.3, bf16
 * 51.7 against 33.4; bench/NOTES.md session 27). Fails on the model before (C = 128 each). */
static void test_grid_two_round_waves(const rr__target *gpu)
{
	static const char *const names[] = {"layernorm", "layernorm", "add_layernorm",
	                                    "add_layernorm"};
	static const rr_dtype dtypes[] = {RR_BF16, RR_F32, RR_F32, RR_BF16};
	for (int i = 0; i < 4; i++) {
		rr_kernel *kernel = builtin(names[i]);
		rr__plan_request req = {kernel, dtypes[i], 4, 2097152, gpu, NULL, NULL};
		rr_layout l = choose(&req, NULL);
		/* the model's blocks at once, over C: the rows at once */
		double rows = floor(rr__cost_resident_groups(&req, &l) / l.blocks_per_row);
		CHECKF(l.storage == RR_STORAGE_GRID && l.blocks_per_row <= 64 && 4 <= 2 * rows,
		       "%s %s 4x2097152: %s (%.0f rows at once)", names[i],
		       rr_dtype_name(dtypes[i]), show(&l), rows);
		rr_kernel_free(kernel);
	}
}

/* sum over odd f32 rows of 127 and 255: every pack of a headed plan pays the row's head, so
 * one-element packs (W = 16-32, V = 1) win (0.77x and 0.87x the time of the V = 4 picks on the
 * H200, sessions 25-26); at 321 the V = 4 pick stays (V = 1 ran 1.08x). Fails on the model
 * before (V = 4 at 127 and 255). */
static void test_plain_odd_heads(const rr__target *gpu)
{
	static const int64_t shapes[][3] = {{65535, 127, 1}, {32767, 255, 1}, {12345, 321, 4}};
	rr_kernel *kernel = builtin("sum");
	for (int s = 0; s < 3; s++) {
		rr__plan_request req = {kernel, RR_F32, shapes[s][0], shapes[s][1],
		                        gpu,    NULL,   NULL};
		rr_layout l = choose(&req, NULL);
		CHECKF(l.vec == shapes[s][2], "sum f32 %lldx%lld: %s (V = %lld expected)",
		       (long long)shapes[s][0], (long long)shapes[s][1], show(&l),
		       (long long)shapes[s][2]);
	}
	rr_kernel_free(kernel);
}

/* The choices the H200 measured in session 13 (bench/NOTES.md): f32 rows of 65536-262144
 * elements, which no block keeps in shared memory, over a cluster of blocks of at least 512
 * workers keeping their segment in registers and looping over rows (0.72-0.87x the time of the
 * re-read and the narrow clusters picked before); rows of 50265, which one block keeps, stay
 * in its shared memory (test_wide_row_choices). Layernorm at C = 8 (256x262144) since session
 * 14, at U = 2 (0.65x the time of its W = 1024 plan; U = 4 spilled in its head entry). */
static void test_wide_cluster_choices(const rr__target *gpu)
{
	static const char *const names[] = {"rmsnorm", "softmax", "layernorm"};
	static const int64_t shapes[][2] = {{1024, 65536}, {512, 131072}, {256, 262144}};
	for (int k = 0; k < 3; k++) {
		rr_kernel *kernel = builtin(names[k]);
		for (int s = 0; s < 3; s++) {
			rr__plan_request req = {kernel, RR_F32, shapes[s][0], shapes[s][1],
			                        gpu,    NULL,   NULL};
			rr_layout l = choose(&req, NULL);
			rr__realisation r;
			CHECK(rr__realise(kernel, RR_F32, req.cols, &l, gpu, &r) == RR_OK);
			CHECKF(l.storage == RR_STORAGE_CLUSTER && l.grid == RR_GRID_PERSISTENT &&
			           l.workers_per_row >= 512 && r.keep == RR_KEEP_REGS,
			       "%s f32 %lldx%lld: %s (keep %d)", names[k], (long long)req.rows,
			       (long long)req.cols, show(&l), (int)r.keep);
			/* Two rounds at C = 8: U = 4 spilled in the head entry, U = 2 did not. */
			if (kernel->analysis.rounds > 1 && l.blocks_per_row > 4)
				CHECKF(l.unroll <= 2, "%s f32 %lldx%lld: %s", names[k],
				       (long long)req.rows, (long long)req.cols, show(&l));
		}
		rr_kernel_free(kernel);
	}
}

/* Clusters of 16 blocks where the target allows them, for 16-bit rows of a kernel keeping a
 * computed value whose C = 8 segment holds two blocks an SM by shared memory (plan.c,
 * sixteen_wanted): add_layernorm bf16 1024x151936 (C = 8: 80 KB, two an SM) takes C = 16; at
 * 1024x131072 a C = 8 segment of 64 KB holds three and keeps C = 8. At U = 1 where a worker's
 * segment holds under six chunks (151936: ptxas's U = 2 entry holds two blocks an SM), at U = 2
 * from six (262144, 200000: 0.85-0.88 of C = 8's time on an H100). The rows the H200 ran slower
 * at C = 16 never take it: f32 rows, and kernels keeping their row inputs as loaded (softmax,
 * rmsnorm, layernorm). With the portable eight as the target's largest, no plan takes 16. */
static void test_sixteen_block_clusters(const rr__target *gpu)
{
	rr__target big = *gpu;
	big.max_cluster = 16;
	static const struct {
		const char *kernel;
		rr_dtype dtype;
		int64_t rows, cols;
		int sixteen, unroll; /* unroll: the pick's U where it takes C = 16 */
	} cases[] = {
	    {"add_layernorm", RR_BF16, 1024, 151936, 1, 1},
	    {"add_layernorm", RR_BF16, 256, 262144, 1, 2},
	    {"add_layernorm", RR_BF16, 800, 200000, 1, 2},
	    {"add_layernorm", RR_BF16, 1024, 131072, 0, 0},
	    {"add_layernorm", RR_F32, 1024, 151936, 0, 0},
	    {"add_layernorm", RR_F32, 400, 160000, 0, 0},
	    {"softmax", RR_BF16, 256, 262144, 0, 0},
	    {"softmax", RR_F32, 300, 300000, 0, 0},
	    {"rmsnorm", RR_F32, 300, 300000, 0, 0},
	    {"layernorm", RR_F32, 300, 300000, 0, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		rr_kernel *kernel = builtin(cases[i].kernel);
		rr__plan_request req = {kernel,          cases[i].dtype, cases[i].rows,
		                        cases[i].cols,   &big,           NULL,
		                        NULL};
		rr_layout l = choose(&req, NULL);
		int sixteen = l.storage == RR_STORAGE_CLUSTER && l.blocks_per_row == 16;
		CHECKF(sixteen == cases[i].sixteen && (!sixteen || l.unroll == cases[i].unroll),
		       "%s %s %lldx%lld: %s", cases[i].kernel, rr_dtype_name(cases[i].dtype),
		       (long long)cases[i].rows, (long long)cases[i].cols, show(&l));
		req.target = gpu;
		l = choose(&req, NULL);
		CHECKF(l.storage == RR_STORAGE_GRID || l.blocks_per_row <= 8,
		       "%s %lldx%lld, clusters of 8 at most: %s", cases[i].kernel,
		       (long long)cases[i].rows, (long long)cases[i].cols, show(&l));
		rr_kernel_free(kernel);
	}
}

/* One row or a few, session 43 (plan.c grid_part_chunks, cheapest_alone). Over the grid,
 * 16-bit rows just short of a whole chunk a block (1x128256 at C = 32 and W = 512, or C = 64
 * and W = 256) take one pack a worker at U = 1; softmax and add_layernorm f32 keep whole
 * chunks. A launch of a few one-block rows of 4-32 KiB takes the cheapest plan (16-byte
 * packs), not the simplest of the tie (W = 1024 at V = 1-2); odd rows, f32 rows of 64 KiB and
 * packs in two steps keep the tie rule. */
static void test_one_row_choices(const rr__target *gpu)
{
	static const char *const norms[] = {"rmsnorm", "layernorm", "softmax", "add_layernorm"};
	for (int i = 0; i < 4; i++) {
		rr_kernel *kernel = builtin(norms[i]);
		rr__plan_request req = {kernel, RR_BF16, 1, 128256, gpu, NULL, NULL};
		rr_layout l = choose(&req, NULL);
		int64_t share = (req.cols + l.blocks_per_row - 1) / l.blocks_per_row;
		CHECKF(l.storage == RR_STORAGE_GRID && l.unroll == 1 &&
		           share <= (int64_t)l.workers_per_row * l.vec &&
		           req.cols < (int64_t)l.blocks_per_row * l.workers_per_row * l.vec,
		       "%s bf16 1x128256, one pack a worker: %s", norms[i], show(&l));
		req.dtype = RR_F32;
		l = choose(&req, NULL);
		int whole = req.cols >= (int64_t)l.blocks_per_row * l.workers_per_row * l.vec;
		CHECKF(l.storage == RR_STORAGE_GRID &&
		           whole == (i == 2 || i == 3), /* softmax and add_layernorm f32 */
		       "%s f32 1x128256: %s", norms[i], show(&l));
		rr_kernel_free(kernel);
	}
	static const struct {
		const char *kernel;
		rr_dtype dtype;
		int64_t rows, cols;
		int cheapest; /* 1: 16-byte packs in one step (the cheapest); 2: the cheapest plan of
		               * the tie loading in one step (the cheapest loads in two; kernels
		               * reading col inputs); 0: the tie rule's */
	} cases[] = {
	    {"layernorm", RR_BF16, 1, 8192, 1},   {"layernorm", RR_BF16, 4, 8192, 1},
	    {"rmsnorm", RR_BF16, 16, 4096, 1},    {"softmax", RR_F32, 1, 4096, 1},
	    {"sum", RR_BF16, 1, 8192, 1},         {"layernorm", RR_F32, 1, 8192, 1},
	    {"layernorm", RR_BF16, 2, 4095, 0},   {"rmsnorm", RR_F32, 2, 4095, 0},
	    {"layernorm", RR_F32, 1, 16384, 0},   {"layernorm", RR_BF16, 1, 5000, 2},
	    {"layernorm", RR_BF16, 1, 6144, 2},   {"rmsnorm", RR_BF16, 12, 5120, 2},
	    {"softmax", RR_BF16, 12, 5120, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		rr_kernel *kernel = builtin(cases[i].kernel);
		rr__plan_request req = {kernel, cases[i].dtype, cases[i].rows, cases[i].cols,
		                        gpu,    NULL,           NULL};
		rr_layout l = choose(&req, NULL);
		int elem = rr_dtype_size(cases[i].dtype);
		int64_t chunks = (cases[i].cols + (int64_t)l.workers_per_row * l.vec - 1) /
		                 ((int64_t)l.workers_per_row * l.vec);
		int wide = l.vec * elem == 16 && l.workers_per_row <= 512 && chunks <= l.unroll;
		/* the tie rule's simplest plan: the least unrolling */
		const int one_step = chunks <= l.unroll && l.unroll > 1;
		CHECKF(l.blocks_per_row == 1 && (cases[i].cheapest == 1   ? wide
		                                 : cases[i].cheapest == 2 ? one_step && !wide
		                                                          : l.unroll == 1),
		       "%s %s %lldx%lld: %s",
		       cases[i].kernel, rr_dtype_name(cases[i].dtype), (long long)cases[i].rows,
		       (long long)cases[i].cols, show(&l));
		rr_kernel_free(kernel);
	}
}

/* Mailbox clusters (rr__cluster_mailbox): a kernel of two rounds on bf16 rows of 131072 takes
 * C = 8 blocks of W = 256 (32 KB of the row each, six an SM), which the H200 ran in 0.87x the
 * time of C = 4 (bench/results/2026-12-02-h200-ab-cluster-mailbox-s18), and so does softmax,
 * one round whose online pair goes through the mailbox (0.95x, bench/NOTES.md session 20);
 * rmsnorm, one partial a row and no mailbox, keeps C = 4. */
static void test_mailbox_cluster_choices(const rr__target *gpu)
{
	rr_kernel *layernorm = builtin("layernorm"), *rmsnorm = builtin("rmsnorm"),
	          *softmax = builtin("softmax");
	rr__plan_request req = {layernorm, RR_BF16, 512, 131072, gpu, NULL, NULL};
	rr_layout l = choose(&req, NULL);
	rr__realisation r;
	CHECK(rr__realise(layernorm, RR_BF16, req.cols, &l, gpu, &r) == RR_OK);
	CHECKF(l.blocks_per_row == 8 && l.workers_per_row == 256 && rr__cluster_mailbox(&r),
	       "layernorm bf16 512x131072: %s", show(&l));
	req.kernel = softmax;
	l = choose(&req, NULL);
	CHECK(rr__realise(softmax, RR_BF16, req.cols, &l, gpu, &r) == RR_OK);
	CHECKF(l.blocks_per_row == 8 && l.workers_per_row == 256 && rr__cluster_mailbox(&r),
	       "softmax bf16 512x131072: %s", show(&l));
	req.kernel = rmsnorm;
	l = choose(&req, NULL);
	CHECKF(l.blocks_per_row == 4, "rmsnorm bf16 512x131072: %s", show(&l));
	rr_kernel_free(layernorm);
	rr_kernel_free(rmsnorm);
	rr_kernel_free(softmax);
}

/* A cluster of three blocks an SM keeping its segment in shared memory hides that traffic behind
 * the other blocks' loads (cost.c): add_layernorm on 16-bit rows of 65536 and 131072 elements
 * takes clusters of W = 256 keeping h = x + r in shared memory, three blocks an SM, which the
 * H200 ran in 0.76-0.84x the time of W = 512 keeping them in registers (bench/NOTES.md session
 * 30); on 1000x50265 (bf16 1.07x there) it keeps W = 512. */
static void test_staged_cluster_choices(const rr__target *gpu)
{
	static const int64_t shapes[][2] = {{1024, 65536}, {512, 131072}, {1000, 50265}};
	static const rr_dtype dtypes[] = {RR_BF16, RR_F16};
	rr_kernel *kernel = builtin("add_layernorm");
	for (int d = 0; d < 2; d++)
		for (int s = 0; s < 3; s++) {
			rr__plan_request req = {kernel, dtypes[d], shapes[s][0], shapes[s][1],
			                        gpu,    NULL,      NULL};
			rr_layout l = choose(&req, NULL);
			rr__realisation r;
			CHECK(rr__realise(kernel, dtypes[d], req.cols, &l, gpu, &r) == RR_OK);
			rr__plan_features f;
			rr__plan_features_compute(&req, &l, &f);
			int staged = l.storage == RR_STORAGE_CLUSTER && l.workers_per_row == 256 &&
			             r.keep == RR_KEEP_SMEM && f.groups_per_sm >= 3;
			CHECKF(staged == (req.cols >= 65536),
			       "add_layernorm %s %lldx%lld: %s (keep %d, %.0f an SM)",
			       rr_dtype_name(dtypes[d]), (long long)req.rows, (long long)req.cols,
			       show(&l), (int)r.keep, f.groups_per_sm);
		}
	rr_kernel_free(kernel);
}

/* One-round 16-bit S=grid raw keeps priced as streaming where the rows fill three segments of
 * 32768 elements an SM (13 M elements or more on the H200's 132 SMs): softmax and rmsnorm bf16 at
 * 64x524288 and 16x2097152 take W <= 512, U <= 2 (0.82-0.94x the time of the W = 1024 picks,
 * bench/NOTES.md session 31); the few-row shapes where such plans ran 1.05-1.34x keep theirs. */
static void test_grid_raw_stream_choices(const rr__target *gpu)
{
	static const int64_t shapes[][2] = {
	    {64, 524288}, {16, 2097152}, {2, 4000037}, {4, 1048576}};
	static const char *const names[] = {"softmax", "rmsnorm"};
	for (int k = 0; k < 2; k++) {
		rr_kernel *kernel = builtin(names[k]);
		for (int s = 0; s < 4; s++) {
			rr__plan_request req = {kernel, RR_BF16, shapes[s][0], shapes[s][1],
			                        gpu,    NULL,    NULL};
			rr_layout l = choose(&req, NULL);
			rr__plan_features f;
			rr__plan_features_compute(&req, &l, &f);
			int big = s < 2;
			CHECKF(l.storage == RR_STORAGE_GRID && f.raw_streams == big &&
			           (!big || (l.workers_per_row <= 512 && l.unroll <= 2)),
			       "%s bf16 %lldx%lld: %s (streams %d)", names[k], (long long)req.rows,
			       (long long)req.cols, show(&l), f.raw_streams);
		}
		rr_kernel_free(kernel);
	}
}

/* A block of one row and at most 128 workers is not priced as wasted by fewer than four packs a
 * worker: layernorm and add_layernorm f32 at 8191x1023 take W = 128, V = 4 (two packs), which
 * the H200 ran in 0.84x the time of the W = 32 pick before (bench/NOTES.md session 31); wider
 * groups keep the factor (layernorm f32 16384x4096 stays at four packs or more). */
static void test_narrow_block_few_packs(const rr__target *gpu)
{
	static const char *const names[] = {"layernorm", "add_layernorm"};
	for (int k = 0; k < 2; k++) {
		rr_kernel *kernel = builtin(names[k]);
		rr__plan_request req = {kernel, RR_F32, 8191, 1023, gpu, NULL, NULL};
		rr_layout l = choose(&req, NULL);
		CHECKF(l.workers_per_row == 128 && l.vec == 4 && l.blocks_per_row == 1,
		       "%s f32 8191x1023: %s", names[k], show(&l));
		req.rows = 16384;
		req.cols = 4096;
		l = choose(&req, NULL);
		int64_t span = (int64_t)l.workers_per_row * l.vec;
		CHECKF(l.workers_per_row <= 128 || (req.cols + span - 1) / span >= 4,
		       "%s f32 16384x4096: %s", names[k], show(&l));
		rr_kernel_free(kernel);
	}
}

/* add_layernorm's two 16-bit row inputs: on 127-column rows the planner gives a row a warp
 * (W = 16 ran 1.27-1.35x W = 32's time on the H200) while one-input kernels keep W = 16; at
 * 4096x32768, where one block keeping h in f32 is alone on its SM, it takes a cluster of
 * blocks keeping their halves in shared memory (0.88x the block's time), while f32 rows and
 * one-input kernels there keep one block a row (bench/NOTES.md session 32). */
static void test_pair_input_choices(const rr__target *gpu)
{
	rr_kernel *add = builtin("add_layernorm"), *ln = builtin("layernorm");
	for (int d = 0; d < 2; d++) {
		rr_dtype dt = d ? RR_F16 : RR_BF16;
		rr__plan_request req = {add, dt, 65535, 127, gpu, NULL, NULL};
		rr_layout l = choose(&req, NULL);
		CHECKF(l.workers_per_row >= 32, "add_layernorm %s 65535x127: %s", d ? "f16" : "bf16",
		       show(&l));
		req.kernel = ln;
		l = choose(&req, NULL);
		CHECKF(l.workers_per_row == 16, "layernorm %s 65535x127: %s", d ? "f16" : "bf16",
		       show(&l));
		req.kernel = add;
		req.rows = 4096;
		req.cols = 32768;
		l = choose(&req, NULL);
		CHECKF(l.storage == RR_STORAGE_CLUSTER && l.blocks_per_row == 2 &&
		           l.workers_per_row == 256,
		       "add_layernorm %s 4096x32768: %s", d ? "f16" : "bf16", show(&l));
		req.kernel = ln;
		l = choose(&req, NULL);
		CHECKF(l.blocks_per_row == 1, "layernorm %s 4096x32768: %s", d ? "f16" : "bf16",
		       show(&l));
	}
	rr__plan_request req = {add, RR_F32, 4096, 32768, gpu, NULL, NULL};
	rr_layout l = choose(&req, NULL);
	CHECKF(l.blocks_per_row == 1, "add_layernorm f32 4096x32768: %s", show(&l));
	rr_kernel_free(add);
	rr_kernel_free(ln);
}

/* softmax on 16-bit rows of about a thousand elements: a row on a whole warp (W = 32, R = 1),
 * not on half of one (GPU_ONLINE_HALF_WARP_FACTOR; bench/NOTES.md session 56); rows of 512
 * elements or fewer keep what they had. */
static void test_online_half_warp(const rr__target *gpu)
{
	rr_kernel *sm = builtin("softmax");
	static const int64_t shapes[][2] = {{8191, 1023}, {8192, 1024}, {12000, 999}};
	for (int d = 0; d < 2; d++) {
		rr_dtype dt = d ? RR_F16 : RR_BF16;
		for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
			rr__plan_request req = {sm, dt, shapes[i][0], shapes[i][1], gpu, NULL, NULL};
			rr_layout l = choose(&req, NULL);
			CHECKF(l.workers_per_row == 32 && l.rows_per_group == 1 &&
			           l.storage == RR_STORAGE_REGS,
			       "softmax %s %lldx%lld: %s", d ? "f16" : "bf16", (long long)shapes[i][0],
			       (long long)shapes[i][1], show(&l));
		}
		rr__plan_request req = {sm, dt, 65536, 128, gpu, NULL, NULL};
		rr_layout l = choose(&req, NULL);
		CHECKF(l.workers_per_row < 32, "softmax %s 65536x128: %s", d ? "f16" : "bf16",
		       show(&l));
	}
	rr_kernel_free(sm);
}

/* One-pass online reductions (cross_entropy): on rows of 16384 elements or more the planner
 * streams 8 packs at a time over 16-32 packs a worker (the H200: 0.60-0.91 of the time of the
 * W = 512-1024, U = 4 picks before, bench/results/2026-12-02-h200-ab-ce-stream-s15); shorter
 * rows, kernels with a row output and the flat few-row launches keep what they had. */
static void test_online_stream_choices(const rr__target *gpu)
{
	static const int64_t shapes[][2] = {
	    {1024, 65536}, {4096, 32768}, {1024, 50257}, {2048, 16384}};
	rr_kernel *ce = builtin("cross_entropy"), *softmax = builtin("softmax");
	for (int s = 0; s < 4; s++)
		for (int d = 0; d < 2; d++) {
			rr__plan_request req = {
			    ce, d ? RR_BF16 : RR_F32, shapes[s][0], shapes[s][1], gpu, NULL, NULL};
			rr_layout l = choose(&req, NULL);
			int64_t span = (int64_t)l.workers_per_row * l.vec;
			int64_t packs = (req.cols + span - 1) / span;
			CHECKF(l.unroll == 8 && l.rows_per_group == 1 && l.blocks_per_row == 1 &&
			           packs >= 16 && packs <= 32 && rr__online_stream(&req, &l),
			       "cross_entropy %s %lldx%lld: %s", d ? "bf16" : "f32",
			       (long long)req.rows, (long long)req.cols, show(&l));
			req.kernel = softmax;
			l = choose(&req, NULL);
			CHECKF(l.unroll <= 4 && !rr__online_stream(&req, &l),
			       "softmax %lldx%lld: %s", (long long)req.rows, (long long)req.cols,
			       show(&l));
		}
	static const int64_t short_rows[][2] = {{4096, 4096}, {16384, 4096}, {4096, 8191}};
	for (int s = 0; s < 3; s++) {
		rr__plan_request req = {ce,   RR_BF16, short_rows[s][0], short_rows[s][1], gpu,
		                        NULL, NULL};
		rr_layout l = choose(&req, NULL);
		CHECKF(l.unroll <= 4 && !rr__online_stream(&req, &l),
		       "cross_entropy bf16 %lldx%lld: %s", (long long)req.rows, (long long)req.cols,
		       show(&l));
	}
	rr_kernel_free(ce);
	rr_kernel_free(softmax);
}

/* 16-bit rows whose aligned body of fewer than 16 chunks is unrolled whole (cuda_emit_row.c,
 * unroll_aligned) take no U = 8 at W = 256 on rows for four blocks an SM or more: sum bf16 and
 * cross_entropy bf16 on 1024-8192 rows of 32000 ran 0.93-0.997 of the time without it; on 128
 * rows (a block an SM) U = 8 was faster and stays (bench/NOTES.md session 34). */
static void test_unrolled_body_depth(const rr__target *gpu)
{
	rr_kernel *kernels[2] = {builtin("sum"), builtin("cross_entropy")};
	for (int k = 0; k < 2; k++) {
		for (int d = 0; d < 2; d++) {
			rr__plan_request req = {kernels[k], d ? RR_F16 : RR_BF16, 4096, 32000, gpu,
			                        NULL,       NULL};
			rr_layout l = choose(&req, NULL);
			int64_t full = req.cols / ((int64_t)l.workers_per_row * l.vec);
			CHECKF(l.blocks_per_row == 1 && !(l.unroll == 8 && full < 16),
			       "%s 4096x32000: %s", kernels[k]->name, show(&l));
			req.rows = 0; /* rows unknown: the model's many rows */
			l = choose(&req, NULL);
			full = req.cols / ((int64_t)l.workers_per_row * l.vec);
			CHECKF(!(l.unroll == 8 && full < 16), "%s ?x32000: %s", kernels[k]->name,
			       show(&l));
		}
		/* W = 256, U = 8 is offered on 128 rows, not on 4096 */
		rr_layout deep = {0};
		CHECK(rr_layout_parse("W=256,V=8,U=8,R=1,C=1,S=regs,G=rows", &deep) == RR_OK);
		rr__plan_request few = {kernels[k], RR_BF16, 128, 32000, gpu, NULL, NULL};
		rr__plan_request many = {kernels[k], RR_BF16, 4096, 32000, gpu, NULL, NULL};
		int (*offered)(const rr__plan_request *, const rr_layout *) =
		    k ? rr__online_stream : rr__plain_stream_deep;
		CHECKF(offered(&few, &deep) && !offered(&many, &deep),
		       "%s bf16 U = 8 on 128 rows: %d, on 4096: %d", kernels[k]->name,
		       offered(&few, &deep), offered(&many, &deep));
		rr_layout l;
		/* f32 blocks of one row keep the loop (no unrolled body): U = 8 stays offered */
		rr__plan_request f32 = {kernels[k], RR_F32, 4096, 32000, gpu, NULL, NULL};
		l = choose(&f32, NULL);
		CHECKF(l.blocks_per_row == 1, "%s f32 4096x32000: %s", kernels[k]->name, show(&l));
	}
	rr_kernel_free(kernels[0]);
	rr_kernel_free(kernels[1]);
}

/* Plain streams (session 24, bench/NOTES.md): sum on rows of 6143-50265 elements ran W = 128-512
 * with 8 packs in flight 0.74-0.91x the time of W = 1024 at U = 4 and of W = 256 at U = 1; the
 * rule is for one-round plain reductions without row outputs or col inputs only. Odd rows run
 * the headed entry, which issues 4 of U = 8 at a time (rr__realisation_head_unroll): the model
 * prices U = 8 and 4 alike there (an H100 ran sum 512x32003 at U = 4 in 1.000x the time of U =
 * 8, f32 and bf16; session 50), so those rows need 4 packs a step, not U = 8. */
static void test_plain_stream_choices(const rr__target *gpu)
{
	static const int64_t shapes[][2] = {{1000, 50265}, {512, 32003}, {4096, 32768}};
	rr_kernel *sum = builtin("sum"), *ce = builtin("cross_entropy"), *rms = builtin("rmsnorm");
	for (int s = 0; s < 3; s++)
		for (int d = 0; d < 2; d++) {
			rr__plan_request req = {
			    sum, d ? RR_BF16 : RR_F32, shapes[s][0], shapes[s][1], gpu, NULL, NULL};
			rr_layout l = choose(&req, NULL);
			int odd = shapes[s][1] % 8 != 0;
			CHECKF(l.workers_per_row <= 512 && (odd ? l.unroll >= 4 : l.unroll == 8) &&
			           l.blocks_per_row == 1 && rr__plain_stream(&req, &l),
			       "sum %s %lldx%lld: %s", d ? "bf16" : "f32", (long long)req.rows,
			       (long long)req.cols, show(&l));
			req.kernel = ce; /* an online pair: not a plain stream */
			CHECKF(!rr__plain_stream(&req, &l), "cross_entropy %lldx%lld",
			       (long long)req.rows, (long long)req.cols);
			req.kernel = rms; /* row outputs and a col input */
			CHECKF(!rr__plain_stream(&req, &l), "rmsnorm %lldx%lld",
			       (long long)req.rows, (long long)req.cols);
		}
	rr__plan_request narrow = {sum, RR_F32, 8192, 1023, gpu, NULL, NULL};
	rr_layout l = {256, 4, 8, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS};
	CHECKF(!rr__plain_stream(&narrow, &l), "sum f32 8192x1023 is below the plain-stream rows");
	rr_kernel_free(sum);
	rr_kernel_free(ce);
	rr_kernel_free(rms);
}

/* Session 25 (bench/NOTES.md): sum's rows of 5-8 packs a worker are offered U = 8 (all in
 * flight: bf16 16384x512 W = 8, U = 8 0.95x the W = 16, U = 2 pick); sum's blocks of rows whose
 * warp accesses touch 16 lines are priced as kernels that write rows (W = 2 at 131072x64 ran
 * 1.14-1.26x the time of W = 4-8); f32 rows kept in registers by one block a row count U packs
 * in flight (rmsnorm f32 8191x1023: W = 64, U = 4 0.86x the W = 32, U = 1 pick), 16-bit ones in
 * launches of many blocks keep their plans (rmsnorm bf16 4096x4096 re-read 1.11x). */
static void test_flat_reads(const rr__target *gpu)
{
	rr_kernel *sum = builtin("sum");
	rr__plan_request req = {sum, RR_BF16, 16384, 512, gpu, NULL, NULL};
	rr_layout l = choose(&req, NULL);
	CHECKF(l.unroll == 8 && rr__plain_flat(&req, &l), "sum bf16 16384x512: %s", show(&l));
	for (int d = 0; d < 2; d++) {
		rr__plan_request scattered = {sum, d ? RR_BF16 : RR_F32, 131072, 64, gpu, NULL,
		                              NULL};
		l = choose(&scattered, NULL);
		CHECKF(l.workers_per_row >= 4, "sum %s 131072x64: %s", d ? "bf16" : "f32",
		       show(&l));
	}
	rr__plan_request wide = {sum, RR_BF16, 32768, 1024, gpu, NULL, NULL};
	rr_layout several = {16, 8, 8, 8, 1, RR_STORAGE_REGS, RR_GRID_ROWS};
	CHECKF(!rr__plain_flat(&wide, &several), "sum bf16 32768x1024 R = 8 is past the flat rows");
	rr_kernel_free(sum);
	static const char *const kept[] = {"rmsnorm", "softmax"};
	for (int k = 0; k < 2; k++) {
		rr_kernel *kernel = builtin(kept[k]);
		rr__plan_request f32 = {kernel, RR_F32, 8191, 1023, gpu, NULL, NULL};
		l = choose(&f32, NULL);
		CHECKF(l.rows_per_group == 1 && l.storage == RR_STORAGE_REGS && l.unroll >= 2,
		       "%s f32 8191x1023: %s", kept[k], show(&l));
		rr__plan_request bf16 = {kernel, RR_BF16, 4096, 4096, gpu, NULL, NULL};
		l = choose(&bf16, NULL);
		CHECKF(l.storage == RR_STORAGE_REGS, "%s bf16 4096x4096: %s", kept[k], show(&l));
		rr_kernel_free(kernel);
	}
	/* Headed 16-bit rows over the grid, two rounds: one block an SM (layernorm bf16 16x128257
	 * C = 8 0.63x the time of C = 16, whose headed entry's registers loop its row groups). */
	rr_kernel *ln = builtin("layernorm");
	static const int64_t few[][2] = {{16, 128257}, {4, 500001}};
	for (int s = 0; s < 2; s++) {
		rr__plan_request headed = {ln, RR_BF16, few[s][0], few[s][1], gpu, NULL, NULL};
		l = choose(&headed, NULL);
		CHECKF(l.storage == RR_STORAGE_GRID &&
		           few[s][0] * l.blocks_per_row <= gpu->multiprocessors,
		       "layernorm bf16 %lldx%lld: %s", (long long)few[s][0], (long long)few[s][1],
		       show(&l));
	}
	rr_kernel_free(ln);
	rr_kernel *rms = builtin("rmsnorm");
	rr__plan_request f32 = {rms, RR_F32, 8191, 1023, gpu, NULL, NULL};
	l = choose(&f32, NULL);
	CHECKF((int64_t)l.workers_per_row * l.vec * l.unroll >= 1023, "rmsnorm f32 8191x1023: %s",
	       show(&l));
	rr_kernel_free(rms);
}

/* Blocks of several short rows (session 24, bench/NOTES.md): at 64-128 columns the H200 ran
 * blocks of 512-1024 threads 1.02-1.08x the time of 128-thread blocks of the same W, and
 * cross-entropy's single-wave launches whose workers load in two steps or more behind those
 * that load in one (bf16 65536x128: W = 2, U = 4 7.85 µs, W = 4 6.63). */
static void test_short_row_blocks(const rr__target *gpu)
{
	static const char *const kernels[] = {"layernorm", "softmax", "rmsnorm", "add_layernorm"};
	static const int64_t shapes[][2] = {{131072, 64}, {65536, 128}, {65535, 127}};
	for (int k = 0; k < 4; k++) {
		rr_kernel *kernel = builtin(kernels[k]);
		for (int s = 0; s < 3; s++)
			for (int d = 0; d < 2; d++) {
				rr__plan_request req = {kernel,       d ? RR_BF16 : RR_F32,
				                        shapes[s][0], shapes[s][1],
				                        gpu,          NULL,
				                        NULL};
				rr_layout l = choose(&req, NULL);
				CHECKF(l.workers_per_row * l.rows_per_group <= 256,
				       "%s %s %lldx%lld: %s", kernels[k], d ? "bf16" : "f32",
				       (long long)req.rows, (long long)req.cols, show(&l));
			}
		rr_kernel_free(kernel);
	}
	rr_kernel *ce = builtin("cross_entropy");
	for (int s = 0; s < 3; s++)
		for (int d = 0; d < 2; d++) {
			rr__plan_request req = {
			    ce, d ? RR_BF16 : RR_F32, shapes[s][0], shapes[s][1], gpu, NULL, NULL};
			rr_layout l = choose(&req, NULL);
			rr__plan_features f;
			rr__plan_features_compute(&req, &l, &f);
			CHECKF(f.waves > 1 || f.serial_steps <= 1, "cross_entropy %s %lldx%lld: %s",
			       d ? "bf16" : "f32", (long long)req.rows, (long long)req.cols,
			       show(&l));
		}
	rr_kernel_free(ce);
}

/* The choices the H200 measured in session 9 (bench/NOTES.md): S=grid over clusters for few
 * rows of more than 65536 elements (16x128257, every kernel), not at 65536 or below (4x65536),
 * not for two-round kernels whose rows' clusters fit the device at once (layernorm 12x100003),
 * while one-round kernels there keep it; and a row kept in one block's shared memory before a
 * three-phase re-read (layernorm f32 1000x50265). */
static void test_wide_row_choices(const rr__target *gpu)
{
	static const char *const names[] = {"sum",       "softmax",       "rmsnorm",
	                                    "layernorm", "add_layernorm", "cross_entropy"};
	for (int k = 0; k < 6; k++) {
		rr_kernel *kernel = builtin(names[k]);
		int rounds = kernel->analysis.rounds;
		for (int d = 0; d < 2; d++) {
			rr__plan_request req = {kernel, d ? RR_BF16 : RR_F32, 16, 128257, gpu, NULL,
			                        NULL};
			rr_layout l = choose(&req, NULL);
			CHECKF(l.storage == RR_STORAGE_GRID, "%s 16x128257: %s", names[k],
			       show(&l));
			req.rows = 4;
			req.cols = 65536;
			l = choose(&req, NULL);
			CHECKF(l.storage != RR_STORAGE_GRID, "%s 4x65536: %s", names[k], show(&l));
			req.rows = 12;
			req.cols = 100003;
			l = choose(&req, NULL);
			CHECKF((l.storage == RR_STORAGE_GRID) == (rounds < 2),
			       "%s 12x100003 (%d rounds): %s", names[k], rounds, show(&l));
		}
		rr_kernel_free(kernel);
	}
	rr_kernel *ln = builtin("layernorm");
	rr__plan_request req = {ln, RR_F32, 1000, 50265, gpu, NULL, NULL};
	rr_layout l = choose(&req, NULL);
	CHECKF(l.storage == RR_STORAGE_SMEM, "layernorm f32 1000x50265: %s", show(&l));
	/* Two grid rounds: one block an SM where that block still keeps its segment (16 rows of
	 * 128257 at C = 8 on 132 SMs), and where it re-reads (7 rows of 777777: C = 16, W = 1024
	 * re-reading ran 36.9 µs where C = 64 keeping ran 56.3 on the H200; bench/NOTES.md
	 * session 27, after session 10 had measured the opposite, 66.7 against 59.6). */
	req.rows = 16;
	req.cols = 128257;
	l = choose(&req, NULL);
	CHECKF(l.storage == RR_STORAGE_GRID && 16 * l.blocks_per_row <= gpu->multiprocessors,
	       "layernorm f32 16x128257: %s", show(&l));
	rr_kernel_free(ln);
	rr_kernel *aln = builtin("add_layernorm");
	req = (rr__plan_request){aln, RR_F32, 7, 777777, gpu, NULL, NULL};
	l = choose(&req, NULL);
	CHECKF(l.storage == RR_STORAGE_GRID && 7 * l.blocks_per_row <= gpu->multiprocessors,
	       "add_layernorm f32 7x777777: %s", show(&l));
	rr_kernel_free(aln);
	/* One row of 131073 over S=grid blocks: a few steps through each block's segment, not
	 * W = 64 workers stepping through five chunks each (1.3-1.7x slower on the H200). */
	for (int k = 1; k < 5; k++) {
		rr_kernel *kernel = builtin(names[k]);
		for (int d = 0; d < 2; d++) {
			req = (rr__plan_request){kernel, d ? RR_BF16 : RR_F32, 1, 131073, gpu, NULL,
			                         NULL};
			l = choose(&req, NULL);
			rr__realisation r;
			CHECK(rr__realise(kernel, req.dtype, req.cols, &l, gpu, &r) == RR_OK);
			CHECKF(l.storage == RR_STORAGE_GRID && r.chunks <= 3 &&
			           l.workers_per_row >= 128,
			       "%s 1x131073: %s (%lld chunks a worker)", names[k], show(&l),
			       (long long)r.chunks);
		}
		rr_kernel_free(kernel);
	}
}

static void show_choices(const rr__target *cpu, const rr__target *gpu)
{
	static const int64_t lengths[] = {1,    64,    127,   128,   512,    1024,  4096,
	                                  8192, 16384, 32768, 65536, 131072, 262144};
	const rr__target *targets[] = {gpu, cpu};
	for (int t = 0; t < 2; t++)
		for (int b = 0; b < 6; b++) {
			rr_kernel *k = builtin(builtins[b]);
			for (int d = 0; d < 2; d++)
				for (size_t n = 0; n < sizeof lengths / sizeof lengths[0]; n++) {
					rr__plan_request req = {k,          d ? RR_BF16 : RR_F32,
					                        0,          lengths[n],
					                        targets[t], NULL,
					                        NULL};
					rr__candidates c;
					rr_layout l;
					rr__plan_features f;
					if (rr__plan_choose(&req, NULL, NULL, NULL, &l, &c) !=
					    RR_OK)
						continue;
					rr__plan_features_compute(&req, &l, &f);
					printf("%-4s %-13s %-4s N=%-7lld %-44s %9.2f us %5.1f%% bw "
					       "(%d of %d)\n",
					       targets[t]->backend, k->name,
					       rr_dtype_name(req.dtype), (long long)req.cols,
					       show(&l), f.predicted_us,
					       100 * f.bandwidth_efficiency, c.count, c.considered);
					rr__candidates_free(&c);
				}
			rr_kernel_free(k);
		}
}

/* ---------------------------------------------------------------- coefficients as data */

/* Every embedded class file parses, names its class once, and the planner finds it for its
 * target; a bad file is refused with the line and the reason; a coefficient moves the model. */
static void test_coefficients(const rr__target *gpu, const rr__target *cpu)
{
	rr__cost_coeffs c, hand;
	int classes = 0;
	rr__cost_coeffs_default(&hand);
	for (const rr__coeff_file *f = rr__coeff_files; f->name; f++, classes++)
		CHECKF(rr__cost_coeffs_parse(f->text, f->name, &c) == RR_OK, "%s: %s", f->name,
		       rr_last_error());
	CHECK(classes >= 2);
	char name[64];
	rr__cost_coeffs_class_of(gpu, name, sizeof name);
	CHECKF(!strcmp(name, "cuda/sm_90"), "%s", name);
	rr__cost_coeffs_for(gpu, &c);
	CHECKF(!strcmp(c.device_class, "cuda/sm_90"), "%s", c.device_class);
	rr__cost_coeffs_for(cpu, &c);
	CHECKF(!strncmp(c.device_class, "cpu/", 4), "%s", c.device_class);
	rr__target other = *gpu;
	other.cc_major = 7; /* no file for sm_70: the documented default set */
	rr__cost_coeffs_for(&other, &c);
	CHECK(!strcmp(c.device_class, "default") && !memcmp(c.value, hand.value, sizeof c.value));

	static const char *const bad[][2] = {
	    {"class x\nno_such_term 1\n", "no cost coefficient is named \"no_such_term\""},
	    {"class x\ngpu_launch_us 1\ngpu_launch_us 2\n", "given twice"},
	    {"class x\ngpu_launch_us -1\n", "positive finite number"},
	    {"class x\ngpu_launch_us 1 2\n", "expected \"name value\""},
	    {"gpu_launch_us 1\n", "no \"class NAME\" line"}};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CHECK(rr__cost_coeffs_parse(bad[i][0], "t.txt", &c) == RR_ERR_INVALID_ARG);
		CHECKF(strstr(rr_last_error(), bad[i][1]) != NULL, "%s", rr_last_error());
	}
	/* A written file reads back to the same values; a name left out keeps its hand value. */
	rr__cost_coeffs_for(gpu, &c);
	c.value[RR__COEFF_gpu_launch_us] = 3.5;
	char *text = rr__cost_coeffs_format(&c, "# a test\n");
	rr__cost_coeffs back;
	CHECK(text && rr__cost_coeffs_parse(text, "written", &back) == RR_OK);
	CHECK(back.value[RR__COEFF_gpu_launch_us] == 3.5 &&
	      !strcmp(back.device_class, "cuda/sm_90"));
	CHECK(back.value[RR__COEFF_cpu_pack_ns] == hand.value[RR__COEFF_cpu_pack_ns]);
	free(text);

	/* The launch coefficient moves a GPU prediction by exactly its change. */
	rr_kernel *k = builtin("rmsnorm");
	rr_layout l = {128, 4, 1, 1, 1, RR_STORAGE_REGS, RR_GRID_ROWS};
	rr__plan_request req = {k, RR_F32, 1024, 4096, gpu, NULL, &hand};
	rr__plan_features before, after;
	rr__plan_features_compute(&req, &l, &before);
	rr__cost_coeffs slower = hand;
	slower.value[RR__COEFF_gpu_launch_us] += 10;
	req.coeffs = &slower;
	rr__plan_features_compute(&req, &l, &after);
	CHECKF(fabs(after.launch_us - before.launch_us - 10) < 1e-9, "%g -> %g", before.launch_us,
	       after.launch_us);
	CHECK(after.predicted_us > before.predicted_us);
	rr_kernel_free(k);
}

int main(void)
{
	rr__target cpu, gpu;
	rr__target_cpu(&cpu);
	cuda_like(&gpu);
	if (getenv("RR_PLAN_SHOW")) {
		show_choices(&cpu, &gpu);
		return 0;
	}
	test_all_builtins(&cpu, &gpu);
	test_odd_rows_vectorised(&gpu);
	test_errors(&gpu);
	test_features(&gpu, &cpu);
	test_defaults(&gpu, &cpu);
	test_cpu_chains(&gpu, &cpu);
	test_cpu_kept_16bit(&cpu);
	test_cpu_pair_order(&cpu);
	test_cpu_narrow_transcendentals(&cpu);
	test_cpu_part_spans(&cpu);
	test_coefficients(&gpu, &cpu);
	test_grid_choice(&gpu, &cpu);
	test_grid_fill(&gpu);
	test_wide_row_choices(&gpu);
	test_odd_row_choices(&gpu);
	test_short_row_choices(&gpu);
	test_tiny_flat_choices(&gpu);
	test_few_short_row_workers(&gpu);
	test_block_kept_f32_rows(&gpu);
	test_pair_rows_smem(&gpu);
	test_grid_regs_beyond_l2(&gpu);
	test_plain_odd_heads(&gpu);
	test_grid_two_round_waves(&gpu);
	test_two_round_registers(&gpu);
	test_few_group_readers(&gpu);
	test_wide_cluster_choices(&gpu);
	test_online_stream_choices(&gpu);
	test_unrolled_body_depth(&gpu);
	test_mailbox_cluster_choices(&gpu);
	test_sixteen_block_clusters(&gpu);
	test_one_row_choices(&gpu);
	test_staged_cluster_choices(&gpu);
	test_grid_raw_stream_choices(&gpu);
	test_narrow_block_few_packs(&gpu);
	test_pair_input_choices(&gpu);
	test_online_half_warp(&gpu);
	test_plain_stream_choices(&gpu);
	test_short_row_blocks(&gpu);
	test_flat_reads(&gpu);
	test_small_groups_all_sms(&gpu);
	return rr_test_finish("test_plan");
}

#define _POSIX_C_SOURCE 200809L
/* expbench.c (session 63 lab): softmax's pass of the sums (load x, x - m, exp, keep, add) over
 * one row in L1, one thread, in cycles a vector; the generated source is included for its
 * helpers (SRC). Variants: the generated exp (rr_vexp_nonpos), the same without the rare-lane
 * test, the polynomial by Estrin's scheme (other bits: latency only), the exp alone.
 * Build: gcc -O3 -march=native -ffp-contract=off -fno-math-errno -std=c11
 *        -DSRC='"src/sm-f32-4096x4096-base.c"' -o expbench expbench.c */
#include SRC
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static inline vf exp_notest(vf x)
{
	const vf t = rr_vfma(x, rr_vsplat(1.442695041f), rr_vsplat(12582912.0f));
	const vf k = t - 12582912.0f;
	vf p = rr_vexp_reduced(k, x);
	return (vf)((vu)p + ((vu)t << 23));
}

static inline vf exp_estrin(vf x)
{
	const vf t = rr_vfma(x, rr_vsplat(1.442695041f), rr_vsplat(12582912.0f));
	const vf k = t - 12582912.0f;
	vf r = rr_vfma(k, rr_vsplat(-6.931152344e-01f), x);
	r = rr_vfma(k, rr_vsplat(-3.194618330e-05f), r);
	const vf r2 = r * r;
	const vf a = rr_vfma(rr_vsplat(1.381603652e-03f), r, rr_vsplat(8.368710056e-03f));
	const vf b = rr_vfma(rr_vsplat(4.166835919e-02f), r, rr_vsplat(1.666652113e-01f));
	const vf c = rr_vfma(rr_vsplat(4.999999404e-01f), r, rr_vsplat(1.0f));
	const vf ab = rr_vfma(a, r2, b);
	const vf abc = rr_vfma(ab, r2, c);
	const vf p = rr_vfma(abc, r, rr_vsplat(1.0f));
	vf result = (vf)((vu)p + ((vu)t << 23));
	if (__builtin_expect(rr_vany_below(x, -86.5f), 0)) {
		result = rr_vselect(x < -86.5f, rr_vsplat(0.0f), result);
		result = rr_vselect(x != x, x, result);
	}
	return result;
}

#define PASS(NAME, EXP)                                                                        \
	static __attribute__((noinline)) float NAME(const float *x, float *keep, int64_t n,     \
						    float m)                                    \
	{                                                                                      \
		vf acc0 = rr_vsplat(0.0f), acc1 = rr_vsplat(0.0f);                             \
		for (int64_t i = 0; i < n; i += 2 * L) {                                       \
			const vf e0 = rr_load_f32(x + i) - m;                                  \
			const vf e1 = rr_load_f32(x + i + L) - m;                              \
			const vf y0 = EXP(e0), y1 = EXP(e1);                                   \
			store_kept(keep, i, y0);                                               \
			store_kept(keep, i + L, y1);                                           \
			acc0 = acc0 + y0;                                                      \
			acc1 = acc1 + y1;                                                      \
		}                                                                              \
		acc0 = acc0 + acc1;                                                            \
		return acc0[0] + acc0[1];                                                      \
	}
#define IDENT(v) (v)
PASS(pass_gen, rr_vexp_nonpos)
PASS(pass_notest, exp_notest)
PASS(pass_estrin, exp_estrin)
PASS(pass_none, IDENT)

typedef float (*pass_fn)(const float *, float *, int64_t, float);

int main(int argc, char **argv)
{
	const int64_t n = argc > 1 ? atoll(argv[1]) : 4096;
	float *x = aligned_alloc(64, n * 4), *keep = aligned_alloc(64, n * 4);
	for (int64_t i = 0; i < n; i++)
		x[i] = (float)(rand() % 6000) / 1000.0f - 3.0f;
	const pass_fn fns[] = {pass_gen, pass_notest, pass_estrin, pass_none};
	const char *names[] = {"generated", "no rare test", "estrin", "no exp"};
	const double ghz = 3.15;
	volatile float sink = 0;
	for (int round = 0; round < 3; round++)
		for (int f = 0; f < 4; f++) {
			const int reps = (int)(200000000 / n);
			double t0 = now();
			for (int r = 0; r < reps; r++)
				sink += fns[f](x, keep, n, 3.0f);
			double t = now() - t0;
			printf("%-14s %6.2f cycles a vector of %d (at %.2f GHz)\n", names[f],
			       t * ghz * 1e9 / ((double)reps * n / L), L, ghz);
		}
	return 0;
}

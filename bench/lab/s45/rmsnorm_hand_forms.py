# Lab (session 45 CPU): the hand forms of rmsnorm f32's cached output phase, made from the
# emitted source of the planner's plan (W=16,V=1,U=1,R=4,S=reread at 2048x1024; BLOCKS = 1):
#   pipe: x loaded PIPE vectors ahead of its stores, the vectors in registers (cc -DPIPE=4|8)
#   runs: RUNK chunks computed, then stored (cc -DRUNK=4|8; what c_emit.c's f32_runs became)
# Usage: build/rowreduce emit --kernel rmsnorm --shape 2048x1024 > a.c  (on a tree before f32_runs)
#        python3 rmsnorm_hand_forms.py pipe|runs < a.c > b.c
# Build b.c with the backend's flags and put it in place of the library's object in a private
# RR_CACHE_DIR (the .so and its .so.sha256) to time it through the binding (placement_dist.py).
import sys

FORMS = {
    "pipe": '''{ /* x loaded P chunks ahead of the store */
				enum { P = PIPE };
				vf xs[P];
				if (chunks >= 2 * P) {
					#pragma GCC unroll 16
					for (int k = 0; k < P; k++)
						xs[k] = load_lanes(in0, h + (int64_t)k * W);
					for (; chunk + 2 * P <= chunks; chunk += P) {
						#pragma GCC unroll 16
						for (int k = 0; k < P; k++) {
							const int64_t i = h + (chunk + k) * W;
							const vf e0 = xs[k];
							xs[k] = load_lanes(in0, i + (int64_t)P * W);
							rr_store_aligned(&aligned0, out0, i, stream, (e0 * s8) * load_lanes(in1, i));
						}
					}
					#pragma GCC unroll 16
					for (int k = 0; k < P; k++) {
						const int64_t i = h + (chunk + k) * W;
						rr_store_aligned(&aligned0, out0, i, stream, (xs[k] * s8) * load_lanes(in1, i));
					}
					chunk += P;
				}
				for (; chunk < chunks; chunk++) {
					const int64_t i = h + chunk * W;
					rr_store_aligned(&aligned0, out0, i, stream, (load_lanes(in0, i) * s8) * load_lanes(in1, i));
				}
			}
			''',
    "runs": '''{ /* RUNK chunks computed, then stored */
				enum { K = RUNK };
				for (; chunk + K <= chunks; chunk += K) {
					vf out[K];
					#pragma GCC unroll 16
					for (int k = 0; k < K; k++) {
						const int64_t i = h + (chunk + k) * W;
						out[k] = (load_lanes(in0, i) * s8) * load_lanes(in1, i);
					}
					#pragma GCC unroll 16
					for (int k = 0; k < K; k++)
						rr_store_aligned(&aligned0, out0, h + (chunk + k) * W, stream, out[k]);
				}
				for (; chunk < chunks; chunk++) {
					const int64_t i = h + chunk * W;
					rr_store_aligned(&aligned0, out0, i, stream, (load_lanes(in0, i) * s8) * load_lanes(in1, i));
				}
			}
			''',
}

s = sys.stdin.read()
i = s.index("} else {", s.index("/* output phase: each worker writes"))
a = s.index("for (; chunk + U <= chunks; chunk += U) {", i)
b = s.index("rr_aligner_end(&aligned0, out0);", a)
sys.stdout.write(s[:a] + FORMS[sys.argv[1]] + s[b:])

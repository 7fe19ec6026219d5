#!/usr/bin/env python3
"""Probe (session 33): softmax f32's split sum pass, where the cache lies in the row (the launch
not streaming), walks the row in aligned vectors from its first 32-byte boundary (x loads and
the cache stores aligned) with two accumulators whose lanes hold workers (s + l) % 16 and
(s + 8 + l) % 16 (s the lead), the lead's elements (workers 0..s-1 of chunk 0) masked first;
the lanes put back into worker order once a row. Each worker adds its elements in the plan's
order: the same bits. W = 16, L = 8 (AVX2), x and y at the same offset from 32 bytes.
usage: rot.py IN.c OUT.c (IN: `rowreduce emit --kernel softmax --dtype f32`, W=16)"""
import sys
s = open(sys.argv[1]).read()
anchor = """				const int64_t chunks = (N - h) / ((int64_t)W * V); /* chunks of complete packs */
				int64_t chunk = 0;
				for (; chunk + 2 <= chunks; chunk += 2) {"""
assert s.count(anchor) == 1, s.count(anchor)
probe = """				const int64_t chunks = (N - h) / ((int64_t)W * V); /* chunks of complete packs */
				int64_t chunk = 0;
#if defined(__AVX2__) && L == 8
				if (!stream && W == 16 && V == 1 && chunks * W >= 64 &&
				    (uintptr_t)in0 % 32 == (uintptr_t)out0 % 32) {
					const float *const xq = (const float *)in0 + h;
					float *const q = (float *)out0 + h;
					const int64_t count = chunks * W;
					const int64_t lead = rr_lead_to_vector(q, count);
					vf ra = rr_vsplat(0.0f), rb = rr_vsplat(0.0f);
					if (lead > 0) { /* workers 0..lead-1: lanes 8 - lead.. of rb */
						vi valid;
						for (int l = 0; l < L; l++)
							valid[l] = l >= 8 - lead ? -1 : 0;
						const vf x = rr_load_f32_lanes(xq + lead - 8, valid);
						const vf e = rr_vexp_nonpos(x - s1);
						rr_store_f32_lanes(q + lead - 8, valid, e);
						rb = rr_vselect(valid, rb + e, rb);
					}
					int64_t k = lead;
					for (; k + 16 <= count; k += 16) {
						__builtin_prefetch(in0 + prefetch_ahead(N, stream) + k);
						__builtin_prefetch(in0 + prefetch_ahead(N, stream) + k + 8);
						const vf e0 = rr_vexp_nonpos(rr_load_f32(xq + k) - s1);
						const vf e1 = rr_vexp_nonpos(rr_load_f32(xq + k + 8) - s1);
						rr_store_f32(q + k, e0);
						rr_store_f32(q + k + 8, e1);
						ra = ra + e0;
						rb = rb + e1;
					}
					if (k + 8 <= count) {
						const vf e0 = rr_vexp_nonpos(rr_load_f32(xq + k) - s1);
						rr_store_f32(q + k, e0);
						ra = ra + e0;
						k += 8;
						if (k < count) { /* the rest: rb's turn */
							const vi valid = rr_first_lanes(count - k);
							const vf e = rr_vexp_nonpos(rr_load_f32_lanes(xq + k, valid) - s1);
							rr_store_f32_lanes(q + k, valid, e);
							rb = rr_vselect(valid, rb + e, rb);
						}
					} else if (k < count) {
						const vi valid = rr_first_lanes(count - k);
						const vf e = rr_vexp_nonpos(rr_load_f32_lanes(xq + k, valid) - s1);
						rr_store_f32_lanes(q + k, valid, e);
						ra = rr_vselect(valid, ra + e, ra);
					}
					float a_[8], b_[8], n_[16];
					memcpy(a_, &ra, sizeof a_);
					memcpy(b_, &rb, sizeof b_);
					for (int w = 0; w < 16; w++) {
						const int r = (int)((w - lead + 16) % 16);
						n_[w] = r < 8 ? a_[r] : b_[r - 8];
					}
					memcpy(&acc4[0], n_, 32);
					memcpy(&acc4[1], n_ + 8, 32);
					chunk = chunks;
				}
#endif
				for (; chunk + 2 <= chunks; chunk += 2) {"""
s = s.replace(anchor, probe)
open(sys.argv[2], 'w').write(s)

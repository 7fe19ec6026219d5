#!/usr/bin/env python3
"""Probe (session 33): softmax f32 in cache (rows 16 bytes in): the masked part vectors before a
row's first 32-byte boundary and after its last (vmaskmovps loads and stores) replaced by whole
unaligned vectors that overlap the aligned ones: the max pass takes the first and the last 8
elements whole (a maximum may see an element twice); the in-place output phase reads the first
and last 8 cached values before its aligned loop and stores their results after it (the
overlapping elements get the value the loop gave them). Same bits.
usage: overlap.py IN.c OUT.c (IN: `rowreduce emit --kernel softmax --dtype f32`)"""
import sys
s = open(sys.argv[1]).read()
def rep(a, b):
    global s
    assert s.count(a) == 1, (a, s.count(a))
    s = s.replace(a, b)
rep("""					if (lead > 0) { /* the lanes before the first boundary, at k = 0 */
						const vi valid = rr_first_lanes(lead);
						chain1[0][0] = rr_vmax_acc(chain1[0][0], rr_vselect(valid, rr_load_f32_lanes(q + k, valid), rr_vsplat(-INFINITY)));
						k = lead;
					}""", """					if (lead > 0) { /* the first 8 whole */
						chain1[0][0] = rr_vmax_acc(chain1[0][0], rr_load_f32(q));
						k = lead;
					}""")
rep("""					if (k < count) {
						const vi valid = rr_first_lanes(count - k);
						chain1[0][0] = rr_vmax_acc(chain1[0][0], rr_vselect(valid, rr_load_f32_lanes(q + k, valid), rr_vsplat(-INFINITY)));
					}""", """					if (k < count) /* the last 8 whole */
						chain1[0][0] = rr_vmax_acc(chain1[0][0], rr_load_f32(q + count - L));""")
rep("""				int64_t k = 0;
				if (lead > 0) {
					const vi valid = rr_first_lanes(lead);
					const vf e3 = rr_load_f32_lanes(q + k, valid); /* kept in the row */
					const vf e5 = e3 * (1.0f / s4);
					rr_store_f32_lanes(q + k, valid, e5);
					k = lead;
				}""", """				int64_t k = 0;
				const vf first = rr_load_f32(q), last = rr_load_f32(q + count - L);
				k = lead;""")
rep("""				if (k < count) {
					const vi valid = rr_first_lanes(count - k);
					const vf e3 = rr_load_f32_lanes(q + k, valid); /* kept in the row */
					const vf e5 = e3 * (1.0f / s4);
					rr_store_f32_lanes(q + k, valid, e5);
				}""", """				{
					const vf e3 = first;
					const vf e5 = e3 * (1.0f / s4);
					rr_store_f32(q, e5);
				}
				{
					const vf e3 = last;
					const vf e5 = e3 * (1.0f / s4);
					rr_store_f32(q + count - L, e5);
				}""")
open(sys.argv[2], 'w').write(s)

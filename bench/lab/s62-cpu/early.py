"""Lab edit (session 62): add_layernorm bf16's h streamed in round 1 (beside the f32 h kept
for the later passes) instead of by a loop of its own in the output phase, where the launch
streams. Usage: early.py IN.c OUT.c (an emitted W = 32 S=reread add_layernorm bf16 source)."""
import re
import sys

s = open(sys.argv[1]).read()
old = '''		for (; chunk + U <= chunks; chunk += U) {
			for (int u = 0; u < U; u++) {
				const int64_t c = chunk + u;
				for (int b = b_lo; b < b_hi; b++) {
					for (int e = 0; e < V; e++) {
						const int64_t i = h + (c * W + b * L) * V + e; /* lane l: i + l * V */
						const int64_t slot = c * V + e;
						const vf e0 = rr_load_bf16_paired(in0, i, b & 1); /* x */
						const vf e1 = rr_load_bf16_paired(in1, i, b & 1); /* r */
						const vf e5 = e0 + e1;
						store_kept(held5, slot * W + b * L, e5); /* read back after */
						acc6[b] = acc6[b] + e5;
					}
				}
			}
		}
'''
new = '''		rr_lines16 early1; /* LAB: h streamed in round 1 */
		rr_lines16_begin(&early1, out1 + h, N, stream, carry + 1);
		for (; chunk + U <= chunks; chunk += U) {
			for (int u = 0; u < U; u++) {
				const int64_t c = chunk + u;
				vf run1[BLOCKS];
				for (int b = b_lo; b < b_hi; b++) {
					for (int e = 0; e < V; e++) {
						const int64_t i = h + (c * W + b * L) * V + e; /* lane l: i + l * V */
						const int64_t slot = c * V + e;
						const vf e0 = rr_load_bf16_paired(in0, i, b & 1); /* x */
						const vf e1 = rr_load_bf16_paired(in1, i, b & 1); /* r */
						const vf e5 = e0 + e1;
						store_kept(held5, slot * W + b * L, e5); /* read back after */
						acc6[b] = acc6[b] + e5;
						run1[b] = e5;
					}
				}
				if (stream)
					rr_store_bf16_lines_paired(&early1, out1 + h + c * W * V, run1, BLOCKS, stream);
			}
		}
		rr_lines16_end(&early1);
'''
assert s.count(old) == 1
s = s.replace(old, new)
i0 = s.index('if (stream) { /* past the caches')
i1 = s.index('} else {', s.index('if (chunks * W * V < N - h)', i0))
part = s[i0:i1]
hloop = '''				for (chunk = run_start; chunk + 2 <= chunks; chunk += 2) {
					vf run1[2 * BLOCKS];'''
n = 0
while hloop in part:
    a = part.index(hloop)
    end = '2 * BLOCKS, stream);\n\t\t\t\t}\n'
    b = part.index(end, a) + len(end)
    part = part[:a] + part[b:]
    n += 1
assert n == 2, n
part = part.replace('\t\t\t\t\t\t\t\trun1[u * BLOCKS + b] = (e5);\n', '')
part = part.replace("\t\t\t\t\tvf run1[1 * BLOCKS]; /* the chunks' values, stored together */\n", '')
part = re.sub(r'\t*rr_store_bf16_(lines|run)_paired\((&lines1, )?out1 [^\n]*\n', '', part)
s = s[:i0] + part + s[i1:]
open(sys.argv[2], 'w').write(s)

# Probe: the next row's max taken in this row's sum pass (cross_entropy / softmax f32 split).
# usage: fuse.py IN OUT MODE   MODE: fused | fusedpf | nopf | pfline | pft1 | nomax
import re, sys
src, dst, mode = sys.argv[1], sys.argv[2], sys.argv[3]
s = open(src).read()
lines = s.split('\n')
# the split's max pass block: from 'if (N <= SPLIT_MAX_N) { /* the max' +1 line '{' to 'sN = partN[0][0];' + '}'
i0 = next(i for i, l in enumerate(lines) if 'if (N <= SPLIT_MAX_N) { /* the max' in l)
i1 = next(i for i in range(i0, len(lines)) if re.search(r's\d+ = part\d+\[0\]\[0\];', lines[i]))
mx = re.search(r'(s\d+) = part\d+\[0\]\[0\];', lines[i1]).group(1)
pf = [i for i, l in enumerate(lines) if '__builtin_prefetch(in0 + prefetch_ahead' in l]
head = ['static __thread int64_t rr_next_row = -1, rr_row_end;', 'static __thread float rr_next_max;']
if mode == 'nomax':
    lines[i0 + 1] = '\t\t' + mx + ' = 0.5f; if (0) {'
elif mode in ('fused', 'fusedpf'):
    lines[i0 + 1] = '\t\tif (rr_next_row == row) ' + mx + ' = rr_next_max; else {'
if mode == 'nopf':
    for i in pf: lines[i] = ''
elif mode == 'pft1':
    for i in pf: lines[i] = lines[i].replace('+ i);', '+ i, 0, 2);')
elif mode == 'pfline':
    lines[pf[0]] = lines[pf[0]].replace('__builtin_prefetch', 'if (u == b) __builtin_prefetch')
elif mode in ('fused', 'fusedpf'):
    # the unrolled loop's prefetch becomes the next row's max (4 chains: u * 2 + b)
    extra = ' if ((u + b) == 0) __builtin_prefetch(in0 + N + i + 1024);' if mode == 'fusedpf' else ''
    lines[pf[0]] = '\t\t\t\t\t\t\t\tif (nxt) nmax[u * BLOCKS + b] = rr_vmax_acc(nmax[u * BLOCKS + b], load_lanes(in0 + N, i));' + extra
    lines[pf[1]] = ''
    # declare before the sum pass loop: find 'for (; chunk + 2 <= chunks; chunk += 2) {' after i1
    j = next(i for i in range(i1, len(lines)) if 'for (; chunk + 2 <= chunks; chunk += 2) {' in lines[i])
    lines[j] = ('\t\t\t\tconst int nxt = row + 1 < rr_row_end; vf nmax[2 * BLOCKS]; for (int q = 0; q < 2 * BLOCKS; q++) nmax[q] = rr_vsplat(-INFINITY);\n'
                + lines[j])
    # after that loop (before 'for (; chunk < chunks; chunk++) {'), fold the next max
    k = next(i for i in range(j, len(lines)) if 'for (; chunk < chunks; chunk++) {' in lines[i])
    lines[k] = ('\t\t\t\tif (nxt) { if (chunks % 2 || chunks * W * V < N) __builtin_trap(); vf a = nmax[0]; for (int q = 1; q < 2 * BLOCKS; q++) a = rr_vmax_acc(a, nmax[q]);'
                ' float mm = a[0]; for (int l = 1; l < L; l++) mm = a[l] > mm ? a[l] : mm; rr_next_max = mm; rr_next_row = row + 1; }\n' + lines[k])
s = '\n'.join(lines)
s = s.replace('static void one_row(', '\n'.join(head) + '\nstatic void one_row(', 1)
s = s.replace('\tfor (int64_t group = row_begin;', '\trr_row_end = row_end; rr_next_row = -1;\n\tfor (int64_t group = row_begin;', 1)
open(dst, 'w').write(s)

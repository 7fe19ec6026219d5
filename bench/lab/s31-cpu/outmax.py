# Probe: the next row's max taken in this row's output phase (softmax f32 split, rows of
# N <= SPLIT_MAX_N), the max pass skipped where it was. usage: outmax.py IN OUT
import re, sys
s = open(sys.argv[1]).read()
L = s.split('\n')
i0 = next(i for i, l in enumerate(L) if 'if (N <= SPLIT_MAX_N) { /* the max' in l)
i1 = next(i for i in range(i0, len(L)) if re.search(r's\d+ = part\d+\[0\]\[0\];', L[i]))
mx = re.search(r'(s\d+) = part\d+\[0\]\[0\];', L[i1]).group(1)
L[i0 + 1] = '\t\tif (rr_next_row == row) ' + mx + ' = rr_next_max; else {'
o0 = next(i for i, l in enumerate(L) if '/* output phase' in l)
# in-row loop store and the streamed chunk loop's store (the first after o0 each)
a = next(i for i in range(o0, len(L)) if 'rr_store_f32(q + k, e5);' in L[i])
b = next(i for i in range(o0, len(L)) if 'store_lanes(out0, i, stream, e5);' in L[i] or 'rr_store_aligned(&aligned0, out0, i, stream, e5);' in L[i])
L[a] += ' nm[0] = rr_vmax_acc(nm[0], rr_load_f32(nx + k)); kend = k + L;'
L[b] += ' nm[b] = rr_vmax_acc(nm[b], load_lanes(nx, i)); kend = i + L;'
# the in-row loop's start: k from lead; remember it
c = next(i for i in range(o0, len(L)) if 'k = lead;' in L[i])
L[c] += ' kbeg = lead;'
# declare after the output-phase split test
d = next(i for i in range(o0, len(L)) if 'if (N <= SPLIT_MAX_N) { /* e' in L[i])
L[d] += ('\n\t\tconst int nxt = row + 1 < rr_row_end; vf nm[2] = {rr_vsplat(-INFINITY), rr_vsplat(-INFINITY)}; int64_t kbeg = 0, kend = 0; const float *nx = nxt ? in0 + N : in0;')
# the whole in-cache output phase is duplicated: with and without the fused max (probe: keep it simple:
# one copy, guarded per store by nxt would cost a test; instead run with nxt known true and redo the
# last row's max normally)
e = next(i for i in range(d, len(L)) if L[i].startswith('\t} else {'))
L[e] = ('\t\tif (nxt) { vf a_ = rr_vmax_acc(nm[0], nm[1]); float mm = a_[0]; for (int l = 1; l < L; l++) mm = a_[l] > mm ? a_[l] : mm;'
        ' for (int64_t j = 0; j < kbeg; j++) mm = in0[N + j] > mm ? in0[N + j] : mm;'
        ' for (int64_t j = kend; j < N; j++) mm = in0[N + j] > mm ? in0[N + j] : mm;'
        ' rr_next_max = mm; rr_next_row = row + 1; }\n' + L[e])
s = '\n'.join(L)
s = s.replace('static void one_row(', 'static __thread int64_t rr_next_row = -1, rr_row_end;\nstatic __thread float rr_next_max;\nstatic void one_row(', 1)
s = s.replace('\tfor (int64_t group = row_begin;', '\trr_row_end = row_end; rr_next_row = -1;\n\tfor (int64_t group = row_begin;', 1)
open(sys.argv[2], 'w').write(s)

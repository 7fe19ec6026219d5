#!/usr/bin/env python3
"""Probe (session 31b): add_layernorm's h kept in scratch in round 1 (no store to its row there),
read back from scratch, and written to its row in the output phase (streamed where the launch
streams). Text edit of `rowreduce emit` output for f32 V=1 S=reread plans. stdin -> stdout."""
import sys
s = sys.stdin.read()
def rep(a, b, n=None):
    global s
    c = s.count(a)
    assert c and (n is None or c == n), (a, c)
    s = s.replace(a, b)
rep("return ((int64_t)KEPT_INPUTS + cached) * W * slot_bound(N);",
    "return ((int64_t)KEPT_INPUTS + cached) * W * slot_bound(N) + N + 16;")
rep("\tio_t *out1 = (io_t *)outputs[1] + row * N; /* h: row */\n",
    "\tio_t *out1 = (io_t *)outputs[1] + row * N; /* h: row */\n\tfloat *hs = scratch;\n")
rep("store_packed(out1 + i, e5); /* h, read back after */", "store_packed(hs + i, e5);", 1)
rep("store_lanes_guarded(out1, i, N, e5); /* h */", "store_lanes_guarded(hs, i, N, e5);", 1)
rep("load_lanes(out1, i); /* h, from round 1 */", "load_lanes(hs, i);")
rep("load_lanes_guarded(out1, i, N); /* h, from round 1 */", "load_lanes_guarded(hs, i, N);")
rep("__builtin_prefetch(out1 + prefetch_ahead(N, stream) + i, 1); /* h, written early */\n", "")
rep("rr_aligner aligned0 = rr_aligner_begin(out0 + h, stream, 1);",
    "rr_aligner aligned0 = rr_aligner_begin(out0 + h, stream, 1);\n\t\t\trr_aligner aligned1 = rr_aligner_begin(out1 + h, stream, 1);")
rep("rr_store_aligned(&aligned0, out0, i, stream, e17);",
    "rr_store_aligned(&aligned0, out0, i, stream, e17);\n\t\t\t\t\t\t\trr_store_aligned(&aligned1, out1, i, stream, e5);")
rep("rr_aligner_end(&aligned0, out0);", "rr_aligner_end(&aligned0, out0);\n\t\t\trr_aligner_end(&aligned1, out1);")
rep("store_lanes_guarded(out0, i, N, e17);", "store_lanes_guarded(out0, i, N, e17);\n\t\t\t\t\t\tstore_lanes_guarded(out1, i, N, e5);")
sys.stdout.write(s)

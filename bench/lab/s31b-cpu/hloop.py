#!/usr/bin/env python3
"""Probe (session 31b) on hscratch.py's output: h streamed from scratch in a loop of its own
after the output phase's y loop (the streaming branch), instead of beside y. stdin -> stdout."""
import sys
s = sys.stdin.read()
s = s.replace("\t\t\t\t\t\t\trr_store_aligned(&aligned1, out1, i, stream, e5);\n", "", 1)
a = "rr_aligner_end(&aligned1, out1);"
i = s.index(a)
s = s[:i] + """{ rr_aligner a1 = rr_aligner_begin(out1 + h, stream, 1);
			for (int64_t i = 0; i + L <= chunks * W; i += L) rr_store_aligned(&a1, out1, i, stream, load_lanes(hs, i));
			rr_aligner_end(&a1, out1); }
""" + s[i + len(a):]
sys.stdout.write(s)

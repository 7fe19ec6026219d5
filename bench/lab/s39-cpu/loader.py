#!/usr/bin/env python3
"""loader.py IN.c OUT.c: a generated f32 source (`rowreduce emit`) whose x loads in one_row come
from aligned lines rotated into place (two aligned loads' worth carried from vector to vector,
one vpermt2ps each) instead of loads across a line; compile with -std=gnu11 (a statement
expression). Session 39's rotating-loader trial (rmsnorm f32 4096x4096 16 bytes in: 0.958)."""
import sys

src = open(sys.argv[1]).read()
src = src.replace('''\tconst io_t *in0 = (const io_t *)inputs[0] + row * N; /* x: row */''', '''\tconst io_t *in0 = (const io_t *)inputs[0] + row * N; /* x: row */
\tconst int ld_sh = (int)((uintptr_t)in0 % 64 / 4);
\tconst __m512i ld_idx = _mm512_add_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), _mm512_set1_epi32(ld_sh));
\tconst float *ld_next = NULL;
\t__m512 ld_prev = _mm512_setzero_ps();''', 1)
src = src.replace('const vf e0 = load_lanes(in0, i); /* x */', 'const vf e0 = LDA(in0, i); /* x */')
src = src.replace('static void one_row(', '''#define LDA(p, i) ({ const float *q_ = (const float *)(p) + (i); vf r_; \\
\tif (ld_sh == 0) r_ = (vf)_mm512_loadu_ps(q_); else { \\
\tconst float *base_ = q_ - ld_sh; \\
\tif (q_ != ld_next) ld_prev = _mm512_load_ps(base_); \\
\tconst __m512 b_ = _mm512_load_ps(base_ + 16); \\
\tr_ = (vf)_mm512_permutex2var_ps(ld_prev, ld_idx, b_); ld_prev = b_; ld_next = q_ + 16; } r_; })
static void one_row(''', 1)
open(sys.argv[2], 'w').write(src)

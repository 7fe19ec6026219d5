#!/bin/bash
# Session 30 (cpu): the Release build of main's b6f321a (A) against this branch's (B), alternated
# A B B A ..., ROUNDS rounds, each run the same `rowreduce bench` command; then tools/gpu/ab.py
# (e2e medians, per-round ratios).   usage: abba.sh A_BUILD B_BUILD OUT ROUNDS
# (session 32's ../s32-cpu/abba.sh with session 30's kernels, dtypes and shapes)
exec "$(dirname "$0")/../s32-cpu/abba.sh" "$1" "$2" "$3" "${4:-4}" softmax,layernorm,add_layernorm \
	bf16,f32 16384x1024,4096x4096,256x65536

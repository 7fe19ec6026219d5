#!/usr/bin/env bash
# Issue 10's odd rows against their aligned neighbours (the command of
# bench/results/2026-12-01-h200-odd-vs-aligned-s8), on the lent GPU after tools/gpu/session.sh
# has built build-gpu/: bash bench/lab/s32/odd-vs-aligned.sh OUTDIR
set -euo pipefail
out=${1:?usage: odd-vs-aligned.sh OUTDIR}
build-gpu/rowreduce bench --backend cuda --kernels all --dtypes f32,bf16 --l2 cold \
	--shapes 512x32003,512x32000,1000x50265,1000x50256,2047x6143,2048x6144,8191x1023,8192x1024,65535x127,65536x128,7x777777,7x777776 \
	--samples 3 --sample-ms 5 --warmup-ms 10 --out "$out"

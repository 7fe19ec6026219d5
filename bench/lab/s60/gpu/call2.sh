#!/usr/bin/env bash
# Session 60, second call: the raised-bound spill patch (bench/lab/s59/patches) A/B. Here
# "rowreduce" is the tree as carried and "base" the same tree with the patch applied (built in
# /tmp/patched). Carry .deps .whl .rr-commit.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
rm -rf /tmp/patched && mkdir /tmp/patched &&
	tar -c --exclude=./bench/results --exclude=./bench/lab --exclude='./build*' --exclude=./.base . |
	tar -x -C /tmp/patched && cp .rr-commit /tmp/patched/.rr-commit &&
	(cd /tmp/patched && git apply "$OLDPWD/bench/lab/s59/patches/raised-spill-224.patch") ||
	{ echo "patch setup failed"; exit 1; }
rm -rf /tmp/build-base
AB_BASE_SRC=/tmp/patched AB_NAME=ab-raised-spill AB_OPS=add_layernorm,layernorm AB_DTYPES=bf16 \
	AB_SHAPES=${AB_SHAPES:-2048x16384,8192x8192,4096x4096,16384x4096,1024x4096,4096x8192,4096x3584,1x8192,64x4096} \
	AB_SECONDS=${AB_SECONDS:-240} bash bench/lab/s60/gpu/ab.sh
echo "== done ($(date -u +%H:%M:%S))"

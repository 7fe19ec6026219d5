#!/usr/bin/env bash
# The main job of `make run`: check every built-in kernel and list them.
set -euo pipefail
rowreduce=${1:-build/rowreduce}
"$rowreduce" ops
for name in sum softmax rmsnorm layernorm add_layernorm cross_entropy; do
	echo
	"$rowreduce" check "$name"
done

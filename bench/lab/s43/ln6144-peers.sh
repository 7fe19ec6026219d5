#!/usr/bin/env bash
# layernorm bf16 1x6144, 3x7168 (and 1x8192) beside the peers (eager, torch.compile, Liger when
# carried in .whl) on the same GPU, after tools/gpu/session.sh plans.
set -uo pipefail
OUT=${OUT:-/tmp/rr-out}
timeout 150 python3 bench/peers/torch_peers.py --l2 cold --dtypes bf16 --ops layernorm \
	--samples 5 --sample-ms 5 --warmup-ms 20 --shapes 1x6144,3x7168,1x8192 --out "$OUT/peers-ln.json" \
	2>"$OUT/peers-ln.err"
echo "peers exit $?"
grep -E " us$" "$OUT/peers-ln.err"

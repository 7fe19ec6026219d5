#!/usr/bin/env bash
# One-row shapes beside the peers on the same GPU (after tools/gpu/session.sh built build-gpu):
# torch_peers.py (eager, torch.compile) L2 cold, then ncu of every kernel of one compiled call
# and of rowreduce's pick. Output under $OUT.
set -uo pipefail
OUT=${OUT:-/tmp/rr-out}
RR=$PWD/build-gpu/rowreduce
timeout 200 python3 bench/peers/torch_peers.py --l2 cold --dtypes bf16 --ops sum,rmsnorm,layernorm \
	--samples 5 --sample-ms 5 --warmup-ms 20 --shapes 1x8192,1x128256 --out "$OUT/peers-onerow.json" \
	2>"$OUT/peers-onerow.err"
echo "peers exit $?"
python3 - "$OUT/peers-onerow.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["rows"]:
    ph = r["phases"].get("gpu_graph", {})
    print(r["peer"], r["kernel"], r["dtype"], "%dx%d" % (r["M"], r["N"]), r["state"], ph.get("median_us"))
PY
secs="--section SpeedOfLight --section LaunchStats --section Occupancy"
for op in layernorm rmsnorm; do
	echo "#### compile $op bf16 1x128256"
	timeout 120 ncu $secs -k regex:'^triton' --launch-skip 0 --launch-count 8 \
		python3 bench/lab/ncu_peer.py $op 1x128256 bf16 compile 2>&1 | grep -E "triton_|Duration|Grid Size|Block Size|Registers Per|Memory Throughput"
	echo "#### rowreduce $op bf16 1x128256"
	timeout 60 ncu $secs -k regex:rr_ --launch-skip 1 --launch-count 1 "$RR" run --backend cuda --kernel $op \
		--shape 1x128256 --dtype bf16 --repeat 3 2>&1 | grep -E "rr_|Duration|Grid Size|Block Size|Registers Per|Memory Throughput"
done 2>&1 | tee "$OUT/ncu-onerow.txt"

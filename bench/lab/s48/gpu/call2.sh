#!/usr/bin/env bash
# Session 48, call 2: plans of flat rows under three builds (.base = 3cf675c, this tree =
# 292678a, .base-mb = 292678a asking 32 registers of flat rows' headed entries), ABCCBA.
set -uo pipefail
OUT=${OUT:-/tmp/rr-out}
bash tools/gpu/session.sh info
export RR_CACHE_DIR=/tmp/rr-cache
for b in .base .base-mb; do
	(cd $b && cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DRR_STATIC_DEPS=ON \
		-DRR_GIT_COMMIT="$(cat .rr-commit)" -DCMAKE_PREFIX_PATH="$OLDPWD/.deps" >"$OUT/build$b.log" 2>&1 &&
		cmake --build build-gpu -j 16 --target rowreduce_cli >>"$OUT/build$b.log" 2>&1) || { tail -20 "$OUT/build$b.log"; exit 1; }
done
declare -A BIN=([A]=$PWD/.base/build-gpu/rowreduce [B]=$PWD/build-gpu/rowreduce [C]=$PWD/.base-mb/build-gpu/rowreduce)
mkdir -p /tmp/pf
i=0
for side in A B C C B A; do
	i=$((i + 1))
	echo "== run $i $side ($(date -u +%H:%M:%S))"
	for spec in $(grep -v '^#' bench/lab/s48/gpu/plans-flat.txt); do
		IFS=: read -r k dt shape plan <<<"$spec"
		d=/tmp/pf/$i-$side-$k-$dt-$shape-$(echo "$plan" | tr ',=' '-_')
		timeout 60 "${BIN[$side]}" bench --backend cuda --shapes "$shape" --kernels "$k" --dtypes "$dt" --plan "$plan" \
			--l2 cold --samples 5 --sample-ms 5 --warmup-ms 20 --no-ceilings --out "$d" >/dev/null 2>"$d.err" ||
			echo "$side $spec: $(tail -1 "$d.err")"
	done
	tar czf "$OUT/pf.tgz.part" -C /tmp pf && mv "$OUT/pf.tgz.part" "$OUT/pf.tgz"
done
python3 - <<'PY' | tee "$OUT/pf.md"
import glob, json, os, re, statistics
t = {}
for f in glob.glob('/tmp/pf/*/results.json'):
    name = os.path.basename(os.path.dirname(f))
    run, side, rest = name.split('-', 2)
    for r in json.load(open(f))['rows']:
        us = ((r.get('phases') or {}).get('gpu_graph') or {}).get('median_us')
        t.setdefault(rest, {}).setdefault(side, []).append(us)
print('| spec | A 3cf675c µs | B 292678a µs | C mb µs | B/A | C/A |')
print('|---|---:|---:|---:|---:|---:|')
for rest, s in sorted(t.items()):
    m = {k: statistics.median(v) for k, v in s.items() if all(x is not None for x in v)}
    a = m.get('A')
    f = lambda k: '%.2f' % m[k] if k in m else '-'
    g = lambda k: '%.3f' % (m[k] / a) if k in m and a else '-'
    print('| %s | %s | %s | %s | %s | %s |' % (rest, f('A'), f('B'), f('C'), g('B'), g('C')))
PY

#!/usr/bin/env bash
# Session 48, call 3: plans and picks (SPECS files) under three builds (.base = 3cf675c, this
# tree, .base-mb = this tree asking 40 registers of flat rows' headed entries), ABCCBA.
set -uo pipefail
OUT=${OUT:-/tmp/rr-out}
bash tools/gpu/session.sh info
grep -hv '^#' ${SPECS:-bench/lab/s48/gpu/plans-flat.txt bench/lab/s48/gpu/picks.txt} >/tmp/specs.txt
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
	for spec in $(grep -v '^#' /tmp/specs.txt); do
		IFS=: read -r k dt shape plan <<<"$spec"
		d=/tmp/pf/$i-$side-$k-$dt-$shape-$(echo "$plan" | tr ',=' '-_')
		p=(--plan "$plan"); [ "$plan" = auto ] && p=()
		timeout 60 "${BIN[$side]}" bench --backend cuda --shapes "$shape" --kernels "$k" --dtypes "$dt" "${p[@]}" \
			--l2 cold --samples 5 --sample-ms 5 --warmup-ms 20 --no-ceilings --out "$d" >/dev/null 2>"$d.err" ||
			echo "$side $spec: $(tail -1 "$d.err")"
	done
	tar czf "$OUT/pf.tgz.part" -C /tmp pf && mv "$OUT/pf.tgz.part" "$OUT/pf.tgz"
done
python3 - <<'PY' | tee "$OUT/pf.md"
import glob, json, os, re, statistics
t = {}
plans = {}
for f in glob.glob('/tmp/pf/*/results.json'):
    name = os.path.basename(os.path.dirname(f))
    run, side, rest = name.split('-', 2)
    for r in json.load(open(f))['rows']:
        us = ((r.get('phases') or {}).get('gpu_graph') or {}).get('median_us')
        t.setdefault(rest, {}).setdefault(side, []).append(us)
        plans.setdefault(rest, {})[side] = str(r.get('plan', ''))
print('| spec | plan (B) | A 3cf675c µs | B HEAD µs | C mb µs | B/A | C/A |')
print('|---|---|---:|---:|---:|---:|---:|')
for rest, s in sorted(t.items()):
    m = {k: statistics.median(v) for k, v in s.items() if all(x is not None for x in v)}
    a = m.get('A')
    f = lambda k: '%.2f' % m[k] if k in m else '-'
    g = lambda k: '%.3f' % (m[k] / a) if k in m and a else '-'
    pl = plans.get(rest, {})
    same = len(set(pl.values())) <= 1
    note = '' if same else ' (plans differ: ' + ', '.join('%s %s' % kv for kv in sorted(pl.items())) + ')'
    print('| %s%s | %s | %s | %s | %s | %s | %s |' % (rest, note, pl.get('B', ''), f('A'), f('B'), f('C'), g('B'), g('C')))
PY

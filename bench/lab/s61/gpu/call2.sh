#!/usr/bin/env bash
# Session 61, second call. On an H100 (or an H200): the model's move of add_layernorm 16-bit
# rows of 16384 elements from h kept in registers (W = 512, one block an SM) to h kept in
# shared memory (W = 512, three blocks an SM): the new pick ("rowreduce") beside the old one
# fixed (plan0) and torch.compile, in one compare replay, L2 cold, bf16 and f16, on 1024-6144
# rows (only 2048 and 4096 were measured before the change). Carry .deps .whl .rr-commit;
# bench/results moved aside. About 200 s with the build. NAME, SHAPES, DTYPES, OPS, IMPLS,
# RR_LAB_PLANS and SECONDS_LIMIT override the defaults (other sweeps of fixed plans).
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv | tee "$OUT/nvidia-smi-ab.csv"
export LD_LIBRARY_PATH="$PWD/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
[ -f build-py/librowreduce.so ] || bash bench/python_h200.sh >"$OUT/build.txt" 2>&1
export RR_LIBRARY="$PWD/build-py/librowreduce.so" RR_CACHE_DIR=/tmp/rr-cache PYTHONUNBUFFERED=1
export PYTHONPATH="$PWD/python"
export RR_LAB_PLANS="${RR_LAB_PLANS:-W=512,V=8,U=1,R=1,C=1,S=regs}"
d=$OUT/${NAME:-ab-aln-smem}
limit=${SECONDS_LIMIT:-330}
timeout $limit python3 bench/lab/s60/compare_plans.py \
	--shapes ${SHAPES:-1024x16384,1536x16384,2048x16384,3072x16384,4096x16384,6144x16384} \
	--dtypes ${DTYPES:-bf16,f16} --ops ${OPS:-add_layernorm} --impls ${IMPLS:-rowreduce,plan0,compile} --rounds 3 \
	--samples 3 --sample-ms 5 --l2 cold --time-limit $((limit - 30)) --out "$d" 2>"$d.err"
echo "== compare_plans (exit $?)"
grep -E "^\| [a-z_]+ \|" "$d/comparison.md" 2>/dev/null
(cd "$OUT" && tar czf results-ab.tgz "${d##*/}" "${d##*/}.err" && rm -rf "${d##*/}")

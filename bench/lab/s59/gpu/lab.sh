#!/usr/bin/env bash
# Session 59: why rowreduce's rmsnorm bf16 100000x1 (R = 256, one row a thread) takes 1.81 µs in
# the compare's replay where the hand kernel of the same launch shape takes 1.43 (H200, session
# 59's first lab). lab5 launches that hand kernel as rowreduce does (cuLaunchKernelEx), lab6 is rowreduce's kernel built by nvcc; ncu
# compares the kernels' own durations and launch attributes outside a graph. About 120 s.
# Carry .deps .whl .rr-commit.
set -uo pipefail
export OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv | tee "$OUT/nvidia-smi-lab.csv"
nvcc -O3 -arch=sm_90 -std=c++17 -shared -Xcompiler -fPIC bench/lab/s59/tiny/lablib2.cu \
	bench/lab/s59/tiny/lab_rr.cu -o /tmp/liblab2.so -lcuda || exit 1
[ -f build-py/librowreduce.so ] || bash bench/python_h200.sh >"$OUT/build.txt" 2>&1
export LD_LIBRARY_PATH="$PWD/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export RR_LIBRARY="$PWD/build-py/librowreduce.so" RR_CACHE_DIR=/tmp/rr-cache PYTHONUNBUFFERED=1
export PYTHONPATH="$PWD/python" RR_LAB_LIB=/tmp/liblab2.so
d=$OUT/lab2-100000x1
timeout 100 python3 bench/lab/s59/compare_lab2.py --shapes 100000x1 --dtypes bf16 \
	--ops rmsnorm --impls rowreduce,compile,lab1,lab5,lab6 --rounds 3 --samples 3 --sample-ms 5 \
	--out "$d" 2>"$d.err"
echo "== compare (exit $?)"
grep -E " us$" "$d.err"
grep -iE "error|invalid|fail" "$d.err" | head -5
m="gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread"
m="$m,launch__shared_mem_config_size,launch__shared_mem_per_block_static"
m="$m,launch__shared_mem_per_block_dynamic,launch__func_cache_config,launch__occupancy_limit_shared_mem"
m="$m,sm__cycles_active.avg,dram__bytes_read.sum,dram__bytes_write.sum,launch__cluster_dim_x"
m="$m,smsp__inst_executed.sum,launch__waves_per_multiprocessor"
timeout 120 ncu --profile-from-start off --metrics "$m" -k "regex:rr_|rows1|triton" --csv python3 bench/lab/s59/ncu_tiny.py \
	>"$OUT/ncu-tiny.csv" 2>"$OUT/ncu-tiny.err"
echo "== ncu (exit $?)"
python3 - "$OUT/ncu-tiny.csv" <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if not rows:
    sys.exit("no ncu rows")
h = rows[0]
ki, mi, vi = h.index("Kernel Name"), h.index("Metric Name"), h.index("Metric Value")
ii = h.index("ID")
t = collections.defaultdict(dict)
for r in rows[1:]:
    t[(r[ii], r[ki][:40])][r[mi]] = r[vi]
for (i, k), ms in sorted(t.items(), key=lambda kv: int(kv[0][0])):
    print(i, k, " ".join("%s=%s" % (m.split("__")[-1], v) for m, v in sorted(ms.items())))
PY
tail -3 "$OUT/ncu-tiny.err"
(cd "$OUT" && ls -d lab2-* | tar czf results-lab2.tgz -T - && ls -d lab2-* | xargs rm -rf)

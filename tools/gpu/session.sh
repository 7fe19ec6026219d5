#!/usr/bin/env bash
# One call on the lent H200: build there (gcc 13, static Jansson/SQLite/libcrypto from the
# carried .deps/), then the stages named on the command line, logging everything under $OUT.
#   stages: info test run bench-large bench-seed peers-large peers-seed lab grid-check wide-few
#           ceilings replay-large tiny ab abspecs plans ncu odd-pairs (see each stage below)
# Usage (from the repo root, .deps and .whl carried): bash tools/gpu/session.sh info test run
set -uo pipefail
OUT=${OUT:-/tmp/rr-out}
mkdir -p "$OUT"
DATE=$(date -u +%Y-%m-%d)
# The card in the results folders' names (the lent machine is an H200 or an H100).
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 |
	grep -oiE 'h100|h200|a100|l40s' | head -1 | tr A-Z a-z)
GPU=${GPU:-gpu}
export RR_CACHE_DIR=/tmp/rr-cache
export PYTHONUNBUFFERED=1
log() { echo "== $* ($(date -u +%H:%M:%S))"; }

log build
# The copy of the tree has no .git: tools/gpu/make-deps.sh writes the commit to .rr-commit.
commit=$(cat .rr-commit 2>/dev/null || echo unknown)
# Static Jansson/SQLite/libcrypto where .deps has them (tools/gpu/make-deps.sh), else the shared
# ones (bench/python_h200.sh prepare) found at run time through LD_LIBRARY_PATH.
STATIC=ON
if [ ! -f .deps/lib/libjansson.a ]; then
	STATIC=OFF
	export LD_LIBRARY_PATH="$PWD/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DRR_STATIC_DEPS=$STATIC -DRR_GIT_COMMIT="$commit" \
	-DCMAKE_PREFIX_PATH="$PWD/.deps" >"$OUT/build.log" 2>&1 &&
	cmake --build build-gpu -j 16 >>"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
RR=$PWD/build-gpu/rowreduce

if [ -d .whl ]; then
	python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
		--target /tmp/site .whl/*.whl >/dev/null 2>&1 && export PYTHONPATH=/tmp/site
fi

for stage in "$@"; do
	case $stage in
	info)
		log info
		nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw \
			--format=csv | tee "$OUT/nvidia-smi.csv"
		gcc --version | head -1
		# A card that computes wrong sums (session 46: an H100 whose rows past ~20 of a launch came
		# back wrong, PyTorch's own sums too, Xid 31 in dmesg) fails rows of every build alike: say
		# so here rather than in an A/B's failed rows.
		python3 - <<'PY' 2>&1 | tee "$OUT/health.txt"
import torch
torch.manual_seed(46)
worst = 0.0
for m, n in [(64, 4096), (132, 16000), (1024, 4096)]:
    x = torch.randn(m, n, device="cuda")
    err = (x.sum(1).double().cpu() - x.double().cpu().sum(1)).abs().max().item()
    worst = max(worst, err)
print("health: torch row sums against float64 on the CPU, max abs error %.3g: %s" %
      (worst, "ok" if worst < 0.05 else "DEVICE FAULT: wrong results, do not time on this card"))
PY
		dmesg 2>/dev/null | grep -i 'xid' | tail -3
		;;
	test)
		log "ctest -L gpu"
		(cd build-gpu && ctest -L gpu --output-on-failure -j 4 2>&1) | tee "$OUT/ctest-gpu.log" | tail -30
		;;
	run)
		log "run table"
		for shape in 16384x4096 1024x131072; do
			for dt in f32 bf16; do
				for k in sum softmax rmsnorm layernorm add_layernorm cross_entropy; do
					echo "-- $k $dt $shape"
					"$RR" run --backend cuda --kernel $k --shape $shape --dtype $dt --repeat 20 2>&1 | tail -6
				done
			done
		done | tee "$OUT/run-table.log" | grep -E "^--|time|validated|plan|error" | head -150
		;;
	bench-large)
		log "bench large"
		d=bench/results/$DATE-$GPU-large
		"$RR" bench --backend cuda --suite large --kernels all --dtypes f32,bf16 --l2 cold \
			--samples 5 --sample-ms 10 --warmup-ms 50 --capture-sources --out "$d" \
			2>"$OUT/bench-large.err"
		echo "exit $?"; tail -3 "$OUT/bench-large.err"; python3 tools/gpu/summary.py "$d/results.json"
		tar czf "$OUT/bench-large.tgz" "$d"
		;;
	bench-seed)
		log "bench seed"
		d=bench/results/$DATE-$GPU-seed
		"$RR" bench --backend cuda --suite seed --kernels all --dtypes f32,bf16 --l2 hot \
			--samples 5 --sample-ms 10 --warmup-ms 50 --capture-sources --out "$d" \
			2>"$OUT/bench-seed.err"
		echo "exit $?"; tail -3 "$OUT/bench-seed.err"; python3 tools/gpu/summary.py "$d/results.json"
		tar czf "$OUT/bench-seed.tgz" "$d"
		;;
	peers-large)
		log "peers large"
		python3 bench/peers/torch_peers.py --l2 cold --dtypes f32,bf16 --samples 5 --sample-ms 10 --warmup-ms 50 \
			--shapes 65536x128,32768x1024,16384x4096,8192x8192,4096x32768,1024x131072,256x262144 \
			--out "$OUT/peers-large.json" 2>"$OUT/peers-large.err"
		echo "exit $?"; tail -3 "$OUT/peers-large.err"
		;;
	peers-seed)
		log "peers seed"
		python3 bench/peers/torch_peers.py --l2 hot --dtypes f32,bf16 --samples 5 --sample-ms 10 --warmup-ms 50 \
			--shapes 1x127,17x257,64x4096,1024x4096 --out "$OUT/peers-seed.json" 2>"$OUT/peers-seed.err"
		echo "exit $?"; tail -3 "$OUT/peers-seed.err"
		;;
	explore)
		log "explore: large suite, short samples"
		"$RR" bench --backend cuda --suite large --kernels all --dtypes f32,bf16 --l2 cold \
			--samples 3 --sample-ms 10 --warmup-ms 30 --out "$OUT/explore" 2>"$OUT/explore.err"
		echo "exit $?"; tail -3 "$OUT/explore.err"
		python3 tools/gpu/summary.py "$OUT/explore/results.json"
		;;
	sweep)
		log "plan sweeps"
		bash bench/lab/${SWEEPS:-sweeps}.sh "$RR" /tmp/sweeps 2>&1 | tee "$OUT/sweeps.txt"
		;;
	memcheck)
		# SAN_TOOLS: the compute-sanitizer tools (memcheck racecheck ...); SAN_SPECS:
		# "kernel:MxN:dtype:plan ..." (plan auto = the planner's), else a subset of layouts.
		log "compute-sanitizer ${SAN_TOOLS:-memcheck}"
		specs=${SAN_SPECS:-"softmax:33x4103:bf16:auto rmsnorm:17x257:f32:auto
			layernorm:5x65536:f32:W=1024,V=4,U=2,R=1,C=1,S=smem,G=rows
			add_layernorm:3x131072:bf16:W=512,V=8,U=2,R=1,C=4,S=cluster,G=rows cross_entropy:100x1000:f16:auto
			sum:1000x64:f32:W=8,V=4,U=1,R=8,C=1,S=regs,G=persistent"}
		for tool in ${SAN_TOOLS:-memcheck}; do for spec in $specs; do
			IFS=: read -r k shape dt plan <<<"$spec"
			args=(--backend cuda --kernel "$k" --shape "$shape" --dtype "$dt" --repeat 1)
			[ "$plan" = auto ] || args+=(--layout "$plan")
			mkdir -p /tmp/san; log="/tmp/san/$tool-$k-$shape-$dt.log"
			timeout 150 compute-sanitizer --tool "$tool" --error-exitcode 9 "$RR" run "${args[@]}" >"$log" 2>&1
			echo "$tool $k $shape $dt $plan: exit $? ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1))"
		done; done | tee "$OUT/sanitizer.txt"
		tar czf "$OUT/sanitizer-logs.tgz" -C /tmp san # a call returns only eight files
		;;
	bench-f32)
		log "bench large f32 + peers (same session)"
		d=bench/results/$DATE-$GPU-large-f32-rerun
		"$RR" bench --backend cuda --suite large --kernels all --dtypes f32 --l2 cold \
			--samples 5 --sample-ms 10 --warmup-ms 50 --capture-sources --out "$d" \
			2>"$OUT/bench-f32.err"
		echo "exit $?"; tail -2 "$OUT/bench-f32.err"
		tar czf "$OUT/bench-f32.tgz" "$d"
		python3 bench/peers/torch_peers.py --l2 cold --dtypes f32 --samples 5 --sample-ms 10 --warmup-ms 50 \
			--shapes 65536x128,32768x1024,16384x4096,8192x8192,4096x32768,1024x131072,256x262144 \
			--out "$OUT/peers-f32.json" 2>"$OUT/peers-f32.err"
		echo "peers exit $?"
		python3 bench/peers/compare.py "$d" "$OUT/peers-f32.json" && cp "$d/comparison.md" "$OUT/"
		;;
	ab-seed)
		# The tree of the reference commit is carried in .base/ (git archive, ignored).
		log "A/B seed: reference build .base ($(cat .base/.rr-commit)) against this tree, ABBA"
		(cd .base && cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DRR_STATIC_DEPS=$STATIC \
			-DRR_GIT_COMMIT="$(cat .rr-commit)" -DCMAKE_PREFIX_PATH="$OLDPWD/.deps" >"$OUT/build-base.log" 2>&1 &&
			cmake --build build-gpu -j 16 >>"$OUT/build-base.log" 2>&1) || { tail -20 "$OUT/build-base.log"; exit 1; }
		base=$PWD/.base/build-gpu/rowreduce
		mkdir -p /tmp/ab
		i=0
		for side in A B B A A B B A; do
			i=$((i + 1))
			bin=$RR; [ $side = A ] && bin=$base
			"$bin" bench --backend cuda --suite bench/suites/seed.txt --kernels all --dtypes f32,bf16 --l2 hot \
				--samples 5 --sample-ms 10 --warmup-ms 50 --out /tmp/ab/$i-$side >/dev/null 2>"$OUT/ab-$i.err" ||
				{ echo "run $i ($side) failed"; tail -5 "$OUT/ab-$i.err"; }
		done
		python3 tools/gpu/ab.py /tmp/ab/{1-A,2-B,3-B,4-A,5-A,6-B,7-B,8-A}/results.json | tee "$OUT/ab-seed.md" | tail -3
		;;
	replay-large)
		# Issue 13: the tuned plans against the automatic mapper's, both frozen from the benches
		# recorded with the large tuning (bench/results/2026-11-30-h200-tuned-vs-auto-large),
		# rebuilt by this build (--allow-rebuild records every hash that differs), workloads
		# whose two plans are the same kernel listed as not replayed (--skip-identical).
		src=bench/results/2026-11-30-h200-tuned-vs-auto-large
		for dt in ${REPLAY_DTYPES:-f32 bf16}; do
			d=bench/results/$DATE-$GPU-replay-tuned-vs-auto-large-$dt
			log "replay large $dt -> $d"
			"$RR" replay --reference $src/$dt-auto --candidate $src/$dt-tuned --rounds 4 --samples 5 \
				--sample-ms 10 --warmup-ms 50 --bootstrap 1000 --skip-identical --allow-rebuild \
				--capture-sources --time-limit "${REPLAY_LIMIT:-200}" --out "$d" 2>"$OUT/replay-$dt.err"
			echo "exit $?"; tail -2 "$OUT/replay-$dt.err"
			"$RR" verify "$d" >"$d/verify.txt"; echo "verify exit $?"; tail -1 "$d/verify.txt"
			grep -E "workloads replayed|not demonstrated|faster" "$d/results.md" | head -5
		done
		;;
	tiny)
		log "tiny and many-tiny-row launches"
		"$RR" bench --backend cuda --shapes 1x1,1x127,17x257,3x3,50000x3,100000x1 --kernels all \
			--dtypes f32,bf16 --l2 cold --samples 3 --sample-ms 5 --warmup-ms 20 --capture-sources \
			--out bench/results/$DATE-$GPU-tiny 2>"$OUT/tiny.err"
		echo "exit $?"; tail -1 "$OUT/tiny.err"; python3 tools/gpu/summary.py bench/results/$DATE-$GPU-tiny/results.json
		;;
	ab)
		# Two builds, ABBA x AB_REPEAT: the reference tree carried in .base/ (git archive, with
		# its .rr-commit) against this tree, on AB_SHAPES x AB_KERNELS, f32 and bf16, L2 cold
		# (AB_L2=hot: one buffer set, for tiny shapes whose cold rotation validates 2^18 sets).
		# Each run is cut at AB_RUN_LIMIT seconds (110): a cut run has no results.json. AB_LIST
		# (a file of "kernel dtype shape" lines) measures just those rows instead, one bench a
		# line, each cut at AB_RUN_LIMIT on its own (a cut line loses that row alone). AB_BASE:
		# another reference tree than .base (its table ab-<AB_BASE without .base->.md).
		B=${AB_BASE:-.base}
		log "A/B: reference build $B ($(cat $B/.rr-commit)) against this tree"
		(cd $B && cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DRR_STATIC_DEPS=$STATIC \
			-DRR_GIT_COMMIT="$(cat .rr-commit)" -DCMAKE_PREFIX_PATH="$OLDPWD/.deps" >"$OUT/build-base.log" 2>&1 &&
			cmake --build build-gpu -j 16 --target rowreduce_cli >>"$OUT/build-base.log" 2>&1) ||
			{ tail -20 "$OUT/build-base.log"; exit 1; }
		base=$PWD/$B/build-gpu/rowreduce
		rm -rf /tmp/ab; mkdir -p /tmp/ab
		tag=${B#.}; tag=${tag#base}; tag=${tag#-}
		# the runs so far in one archive after each run (a call returns only eight files, and
		# one cut by its time limit keeps what the archive held)
		keep_runs() { tar czf "$OUT/ab${tag:+-$tag}-runs.tgz.part" -C /tmp ab && mv "$OUT/ab${tag:+-$tag}-runs.tgz.part" "$OUT/ab${tag:+-$tag}-runs.tgz"; }
		i=0 order=()
		for r in $(seq "${AB_REPEAT:-1}"); do order+=(A B B A); done
		for side in "${order[@]}"; do
			i=$((i + 1))
			bin=$RR; [ $side = A ] && bin=$base
			if [ -n "${AB_LIST:-}" ]; then
				# AB_LIST: "kernel dtype shape" a line; one bench a line (session 42's list of nine
				# rows in one bench a run lost every run to a 45 s limit), the rows of the lines
				# that finished merged into one results.json a run
				while read -r k dt shape _; do
					case $k in '' | '#'*) continue ;; esac
					d=/tmp/ab/$i-$side-$k-$dt-$shape
					timeout "${AB_RUN_LIMIT:-110}" "$bin" bench --backend cuda --shapes "$shape" --kernels "$k" \
						--dtypes "$dt" --l2 "${AB_L2:-cold}" --samples 5 --sample-ms 5 --warmup-ms 20 --no-ceilings \
						--out "$d" </dev/null >/dev/null 2>"$d.err" ||
						{ echo "run $i ($side) $k $dt $shape failed"; tail -3 "$d.err"; }
				done <"$AB_LIST"
				mkdir -p /tmp/ab/$i-$side
				python3 -c '
import json, sys
rows = []
for f in sys.argv[1:]:
    try:
        rows += json.load(open(f))["rows"]
    except (OSError, ValueError):
        pass
print(json.dumps({"rows": rows}))' /tmp/ab/$i-$side-*/results.json >/tmp/ab/$i-$side/results.json
				keep_runs
				continue
			fi
			timeout "${AB_RUN_LIMIT:-110}" "$bin" bench --backend cuda --shapes "$AB_SHAPES" --kernels "${AB_KERNELS:-all}" \
				--dtypes "${AB_DTYPES:-f32,bf16}" --l2 "${AB_L2:-cold}" --samples 5 --sample-ms 5 --warmup-ms 20 --no-ceilings \
				--out /tmp/ab/$i-$side >/dev/null 2>/tmp/ab/$i-$side.err || { echo "run $i ($side) failed"; tail -3 /tmp/ab/$i-$side.err; }
			keep_runs
		done
		files=(); i=0; for side in "${order[@]}"; do i=$((i + 1)); files+=(/tmp/ab/$i-$side/results.json); done
		python3 tools/gpu/ab.py "${files[@]}" | tee "$OUT/ab${tag:+-$tag}.md"
		keep_runs
		;;
	abspecs)
		# Specs (SPECS: files of "kernel:dtype:MxN:plan" lines, plan `auto` = the planner's
		# pick) under the reference trees of AB_BASES (".base .base-x"; default .base, each
		# readied by tools/gpu/ab-prepare.sh --base) and this tree, in that order and then
		# reversed (A B C C B A: drift cancels), each bench cut at AB_RUN_LIMIT (60) s. Table
		# ab-specs.md (tools/gpu/ab_specs.py: medians, ratios to the first base), raw runs
		# ab-specs-runs.tgz.
		bases=(${AB_BASES:-.base})
		log "A/B of specs: ${bases[*]} and this tree"
		declare -A bin=([tree]=$RR)
		for b in "${bases[@]}"; do
			(cd "$b" && cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DRR_STATIC_DEPS=$STATIC \
				-DRR_GIT_COMMIT="$(cat .rr-commit)" -DCMAKE_PREFIX_PATH="$OLDPWD/.deps" >"$OUT/build$b.log" 2>&1 &&
				cmake --build build-gpu -j 16 --target rowreduce_cli >>"$OUT/build$b.log" 2>&1) ||
				{ tail -20 "$OUT/build$b.log"; exit 1; }
			bin[$b]=$PWD/$b/build-gpu/rowreduce
		done
		sides=("${bases[0]}" tree "${bases[@]:1}")
		order=("${sides[@]}")
		for ((k = ${#sides[@]} - 1; k >= 0; k--)); do order+=("${sides[k]}"); done
		rm -rf /tmp/abspecs; mkdir -p /tmp/abspecs
		i=0
		for side in "${order[@]}"; do
			i=$((i + 1))
			grep -hv '^#' ${SPECS:?abspecs needs SPECS} | while IFS=: read -r k dt shape plan; do
				[ -n "$k" ] || continue
				lab=${side#.}; lab=${lab//-/_}
				d=/tmp/abspecs/$i-$lab-$(basename "$k" .rr)-$dt-$shape-$(echo "$plan" | tr ',=' '-_')
				p=(--plan "$plan"); [ "$plan" = auto ] && p=()
				timeout "${AB_RUN_LIMIT:-60}" "${bin[$side]}" bench --backend cuda --shapes "$shape" --kernels "$k" \
					--dtypes "$dt" "${p[@]}" --l2 "${AB_L2:-cold}" --samples 5 --sample-ms 5 --warmup-ms 20 \
					--no-ceilings --out "$d" </dev/null >/dev/null 2>"$d.err" || echo "run $i ($side) $k $dt $shape $plan failed"
			done
			tar czf "$OUT/ab-specs-runs.tgz.part" -C /tmp abspecs && mv "$OUT/ab-specs-runs.tgz.part" "$OUT/ab-specs-runs.tgz"
		done
		labels=(); for s in "${sides[@]}"; do lab=${s#.}; labels+=("${lab//-/_}"); done
		python3 tools/gpu/ab_specs.py /tmp/abspecs "${labels[@]}" | tee "$OUT/ab-specs.md"
		;;
	plans)
		# One workload under several plans (PLAN_SPECS: "kernel:dtype:MxN:plan ...", or
		# PLAN_FILE: one such spec a line; kernel a built-in or a kernel file), L2 cold
		# (PLANS_L2=hot for tiny shapes).
		log "plans"
		specs=${PLAN_SPECS:-}
		[ -n "${PLAN_FILE:-}" ] && specs="$specs $(grep -v '^#' "$PLAN_FILE")"
		for spec in $specs; do
			IFS=: read -r k dt shape plan <<<"$spec"
			mkdir -p /tmp/plans; d=/tmp/plans/$(basename "$k" .rr)-$dt-$shape-$(echo "$plan" | tr ',=' '-_')
			"$RR" bench --backend cuda --shapes "$shape" --kernels "$k" --dtypes "$dt" --plan "$plan" --l2 "${PLANS_L2:-cold}" \
				--samples 5 --sample-ms 5 --warmup-ms 20 --no-ceilings --out "$d" >/dev/null 2>"$d.err" ||
				{ echo "$spec: $(tail -1 "$d.err")"; continue; }
			python3 tools/gpu/summary.py "$d/results.json" | tail -1
			# the runs' own results so far (a call returns only a few files, and one cut by
			# its time limit keeps what this archive held)
			tar czf "$OUT/plans-runs.tgz.part" -C /tmp plans && mv "$OUT/plans-runs.tgz.part" "$OUT/plans-runs.tgz"
		done | tee "$OUT/plans.txt"
		;;
	ncu)
		# Nsight Compute of single launches (NCU_SPECS: "kernel:dtype:MxN:plan ..."; plan auto =
		# the planner's) and of the peer's kernel (NCU_PEERS: "op:dtype:MxN:variant ...").
		log "ncu"
		secs="--section SpeedOfLight --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats"
		for spec in $NCU_SPECS; do
			IFS=: read -r k dt shape plan <<<"$spec"
			args=(run --backend cuda --kernel "$k" --shape "$shape" --dtype "$dt" --repeat 3)
			[ "$plan" = auto ] || args+=(--layout "$plan")
			echo "#### rowreduce $spec"
			timeout 120 ncu $secs -k regex:rr_ --launch-skip 1 --launch-count 1 "$RR" "${args[@]}" 2>&1 |
				grep -vE "^==PROF==|^  *-+ *$" | tail -n +1
		done >"$OUT/ncu.txt" 2>&1
		for spec in $NCU_PEERS; do
			IFS=: read -r op dt shape variant <<<"$spec"
			echo "#### peer $spec"
			timeout 150 ncu $secs -k regex:'^(triton|.*[Rr]ms|.*norm|.*softmax|.*reduce)' --launch-skip 4 --launch-count 1 \
				python3 bench/lab/ncu_peer.py "$op" "$shape" "$dt" "$variant" 2>&1 | grep -vE "^==PROF==" | tail -n +1
		done >>"$OUT/ncu.txt" 2>&1
		grep -E "^####|Duration|Registers Per|Block Size|Grid Size|Memory Throughput|DRAM Throughput|Achieved Occupancy|Dynamic Shared|Static Shared" "$OUT/ncu.txt" | head -120
		;;
	ceilings)
		log "copy and read ceilings"
		"$RR" bench --backend cuda --shapes 1x129 --kernels sum --dtypes f32 --samples 3 --sample-ms 5 \
			--warmup-ms 20 --out /tmp/ceil 2>/dev/null
		python3 -c "import json; c=json.load(open('/tmp/ceil/results.json'))['ceilings']; print(json.dumps(c)[:600])" |
			tee "$OUT/ceilings.json"
		;;
	grid-check)
		# One grid-split and one cluster plan: validated, then memcheck and racecheck (issue 11).
		log "grid and cluster plans under compute-sanitizer"
		for spec in layernorm:4x262144:W=512,V=4,U=1,R=1,C=64,S=grid,G=persistent \
			layernorm:16x131072:W=1024,V=4,U=1,R=1,C=8,S=cluster,G=rows \
			rmsnorm:2x4000037:W=1024,V=4,U=1,R=1,C=128,S=grid,G=persistent; do
			IFS=: read -r k shape plan <<<"$spec"
			args=(run --backend cuda --kernel "$k" --shape "$shape" --dtype bf16 --layout "$plan")
			"$RR" "${args[@]}" --repeat 5 2>&1 | grep -E "validated|time|error" | sed "s|^|$k $shape $plan: |"
			for tool in memcheck racecheck; do
				[ "$shape" = 2x4000037 ] && continue
				timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 "$RR" "${args[@]}" --repeat 1 \
					>"$OUT/$tool-$k-$shape.log" 2>&1
				echo "$tool $k $shape $plan: exit $? ($(grep -E 'ERROR SUMMARY' "$OUT/$tool-$k-$shape.log" | tail -1))"
			done
		done 2>&1 | tee "$OUT/grid-check.txt"
		;;
	wide-few)
		# The wide suite's few-row shapes with S=grid offered (RR_PLAN_GRID=1) and without.
		log "wide few rows: grid offered and not"
		for g in 1 0; do
			RR_PLAN_GRID=$g timeout "${WIDE_LIMIT:-150}" "$RR" bench --backend cuda \
				--shapes 16x1048576,4x2097152,2x4000037 --kernels "${WIDE_KERNELS:-all}" --dtypes f32,bf16 --l2 cold \
				--samples 3 --sample-ms 5 --warmup-ms 20 --no-ceilings --capture-sources \
				--out bench/results/$DATE-$GPU-wide-few-grid$g 2>"$OUT/wide-few-$g.err"
			echo "grid=$g exit $?"; tail -2 "$OUT/wide-few-$g.err"
		done
		python3 tools/gpu/summary.py bench/results/$DATE-$GPU-wide-few-grid1/results.json | head -60
		tar czf "$OUT/wide-few.tgz" bench/results/$DATE-$GPU-wide-few-grid*
		;;
	odd-pairs)
		# Issue 10's odd rows beside their aligned neighbours (ODD_KERNELS: groups of kernels,
		# one bench run each so that a cut keeps the finished ones; ODD_DTYPES, default bf16),
		# L2 cold, then tools/gpu/odd_pairs.py's table over them; archived as odd-pairs.tgz.
		log "odd rows beside aligned ones"
		shapes=2047x6143,2048x6144,8191x1023,8192x1024,512x32003,512x32000,1000x50265,1000x50256,65535x127,65536x128
		d=bench/results/$DATE-$GPU-odd-vs-aligned
		for k in ${ODD_KERNELS:-rmsnorm,layernorm add_layernorm,sum softmax,cross_entropy}; do
			timeout "${ODD_LIMIT:-150}" "$RR" bench --backend cuda --kernels "$k" --dtypes "${ODD_DTYPES:-bf16}" \
				--l2 cold --shapes $shapes --samples 3 --sample-ms 5 --warmup-ms 10 --out "$d/${k//,/-}" \
				2>"$OUT/odd-${k//,/-}.err"
			echo "$k: exit $?"; tail -1 "$OUT/odd-${k//,/-}.err"
			tar czf "$OUT/odd-pairs.tgz" "$d"
		done
		python3 tools/gpu/odd_pairs.py "$d"/*/results.json | tee "$OUT/odd-pairs.md" | tail -40
		;;
	*)
		echo "unknown stage $stage"
		;;
	esac
done
log done

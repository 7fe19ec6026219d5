#!/usr/bin/env bash
# The Python binding on the lent GPU machine (PyTorch, Triton and CUDA there; no internet).
#   here, before the call:  bash bench/python_h200.sh prepare
#       (.deps/ with the shared Jansson, SQLite and libcrypto, .whl/ with the Liger wheel, .rr-commit)
#   there, carrying .deps .whl .rr-commit:  bash bench/python_h200.sh STAGE...
#       test          tests/python (CPU and CUDA) against the library built there, and a small
#                     compare_torch.py run audited by `rowreduce verify` (about a minute)
#       seed | large | odd | wide | models
#                     bench/compare_torch.py over that suite, f32 and bf16 (DTYPES=bf16, OPS=a,b to
#                     narrow; ROUNDS, SAMPLES, SAMPLE_MS, TIME_LIMIT in seconds: configurations left
#                     are listed as not measured; SHAPES=MxN,... and NAME=word for a part of the
#                     suite), into bench/results/DATE-CARD-compare-SUITE[-NAME][-DTYPES] (CARD: h200 or h100, the
#                     card it ran on), then
#                     `rowreduce verify` on it
#       model         bench/model_block.py into bench/results/DATE-CARD-model-block
# QuACK is measured where tools/gpu/quack-carry.sh installed it (/tmp/quack-site) on this machine;
# it compiles each shape for seconds on first use, which counts against TIME_LIMIT.
# Results are also packed into $OUT/python-results.tgz.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/rr-out}
DATE=$(date -u +%Y-%m-%d)
log() { echo "== $* ($(date -u +%H:%M:%S))"; }

if [ "${1:-}" = prepare ]; then
	[ -d .deps/lib ] || bash tools/gpu/make-deps.sh
	for lib in libjansson.so.4 libsqlite3.so.0 libcrypto.so.3; do
		cp -L "/usr/lib/x86_64-linux-gnu/$lib" .deps/lib/
		cp -L "/usr/lib/x86_64-linux-gnu/$lib" ".deps/lib/${lib%%.so*}.so" # no links: carried trees may drop them
	done
	git rev-parse --short=12 HEAD >.rr-commit
	mkdir -p .whl
	python3 -m pip download -q --no-deps liger-kernel==0.8.5 -d .whl
	du -sh .deps .whl
	exit 0
fi

mkdir -p "$OUT"
# The card in the results folders' names (the lent machine is an H200 or an H100).
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 |
	grep -oiE 'h100|h200|a100|l40s' | head -1 | tr A-Z a-z)
GPU=${GPU:-gpu}
# The shared library links the carried shared Jansson, SQLite and libcrypto (the static ones of
# the tool's own GPU build are not position-independent).
log "build the shared library"
export LD_LIBRARY_PATH="$PWD/.deps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cmake -S . -B build-py -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$PWD/.deps" \
	-DRR_GIT_COMMIT="$(cat .rr-commit 2>/dev/null || echo unknown)" >"$OUT/build-py.log" 2>&1 &&
	cmake --build build-py -j 16 --target rowreduce_shared rowreduce_cli >>"$OUT/build-py.log" 2>&1 ||
	{ tail -30 "$OUT/build-py.log"; exit 1; }
export RR_LIBRARY="$PWD/build-py/librowreduce.so" RR_CACHE_DIR=/tmp/rr-cache PYTHONUNBUFFERED=1
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
# QuACK, where tools/gpu/quack-carry.sh installed it on this (warm) machine.
if [ -d /tmp/quack-site/quack ]; then
	export PYTHONPATH="$PYTHONPATH:/tmp/quack-site:/tmp/quack-site/nvidia_cutlass_dsl/dsl_packages"
fi
if ls .whl/*.whl >/dev/null 2>&1; then
	python3 -m pip install -q --no-index --no-deps --target /tmp/py-site .whl/*.whl >/dev/null 2>&1 &&
		export PYTHONPATH="$PYTHONPATH:/tmp/py-site"
fi
python3 -c 'import torch, rowreduce; print("torch", torch.__version__, "cuda", torch.version.cuda,
	"rowreduce", rowreduce.version(), rowreduce.library_path())' || exit 1

status=0
# A `timeout` (or Ctrl-C) around this script signals the whole process group: compare_torch.py
# finishes the configuration it is measuring and writes the folder with the rest listed as not
# measured; this script waits for it, verifies and packs what there is, and runs no later stage.
cut=
trap 'cut=1; echo "python_h200.sh: cut by a signal: writing what was measured" >&2' TERM INT
for stage in "$@"; do
	[ -n "$cut" ] && { echo "python_h200.sh: stage $stage not run (cut)" >&2; continue; }
	case $stage in
	test)
		log "tests/python"
		for t in tests/python/test_*.py; do
			if [ "$(basename "$t")" = test_binding.py ] && ! python3 -c 'import numpy' 2>/dev/null; then
				echo "skip $t: NumPy is not installed here"
				continue
			fi
			python3 "$t" 2>&1 | tail -25 || status=1
		done
		log "compare_torch smoke (one shape, two kernels) -> $OUT/compare-smoke"
		python3 bench/compare_torch.py --shapes 64x4096 --dtypes bf16 --ops softmax,cross_entropy \
			--rounds 2 --samples 2 --out "$OUT/compare-smoke" 2>&1 | tail -12 || status=1
		build-py/rowreduce verify "$OUT/compare-smoke" || status=1
		;;
	seed | large | odd | wide | models)
		# SHAPES=MxN,... measures those shapes instead of the whole suite, into a folder named
		# after the suite and NAME (e.g. SHAPES=1x129,3x3 NAME=tiny ... odd).
		d=bench/results/$DATE-$GPU-compare-$stage${NAME:+-$NAME}${DTYPES:+-${DTYPES//,/-}}
		what=(--suite "$stage"); [ -n "${SHAPES:-}" ] && what=(--shapes "$SHAPES")
		log "compare_torch $stage${SHAPES:+ ($SHAPES)} -> $d"
		python3 bench/compare_torch.py "${what[@]}" --dtypes "${DTYPES:-f32,bf16}" --l2 cold \
			--ops "${OPS:-sum,softmax,rmsnorm,layernorm,add_layernorm,cross_entropy}" \
			--rounds "${ROUNDS:-4}" --samples "${SAMPLES:-3}" --sample-ms "${SAMPLE_MS:-10}" \
			--time-limit "${TIME_LIMIT:-0}" --out "$d" 2>"$OUT/compare-$stage.err" &
		# in the background and waited for, so that a signal reaches the trap at once; wait
		# returns early on a trapped signal, so wait again for the run to write its folder
		pid=$!
		wait $pid
		rc=$?
		while kill -0 $pid 2>/dev/null; do wait $pid; rc=$?; done
		echo "exit $rc"
		tail -3 "$OUT/compare-$stage.err"
		build-py/rowreduce verify "$d" || status=1
		;;
	model)
		d=bench/results/$DATE-$GPU-model-block
		log "model block -> $d"
		python3 bench/model_block.py --dtypes f32,bf16 --out "$d" 2>"$OUT/model-block.err" || status=1
		tail -3 "$OUT/model-block.err"
		;;
	*)
		echo "unknown stage '$stage': allowed are test, seed, large, odd, wide, model" >&2
		exit 2
		;;
	esac
done
ls -d bench/results/"$DATE"-$GPU-compare-* bench/results/"$DATE"-$GPU-model-block 2>/dev/null |
	tar czf "$OUT/python-results.tgz" -T - 2>/dev/null
exit $status

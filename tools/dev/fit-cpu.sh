#!/usr/bin/env bash
# Re-fits the CPU cost model's coefficients on this machine (one command): tunes the six built-ins
# over a small sweep on the cpu backend (a private database, every workload measured again), then
# fits src/plan/coeffs/cpu-<arch>.txt from that run. Rebuild afterwards so the planner embeds it.
# Run it again whenever the CPU emitter or backend changes how fast a layout runs.
# usage: tools/dev/fit-cpu.sh [ROWREDUCE [RESULTS_DIR]]   (default build/rowreduce,
#        bench/results/<date>-cpu-tune-fit); a few minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
tool=${1:-build/rowreduce}
out=${2:-bench/results/$(date +%Y-%m-%d)-cpu-tune-fit}
arch=$(uname -m | sed 's/_/-/')
case $arch in x86-64) file=src/plan/coeffs/cpu-x86_64.txt ;; *) file=src/plan/coeffs/cpu-$arch.txt ;; esac
db=$(mktemp -d /tmp/rr-fit-cpu.XXXXXX)
trap 'rm -rf "$db"' EXIT
args=(tune --backend cpu --kernels all --dtypes f32,bf16
	--shapes 1x127,17x257,64x4096,1024x4096,256x1000,4096x256,16x16384,2048x64
	--max-candidates 12 --rounds 4 --samples 5 --sample-ms 2 --warmup-ms 5)
"$tool" "${args[@]}" --db "$db/tuning.sqlite" --retune --out "$out" >"$db/tune.out"
echo "rowreduce ${args[*]} --db <fresh> --retune --out $out" >"$out/COMMAND"
tail -2 "$db/tune.out"
"$tool" tune --fit "$out" --out "$file"

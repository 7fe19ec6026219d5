#!/usr/bin/env bash
# Runs the parser fuzz target for a bounded time over the kept corpus (fuzz/corpus: seeds and
# every crash ever found, kept as regression inputs). New corpus entries go to a scratch folder.
set -euo pipefail
target=$1
seconds=${2:-60}
here=$(cd "$(dirname "$0")" && pwd)
work="$here/corpus-work"
rm -rf "$work"
mkdir -p "$work"
"$target" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
	-artifact_prefix="$work/" "$work" "$here/corpus" "$here/../specs"

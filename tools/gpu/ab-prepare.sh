#!/usr/bin/env bash
# Readies the tree for an A/B call on the lent GPU (tools/gpu/session.sh ab): .base/ = main's
# HEAD as `git archive` (without bench/results and bench/lab) with its .rr-commit, PATCH (if
# given) applied to the working tree, .rr-commit naming both, and bench/results moved to
# /tmp/rr-results-aside so that the copy of the tree stays under the 64 MiB a call carries.
#   bash tools/gpu/ab-prepare.sh [PATCH]    then carry .deps .base .rr-commit (.whl)
#   bash tools/gpu/ab-prepare.sh --base REV [NAME]
#                                           no patch: .base (or .base-NAME, for session.sh ab's
#                                           AB_BASE=.base-NAME or abspecs' AB_BASES) = REV, the
#                                           candidate HEAD; run it again with another NAME for a
#                                           second reference
#   bash tools/gpu/ab-prepare.sh --restore  bench/results back, .base* removed (the patch stays:
#                                           `git apply -R PATCH` or `git checkout -- FILES`)
set -euo pipefail
cd "$(dirname "$0")/../.."
aside=/tmp/rr-results-aside
if [ "${1:-}" = --restore ]; then
	if [ -d "$aside" ]; then
		[ -e bench/results ] && { echo "bench/results exists; $aside left as is" >&2; exit 1; }
		mv "$aside" bench/results
	fi
	rm -rf .base .base-*
	git status --short | grep -v '^??' || true
	exit 0
fi
if [ "${1:-}" = --base ]; then
	rev=$(git rev-parse --short=12 "${2:?--base needs a revision}") || exit 2
	dir=.base${3:+-$3}
	git diff --quiet HEAD -- src tests || { echo "uncommitted changes under src or tests: commit or stash them first" >&2; exit 2; }
	[ -f .deps/lib/libjansson.a ] || bash tools/gpu/make-deps.sh >/dev/null
	rm -rf "$dir" && mkdir "$dir"
	git archive "$rev" | tar -x -C "$dir" --exclude=bench/results --exclude=bench/lab
	echo "$rev" >"$dir/.rr-commit"
	git rev-parse --short=12 HEAD >.rr-commit
	[ -e "$aside" ] || [ ! -e bench/results ] || mv bench/results "$aside"
	echo "reference $dir = $rev, candidate $(cat .rr-commit); carry .deps $dir .rr-commit"
	exit 0
fi
patch=${1:-}
[ -n "$patch" ] && [ ! -f "$patch" ] && { echo "no patch file $patch" >&2; exit 2; }
git diff --quiet HEAD -- src tests || { echo "uncommitted changes under src or tests: commit or stash them first" >&2; exit 2; }
[ -e "$aside" ] && { echo "$aside exists (a call not restored?): move it back first" >&2; exit 2; }
[ -f .deps/lib/libjansson.a ] || bash tools/gpu/make-deps.sh >/dev/null
rm -rf .base && mkdir .base
git archive HEAD | tar -x -C .base --exclude=bench/results --exclude=bench/lab
head=$(git rev-parse --short=12 HEAD)
echo "$head" >.base/.rr-commit
if [ -n "$patch" ]; then
	git apply "$patch"
	echo "$head+$(basename "$patch" .patch)" >.rr-commit
else
	echo "$head" >.rr-commit
fi
mv bench/results "$aside"
echo "reference $(cat .base/.rr-commit), candidate $(cat .rr-commit); carry .deps .base .rr-commit"
for d in .deps .base; do du -sh "$d"; done | sed 's/^/  /'

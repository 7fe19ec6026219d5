#!/usr/bin/env bash
# Gathers the headers and static libraries of Jansson, SQLite and libcrypto into .deps/ so the
# lent GPU machine (which has none of them) can build rowreduce with -DRR_STATIC_DEPS=ON
# -DCMAKE_PREFIX_PATH=$PWD/.deps, and records the commit in .rr-commit. Run on the development
# machine before each GPU call; .deps/ and .rr-commit are carried, not committed.
set -euo pipefail
cd "$(dirname "$0")/../.."
rm -rf .deps
mkdir -p .deps/include .deps/lib
cp /usr/include/jansson.h /usr/include/jansson_config.h /usr/include/sqlite3.h .deps/include/
cp -r /usr/include/openssl .deps/include/
cp /usr/include/x86_64-linux-gnu/openssl/*.h .deps/include/openssl/
for lib in libjansson.a libsqlite3.a libcrypto.a; do
	cp "/usr/lib/x86_64-linux-gnu/$lib" .deps/lib/
done
# The commit the lent machine builds (uncommitted changes are marked), for results.json.
hash=$(git rev-parse --short=12 HEAD)
git diff --quiet HEAD || hash="$hash-dirty"
echo "$hash" >.rr-commit
du -sh .deps

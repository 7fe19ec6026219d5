#!/usr/bin/env bash
# Gathers the headers and static libraries of Jansson, SQLite and libcrypto into .deps/ so the
# lent GPU machine (which has none of them) can build rowreduce with -DRR_STATIC_DEPS=ON
# -DCMAKE_PREFIX_PATH=$PWD/.deps. Run on the development machine; .deps/ is carried, not committed.
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
du -sh .deps

#!/usr/bin/env bash
# QuACK on the lent GPU machine, which has no internet: its wheels (~100 MB, the cu13 one alone
# 92 MB) are over what one call carries beside the tree, so they travel in pieces.
#   here:   bash tools/gpu/quack-carry.sh prepare [MiB per piece, default 18]
#           downloads the wheels (PyPI), repacks the cu13 wheel's files as tar.xz (63 MB),
#           and splits everything into .qk1/, .qk2/, ... (ignored); prints the pieces
#   there:  each call names one piece in carry and starts with
#               bash tools/gpu/quack-carry.sh keep .qkN      (copies it to /tmp/qk/)
#           the machine keeps /tmp while it stays warm (30 s between calls), then
#               bash tools/gpu/quack-carry.sh install        (joins, unpacks to /tmp/quack-site)
#           and PYTHONPATH=/tmp/quack-site:/tmp/quack-site/nvidia_cutlass_dsl/dsl_packages
set -euo pipefail
cd "$(dirname "$0")/../.."
case ${1:-} in
prepare)
	mib=${2:-18}
	work=$(mktemp -d)
	python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
		--implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
		--platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d "$work/whl" \
		quack-kernels==0.6.5 nvidia-cutlass-dsl==4.8.1 nvidia-cutlass-dsl-libs-base==4.8.1 \
		nvidia-cutlass-dsl-libs-core==4.8.1 nvidia-cutlass-dsl-libs-cu13==4.8.1 \
		apache-tvm-ffi torch-c-dlpack-ext
	mkdir -p "$work/cu13" "$work/bundle"
	cu13=$(ls "$work"/whl/nvidia_cutlass_dsl_libs_cu13-*.whl)
	(cd "$work/cu13" && python3 -m zipfile -e "$cu13" .)
	tar cf - -C "$work/cu13" . | xz -T2 -9 >"$work/bundle/cu13-files.tar.xz"
	rm "$cu13"
	cp "$work"/whl/*.whl "$work/bundle/"
	tar cf "$work/bundle.tar" -C "$work/bundle" .
	rm -rf .qk[0-9]*
	split -b "${mib}M" -d -a 1 "$work/bundle.tar" "$work/part-"
	n=0
	for p in "$work"/part-*; do
		n=$((n + 1))
		mkdir -p ".qk$n" && mv "$p" ".qk$n/"
		grep -qx "/.qk$n/" .git/info/exclude 2>/dev/null || echo "/.qk$n/" >>.git/info/exclude
	done
	sha256sum "$work/bundle.tar" | cut -d' ' -f1 >.qk1/bundle.sha256
	rm -rf "$work"
	du -sh .qk[0-9]*
	;;
keep)
	mkdir -p /tmp/qk && cp "$2"/* /tmp/qk/
	ls -la /tmp/qk
	;;
install)
	cat /tmp/qk/part-* >/tmp/qk-bundle.tar
	[ "$(sha256sum /tmp/qk-bundle.tar | cut -d' ' -f1)" = "$(cat /tmp/qk/bundle.sha256)" ] ||
		{ echo "quack-carry: the joined pieces do not match bundle.sha256 (a piece missing?)"; exit 1; }
	rm -rf /tmp/qk-bundle /tmp/quack-site && mkdir -p /tmp/qk-bundle /tmp/quack-site
	tar xf /tmp/qk-bundle.tar -C /tmp/qk-bundle
	# The wheels first: pip --target skips a top-level folder that exists, and the cu13 files
	# share nvidia_cutlass_dsl/ with the base wheel; tar then merges them into it.
	python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/quack-site \
		/tmp/qk-bundle/*.whl
	xz -dc /tmp/qk-bundle/cu13-files.tar.xz | tar xf - -C /tmp/quack-site
	PYTHONPATH=/tmp/quack-site:/tmp/quack-site/nvidia_cutlass_dsl/dsl_packages \
		python3 -c 'import quack; print("quack", getattr(quack, "__version__", "?"))'
	;;
*)
	echo "usage: tools/gpu/quack-carry.sh prepare [MiB] | keep .qkN | install" >&2
	exit 2
	;;
esac

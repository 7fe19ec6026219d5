#!/usr/bin/env bash
# Session 64 lab, moved here in session 65 (carve-out and any-C rows added; about 120 s with the
# build): sum f32 on few wide
# rows, where torch.compile stays 1-7 % ahead (2x4000037 0.935, 1x131073 0.933 on the H100,
# session 64's records). For each shape, the pick's source (build-gpu/rowreduce emit) and three
# variants timed by time_end.cu (L2 cold, CUDA graphs, a 256 MiB memset between launches,
# subtracted): base; `arrive` (the last block found by the arrival count, no combine); `cut`
# (no arrive, no combine: every block writes its partial and leaves); `noop` (an empty kernel,
# the same grid). base - cut is what the kernel's end costs; cut - noop the body.
# Session 65: SHAPES entries shape:C2 also time the source rewritten for C2 blocks a row
# (anyc.py), between two runs of the base. Needs build-gpu (tools/gpu/session.sh info builds it). Writes $OUT/sumend.txt.
set -uo pipefail
OUT=${OUT:-/tmp/rr-out}
here=$(dirname "$0")
w=/tmp/sumend
mkdir -p "$w"
nvcc -O2 -arch=sm_90 -o "$w/time_end" "$here/time_end.cu" -lcuda -lnvrtc || exit 1
for spec in ${SHAPES:-2x4000037:66 2x4000000:66 1x131073:132 1x131072:132 16x128257:33 7x777777:18 4x2097152:33 16x1048576}; do
	shape=${spec%%:*} C2=${spec#*:}
	[ "$C2" = "$spec" ] && C2=
	src=$w/sum-$shape
	build-gpu/rowreduce emit --backend cuda ${EMIT_ARGS:-} --kernel sum --shape $shape --dtype f32 >"$src-base.cu" ||
		continue
	sed 's/^\(\s*\)acc\([0-9]*\) = rr_grid_reduce<0>(.*$/\1acc\2 = acc\2;/' "$src-base.cu" >"$src-arrive.cu"
	sed 's/const bool rr_owner = rr_grid_arrive(.*);/const bool rr_owner = false;/' \
		"$src-arrive.cu" >"$src-cut.cu"
	entry=rr_sum_head
	grep -q "rr_sum_vec(" "$src-base.cu" && entry=rr_sum_vec
	printf 'extern "C" __global__ void %s(const float *a, float *b, const long long c, float *d) {}\n' \
		$entry >"$src-noop.cu"
	C=$(grep -m1 -oP 'constexpr int C = \K[0-9]+' "$src-base.cu")
	W=$(grep -m1 -oP 'constexpr int W = \K[0-9]+' "$src-base.cu")
	R=$(grep -m1 -oP 'constexpr int R = \K[0-9]+' "$src-base.cu")
	echo "#### sum f32 $shape: $(grep -m1 ' plan ' "$src-base.cu"), entry $entry"
	grep -c "rr_grid_reduce<0>(cl" "$src-arrive.cu" | sed 's/^/combines left in arrive (want 0): /'
	grep -c "rr_grid_arrive(reinterpret" "$src-cut.cu" | sed 's/^/arrives left in cut (want 0): /'
	M=${shape%x*} N=${shape#*x}
	timeout 60 "$w/time_end" $M $N $C $((W * R)) $entry "$src-base.cu" "$src-arrive.cu" \
		"$src-cut.cu" "$src-noop.cu"
	[ -n "$C2" ] || continue
	# Session 65: the same source rewritten for C2 blocks a row (anyc.py; M x C2 fills the SMs),
	# validated and timed beside an empty kernel of its grid, then base again (the bracket).
	python3 "$here/anyc.py" "$src-base.cu" $C2 >"$src-c$C2.cu" || continue
	timeout 60 "$w/time_end" $M $N $C2 $((W * R)) $entry "$src-c$C2.cu" "$src-noop.cu"
	timeout 60 "$w/time_end" $M $N $C $((W * R)) $entry "$src-base.cu"
done 2>&1 | tee "$OUT/sumend.txt"

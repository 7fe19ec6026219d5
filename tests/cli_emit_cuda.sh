#!/usr/bin/env bash
# rowreduce emit for the cuda backend without a GPU: every built-in × dtype × the plan grid
# compiles with NVRTC for sm_90 (skipped when NVRTC is absent), and one plan's source prints.
set -u
: "${ROWREDUCE:?ROWREDUCE must point at the rowreduce tool}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# A single plan prints CUDA C with both entries, the plan comment and the kernel text.
if ! "$ROWREDUCE" emit --kernel softmax --shape 1000x4096 --backend cuda --arch sm_90 \
	--layout W=256,V=4,U=2,R=1,C=1,S=regs,G=rows >"$out/softmax.cu" 2>"$out/err"; then
	cat "$out/err"
	echo "FAIL: emit of one plan failed"
	exit 1
fi
for want in 'rr_softmax_vec(' 'rr_softmax_scalar(' 'W=256,V=4,U=2,R=1,C=1,S=regs,G=rows' \
	'y = exp(x - m) / s' '__shfl_xor_sync' 'constexpr int N = 4096;'; do
	if ! grep -qF -- "$want" "$out/softmax.cu"; then
		echo "FAIL: the emitted source lacks '$want'"
		exit 1
	fi
done

# emits DTYPE PATTERN WHAT CASE...: each CASE "kernel shape layout yes|no" says whether the source
# emitted for that plan holds a line matching PATTERN (grep's basic expressions).
emits() {
	local dtype=$1 pattern=$2 what=$3 got
	shift 3
	for c in "$@"; do
		set -- $c
		if ! "$ROWREDUCE" emit --kernel "$1" --shape "$2" --dtype "$dtype" --backend cuda \
			--arch sm_90 --layout "$3" >"$out/case.cu" 2>"$out/err"; then
			cat "$out/err"
			got=error
		else
			grep -q -- "$pattern" "$out/case.cu" && got=yes || got=no
		fi
		if [ "$got" != "$4" ]; then
			echo "FAIL: $1 $2 $3: $what '$got', want '$4'"
			exit 1
		fi
	done
}

# A grid of one block a row (R = 1, C = 1, G=rows) has no block past the last row: a block's
# row is read without a test against the row count, so its loads wait for nothing else (the
# tiny launches' critical path), and there is no loop over rows (its copy of the row code held
# registers for nothing); blocks of several rows, clusters and persistent grids loop and test
# every row.
emits f32 'rr_row<VEC, HEADED, N, TWIN>(a, rows, blockIdx.x, true,' "one row a block, unguarded" \
	"sum 3x3 W=4,V=1,U=1,R=1,C=1,S=regs,G=rows yes" \
	"rmsnorm 1024x4096 W=256,V=4,U=4,R=1,C=1,S=regs,G=rows yes" \
	"softmax 8191x1023 W=128,V=8,U=1,R=1,C=1,S=regs,G=rows yes" \
	"sum 3x3 W=4,V=1,U=1,R=2,C=1,S=regs,G=rows no" \
	"rmsnorm 1024x4096 W=256,V=4,U=4,R=1,C=1,S=regs,G=persistent no" \
	"rmsnorm 64x65536 W=512,V=4,U=4,R=1,C=2,S=cluster,G=rows no"
emits f32 'group += step' "a loop over row groups" \
	"sum 3x3 W=4,V=1,U=1,R=1,C=1,S=regs,G=rows no" \
	"rmsnorm 1024x4096 W=256,V=4,U=4,R=1,C=1,S=regs,G=rows no" \
	"softmax 8191x1023 W=128,V=8,U=1,R=1,C=1,S=regs,G=rows no" \
	"sum 3x3 W=4,V=1,U=1,R=2,C=1,S=regs,G=rows yes" \
	"rmsnorm 1024x4096 W=256,V=4,U=4,R=1,C=1,S=regs,G=persistent yes" \
	"rmsnorm 64x65536 W=512,V=4,U=4,R=1,C=2,S=cluster,G=rows yes"

# Flat rows: a block of one row whose workers own at most U packs issues every load of a
# phase before any use (one list of loads per phase, the head kept in registers, the col
# inputs with round 1); a block of two rows, or more packs than U, keeps the chunk groups.
emits bf16 '^ \* loads    flat' "flat row" \
	"rmsnorm 1x129 W=16,V=8,U=2,R=1,C=1,S=regs,G=rows yes" \
	"rmsnorm 1x129 W=16,V=8,U=2,R=2,C=1,S=regs,G=rows no" \
	"rmsnorm 1x129 W=16,V=8,U=1,R=1,C=1,S=regs,G=rows no" \
	"layernorm 3x3 W=1,V=4,U=1,R=1,C=1,S=regs,G=rows yes" \
	"softmax 1x129 W=16,V=8,U=2,R=1,C=1,S=smem,G=rows no"
"$ROWREDUCE" emit --kernel layernorm --shape 1x129 --dtype bf16 --backend cuda --arch sm_90 \
	--layout W=8,V=8,U=3,R=1,C=1,S=regs,G=rows >"$out/flat.cu"
# round 1 loads x and, before its tree, the output phase's w and b; the head's x is kept
for want in 'float ld0_1[CH > 0 ? CH : 1][V];' 'float ld1_3[CH > 0 ? CH : 1][V];' \
	'float ld2_3[CH > 0 ? CH : 1][V];' 'float kh0[HS];' 'e0[e] = kh0[e];'; do
	if ! grep -qF -- "$want" "$out/flat.cu"; then
		echo "FAIL: the flat layernorm row lacks '$want'"
		exit 1
	fi
done
tree=$(grep -n 'round 1 across workers' "$out/flat.cu" | head -1 | cut -d: -f1)
wload=$(grep -n 'rr_load_head(hl1_3\[0\], x1' "$out/flat.cu" | head -1 | cut -d: -f1)
if [ -z "$tree" ] || [ -z "$wload" ] || [ "$wload" -gt "$tree" ]; then
	echo "FAIL: the flat layernorm row does not load w before round 1's tree ($wload, $tree)"
	exit 1
fi

# Col inputs of rows with heads whose N·size is not a multiple of the access width read, in
# blocks of one row of 16-bit rows (2047x6143 bf16), complete packs from the copies the launch
# writes first (rr_<kernel>_cols), never by the element-wise COLS_VEC form; over too few rows
# for the copies (64x4099) by the aligned blocks that cover them (rr_load_shifted); in blocks of
# many rows from the copies too (8191x1023, R = 32); over too few rows for them (100x1023) or
# rows too short (65535x127) element by element; where N·size is a multiple (x1024 bf16) they
# keep COLS_VEC.
"$ROWREDUCE" emit --kernel rmsnorm --shape 2047x6143 --dtype bf16 --backend cuda --arch sm_90 \
	--layout W=128,V=8,U=1,R=1,C=1,S=regs,G=rows >"$out/odd.cu" 2>"$out/err" ||
	{ cat "$out/err"; echo "FAIL: emit of rmsnorm 2047x6143"; exit 1; }
for want in 'constexpr bool COLS_VEC = false;' 'rr_load_tail_copy<VEC>(ld1[0], c1 + at, x1 + at, valid);' \
	'constexpr int COL_PHASES = 8;' 'rr_rmsnorm_cols(const io_t *__restrict__ in1, io_t *__restrict__ cc)' \
	'rr_load<VEC>(ld1[u], c1 + at);'; do
	if ! grep -qF -- "$want" "$out/odd.cu"; then
		echo "FAIL: rmsnorm bf16 2047x6143 lacks '$want'"
		exit 1
	fi
done
if grep -qF 'COLS_VEC>' "$out/odd.cu"; then
	echo "FAIL: rmsnorm bf16 2047x6143 still reads w element by element (COLS_VEC)"
	exit 1
fi
# rmsnorm bf16 in blocks of 32 rows: SHAPE LAYOUT, the load of w the source must hold (and no
# shifted load), and how it should read w
many_rows_reads_w() {
	"$ROWREDUCE" emit --kernel rmsnorm --shape "$1" --dtype bf16 --backend cuda --arch sm_90 \
		--layout "$2" >"$out/many.cu" 2>"$out/err" ||
		{ cat "$out/err"; echo "FAIL: emit of rmsnorm $1"; exit 1; }
	if grep -qF 'rr_load_shifted' "$out/many.cu" || ! grep -qF "$3" "$out/many.cu"; then
		echo "FAIL: rmsnorm bf16 $1 at R = 32 should read w $4"
		exit 1
	fi
}
many_rows_reads_w 8191x1023 W=16,V=8,U=2,R=32,C=1,S=regs,G=rows \
	'rr_load_tail_copy<VEC>(ld1[0], c1 + at' 'from its copies'
for shape in 100x1023 65535x127; do
	many_rows_reads_w $shape W=16,V=8,U=1,R=32,C=1,S=reread,G=rows \
		'rr_load_tail<VEC && COLS_VEC>' 'element by element'
done
"$ROWREDUCE" emit --kernel layernorm --shape 2048x4099 --dtype bf16 --backend cuda --arch sm_90 \
	--layout W=128,V=8,U=2,R=1,C=1,S=regs,G=rows >"$out/odd.cu" 2>"$out/err" ||
	{ cat "$out/err"; echo "FAIL: emit of layernorm 2048x4099"; exit 1; }
for want in 'rr_load<VEC>(ld1[u], c1 + at);' 'rr_load<VEC>(ld2[u], c2 + at);' 'rr_wait_copies();'; do
	if ! grep -qF -- "$want" "$out/odd.cu"; then
		echo "FAIL: layernorm bf16 2048x4099 lacks '$want'"
		exit 1
	fi
done
"$ROWREDUCE" emit --kernel layernorm --shape 64x4099 --dtype bf16 --backend cuda --arch sm_90 \
	--layout W=128,V=8,U=2,R=1,C=1,S=regs,G=rows >"$out/few.cu" 2>"$out/err" ||
	{ cat "$out/err"; echo "FAIL: emit of layernorm 64x4099"; exit 1; }
if grep -qF 'COL_PHASES' "$out/few.cu" || ! grep -qF 'rr_load_shifted' "$out/few.cu"; then
	echo "FAIL: layernorm bf16 64x4099 should read w and b shifted, without copies"
	exit 1
fi
"$ROWREDUCE" emit --kernel rmsnorm --shape 65535x1024 --dtype bf16 --backend cuda --arch sm_90 \
	--layout W=128,V=8,U=1,R=1,C=1,S=regs,G=rows >"$out/even.cu" 2>"$out/err" ||
	{ cat "$out/err"; echo "FAIL: emit of rmsnorm 65535x1024"; exit 1; }
if ! grep -qF 'constexpr bool COLS_VEC = true;' "$out/even.cu" ||
	grep -qF 'rr_load_shifted' "$out/even.cu"; then
	echo "FAIL: rmsnorm bf16 65535x1024 (COLS_VEC true) should not read w by shifted blocks"
	exit 1
fi

# RR_PLAN_TRACE=3: the three cheapest candidates on stderr, in order, the chosen one (the plan
# of the printed source) marked; a complete layout traced alone; nothing on stderr without it.
RR_PLAN_TRACE=3 "$ROWREDUCE" emit --kernel rmsnorm --shape 16x1048576 --backend cuda \
	--arch sm_90 >"$out/trace.cu" 2>"$out/trace"
lines=$(grep -Ec '^[ *] .* mem .* lat .* launch .* tree ' "$out/trace")
chosen=$(grep '^\*' "$out/trace" | awk '{print $3}')
sorted=$(grep -E '^[ *] ' "$out/trace" | head -3 | cut -c2- | awk '{print $1}' | sort -g -c && echo yes)
if [ "$lines" -lt 3 ] || [ "$lines" -gt 4 ] || [ "$sorted" != yes ] || [ -z "$chosen" ] ||
	! grep -q '^plan trace: rmsnorm f32 16x1048576' "$out/trace" ||
	! grep -qF -- " * plan     $chosen" "$out/trace.cu"; then
	cat "$out/trace"
	echo "FAIL: RR_PLAN_TRACE=3 did not print the 3 cheapest candidates and mark the chosen one"
	exit 1
fi
RR_PLAN_TRACE=1 "$ROWREDUCE" emit --kernel sum --shape 4x64 --backend cuda --arch sm_90 \
	--layout W=32,V=4,U=1,R=1,C=1,S=regs,G=rows >/dev/null 2>"$out/trace"
if [ "$(grep -c '^\* ' "$out/trace")" -ne 1 ] || ! grep -q 'W=32,V=4,U=1,R=1,C=1' "$out/trace"; then
	cat "$out/trace"
	echo "FAIL: RR_PLAN_TRACE with a complete layout did not trace that layout"
	exit 1
fi
# xF: the measured corrections' product (an unclustered persistent grid's gpu_persistent_factor,
# 1.10577 in the sm_90 coefficients; one group a row: none).
for grid in persistent:x1.11 rows:x1.00; do
	RR_PLAN_TRACE=1 "$ROWREDUCE" emit --kernel add_layernorm --shape 4096x32768 --dtype bf16 \
		--backend cuda --arch sm_90 --layout "W=512,V=8,U=2,R=1,C=1,S=smem,G=${grid%%:*}" \
		>/dev/null 2>"$out/trace"
	if ! grep -q "^\* .* tree .* ${grid#*:}  eff " "$out/trace"; then
		cat "$out/trace"
		echo "FAIL: RR_PLAN_TRACE did not print the corrections' product ${grid#*:} for G=${grid%%:*}"
		exit 1
	fi
done
"$ROWREDUCE" emit --kernel rmsnorm --shape 16x1048576 --backend cuda --arch sm_90 \
	>/dev/null 2>"$out/trace"
if [ -s "$out/trace" ]; then
	cat "$out/trace"
	echo "FAIL: emit wrote to stderr without RR_PLAN_TRACE"
	exit 1
fi

# A bad architecture is a usage error, not a crash.
"$ROWREDUCE" emit --kernel sum --shape 4x64 --backend cuda --arch banana >/dev/null 2>"$out/err"
code=$?
if [ "$code" -ne 2 ] || ! grep -q "sm_XY" "$out/err"; then
	echo "FAIL: --arch banana gave exit $code: $(cat "$out/err")"
	exit 1
fi

# The NVRTC compiles of the whole grid take twice as long under the sanitizers' allocator:
# `make test` builds the release tool too and names it in RR_RELEASE_ROWREDUCE (the emits above
# run under the sanitizers).
check_tool=$ROWREDUCE
[ -x "${RR_RELEASE_ROWREDUCE:-}" ] && check_tool=$RR_RELEASE_ROWREDUCE
"$check_tool" emit --check-all --backend cuda --arch sm_90 >"$out/check" 2>&1
code=$?
tail -n 40 "$out/check"
if [ "$code" -eq 2 ] && grep -q "NVRTC is not available" "$out/check"; then
	echo "SKIP: NVRTC is not available on this machine"
	exit 77
fi
if [ "$code" -ne 0 ]; then
	echo "FAIL: emit --check-all exited $code"
	exit 1
fi
if ! grep -Eq '^compiled ([0-9]+)/\1 kernels' "$out/check"; then
	echo "FAIL: no 'compiled K/K kernels' summary"
	exit 1
fi
echo "PASS"

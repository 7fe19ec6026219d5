#!/usr/bin/env bash
# The emitters print the device files of src/codegen/device: each section a plan needs stands
# verbatim in `rowreduce emit` output (both backends, every dtype, clusters), sections a plan
# does not need are absent, and no marker line or missing-section #error leaks into a source.
set -u
: "${ROWREDUCE:?set ROWREDUCE to the rowreduce tool}"
: "${RR_SOURCE_DIR:?set RR_SOURCE_DIR to the repository root}"
device=$RR_SOURCE_DIR/src/codegen/device
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

fail() {
	echo "FAIL: $*" >&2
	failed=$((failed + 1))
}

# section FILE NAME: the text of section NAME of device file FILE (see device_files.h).
section() {
	awk -v name="$2" '/^\/\/@ / { on = ($2 == name); next } on' "$device/$1"
}

# emit LABEL ARGS...: the source of one plan in $tmp/LABEL.
emit() {
	local label=$1
	shift
	if ! "$ROWREDUCE" emit "$@" >"$tmp/$label" 2>"$tmp/err"; then
		fail "emit $*: $(cat "$tmp/err")"
	fi
}

# has LABEL FILE SECTION [absent]: the plan's source holds the section (or does not).
has() {
	local text want
	text=$(cat "$tmp/$1")
	want=$(section "$2" "$3")
	if [ -z "$want" ]; then
		fail "section $3 of $2 is empty or missing"
	elif [ "${4:-}" = absent ] && [[ "$text" == *"$want"* ]]; then
		fail "$1 holds section $3 of $2, which its plan does not need"
	elif [ "${4:-}" != absent ] && [[ "$text" != *"$want"* ]]; then
		fail "$1 lacks section $3 of $2"
	fi
}

cuda="--backend cuda --arch sm_90"
emit cu_f32 --kernel softmax --shape 8x4096 --dtype f32 $cuda \
	--layout W=256,V=4,U=2,R=1,C=1,S=regs,G=rows
emit cu_bf16 --kernel layernorm --shape 8x131072 --dtype bf16 $cuda \
	--layout W=1024,V=8,U=1,R=1,C=8,S=cluster,G=rows
emit cu_f16 --kernel cross_entropy --shape 8x4103 --dtype f16 $cuda \
	--layout W=256,V=8,U=2,R=1,C=1,S=regs,G=rows
emit c_f32 --kernel rmsnorm --shape 8x1000 --dtype f32 --backend cpu \
	--layout W=32,V=4,U=2,R=1,C=1,S=regs,G=rows
emit c_bf16 --kernel sum --shape 8x1000 --dtype bf16 --backend cpu \
	--layout W=8,V=4,U=1,R=2,C=1,S=regs,G=rows
emit c_f16 --kernel softmax --shape 8x1000 --dtype f16 --backend cpu \
	--layout W=8,V=8,U=1,R=1,C=1,S=reread,G=rows
# rows of 16384 elements and more may run in two parts (c_emit.h's rr_cpu_row_part)
emit c_f32_long --kernel rmsnorm --shape 3x20000 --dtype f32 --backend cpu \
	--layout W=256,V=1,U=1,R=1,C=1,S=reread,G=rows
emit c_bf16_long --kernel rmsnorm --shape 3x20000 --dtype bf16 --backend cpu \
	--layout W=256,V=1,U=1,R=1,C=1,S=reread,G=rows

for label in cu_f32 cu_bf16 cu_f16; do
	has $label limits.cuh limits
	has $label pack_tail.cuh pack_tail
	has $label online.cuh online
done
has cu_f32 io_f32.cuh io
has cu_bf16 io_bf16.cuh io
has cu_f16 io_f16.cuh io
has cu_bf16 cluster.cuh cluster
has cu_f32 cluster.cuh cluster absent
has cu_f32 io_bf16.cuh io absent

for label in c_f32 c_bf16 c_f16; do
	has $label cpu_row.h includes
	has $label cpu_row.h slots
	has $label cpu_row.h entry
done
has c_bf16 convert16.h bits
has c_bf16 convert16.h bf16
has c_bf16 convert16.h f16 absent
has c_f16 convert16.h f16
has c_f32 convert16.h bits absent
has c_f32 cpu_vec.h parts
has c_f32_long cpu_row.h parts_entry
has c_f32 cpu_row.h parts_entry absent
has c_bf16_long cpu_row.h parts_entry absent

for label in cu_f32 cu_bf16 cu_f16 c_f32 c_bf16 c_f16 c_f32_long c_bf16_long; do
	if grep -qE '^//@ |^#error' "$tmp/$label"; then
		fail "$label carries a section marker or an #error line"
	fi
done

if [ "$failed" -gt 0 ]; then
	echo "cli_device_sources: $failed failure(s)"
	exit 1
fi
echo "cli_device_sources: ok"

#!/bin/sh
# shapes.sh TAG [TAG2 ...]: drive on the four shapes, DRAM (copy in each round) and in L2 (16
# rows of 4096 or 2 of 65536, 100 calls a launch), each configuration streamed (:1) and not
# (:0); so/sm-DT-SHAPE-TAG.so for each TAG.
ROUNDS=${ROUNDS:-9}
for c in "4096 4096 4 f32-4096x4096" "256 65536 4 f32-256x65536" \
	"4096 4096 2 bf16-4096x4096" "256 65536 2 bf16-256x65536"; do
	set -- $c
	confs=""
	for t in $TAGS; do confs="$confs so/sm-$4-$t.so:${S:-1}"; done
	echo "== $4 DRAM"
	./quiet.sh ./drive $1 $2 $3 1 0 1 $ROUNDS $confs
done

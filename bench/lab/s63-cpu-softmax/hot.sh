#!/bin/sh
# hot.sh: as shapes.sh, rows in L2 (NOCOPY, REPEAT=100): 16 rows of 4096, 2 of 65536.
ROUNDS=${ROUNDS:-9}
for c in "16 4096 4 f32-4096x4096" "2 65536 4 f32-256x65536" \
	"16 4096 2 bf16-4096x4096" "2 65536 2 bf16-256x65536"; do
	set -- $c
	confs=""
	for t in $TAGS; do confs="$confs so/sm-$4-$t.so:${S:-0}"; done
	echo "== $4 hot"
	NOCOPY=1 REPEAT=${REPEAT:-100} ./quiet.sh ./drive $1 $2 $3 1 0 1 $ROUNDS $confs
done

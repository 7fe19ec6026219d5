# session 15, call 4: ctest -L gpu on main with the exp change
export OUT=${OUT:-/tmp/rr-out}
bash tools/gpu/session.sh info test > $OUT/test-log.txt 2>&1; tail -12 $OUT/test-log.txt

# session 21, call 2: QuACK's second piece, install, then the wide bf16 rows beside eager, torch.compile, Liger and QuACK in one run
export OUT=${OUT:-/tmp/rr-out}
bash tools/gpu/quack-carry.sh keep .qk2 > $OUT/qk.log 2>&1 && bash tools/gpu/quack-carry.sh install >> $OUT/qk.log 2>&1 || tail -5 $OUT/qk.log
export PYTHONPATH=/tmp/quack-site:/tmp/quack-site/nvidia_cutlass_dsl/dsl_packages
SHAPES=2048x16384,4096x32768,1024x65536,512x131072,256x262144 OPS=rmsnorm,softmax,layernorm,cross_entropy DTYPES=bf16 \
TIME_LIMIT=440 SAMPLE_MS=5 ROUNDS=3 NAME=s21-quack timeout 560 bash bench/python_h200.sh wide > $OUT/compare-log.txt 2>&1
tail -45 $OUT/compare-log.txt

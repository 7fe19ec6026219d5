# session 22, call 2: QuACK's second piece, install, then the large suite's bf16 rows beside eager, torch.compile, Liger and QuACK in one run
export OUT=${OUT:-/tmp/rr-out}
mkdir -p $OUT
bash tools/gpu/quack-carry.sh keep .qk2 > $OUT/qk.log 2>&1 && bash tools/gpu/quack-carry.sh install >> $OUT/qk.log 2>&1 || tail -5 $OUT/qk.log
export PYTHONPATH=/tmp/quack-site:/tmp/quack-site/nvidia_cutlass_dsl/dsl_packages
SHAPES=65536x128,32768x1024,16384x4096,8192x8192 OPS=rmsnorm,softmax,layernorm,cross_entropy DTYPES=bf16 \
TIME_LIMIT=430 SAMPLE_MS=5 ROUNDS=3 NAME=s22-quack timeout 550 bash bench/python_h200.sh large > $OUT/compare-log.txt 2>&1
tail -40 $OUT/compare-log.txt

# session 17, call 4: the second QuACK piece, install, then the wide bf16 rows beside eager,
# torch.compile, Liger and QuACK in one run (main at the commit in .rr-commit).
export OUT=${OUT:-/tmp/rr-out}
bash tools/gpu/quack-carry.sh keep .qk1 > $OUT/qk.log 2>&1 && bash tools/gpu/quack-carry.sh install >> $OUT/qk.log 2>&1 || tail -5 $OUT/qk.log
export PYTHONPATH=/tmp/quack-site:/tmp/quack-site/nvidia_cutlass_dsl/dsl_packages
SHAPES=4096x32768,1024x65536,512x131072,256x262144 OPS=rmsnorm,softmax,layernorm,cross_entropy DTYPES=bf16 \
TIME_LIMIT=400 SAMPLE_MS=5 ROUNDS=3 NAME=s17-quack timeout 530 bash bench/python_h200.sh wide > $OUT/compare-log.txt 2>&1
tail -40 $OUT/compare-log.txt

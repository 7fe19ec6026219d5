# session 22, call 3 (right after call 2, QuACK still installed in /tmp/quack-site): the large suite's f32 rows beside eager, torch.compile, Liger and QuACK in one run
export OUT=${OUT:-/tmp/rr-out}
export PYTHONPATH=/tmp/quack-site:/tmp/quack-site/nvidia_cutlass_dsl/dsl_packages
SHAPES=65536x128,32768x1024,16384x4096,8192x8192,4096x32768,1024x131072,256x262144 OPS=rmsnorm,softmax,layernorm,cross_entropy DTYPES=f32 \
TIME_LIMIT=400 SAMPLE_MS=5 ROUNDS=3 NAME=s22-quack timeout 520 bash bench/python_h200.sh large > $OUT/compare-log.txt 2>&1

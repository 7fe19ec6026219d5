cd "$(dirname "$0")/../../.."
# usage (from the repo root): S=MxN KS="softmax ..." WS="1 2 4" RS=64 bash bench/lab/s37-cpu/sweep.sh
S=${S:-50000x3}
for k in ${KS:-softmax rmsnorm layernorm add_layernorm cross_entropy sum}; do for W in ${WS:-1 2 4 8}; do for R in ${RS:-64}; do
 st=reread; [ $k = sum -o $k = cross_entropy ] && st=regs
 p="W=$W,V=1,U=1,R=$R,C=1,S=$st,G=rows"
 build/rowreduce bench --backend cpu --shapes $S --kernels $k --dtypes f32 --plan $p --samples 5 --sample-ms 20 --warmup-ms 50 --no-ceilings --out /tmp/s37-r >/dev/null 2>&1
 echo "$k $S $p $(python3 bench/lab/s37-cpu/med.py /tmp/s37-r/results.json)"
done; done; done

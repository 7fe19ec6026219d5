# session 17, call 2: bf16 clusters kept raw, one cluster a row against clusters looping over
# rows (bench/lab/plans-2026-12-02-s17-cluster-rows.txt), then ncu of four plans: S=smem at
# 4096x32768 (0.95 of copy) and 1024x65536 (0.88), the C = 4 cluster at 512x131072 (0.73) in
# both grid modes.
export OUT=${OUT:-/tmp/rr-out}
PLAN_FILE=bench/lab/plans-2026-12-02-s17-cluster-rows.txt \
NCU_SPECS="rmsnorm:bf16:4096x32768:W=512,V=8,U=2,R=1,C=1,S=smem,G=rows rmsnorm:bf16:1024x65536:W=1024,V=8,U=2,R=1,C=1,S=smem,G=rows rmsnorm:bf16:512x131072:W=512,V=8,U=2,R=1,C=4,S=cluster,G=persistent rmsnorm:bf16:512x131072:W=512,V=8,U=2,R=1,C=4,S=cluster,G=rows" \
	bash tools/gpu/session.sh info plans ncu > $OUT/log.txt 2>&1
grep -vE "^ *$" $OUT/plans.txt | cut -c1-140
grep -E "^####|Duration|DRAM Throughput|Achieved Occupancy|Theoretical Occupancy|Grid Size|Cluster|Registers Per|Stall|Active Warps|Eligible|Issued Warp|No Eligible" $OUT/ncu.txt | head -120

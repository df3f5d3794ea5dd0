b=dist/gpu-bundle; export GPU_KERNELS_PTX_DIR=$PWD/$b/ptx
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader
for f in w03_ w04_ w05_ w06_ w07_ w08_; do echo "tests $f: $(timeout 100 $b/tests/gpu $f --test-threads=1 2>&1 | grep -E 'test result|FAIL|panick' | head -3)"; done
timeout 360 $b/host -k w2,w5,w06,w07,w08 --gemm 1024,2048,4096,8192,4096x4096x512,8192x1024x8192,1000x1000x1000,4097x4096x4096 --json $OUT/hopper.json > $OUT/hopper.txt 2>/dev/null; echo "host exit $?"
grep -v "relative error" $OUT/hopper.txt | grep -E "^(t|cuBLAS)|GEMM" | awk '{print $1, $2, $3, $4, $5, $6, $(NF)}' | sed 's/(f32 accumulate) GEMM C = A·B, M×N×K =//'
timeout 120 ncu --clock-control none --section LaunchStats --section SpeedOfLight -k regex:nvjet $b/host -k w08_small_tile_f16 --gemm 1024,2048 --verify-only 2>&1 | grep -E "nvjet|Duration|Grid Size|Block Size|Cluster Size" > $OUT/ncu-cublas-small.txt; cat $OUT/ncu-cublas-small.txt

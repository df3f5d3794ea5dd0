set -uo pipefail
nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -o /tmp/cub_reduce bench/cub/reduce_sum.cu &
N=2^20,2^24,2^27,2^30
for round in 1 2; do
for v in gpu-bundle var-tile512 var-tile1024 var-tile256u8 var-even512 var-even256; do
  echo "== $v round $round"
  dist/$v/host -k x4 --reps 100 -n $N 2>/dev/null | grep "^x4"
done
wait
echo "== cub round $round"; /tmp/cub_reduce 100 20 30 | grep -E "^(1048576|16777216|134217728|1073741824) "
done

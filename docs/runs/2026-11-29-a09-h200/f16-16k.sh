#!/usr/bin/env bash
# a09 and cuDNN, f16, head dim 128, causal, seq 16k, one after the other, three rounds
out=$1; mkdir -p $out; b=dist/gpu-bundle; export GPU_KERNELS_PTX_DIR=$PWD/$b/ptx
for r in 1 2 3; do
  $b/host -k a08,a09 --twins off --attn-type f16 --head-dim 128 --mask causal --seq 16k --json $out/$r.json > $out/$r.txt 2>/dev/null
  python3 bench/attention-sdpa.py --backends cudnn $out/$r.json > $out/$r-sdpa.txt 2>&1
  grep -A3 "^seq (b" $out/$r-sdpa.txt | tail -1
done

#!/usr/bin/env bash
# The attention ladder on a GPU machine, from the bundle (`cargo xtask bundle`, carried as
# dist/gpu-bundle): the family's GPU tests, the ladder with cuDNN and FlashAttention-2 timed
# beside it by PyTorch (bench/attention-sdpa.py), and the sanitizers on every attention kernel.
# Usage (from the repository root): bench/attention-run.sh OUTDIR PART...
#   info        the GPU, its driver, clocks and power now
#   tests       the attention family's GPU tests (every step and twin, past 2^31 elements)
#   tests-small the same but the test past 2^31 elements (14 GiB)
#   quick       every step at seq 1k and 4k, head dim 64 and 128, both masks, bf16 (no SDPA)
#   ladder      the ladder in FlashAttention-3's setting (16k tokens, hidden 2048): seq 512 to 16k,
#               head dims 64 and 128, both masks, bf16 then f16 at 1k, 4k, 16k, the steps from
#               a02 on (a01's scores need seq² memory), then SDPA's backends on the same shapes,
#               records (JSON) and tables in OUTDIR/ladder
#   batch1      batch 1, 16 heads of 128, seq 512 to 16k: launch and tail effects
#   sanitize    the attention family's GPU tests of the Rust steps (less the 14 GiB one and the
#               twins) under memcheck, racecheck and synccheck (host sanitize)
set -uo pipefail
out=${1:?output folder}; shift
b=dist/gpu-bundle
export GPU_KERNELS_PTX_DIR="$PWD/$b/ptx"
mkdir -p "$out"
# The steps timed at full size: every one from a02 on (a01 keeps seq² scores in memory).
timed=$($b/host --list | awk '/^  a[0-9]/ && $1 != "a01_three_kernels" { printf "%s%s", sep, $1; sep = "," }')
for part in "$@"; do
  echo "===== $part"
  case $part in
    info) nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw,power.limit --format=csv
          python3 -c "import torch; print('torch', torch.__version__, 'cudnn', torch.backends.cudnn.version())" ;;
    tests-small) $b/tests/gpu --test-threads=1 attention/ --skip past_2 > "$out/tests.log" 2>&1; echo "tests exit $?"
           grep -E "^test result|FAILED|panicked|ignored|WRONG|wrong" "$out/tests.log" | head -40 ;;
    tests) $b/tests/gpu --test-threads=1 attention/ > "$out/tests.log" 2>&1; echo "tests exit $?"
           grep -E "^test result|FAILED|panicked|ignored|WRONG|wrong" "$out/tests.log" | head -40 ;;
    quick) $b/host -k attention --seq 1k,4k --json "$out/quick.json" > "$out/quick.txt" 2> "$out/quick.progress"
           echo "quick: host exit $?"; cat "$out/quick.txt" ;;
    ladder) mkdir -p "$out/ladder"
            $b/host -k "$timed" --seq 512,1k,2k,4k,8k,16k --json "$out/ladder/bf16.json" \
              > "$out/ladder/bf16.txt" 2> "$out/ladder/bf16.progress"
            echo "bf16: host exit $?"
            $b/host -k "$timed" --seq 1k,4k,16k --attn-type f16 --json "$out/ladder/f16.json" \
              > "$out/ladder/f16.txt" 2> "$out/ladder/f16.progress"
            echo "f16: host exit $?"
            for f in bf16 f16; do
              python3 bench/attention-sdpa.py "$out/ladder/$f.json" > "$out/ladder/$f-sdpa.txt" 2>&1
              echo "$f sdpa: exit $?"; cat "$out/ladder/$f-sdpa.txt"
            done
            grep -h "WRONG" "$out"/ladder/*.txt | head ;;
    batch1) $b/host -k "$timed" --batch 1 --head-dim 128 --seq 512,1k,4k,16k --json "$out/batch1.json" \
              > "$out/batch1.txt" 2> "$out/batch1.progress"
            echo "batch1: host exit $?"
            python3 bench/attention-sdpa.py "$out/batch1.json" 2>&1 | tail -30 ;;
    sanitize) SANITIZE_LOGS="$out/sanitize" $b/run.sh --sanitize --tool memcheck,racecheck,synccheck attention/ \
                -- --skip cpp_twin --skip past_2 2>&1 | tail -16 ;;
    *) echo "unknown part $part"; exit 2 ;;
  esac
done

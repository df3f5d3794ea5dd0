#!/usr/bin/env bash
# The GEMM ladders on a GPU machine, from the bundle (`cargo xtask bundle`, carried as
# dist/gpu-bundle), each kernel heated before its repetitions so that a product at the power
# cap is timed at the clock it holds under steady load (docs/records.md), cuBLAS beside every
# shape in the same process. The FP8 steps have bench/fp8-run.sh, the portable steps from the
# sm_80 PTX alone bench/portable-run.sh.
# Usage (from the repository root): [HEAT=SECONDS] bench/gemm-run.sh OUTDIR PART...
#   info      the GPU, its driver, clocks and power now
#   tests     the GPU tests of the FP32, tensor-core and Hopper GEMM steps (g, t, w01–w13) and
#             their twins
#   fp32      g01–g11 at 1000³ (no multiple of any tile), 1024³ and 4096³: OUTDIR/gemm-fp32.json
#   tensor    p8's ceilings, then t01–t05 and w01–w13, f16 and bf16, at 4096³ and 8192³:
#             OUTDIR/gemm-tensor.json (about 120 timings with the twins: a few minutes)
#   rounds    w08 and w13 at 8192³ three more times one after the other, under the load the
#             tensor part left, twins off: whether their lead over cuBLAS holds from one
#             process to the next (OUTDIR/rounds/)
#   power     the clock and power each product holds at the power cap: the steps
#             ${POWER_STEPS:-w06,w13} and cuBLAS beside them at ${POWER_SIZE:-4096}, each heated
#             ${POWER_HEAT:-3} s, twins off, nvidia-smi every 50 ms (bench/power-lib.sh);
#             OUTDIR/power/ and bench/power-trace.py's table (mW per MHz: of two products that
#             take the same cycles, the one that draws more per cycle is held lower by the cap)
# HEAT (seconds, 0.5 by default) is passed to the host's --heat; HEAT=0 times from a cool
# start, as the records before 2026-11-29.
set -uo pipefail
. "$(dirname "$0")/power-lib.sh"
out=${1:?output folder}; shift
b=dist/gpu-bundle
export GPU_KERNELS_PTX_DIR="$PWD/$b/ptx"
heat=${HEAT:-0.5}
mkdir -p "$out"
# The host on steps STEPS at shapes SHAPES into OUTDIR/NAME.json, its table in NAME.txt.
host_run() { # name steps shapes, then host options
  local name=$1 steps=$2 shapes=$3; shift 3
  $b/host --heat "$heat" -k "$steps" --gemm "$shapes" --json "$out/$name.json" "$@" \
    > "$out/$name.txt" 2> "$out/$name.progress"
  echo "$name: host exit $?"
  grep -E "WRONG|skipped" "$out/$name.txt" | head
}
for part in "$@"; do
  echo "===== $part"
  case $part in
    info) nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw,power.limit --format=csv ;;
    tests) for ladder in g0 g1 t0 w0 w10 w11 w12 w13; do
             $b/tests/gpu --test-threads=2 "$ladder" >> "$out/tests.log" 2>&1
             echo "tests $ladder: exit $?"
           done
           grep -E "^test result|FAILED|panicked" "$out/tests.log" | head -20 ;;
    fp32) host_run gemm-fp32 g 1000,1024,4096 ;;
    tensor) host_run gemm-tensor p8,t,w01-w13 4096,8192
            grep -E "^(t0|w0|w1|cuBLAS)" "$out/gemm-tensor.txt" | head -80 ;;
    rounds) mkdir -p "$out/rounds"
            for round in 1 2 3; do
              $b/host --heat "$heat" -k w08,w13 --twins off --gemm 8192 --json "$out/rounds/$round.json" \
                > "$out/rounds/$round.txt" 2> /dev/null
              grep -E "^(w08|w13|cuBLAS)" "$out/rounds/$round.txt"
            done ;;
    power) dir="$out/power"; mkdir -p "$dir"
           power_trace_start "$dir"
           $b/host --heat "${POWER_HEAT:-3}" -k "${POWER_STEPS:-w06,w13}" --twins off --gemm "${POWER_SIZE:-4096}" \
             --json "$dir/steps.json" 2>&1 | power_stamp > "$dir/steps.progress"
           echo "power: host exit ${PIPESTATUS[0]}"
           power_trace_stop
           python3 bench/power-trace.py "$dir/smi.csv" "$dir/steps.progress" | tee "$dir/power.txt" ;;
    *) echo "unknown part $part"; exit 2 ;;
  esac
done

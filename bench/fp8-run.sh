#!/usr/bin/env bash
# The FP8 GEMM on a GPU machine (Hopper), from the bundle (`cargo xtask bundle`, carried as
# dist/gpu-bundle): the GPU tests of what the FP8 work adds, the FP8 ceiling, w14 beside
# cuBLASLt FP8 and w08, and the sanitizers on w14 and p8's 8-bit kernel.
# Usage (from the repository root): [HEAT=SECONDS] bench/fp8-run.sh OUTDIR PART...
#   info      the GPU, its driver, clocks and power now
#   tests     the GPU tests of p8's ceilings, w14–w24 (and their twins) and cuBLASLt FP8
#             (per-tensor and per-block scales)
#   ptxas     ptxas -v of w14–w24 and ceiling_wgmma_e4m3 (registers, spills, serialized wgmma)
#   bench     p8, then w08 and w14–w24 at 4096³ and 8192³ with cuBLAS / cuBLASLt FP8 beside
#             them; records in OUTDIR/fp8.json
#   error     the FP8 steps' error against the exact product as K grows (4096 × 4096 × K,
#             K = 1k … 16k), cuBLASLt's beside them
#   hotspots  ncu's warp-state sampling per SASS instruction of w22 and of cuBLASLt's bf16-out FP8
#             kernel (one launch each, 8192³): OUTDIR/hotspots-*.csv (ncu's source page) and a
#             summary by instruction kind (bench/sass-hotspots.py): where each one's warps wait.
#             HOTSPOT_STEP (default w22) is the host's -k and HOTSPOT_KERNELS (default
#             "w22_fp8 nvjet_sm90_qqtst") the kernels' name patterns, e.g. w19 beside the
#             cuBLASLt kernel the `vendors` part names for its block-scaled product
#   vendors   the names of the cuBLASLt kernels the host launches beside HOTSPOT_STEP (8192³)
#   sanitize  memcheck, racecheck, synccheck over the FP8 steps' tests
#   ncu       one launch each of w14, w21, w22 and cuBLASLt's three FP8 products at 8192³ under
#             ncu (speed of light, memory and compute workload, warp states): where the promoted
#             steps lose to cuBLASLt's promoting product (shared-memory traffic, tensor pipe, waits)
set -uo pipefail
out=${1:?output folder}; shift
b=dist/gpu-bundle
export GPU_KERNELS_PTX_DIR="$PWD/$b/ptx"
# Seconds each timed kernel runs untimed first (bench): HEAT=2 times the 8192³ products at the
# clock they hold under steady load (see docs/records.md); 0 by default.
heat=${HEAT:-0}
mkdir -p "$out"
for part in "$@"; do
  echo "===== $part"
  case $part in
    info) nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw,power.limit --format=csv ;;
    tests) : > "$out/tests.log"
           for filter in p8_tensor_ceiling w14_fp8 w15_fp8 w16_fp8 w17_fp8 w18_fp8 w19_fp8 w20_fp8 w21_fp8 w22_fp8 w23_fp8 w24_fp8 cublaslt; do   # the harness takes one filter
             $b/tests/gpu --test-threads=1 "$filter" >> "$out/tests.log" 2>&1
             echo "tests $filter: exit $?"
           done
           grep -E "^test |^test result|FAILED|panicked" "$out/tests.log" | head -40 ;;
    ptxas) for e in w14_fp8_e4m3 w15_fp8_promoted_e4m3 w16_fp8_a_registers_e4m3 w17_fp8_turns_e4m3 w18_fp8_double_partials_e4m3 w19_fp8_block_scales_e4m3 w20_fp8_e5m2_e4m3_e5m2 w21_fp8_bf16_out_e4m3 w22_fp8_full_partial_e4m3 w23_fp8_probe_e4m3 w23_fp8_probe_256_e4m3 w23_fp8_probe_f32_e4m3 w23_fp8_probe_256f32_e4m3 w24_fp8_overlap_e4m3 w24_fp8_overlap_f32_e4m3 w25_fp8_in_order_f32_e4m3 w25_fp8_in_order_256f32_e4m3 ceiling_wgmma_e4m3; do
             ptxas -arch=sm_90a -v --entry "$e" -o /dev/null "$b/ptx/sm_90a/kernels.ptx" 2>&1 | grep -E "registers|spill|C75" | head -5
           done ;;
    bench) $b/host --heat "$heat" -k p8,w08,w14,w15,w16,w17,w18,w19,w20,w21,w22,w23,w24,w25 --gemm 4096,8192 --json "$out/fp8.json" > "$out/fp8.txt" 2> "$out/fp8.progress"
           echo "bench: host exit $?"; grep -E "ceiling,|cuBLAS|w08|w14|w15|w16|w17|w18|w19|w20|w21|w22|w23|w24|w25|WRONG" "$out/fp8.txt" | head -40 ;;
    error) $b/host -k w14,w15,w16,w17,w18,w19,w20,w21,w22,w23,w24,w25 --twins off --verify-only --gemm 4096x4096x1024,4096x4096x4096,4096x4096x8192,4096x4096x16384 \
             --json "$out/fp8-error.json" > "$out/fp8-error.txt" 2>&1
           echo "error: host exit $?"; grep -E "^(w[12]|cuBLASLt)" "$out/fp8-error.txt" | head -80 ;;
    ncu) timeout 500 ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis \
           --section ComputeWorkloadAnalysis --section WarpStateStats -k "regex:w14_fp8|w21_fp8|w22_fp8|nvjet|gemm" \
           $b/host -k w14,w21,w22 --twins off --gemm 8192 --verify-only > "$out/ncu-fp8.txt" 2>&1
         echo "ncu: exit $?"
         grep -E "^  [a-zA-Z_]|Duration|SM Frequency|Memory Throughput|Shared|Issue Slots|Stall" "$out/ncu-fp8.txt" | head -60 ;;
    hotspots) for kernel in ${HOTSPOT_KERNELS:-w22_fp8 nvjet_sm90_qqtst}; do
                name="hotspots-$kernel"
                timeout 240 ncu --clock-control none --launch-count 1 -k "regex:$kernel" \
                  --section WarpStateStats --section SourceCounters -o "$out/$name" -f \
                  $b/host -k "${HOTSPOT_STEP:-w22}" --twins off --gemm 8192 --verify-only > "$out/$name.log" 2>&1
                echo "$name: ncu exit $?"
                ncu --import "$out/$name.ncu-rep" --page source --csv --print-source sass > "$out/$name.csv" 2>> "$out/$name.log"
                echo "$name: source page exit $?, $(wc -l < "$out/$name.csv") lines"
                python3 bench/sass-hotspots.py "$out/$name.csv" 25
                rm -f "$out/$name.ncu-rep"  # tens of MB, and no ncu here to read it
              done ;;
    vendors) timeout 240 ncu --clock-control none --section LaunchStats -k "regex:nvjet|cutlass|sm90" \
               $b/host -k "${HOTSPOT_STEP:-w22}" --twins off --gemm 8192 --verify-only > "$out/vendors.txt" 2>&1
             echo "vendors: ncu exit $?"
             grep -E "^  [a-zA-Z_][^ ]* \([0-9]+, [0-9]+, [0-9]+\)x" "$out/vendors.txt" | sort | uniq -c ;;
    sanitize) SANITIZE_LOGS="$out/sanitize" $b/run.sh --sanitize --tool memcheck,racecheck,synccheck _fp8 \
                -- --skip cpp_twin 2>&1 | tail -6 ;;
    *) echo "unknown part $part"; exit 2 ;;
  esac
done

#!/usr/bin/env bash
# The portable tensor-core steps (t01–t05, sm_80 PTX) on a GPU machine, from the bundle
# (`cargo xtask bundle`, carried as dist/gpu-bundle).
# Usage (from the repository root): bench/portable-run.sh OUTDIR PART...
#   info      the GPU, its driver, clocks and power now
#   tests     the GPU tests of t01–t05 and their twins, from a folder that holds the sm_80 PTX
#             only (what an A100 or an RTX 30xx/40xx loads)
#   ptxas     ptxas -v of t04's and t05's sm_80 PTX for this GPU (registers, spills)
#   sanitize  memcheck, racecheck, synccheck over t05's tests
#   bench     p8's ceilings, then t03–t05 at 4096³ and 8192³ beside cuBLAS, from the sm_80
#             PTX; records in OUTDIR/portable.json
#   rounds    t04 and t05 at 8192³, three more times one after the other, under the load
#             the bench left (records in OUTDIR/rounds/)
#   heated    p8's ceilings, then t05 at 4096³ and 8192³ heated half a second (no twins);
#             records in OUTDIR/heated.json
#   triton    Triton's own mma.sync product (bench/gemm-triton.py: DISABLE_MMA_V3=1) over its
#             grid of tiles and stages at 4096³ and 8192³, f16 and bf16, as % of the ceilings
#             of this call's `heated` (or `bench`); OUTDIR/triton.txt and triton.json, and its
#             best within 99 KB added to heated.json's records when `heated` ran: that file,
#             copied to docs/results/GPU/gemm-triton.json, puts it on the results
#             page beside t05 (about 80 s on an H200)
set -uo pipefail
out=${1:?output folder}; shift
b=dist/gpu-bundle
sm80=/tmp/ptx-sm80-only
rm -rf "$sm80" && mkdir -p "$sm80" && cp -r "$b/ptx/sm_80" "$b/ptx/fingerprint" "$sm80/"
export GPU_KERNELS_PTX_DIR="$sm80"
mkdir -p "$out"
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
for part in "$@"; do
  echo "===== $part"
  case $part in
    info) nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw,power.limit --format=csv ;;
    tests) $b/tests/gpu --test-threads=2 t0 > "$out/tests.log" 2>&1
           echo "tests: exit $?"; grep -E "^test result|FAILED|panicked" "$out/tests.log" | head -20 ;;
    ptxas) for e in t04_warp_tile_f16 t05_fragment_pipeline_f16 t05_fragment_pipeline_bf16; do
             echo -n "$e: "; ptxas -arch=sm_$arch -v --entry "$e" -o /dev/null "$sm80/sm_80/kernels.ptx" 2>&1 | grep -E "registers|spill" | tr '\n' ' '; echo
           done ;;
    sanitize) SANITIZE_LOGS="$out/sanitize" $b/run.sh --sanitize --tool memcheck,racecheck,synccheck t05_fragment 2>&1 | tail -6 ;;
    bench) $b/host --ptx-dir "$sm80" -k p8,t03,t04,t05 --gemm 4096,8192 --json "$out/portable.json" > "$out/portable.txt" 2> "$out/portable.progress"
           echo "bench: host exit $?"; grep -E "ceiling, |cuBLAS|t0|WRONG|skipped" "$out/portable.txt" | head -40 ;;
    rounds) mkdir -p "$out/rounds"
            for round in 1 2 3; do
              $b/host --ptx-dir "$sm80" -k t04,t05 --twins off --gemm 8192 --json "$out/rounds/$round.json" > "$out/rounds/$round.txt" 2> /dev/null
              grep -E "^t0" "$out/rounds/$round.txt"
            done ;;
    heated) $b/host --ptx-dir "$sm80" -k p8,t05 --twins off --heat 0.5 --gemm 4096,8192 --json "$out/heated.json" \
              > "$out/heated.txt" 2> "$out/heated.progress"
            echo "heated: host exit $?"; grep -E "ceiling, |cuBLAS|t05|WRONG|skipped" "$out/heated.txt" | head -20 ;;
    triton) ceilings=$out/heated.txt; [ -s "$ceilings" ] || ceilings=$out/portable.txt
            records=(); [ -s "$out/heated.json" ] && records=(--records "$out/heated.json")
            python3 bench/gemm-triton.py --ceilings "$ceilings" --json "$out/triton.json" ${records[@]+"${records[@]}"} \
              > "$out/triton.txt" 2> "$out/triton.progress"
            echo "triton: exit $?"; cat "$out/triton.txt" ;;
    *) echo "unknown part $part"; exit 2 ;;
  esac
done

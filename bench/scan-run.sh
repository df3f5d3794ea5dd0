#!/usr/bin/env bash
# The scan ladder on a GPU machine, from the bundle (`cargo xtask bundle`, carried as
# dist/gpu-bundle): CUB's library built beside the host, the scan family's GPU tests, the
# ladder beside a copy and CUB, and the sanitizers on every scan kernel.
# Usage (from the repository root): bench/scan-run.sh OUTDIR PART...
#   info        the GPU, its driver, clocks and power now
#   cub         builds dist/gpu-bundle/cub/libscan_cub.so (bench/cub/build-scan-library.sh)
#               unless it is there, then checks it against the CPU (scan_library_check)
#   tests       the scan family's GPU tests (every step and twin, CUB's library, past 2^31)
#   tests-small the same but the test past 2^31 (16 GiB)
#   quick       every step at 2^20 and 2^30
#   ladder      the ladder, i32 inclusive, at 2^16, 2^20, 2^24, 2^26, 2^28 and 2^30, then f32 and
#               exclusive at 2^30, with records (JSON, CSV) and charts in OUTDIR/ladder (on an H200,
#               about 7 minutes; cub about 20 s the first time, tests-small 25 s)
#   blocks      s08–s10 with blocks of 128, 256 and 512 threads
#   variants    the bundles in dist/exp/* (other constants) beside the bundle's own
#   sweep       s11, s12 and CUB at every power of two from 2^16 to 2^30
#   sanitize    the scan family's GPU tests of the Rust steps (less the 16 GiB one, the twins
#               and CUB's) under memcheck, racecheck and synccheck (host sanitize)
#   harness     builds and runs docs/runs/2026-11-29-scan-h200/twin-harness.cu (nvcc): s12's
#               twin beside its laboratory's kernel and that kernel's variants, 2^30, one process
#   pack        OUTDIR's files so far in one archive beside it, OUTDIR.tgz (for a machine that
#               sends back only a few files: give an OUTDIR inside the folder that comes back)
set -uo pipefail
out=${1:?output folder}; shift
b=dist/gpu-bundle
export GPU_KERNELS_PTX_DIR="$PWD/$b/ptx"
mkdir -p "$out"
for part in "$@"; do
  echo "===== $part"
  case $part in
    info) nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw,power.limit --format=csv ;;
    cub)
      if [ ! -f $b/cub/libscan_cub.so ]; then
        start=$(date +%s)
        bench/cub/build-scan-library.sh $b/cub > "$out/cub-build.log" 2>&1
        echo "build: exit $?, $(( $(date +%s) - start )) s"; tail -3 "$out/cub-build.log"
      fi
      if [ -x $b/cub/scan_library_check ]; then $b/cub/scan_library_check $b/cub/libscan_cub.so 2>&1 | tail -5; fi ;;
    tests-small) $b/tests/gpu --test-threads=1 scan/ --skip n_past > "$out/tests.log" 2>&1; echo "tests exit $?"
           grep -E "^test result|FAILED|panicked|ignored" "$out/tests.log" | head -30 ;;
    tests) $b/tests/gpu --test-threads=1 scan/ > "$out/tests.log" 2>&1; echo "tests exit $?"
           grep -E "^test result|FAILED|panicked|ignored" "$out/tests.log" | head -30 ;;
    ladder) mkdir -p "$out/ladder"
            $b/host -k scan -n 2^16,2^20,2^24,2^26,2^28,2^30 --json "$out/ladder/i32.json" --csv "$out/ladder/i32.csv" \
              --plots "$out/ladder/charts" > "$out/ladder/i32.txt" 2> "$out/ladder/i32.progress"
            echo "i32: host exit $?"
            $b/host -k s01-s12 -n 2^30 --scan-type f32 --json "$out/ladder/f32.json" --plots "$out/ladder/charts" \
              > "$out/ladder/f32.txt" 2> "$out/ladder/f32.progress"
            echo "f32: host exit $?"
            $b/host -k s01-s12 -n 2^30 --exclusive --json "$out/ladder/exclusive.json" --plots "$out/ladder/charts" \
              > "$out/ladder/exclusive.txt" 2> "$out/ladder/exclusive.progress"
            echo "exclusive: host exit $?"
            grep -h "WRONG" "$out"/ladder/*.txt | head ;;
    quick) $b/host -k scan -n 2^20,2^30 > "$out/quick.txt" 2> "$out/quick.progress"; echo "quick: host exit $?"
           cat "$out/quick.txt" ;;
    blocks) for blk in 128 256 512; do
              $b/host -k s08,s09,s10 --twins off -n 2^20,2^24,2^30 --block $blk > "$out/blocks-$blk.txt" 2> "$out/blocks-$blk.progress"
              echo "block $blk: host exit $?"; grep -E "^(s0|s1|CUB|copy)" "$out/blocks-$blk.txt"
            done ;;
    variants) # bundles built with other constants (a prefetch distance, a tile size), each
              # host and ptx/ copied to dist/exp/<name>/, timed beside the bundle's own
           export GPU_KERNELS_CUB_LIBRARY=$PWD/$b/cub/libscan_cub.so
           for dir in $b dist/exp/*; do
             name=$(basename "$dir")
             $dir/host --ptx-dir $dir/ptx -k s10,s11,s12,s14 --twins off -n 2^20,2^24,2^30 > "$out/variant-$name.txt" 2> "$out/variant-$name.progress"
             echo "$name: host exit $?"; grep -E "^(s1|CUB|copy)" "$out/variant-$name.txt"
           done ;;
    sweep) $b/host -k s11,s12 --twins off -n 2^16,2^17,2^18,2^19,2^20,2^21,2^22,2^23,2^24,2^25,2^26,2^27,2^28,2^29,2^30 \
             --json "$out/sweep.json" > "$out/sweep.txt" 2> "$out/sweep.progress"; echo "sweep: host exit $?" ;;
    sanitize) SANITIZE_LOGS="$out/sanitize" $b/run.sh --sanitize --tool memcheck,racecheck,synccheck scan/ \
                -- --skip cpp_twin --skip scan/cub 2>&1 | tail -16 ;;
    harness) nvcc -O3 -std=c++17 -arch=sm_90a -I twins docs/runs/2026-11-29-scan-h200/twin-harness.cu \
               -o "$out/harness" > "$out/harness-build.log" 2>&1 || { echo "harness: nvcc failed"; tail "$out/harness-build.log"; continue; }
             "$out/harness" | tee "$out/harness.txt"; rm -f "$out/harness" ;;
    pack) tar czf "$out.tgz" -C "$(dirname "$out")" "$(basename "$out")" && echo "packed $out.tgz" ;;
    *) echo "unknown part $part"; exit 2 ;;
  esac
done

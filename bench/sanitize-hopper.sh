#!/usr/bin/env bash
# compute-sanitizer's memcheck, racecheck and synccheck over the GPU tests of the given
# GEMM steps (each test checks the step on every awkward shape), one line per tool and test.
# Usage (from the repository root, after `cargo xtask bundle`):
#   bench/sanitize-hopper.sh OUTDIR w03_persistent_f16 w04_multicast_f16 …
set -uo pipefail
out=${1:?output folder}; shift
b=dist/gpu-bundle
export GPU_KERNELS_PTX_DIR="$PWD/$b/ptx"
# racecheck's buffer of raw hazards: see RACECHECK_HAZARD_BUFFER in host/src/sanitize/mod.rs
export NV_COMPUTE_SANITIZER_MAX_RACECHECK_HAZARDS=${NV_COMPUTE_SANITIZER_MAX_RACECHECK_HAZARDS:-20000000}
mkdir -p "$out"
for kernel in "$@"; do
  for tool in memcheck racecheck synccheck; do
    log="$out/$tool-$kernel.log"
    timeout 240 compute-sanitizer --tool "$tool" --print-limit 10 "$b/tests/gpu" --exact "$kernel/awkward_shapes" \
      --test-threads=1 > "$log" 2>&1
    status=$?
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)
    result=$(grep -E "^test result" "$log" | tail -1)
    echo "$tool $kernel: exit $status; ${summary:-no summary}; ${result:-no test result}"
  done
done

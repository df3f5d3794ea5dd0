#!/usr/bin/env bash
# Builds the CUB scan/select library for the Rust host (bench/cub/scan_library.cu) as
# OUTDIR/libscan_cub.so, for sm_90 and sm_80 plus compute_90 PTX, with the CUDA runtime linked
# statically (the .so needs only libcuda at run time) and only its six C symbols exported; and
# beside it the check driver OUTDIR/scan_library_check (bench/cub/scan_library_check.cu).
#
#   bench/cub/build-scan-library.sh [OUTDIR]          # default OUTDIR: dist/cub (repository root)
#   OUTDIR/scan_library_check [OUTDIR/libscan_cub.so] [--big]   # PASS or FAIL, exit 0 or 1
#
# nvcc is $NVCC, else the one on PATH, else $CUDA_HOME/bin/nvcc, else /usr/local/cuda/bin/nvcc.
# CUB is the toolkit's (CUDA 13 keeps CCCL in include/cccl, which nvcc searches itself);
# CCCL_INCLUDE=/path/to/dir/holding/cub puts another CCCL first; NVCC_EXTRA_FLAGS are appended.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/dist/cub}

nvcc=${NVCC:-}
if [[ -z $nvcc ]]; then
  if command -v nvcc >/dev/null 2>&1; then nvcc=$(command -v nvcc)
  elif [[ -n ${CUDA_HOME:-} && -x $CUDA_HOME/bin/nvcc ]]; then nvcc=$CUDA_HOME/bin/nvcc
  elif [[ -x /usr/local/cuda/bin/nvcc ]]; then nvcc=/usr/local/cuda/bin/nvcc
  fi
fi
if [[ -z $nvcc || ! -x $nvcc ]]; then
  echo "build-scan-library: nvcc not found (not \$NVCC, not on PATH, not in \$CUDA_HOME/bin or" \
       "/usr/local/cuda/bin): install the CUDA toolkit or set NVCC" >&2
  exit 1
fi

includes=()
[[ -n ${CCCL_INCLUDE:-} ]] && includes=(-I"$CCCL_INCLUDE")
read -r -a extra <<< "${NVCC_EXTRA_FLAGS:-}"

# CUB present? Its version, from the preprocessor.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '#include <cub/version.cuh>\n' > "$tmp/probe.cu"
if ! "$nvcc" -std=c++17 "${includes[@]}" "${extra[@]}" -E -Xcompiler -dM -x cu "$tmp/probe.cu" \
     -o "$tmp/probe.i" 2> "$tmp/probe.err"; then
  echo "build-scan-library: CUB not found by $nvcc (<cub/version.cuh>; CUDA 13 ships it in" \
       "include/cccl; or set CCCL_INCLUDE):" >&2
  sed 's/^/  /' "$tmp/probe.err" >&2
  exit 1
fi
cub=$(sed -n 's/^#define CUB_VERSION \([0-9][0-9]*\).*/\1/p' "$tmp/probe.i" | head -1)
if [[ -z $cub ]]; then
  echo "build-scan-library: <cub/version.cuh> found but CUB_VERSION is not defined" >&2
  exit 1
fi
echo "build-scan-library: $("$nvcc" --version | tail -1), CUB $((cub / 100000)).$((cub / 100 % 1000)).$((cub % 100)) ($cub)"

mkdir -p "$out"
set -x
"$nvcc" -O3 -std=c++17 -shared -Xcompiler -fPIC -Xcompiler -fvisibility=hidden \
  -Xlinker --exclude-libs,ALL -cudart static \
  -gencode arch=compute_90,code=sm_90 -gencode arch=compute_80,code=sm_80 \
  -gencode arch=compute_90,code=compute_90 \
  "${includes[@]}" "${extra[@]}" -o "$out/libscan_cub.so" "$here/scan_library.cu"
"$nvcc" -O2 -std=c++17 -x c++ -cudart none "${includes[@]}" "${extra[@]}" \
  -o "$out/scan_library_check" "$here/scan_library_check.cu" -ldl
{ set +x; } 2>/dev/null

if command -v nm >/dev/null 2>&1; then
  want="scan_cub_version scan_cub_workspace scan_cub_run select_cub_workspace select_cub_run scan_cub_error_string"
  have=$(nm -D --defined-only "$out/libscan_cub.so" | awk '$2 == "T" { print $3 }')
  for s in $want; do
    if ! grep -qx "$s" <<< "$have"; then
      echo "build-scan-library: $out/libscan_cub.so does not export $s" >&2
      exit 1
    fi
  done
  others=$(grep -vxF -e "${want// /$'\n'}" <<< "$have" || true)
  [[ -n $others ]] && echo "build-scan-library: note, also exported: $(tr '\n' ' ' <<< "$others")"
fi
echo "build-scan-library: built $out/libscan_cub.so and $out/scan_library_check"

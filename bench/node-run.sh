#!/usr/bin/env bash
# The node probes on every GPU of a machine, from the bundle (`cargo xtask bundle`, carried as
# dist/gpu-bundle): m1 over every ordered pair of GPUs, m2 at every GPU count beside PyTorch's
# torch.distributed, m3's sum over 1, 2, 4, ... GPUs. NVLink multicast stays off throughout.
# Usage (from the repository root): bench/node-run.sh OUTDIR [PART...]
#   info      the GPUs, their driver, and how they are linked (nvidia-smi topo -m)
#   tests     the node probes' GPU tests: every path of every pair, the all-reduce and the
#             sharded sum at every GPU count, on awkward sizes
#   probes    host -k m: the tables (node.txt), the records (node.json), the charts (charts/)
#   torch     bench/allreduce-torch.py at the same GPU counts; its figures go into node.json
#             beside the host's
#   memcheck  compute-sanitizer memcheck over the node probes' tests; NCCL's own CUDA API
#             errors (which it provokes and handles) are not reported, memory errors are
# Default: info tests probes torch memcheck.
set -uo pipefail
out=${1:?output folder}; shift
parts=${*:-"info tests probes torch memcheck"}
b=dist/gpu-bundle
export GPU_KERNELS_PTX_DIR="$PWD/$b/ptx"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
mkdir -p "$out"
for part in $parts; do
  echo "===== $part"
  case $part in
    info) nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw,memory.total \
            --format=csv | tee "$out/info.txt"
          nvidia-smi topo -m | tee -a "$out/info.txt" ;;
    tests) for probe in m1_ m2_ m3_; do
             timeout 300 $b/tests/gpu --test-threads=1 $probe >> "$out/tests.log" 2>&1
             echo "tests $probe: exit $?"
           done
           grep -E "^test |^test result|FAILED|panicked|ignored" "$out/tests.log" | head -20 ;;
    probes) timeout 480 $b/host -k m --json "$out/node.json" --plots "$out/charts" > "$out/node.txt" 2> "$out/node.progress"
            echo "host exit $?"; grep -E "^WRONG" "$out/node.txt" | head
            grep -A14 -E "every ordered pair|GB/s from each GPU \(row\) to each \(column\), copy \(peer access on\)" "$out/node.txt" | head -40
            grep -E "^(i32|f32|[0-9])" "$out/node.txt" | grep -E " 1073741824 | 4294967296 " | head -12
            grep -E "^[0-9]+ +[0-9]{8,}" "$out/node.txt" | tail -12 ;;
    torch) timeout 400 python3 bench/allreduce-torch.py --records "$out/node.json" > "$out/torch.txt" 2> "$out/torch.err"
           echo "torch exit $?"; tail -3 "$out/torch.err"; grep -E "torch.distributed|1073741824|beside" "$out/torch.txt" ;;
    memcheck) for probe in m1_ m2_ m3_; do
                timeout 300 compute-sanitizer --tool memcheck --report-api-errors no --print-limit 20 \
                  $b/tests/gpu --test-threads=1 $probe > "$out/memcheck-$probe.log" 2>&1
                echo "memcheck $probe: exit $?; $(grep -E 'ERROR SUMMARY' "$out/memcheck-$probe.log")"
              done ;;
    *) echo "unknown part $part"; exit 2 ;;
  esac
done

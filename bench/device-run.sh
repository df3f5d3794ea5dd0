#!/usr/bin/env bash
# One call on a GPU machine: the GPU tests, the ladder at 2^30 and at small sizes, the
# single-launch kernel at every power of two from 2^16 to 2^30 beside CUB, and
# compute-sanitizer's memcheck, racecheck and synccheck on every kernel.
# Usage (from the repository root, after `cargo xtask bundle`): bench/device-run.sh OUTDIR [parts]
set -uo pipefail
out=${1:?output folder}; shift
parts=${*:-"info tests ladder sweep cub errors sanitize"}  # also: suite charts probes gemm gemm-small gemm-large gemm-dram t04-ncu sass sanitize-tests stream-k stream-k-sanitize clusters
b=dist/gpu-bundle
powers=2^16,2^17,2^18,2^19,2^20,2^21,2^22,2^23,2^24,2^25,2^26,2^27,2^28,2^29,2^30
mkdir -p "$out"
for part in $parts; do
  echo "===== $part"
  case $part in
    info) nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.mem,temperature.gpu,power.draw --format=csv ;;
    tests) $b/run.sh --tests-only 2>&1 | tee "$out/tests.log" | grep -v "^test .* ok$" ;;
    ladder) $b/host -n 2^30 2>&1 | tee "$out/ladder-2p30.txt"
            $b/host -n 2^16,2^20,2^24 --reps 100 2>&1 | tee "$out/ladder-small.txt" ;;
    sweep) $b/host -k x2,x3,x4 --reps 100 -n $powers 2>&1 | tee "$out/sweep.txt" ;;
    cub) nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -o /tmp/cub_reduce bench/cub/reduce_sum.cu && /tmp/cub_reduce 100 16 30 2>&1 | tee "$out/cub.txt" ;;
    suite) # the default run, everything, with the machine-readable results and the plots
            $b/host --json "$out/results.json" --plots "$out" > "$out/suite.txt" 2> /tmp/suite-progress.log
            echo "host exit $?"; grep -E "^WRONG" "$out/suite.txt" ;;
    charts) # both ladders with their charts (reduce-ladder-*.svg, gemm-*.svg): sums at 2^20 and 2^30,
            # GEMM at 1024³ and 4096³ in every precision beside cuBLAS and the p8 ceilings
            $b/host -k h,v,x,g,t -n 2^20,2^30 --json "$out/charts.json" --plots "$out/charts" > "$out/charts.txt" 2> /tmp/charts-progress.log
            echo "host exit $?"; grep -E "^WRONG" "$out/charts.txt"; ls "$out/charts" ;;
    sanitize-tests) # the GPU tests (every kernel and probe at awkward sizes, less the 16 GiB one) under each tool
            export GPU_KERNELS_PTX_DIR="$PWD/$b/ptx"
            for tool in memcheck racecheck synccheck; do
              echo "== compute-sanitizer --tool $tool tests/gpu"
              timeout 170 compute-sanitizer --tool $tool --print-limit 10 $b/tests/gpu --skip n_past --test-threads=1 2>&1 | tail -3
            done ;;
    probes) $b/host -k p --json "$out/probes.json" --plots "$out" > "$out/probes.txt" 2> "$out/probes-progress.log"
            cat "$out/probes.txt" ;;
    gemm) # the GEMM ladder beside cuBLAS on the shapes of the results pages (the C++ twins are
          # left out: they double the time and were measured on their own, runs/2026-11-23-twins)
            $b/host -k g,t --twins off --gemm 1024,2048,4096,8192,4096x4096x512,8192x1024x8192,1000x1000x1000,4097x4096x4096 \
              --json "$out/gemm.json" > "$out/gemm.txt" 2> /tmp/gemm-progress.log
            echo "host exit $?" ;;
    gemm-small|gemm-large) # the same shapes as `gemm`, in two calls that each fit a 10-minute limit
            if [ $part = gemm-small ]; then shapes=1024,2048,1000x1000x1000,4096x4096x512; else shapes=4096,8192,8192x1024x8192,4097x4096x4096; fi
            $b/host -k g,t --twins off --gemm $shapes --json "$out/$part.json" > "$out/$part.txt" 2> /tmp/$part-progress.log
            echo "host exit $?" ;;
    t4-ncu) # why t04 stays under the mma.sync ceiling: its tensor pipe, issue slots, stalls and shared-memory traffic at 4096³
            timeout 300 ncu --clock-control none --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats \
              --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis_Tables \
              --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed.sum,smsp__inst_executed_pipe_tensor_op_hmma.sum \
              -k "regex:t04_warp_tile_f16|t03_pipeline_f16" $b/host -k t03_pipeline_f16,t04_warp_tile_f16 --gemm 4096 --verify-only > "$out/ncu-t4.txt" 2>&1
            grep -E "^  t|Duration|SM Frequency|Compute \(SM\) Throughput|Issue Slots Busy|Registers Per|Achieved Occupancy|Stall|hmma|bank_conflicts|wavefronts|inst_executed" "$out/ncu-t4.txt" | head -60 ;;
    stream-k) # the steps with a workspace (g11, w07, w11–w13) and their twins on the awkward shapes, each
            # under a time limit (an owner waits for flags: a wrong schedule hangs rather than
            # fails), then three rounds of timing at 4096³, 2048³ and 4097 rows beside w06, w08
            # and cuBLAS (the sanitizers are `stream-k-sanitize`, a call of their own)
            export GPU_KERNELS_PTX_DIR="$PWD/$b/ptx"
            for f in g11_split_k w07_stream_k w11_aligned_stream_k w12_pipelined_fixup w13_shares_first; do
              timeout 150 $b/tests/gpu $f --test-threads=1 > "$out/tests-$f.log" 2>&1
              echo "tests $f: exit $?; $(grep -E '^test result' "$out/tests-$f.log")"; grep -E "FAIL|panicked" "$out/tests-$f.log" | head -4
            done
            # the SM clock, power and clock-event reasons every 100 ms while the rounds run: whether
            # 4096³ runs at a power cap (then cuBLAS and every step share one energy budget)
            fields=timestamp,clocks.sm,power.draw,power.limit,temperature.gpu
            reasons=clocks_event_reasons.active  # older drivers: clocks_throttle_reasons.active
            nvidia-smi --query-gpu=$reasons --format=csv > /dev/null 2>&1 || reasons=clocks_throttle_reasons.active
            nvidia-smi --query-gpu=$fields,$reasons --format=csv,noheader -lms 100 > "$out/clocks.csv" 2>&1 &
            logger=$!
            for round in 1 2 3; do
              timeout 150 $b/host -k w06,w08,w11,w12,w13 --twins off --gemm 4096,2048,4097x4096x4096 --min-samples 50 \
                --json "$out/stream-k-$round.json" > "$out/stream-k-$round.txt" 2>/dev/null
              echo "round $round: host exit $?"
              grep -E "^(cuBLAS|t1[0-7]_)|GEMM" "$out/stream-k-$round.txt" | awk '{print $1, $2, $(NF-7)}' | sed 's/(f32 accumulate) GEMM C = A·B, M×N×K =//'
            done
            kill $logger 2>/dev/null
            echo "clocks: $(wc -l < "$out/clocks.csv") samples; SM MHz min/median/max, W max:"
            awk -F', ' '$2+0 > 0 { print $2+0, $3+0 }' "$out/clocks.csv" | sort -n | awk '{ c[NR] = $1; if ($2 > w) w = $2 } END { if (NR) print c[1], c[int((NR + 1) / 2)], c[NR], w }'
            cut -d, -f6- "$out/clocks.csv" | sort | uniq -c | sort -rn | head -4 ;;
    clusters) # how many clusters of 1, 2, 3, 4, 6 and 8 of w08's blocks fit at once (do clusters of four keep every SM?)
            python3 bench/max-clusters.py $b/ptx/sm_90a/kernels.ptx 2>&1 | tee "$out/clusters.txt" ;;
    stream-k-sanitize) # memcheck, racecheck and synccheck on the steps with a workspace, w07 and w11–w13
            # (f16: the bf16 entries run the same code) and g11
            bench/sanitize-hopper.sh "$out/sanitize" g11_split_k w07_stream_k_f16 w11_aligned_stream_k_f16 w12_pipelined_fixup_f16 w13_shares_first_f16 ;;
    gemm-dram) # w01, w02 and w08 in BF16 at 8192³ under ncu: DRAM traffic of one block per tile against a grouped walk
            timeout 300 ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis \
              -k "regex:w01_wgmma_bf16|w02_tma_bf16|w08_latency_trims_bf16" $b/host -k w01_wgmma_bf16,w02_tma_bf16,w08_latency_trims_bf16 \
              --gemm 8192 --verify-only > "$out/ncu-dram.txt" 2>&1
            grep -E "^  t|Duration|DRAM Throughput|L2 Hit Rate|SM Frequency" "$out/ncu-dram.txt" ;;
    sass) # the divergence kernels in SASS: branches and their reconvergence (BSSY/BSYNC) or selects
            ptxas -arch=sm_90 $b/ptx/sm_90/kernels.ptx -o /tmp/kernels.cubin
            for k in uniform_by_warp diverge_by_lane predicated_by_lane; do
              cuobjdump -sass -fun $k /tmp/kernels.cubin > /tmp/$k.sass
              echo "$k: $(grep -cE '\bBRA\b' /tmp/$k.sass) BRA, $(grep -cE '\bBSSY\b' /tmp/$k.sass) BSSY, $(grep -cE '\bBSYNC\b' /tmp/$k.sass) BSYNC, $(grep -cE 'FSEL|\bSEL\b' /tmp/$k.sass) SEL/FSEL, $(grep -cE '@!?P[0-9]' /tmp/$k.sass) guarded, $(grep -cE 'FMUL|FADD|FFMA' /tmp/$k.sass) FMUL/FADD/FFMA"
            done
            # the Hopper GEMM steps: warpgroup MMAs, tensor copies and block barriers in SASS
            ptxas -arch=sm_90a $b/ptx/sm_90a/kernels.ptx -o /tmp/kernels90a.cubin
            for k in w01_wgmma_f16 w02_tma_f16 w03_persistent_f16 w04_multicast_f16 w05_tma_store_f16 w06_setmaxnreg_f16 w07_stream_k_f16 w08_latency_trims_f16 w09_small_tile_f16 w10_narrow_tile_f16 w11_aligned_stream_k_f16 w12_pipelined_fixup_f16 w13_shares_first_f16; do
              cuobjdump -sass -fun $k /tmp/kernels90a.cubin > /tmp/$k.sass
              echo "$k: $(grep -c HGMMA /tmp/$k.sass) HGMMA ($(grep -m1 -o 'HGMMA[.0-9a-zA-Z]*' /tmp/$k.sass)), $(grep -c UTMALDG /tmp/$k.sass) UTMALDG ($(grep -c 'UTMALDG.*MULTICAST' /tmp/$k.sass) multicast), $(grep -c UTMASTG /tmp/$k.sass) UTMASTG, $(grep -c LDGSTS /tmp/$k.sass) LDGSTS, $(grep -c 'BAR.SYNC' /tmp/$k.sass) BAR.SYNC, $(grep -c 'USETMAXREG' /tmp/$k.sass) USETMAXREG, $(grep -cE 'MEMBAR' /tmp/$k.sass) MEMBAR, $(grep -cE '\bSTL\b|\bLDL\b' /tmp/$k.sass) STL/LDL"
            done ;;
    errors) # every refusal: a message that says what to do, a non-zero exit, no table
            cp -r $b/ptx /tmp/stale-ptx && echo 0000000000000000 > /tmp/stale-ptx/fingerprint
            for args in "--device 7" "-n 2^36" "--block 100" "-k nope" "--ptx-dir /nonexistent" "--ptx-dir /tmp/stale-ptx"; do
              echo "\$ host $args --verify-only"; $b/host $args --verify-only -n 1000 2>&1 | grep -v "^timing\|^preparing"; echo "exit ${PIPESTATUS[0]}"
            done 2>&1 | tee "$out/errors.txt" ;;
    sanitize) for tool in memcheck racecheck synccheck; do
                echo "== compute-sanitizer --tool $tool" >> "$out/sanitize.txt"
                compute-sanitizer --tool $tool --print-limit 10 $b/host --verify-only -n 1000,2^20+3 2>&1 | tee -a "$out/sanitize.txt" | tail -4
              done ;;
  esac
done

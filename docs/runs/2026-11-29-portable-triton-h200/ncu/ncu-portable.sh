#!/usr/bin/env bash
# ncu on t05, the laboratory's v and Triton's like-for-like product (f16, 4096³), one launch each.
set -uo pipefail
o=$1; b=dist/lab-bundle; sm80=/tmp/sm80; mkdir -p $sm80 && cp -r $b/ptx/sm_80 $b/ptx/fingerprint $sm80/
m=gpu__time_duration.sum,sm__cycles_active.avg,smsp__inst_executed.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,lts__t_sector_hit_rate.pct,lts__t_sectors.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,launch__registers_per_thread,launch__occupancy_limit_registers,sm__warps_active.avg.per_cycle_active
s=smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_wait.ratio,smsp__average_warp_latency_issue_stalled_math_pipe_throttle.ratio,smsp__average_warp_latency_issue_stalled_mio_throttle.ratio,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio,smsp__average_warp_latency_issue_stalled_not_selected.ratio,smsp__average_warp_latency_issue_stalled_selected.ratio,smsp__average_warp_latency_issue_stalled_dispatch_stall.ratio,smsp__average_warp_latency_issue_stalled_tex_throttle.ratio,smsp__average_warp_latency_issue_stalled_no_instruction.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
timeout 200 ncu --clock-control none --metrics $m,$s -k 'regex:t05_lab_v_f16|t05_fragment_pipeline_f16' -c 2 \
  $b/host --ptx-dir $sm80 -k t05_lab_v_f16,t05_fragment_pipeline_f16 --twins off --gemm 4096 > $o/ncu-ours.txt 2>&1
echo "ours: $?"
timeout 200 ncu --clock-control none --metrics $m,$s -k regex:matmul -c 1 \
  python3 bench/gemm-triton.py --configs 128x256x64w8s3 --sizes 4096 --types f16 --out f32 --group 1 --heat 0 \
  > $o/ncu-triton.txt 2>&1
echo "triton: $?"

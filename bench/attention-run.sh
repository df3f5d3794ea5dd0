#!/usr/bin/env bash
# The attention ladder on a GPU machine, from the bundle (`cargo xtask bundle`, carried as
# dist/gpu-bundle): the family's GPU tests, the ladder with cuDNN and FlashAttention-2 timed
# beside it by PyTorch (bench/attention-sdpa.py), and the sanitizers on every attention kernel.
# Usage (from the repository root): [HEAT=SECONDS] bench/attention-run.sh OUTDIR PART...
#   info        the GPU, its driver, clocks and power now
#   tests       the attention family's GPU tests (every step and twin, past 2^31 elements)
#   tests-small the same but the test past 2^31 elements (14 GiB)
#   quick       a02–a10 at seq 1k and 4k, head dims 64 and 128, both masks, bf16 (no SDPA)
#   ladder      the ladder in FlashAttention-3's setting (16k tokens, hidden 2048), with cuDNN and
#               FlashAttention-2 timed beside it by bench/attention-sdpa.py, records (JSON) and
#               tables in OUTDIR/ladder: a02–a10 in bf16 at seq 512 to 16k, both masks, head dim
#               64 (bf16-d64.json) and 128 (bf16-d128.json); a02–a10 in f16 at 1k, 4k, 16k;
#               a01 at 512, 1k, 4k (its scores need seq² memory). ladder-bf16-d64,
#               ladder-bf16-d128, ladder-f16, ladder-a01: one of the four (heated, on an H200:
#               about 3.5, 4 and 6 minutes for the first three, 1.5 for a01)
#   interleave  step ${STEP:-a10} and cuDNN one after the other three times over (host, then
#               the script on the same shapes, each heated): ${ATTN_TYPE:-bf16}, head dims
#               ${HEAD_DIMS:-128} (space-separated), seq ${SEQS:-4k,16k}, both masks; each
#               round's pair and the median ratio (OUTDIR/interleave/). At the power cap the one
#               timed first on a cool GPU gets the better clock; three rounds show the spread
#               between runs that one comparison cannot
#   step        step ${STEP:-a10} alone (${ATTN_TYPE:-bf16}, both masks), head dims 64 and 128, seq 512 to 16k,
#               with cuDNN: OUTDIR/step/d64.json, d128.json and their tables
#   batch1      batch 1, 16 heads of 128, seq 512 to 16k: launch and tail effects
#   heat-check  a09 at head dim 128, no mask, seq 16k (a 3 ms launch at the power cap) in eight
#               processes, alternately with --heat 0 and --heat ${HEAT_CHECK:-0.5}: each one's
#               TFLOP/s, median and fastest repetition, repetitions and SM clock at the end
#               (OUTDIR/heat-check/); heated, every process should report the capped clock's figure
#   a07         a07 against a06, the step it extends, with cuDNN beside both: bf16, seq 512 to
#               16k, head dims 64 and 128, both masks; OUTDIR/a07.json, and a table of a07 / a06
#               and of each / cuDNN
#   a08         a08 against a07, the step it extends, in two rounds of opposite order (a07 first,
#               then a08 first), with cuDNN beside them: bf16, seq 1k, 2k, 4k, 16k, head dims 64
#               and 128, both masks; OUTDIR/a08/*.json and a table of a08 / a07 and of each / cuDNN
#   a08-long    the same at seq 16k alone, in four rounds of alternating order (a step's long-sequence
#               figures run at the power cap, where the one timed first gets the better clock);
#               OUTDIR/a08-long/*.json and the same table
#   a09, a09-long  the same for a09 against a08
#   a10         the same for a10 against a09 in four rounds (at head dim 64 a10 is a09's kernel: a
#               control)
#   a08-record  a07 and a08 with their C++ twins and cuDNN, bf16, seq 512 to 16k, head dims 64 and
#               128, both masks: the record OUTDIR/attention-a08.json (docs/results/<gpu>/)
#   a09-record  a08 and a09 the same way (OUTDIR/attention-a09.json), and in f16 at seq 1k, 4k,
#               16k (OUTDIR/attention-a09-f16.json)
#   a10-record  a09 and a10 with their C++ twins and cuDNN at head dim 128 (where they differ), bf16
#               at seq 512 to 16k
#               (OUTDIR/attention-a10.json) and f16 at 1k, 4k, 16k (OUTDIR/attention-a10-f16.json)
#   a03-record  the portable step a03 with its C++ twin, cuDNN and FlashAttention-2 (its goal's
#               baseline), bf16 at seq 512 to 16k (OUTDIR/attention-a03.json), f16 at 1k, 4k, 16k
#               (OUTDIR/attention-a03-f16.json)
#   a03-d256    the same at head dim 256 (8 heads of 256 in the hidden 2048), the one head dim past 128
#               a tensor-core step takes (OUTDIR/attention-d256.json, -d256-f16.json)
#   pipes       ncu on a07 (bf16, one launch each, verify-only): head dims 64 and 128, seq 1k and 4k,
#               both masks: how busy the tensor pipe, the XU pipe (MUFU: ex2, the softmax's
#               exponentials at 16 per clock per SM) and the FMA pipe are, and what the warps
#               wait on; OUTDIR/pipes.txt. (On sm_90 the tensor pipe's busy cycles, wgmma's
#               included, read as sm__pipe_tensor_op_hmma_cycles_active; the _gmma_cycles name
#               reads n/a there.) Whether a head dim 64 tile is held by its ex2s (as
#               many XU cycles as tensor cycles by arithmetic: 128 x 128 exponentials against
#               2 x 128 x 128 x 64 multiply-adds per key tile) decides whether computing part of
#               them on the FMA pipe pays.
#   hotspots    ncu's warp-state sampling per SASS instruction of a07 (bf16, one launch each) at
#               seq 1k: head dim 128 without a mask and 64 with the causal one, the two furthest
#               below cuDNN there; OUTDIR/hotspots-*.csv (ncu's source page) and a summary of the
#               samples by instruction kind (wgmma, its waits, mbarrier waits, exponentials,
#               barriers, stores: what the epilogue and the pipeline's edges cost at 1k)
#   cudnn-ncu   ncu on cuDNN's own kernel (PyTorch's SDPA, bench/attention-sdpa.py --shapes) and on
#               a08, bf16, seq 4k, no mask, head dims 64 and 128: each one's launch (grid, block,
#               registers, shared memory), pipes and stalls side by side; OUTDIR/cudnn-ncu.txt
#   traffic     ncu's full set on cuDNN's kernel and on the steps ${TRAFFIC_STEPS:-a10} (bf16, head dim
#               ${STREAM_HEAD_DIM:-128}, hidden 2048, no mask, 1k keys, one launch each), raw
#               (OUTDIR/traffic-NAME.csv, about 2200 metrics), and each step against cuDNN metric
#               by metric (bench/ncu-diff.py: OUTDIR/traffic-diff-STEP.txt; its totals printed:
#               time, cycles, `wgmma`, bytes into the SMs, through L2 and from DRAM, instructions
#               by pipe): what each moves per launch, which costs energy that cycles do not show
#               (the power cap turns it into clock)
#   stream      the instruction streams of cuDNN's kernel and of the steps ${TRAFFIC_STEPS:-a10} at the
#               traffic part's shape (head dim ${STREAM_HEAD_DIM:-128}): ncu's source page (every SASS
#               instruction with its executions and warp-state samples), OUTDIR/stream-NAME.csv.gz,
#               and bench/sass-hotspots.py's summary of each: what the same counts cannot show, the
#               order the work is issued in
#   sass        ptxas and cuobjdump on the bundle's PTX, one entry at a time (bf16, a05 on): each
#               Hopper kernel's registers, spilled bytes and R2UR moves (values carried into
#               uniform registers before a wgmma: a07 has 53 at head dim 128; a persistent loop that
#               loses ptxas's uniform datapath shows it here first); OUTDIR/sass.txt
#   sanitize    the attention family's GPU tests of the Rust steps (less the 14 GiB one and the
#               twins) under memcheck, racecheck and synccheck (host sanitize)
#   sanitize-hopper  the same for the Hopper steps alone, a10 first, then a09, a08, a07, a06 and a05
#   power       the clock and power each kernel holds at the power cap: the steps ${POWER_STEPS:-a05-a10}
#               in one process, each heated ${POWER_HEAT:-3} s, then cuDNN the same, ${POWER_TYPE:-bf16} at
#               ${POWER_SHAPE:-128 none 1k} (head dim, mask, seq; several separated by `;`, each
#               in a folder of its own), nvidia-smi every 50 ms (clock, power, temperature and what
#               holds the clock);
#               OUTDIR/power/ (the trace, the stamped progress) and bench/power-trace.py's table:
#               two kernels that take the same cycles can differ in the clock the cap leaves them
set -uo pipefail
. "$(dirname "$0")/power-lib.sh"
out=${1:?output folder}; shift
b=dist/gpu-bundle
export GPU_KERNELS_PTX_DIR="$PWD/$b/ptx"
# Seconds each timed kernel (ours and PyTorch's) runs untimed first, so that it is timed at the
# clock it holds under steady load, where the power cap sets it (see docs/records.md): 0.5 by
# default, enough on an H200; HEAT=0 times from a cool start, as the records before 2026-11-29.
heat=${HEAT:-0.5}
# Launches (ours) and calls (PyTorch's) queued back to back in each timed sample, and in the
# heating: the GPU never idles between them, so that both sides are timed at the clock their
# own power buys. With 1, each sample is preceded by the host's wait or, in
# bench/attention-sdpa.py, a spin that hides Python's launch time, and at the power cap those
# idle gaps lend the kernel clock: PyTorch's gaps are longer than the host's, which favoured
# cuDNN by 1–12 % at 1k–4k keys (docs/records.md). 8 by default from 2026-11-29 on.
b2b=${BACK_TO_BACK:-8}
# The head dim of the traffic and stream parts' shape.
stream_dim=${STREAM_HEAD_DIM:-128}
mkdir -p "$out"
# ncu (its options first) on one launch of cuDNN's kernel at the traffic and stream parts'
# shape (bf16, batch 16, hidden 2048, 1k keys, head dim $stream_dim, no mask), past PyTorch's
# warm-up.
ncu_cudnn() {
  timeout 200 ncu --clock-control none --launch-skip 5 --launch-count 1 -k "regex:(sdpa|fprop|flash|fmha)" "$@" \
    python3 bench/attention-sdpa.py --backends cudnn --shapes "bf16:16x$((2048 / stream_dim))x1024x$stream_dim:none" --min-time 0.01
}
# The same for step STEP (then ncu's options), checked once and not timed.
ncu_step() {
  local step=$1; shift
  timeout 120 ncu --clock-control none --launch-count 1 -k "regex:^${step}_" "$@" \
    $b/host -k "$step" --twins off --verify-only --attn-type bf16 --head-dim "$stream_dim" --seq 1k --mask none
}
# ncu's source page of one launch (every SASS instruction with its executions and warp-state
# samples) into OUTDIR/NAME.csv and bench/sass-hotspots.py's summary of it, printed and in
# OUTDIR/NAME-summary.txt. NAME, then the command that runs ncu given its options.
source_page() {
  local name=$1; shift
  "$@" --section WarpStateStats --section SourceCounters -o "$out/$name" -f > "$out/$name.log" 2>&1
  echo "$name: ncu exit $?"
  ncu --import "$out/$name.ncu-rep" --page source --csv --print-source sass > "$out/$name.csv" 2>> "$out/$name.log"
  echo "$name: source page exit $?, $(wc -l < "$out/$name.csv") lines"
  python3 bench/sass-hotspots.py "$out/$name.csv" | tee "$out/$name-summary.txt"
  rm -f "$out/$name.ncu-rep"  # tens of MB, and no ncu here to read it
}
# Steps STEPS with their C++ twins and cuDNN (or the SDPA backends BACKENDS), into the record
# OUTDIR/NAME.json and its tables.
record() { # steps name, then host options
  local steps=$1 name=$2 backends=${BACKENDS:-cudnn}; shift 2
  $b/host --heat "$heat" --back-to-back "$b2b" -k "$steps" --json "$out/$name.json" "$@" > "$out/$name.txt" 2> "$out/$name.progress"
  echo "$name: host exit $?"; grep -h "WRONG" "$out/$name.txt" | head
  python3 bench/attention-sdpa.py --heat "$heat" --back-to-back "$b2b" --backends "$backends" "$out/$name.json" > "$out/$name-sdpa.txt" 2>&1
  echo "$name sdpa: exit $?"; grep -v "^\[\|cuDNN:" "$out/$name-sdpa.txt"
}

# Step OLD against step NEW in ROUNDS rounds of alternating order at SEQS, cuDNN beside them,
# into DIR.
against() { # old new dir seqs rounds
  local old=$1 new=$2 dir=$3 seqs=$4 rounds=$5 round order
  mkdir -p "$dir"
  for round in $(seq 1 "$rounds"); do
    if [ $((round % 2)) = 1 ]; then order=$old,$new; else order=$new,$old; fi
    $b/host --heat "$heat" --back-to-back "$b2b" -k $order --twins off --seq "$seqs" --json "$dir/$round.json" > "$dir/$round.txt" 2> "$dir/$round.progress"
    echo "round $round ($order): host exit $?"
  done
  grep -h "WRONG" "$dir"/*.txt | head
  python3 bench/attention-sdpa.py --heat "$heat" --back-to-back "$b2b" --backends cudnn "$dir/1.json" > "$dir/1-sdpa.txt" 2>&1
  echo "sdpa: exit $?"
  python3 - "$dir" "$old" "$new" <<'PY'
import json, statistics, sys
from pathlib import Path
old, new = sys.argv[2], sys.argv[3]
rows, cudnn = {}, {}
for f in sorted(Path(sys.argv[1]).glob("[0-9].json")):
    for r in json.load(open(f))["records"]:
        if r.get("kernel", "")[:3] in (old, new) and r.get("figure"):
            d = r["details"]
            key = (d["head_dim"], d["mask"], d["seq_q"])
            rows.setdefault(key, {}).setdefault(r["kernel"][:3], []).append(r["figure"])
            c = (d.get("sdpa") or {}).get("cudnn", {}).get("tflops")
            if c:
                cudnn[key] = c
print(f"head dim, mask, seq: {old} and {new} TFLOP/s per round; {new} / {old} (medians); {old} and {new} / cuDNN")
for key, k in sorted(rows.items()):
    a7, a8 = k.get(old, []), k.get(new, [])
    if a7 and a8:
        m7, m8, c = statistics.median(a7), statistics.median(a8), cudnn.get(key)
        of = lambda x: f"{100 * x / c:.1f} %" if c else "-"
        print(key, " ".join(f"{x:.0f}" for x in a7), "|", " ".join(f"{x:.0f}" for x in a8),
              f"{100 * m8 / m7:.1f} %", of(m7), of(m8))
PY
}
for part in "$@"; do
  echo "===== $part"
  case $part in
    info) nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw,power.limit --format=csv
          python3 -c "import torch; print('torch', torch.__version__, 'cudnn', torch.backends.cudnn.version())" ;;
    tests-small) $b/tests/gpu --test-threads=1 attention/ --skip past_2 > "$out/tests.log" 2>&1; echo "tests exit $?"
           grep -E "^test result|FAILED|panicked|ignored|WRONG|wrong" "$out/tests.log" | head -40 ;;
    tests) $b/tests/gpu --test-threads=1 attention/ > "$out/tests.log" 2>&1; echo "tests exit $?"
           grep -E "^test result|FAILED|panicked|ignored|WRONG|wrong" "$out/tests.log" | head -40 ;;
    quick) $b/host --heat "$heat" --back-to-back "$b2b" -k a02-a10 --seq 1k,4k --json "$out/quick.json" > "$out/quick.txt" 2> "$out/quick.progress"
           echo "quick: host exit $?"; cat "$out/quick.txt" ;;
    ladder|ladder-bf16-d64|ladder-bf16-d128|ladder-f16|ladder-a01) mkdir -p "$out/ladder"
            run() { # name, then host options
              local name=$1; shift
              $b/host --heat "$heat" --back-to-back "$b2b" --timeout 3 --json "$out/ladder/$name.json" "$@" > "$out/ladder/$name.txt" 2> "$out/ladder/$name.progress"
              echo "$name: host exit $?"
              python3 bench/attention-sdpa.py --heat "$heat" --back-to-back "$b2b" "$out/ladder/$name.json" > "$out/ladder/$name-sdpa.txt" 2>&1
              echo "$name sdpa: exit $?"
            }
            for d in 64 128; do
              case $part in ladder|ladder-bf16-d$d) run bf16-d$d -k a02-a10 --head-dim $d --seq 512,1k,2k,4k,8k,16k ;; esac
            done
            case $part in ladder|ladder-f16) run f16 -k a02-a10 --seq 1k,4k,16k --attn-type f16 ;; esac
            case $part in ladder|ladder-a01) run a01 -k a01 --seq 512,1k,4k ;; esac
            grep -h "WRONG" "$out"/ladder/*.txt | head ;;
    a08) against a07 a08 "$out/a08" 1k,2k,4k,16k 2 ;;
    a08-long) against a07 a08 "$out/a08-long" 16k 4 ;;
    a09) against a08 a09 "$out/a09" 1k,2k,4k,16k 2 ;;
    a10) against a09 a10 "$out/a10" 1k,2k,4k,16k 4 ;;
    a09-long) against a08 a09 "$out/a09-long" 16k 4 ;;
    a08-record) record a07,a08 attention-a08 --seq 512,1k,2k,4k,8k,16k ;;
    a09-record) record a08,a09 attention-a09 --seq 512,1k,2k,4k,8k,16k
                record a08,a09 attention-a09-f16 --seq 1k,4k,16k --attn-type f16 ;;
    a10-record) record a09,a10 attention-a10 --seq 512,1k,2k,4k,8k,16k --head-dim 128
                record a09,a10 attention-a10-f16 --seq 1k,4k,16k --head-dim 128 --attn-type f16 ;;
    a03-record) BACKENDS=cudnn,flash record a03 attention-a03 --seq 512,1k,2k,4k,8k,16k
                BACKENDS=cudnn,flash record a03 attention-a03-f16 --seq 1k,4k,16k --attn-type f16 ;;
    a03-d256)   BACKENDS=cudnn,flash record a03 attention-d256 --head-dim 256 --seq 512,1k,2k,4k,8k,16k
                BACKENDS=cudnn,flash record a03 attention-d256-f16 --head-dim 256 --seq 1k,4k,16k --attn-type f16 ;;
    pipes) : > "$out/pipes.txt"
           for d in 64 128; do for seq in 1k 4k; do for mask in none causal; do
             echo "=== d$d seq $seq $mask" >> "$out/pipes.txt"
             timeout 300 ncu --clock-control none --launch-count 1 -k "regex:a07_persistent" \
               --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,smsp__average_warp_latency_issue_stalled_math_pipe_throttle.ratio,smsp__average_warp_latency_issue_stalled_wait.ratio,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,gpu__time_duration.sum \
               $b/host -k a07 --twins off --verify-only --attn-type bf16 --head-dim $d --seq $seq --mask $mask \
               >> "$out/pipes.txt" 2>&1
           done; done; done
           grep -E "^===|pct_of_peak|ratio|duration" "$out/pipes.txt" | head -120 ;;
    hotspots) a07_at() { # head dim, mask, then ncu's options
                local dim=$1 mask=$2; shift 2
                timeout 300 ncu --clock-control none --launch-count 1 -k "regex:a07_persistent" "$@" \
                  $b/host -k a07 --twins off --verify-only --attn-type bf16 --head-dim "$dim" --seq 1k --mask "$mask"
              }
              for shape in "128 none" "64 causal"; do
                set -- $shape
                source_page "hotspots-d$1-$2-1k" a07_at "$1" "$2"
              done ;;
    interleave) mkdir -p "$out/interleave"
            istep=${STEP:-a10}
            for round in 1 2 3; do
              for d in ${HEAD_DIMS:-128}; do
                r="$out/interleave/$round-d$d"
                $b/host --heat "$heat" --back-to-back "$b2b" -k "$istep" --twins off --attn-type "${ATTN_TYPE:-bf16}" \
                  --head-dim "$d" --seq "${SEQS:-4k,16k}" --json "$r.json" > "$r.txt" 2> "$r.progress"
                status=$?
                python3 bench/attention-sdpa.py --heat "$heat" --back-to-back "$b2b" --backends cudnn "$r.json" \
                  > "$r-sdpa.txt" 2>&1
                echo "round $round, head dim $d: host exit $status, script exit $?"
              done
            done
            python3 - "$out/interleave" "$istep" <<'PY'
import json, statistics, sys
from pathlib import Path
folder, step = Path(sys.argv[1]), sys.argv[2]
rows = {}
for f in sorted(folder.glob("[0-9]-d*.json")):
    for r in json.load(open(f))["records"]:
        if r.get("kernel", "").startswith(step + "_"):
            d = r["details"]
            key = (r.get("precision"), d["head_dim"], d["mask"], d["seq_q"])
            cudnn = (d.get("sdpa") or {}).get("cudnn", {}).get("tflops")
            rows.setdefault(key, []).append((r["figure"], cudnn))
print(f"type, head dim, mask, seq: {step} TFLOP/s and cuDNN TFLOP/s per round ({step} first, then cuDNN), "
      f"median {step} / cuDNN")
for key, pairs in sorted(rows.items()):
    ratios = [a / c for a, c in pairs if a and c]
    median = f"{100 * statistics.median(ratios):.1f} %" if ratios else "no pair"
    print(key, " ".join(f"{a or 0:.0f}/{c or 0:.0f}" for a, c in pairs), median)
PY
            ;;
    heat-check)
            mkdir -p "$out/heat-check"
            for i in 1 2 3 4 5 6 7 8; do
              if [ $((i % 2)) = 1 ]; then h=0; else h=${HEAT_CHECK:-0.5}; fi
              $b/host --heat "$h" -k a09 --twins off --head-dim 128 --mask none --seq 16k \
                --json "$out/heat-check/$i.json" > "$out/heat-check/$i.txt" 2>&1
              echo "process $i (--heat $h): host exit $?"
            done
            python3 - "$out/heat-check" <<'PY'
import json, sys
for i in range(1, 9):
    d = json.load(open(f"{sys.argv[1]}/{i}.json"))
    r = [x for x in d["records"] if x.get("figure")][0]
    end = (d.get("conditions") or {}).get("end", {})
    print(f"process {i}: heat {d['timing'].get('heat_s', 0):g} s, {r['figure']:.0f} TFLOP/s, median "
          f"{r['median_us']:.0f} µs, fastest {r['min_us']:.0f} µs, {r['repetitions']} repetitions, "
          f"SM {end.get('sm_mhz')} MHz at the end, {', '.join(end.get('throttle') or []) or 'no clock event'}")
PY
            ;;
    step) mkdir -p "$out/step"
          for d in 64 128; do
            $b/host --heat "$heat" --back-to-back "$b2b" -k "${STEP:-a10}" --twins off --attn-type "${ATTN_TYPE:-bf16}" \
              --head-dim $d --seq 512,1k,2k,4k,8k,16k \
              --json "$out/step/d$d.json" > "$out/step/d$d.txt" 2> "$out/step/d$d.progress"
            echo "step d$d: host exit $?"; grep -h "WRONG" "$out/step/d$d.txt" | head
            python3 bench/attention-sdpa.py --heat "$heat" --back-to-back "$b2b" --backends cudnn "$out/step/d$d.json" \
              > "$out/step/d$d-sdpa.txt" 2>&1
            echo "step d$d sdpa: exit $?"; grep -v "^\[\|cuDNN:" "$out/step/d$d-sdpa.txt"
          done ;;
    batch1) $b/host --heat "$heat" --back-to-back "$b2b" -k a03-a10 --batch 1 --head-dim 128 --seq 512,1k,4k,16k --json "$out/batch1.json" \
              > "$out/batch1.txt" 2> "$out/batch1.progress"
            echo "batch1: host exit $?"
            python3 bench/attention-sdpa.py --heat "$heat" --back-to-back "$b2b" "$out/batch1.json" 2>&1 | tail -30 ;;
    a07) $b/host --heat "$heat" --back-to-back "$b2b" -k a06,a07 --twins off --seq 512,1k,2k,4k,16k --json "$out/a07.json" > "$out/a07.txt" 2> "$out/a07.progress"
         echo "a07: host exit $?"; grep -h "WRONG" "$out/a07.txt" | head
         python3 bench/attention-sdpa.py --heat "$heat" --back-to-back "$b2b" --backends cudnn "$out/a07.json" > "$out/a07-sdpa.txt" 2>&1
         echo "a07 sdpa: exit $?"
         python3 - "$out/a07.json" <<'PY'
import json, sys
rows = {}
for r in json.load(open(sys.argv[1]))["records"]:
    if r.get("kernel", "")[:3] in ("a06", "a07") and r.get("figure"):
        d = r["details"]
        cudnn = (d.get("sdpa") or {}).get("cudnn", {}).get("tflops")
        rows.setdefault((d["head_dim"], d["mask"], d["seq_q"]), {})[r["kernel"][:3]] = (r["figure"], cudnn)
print("head dim, mask, seq: a06, a07, cuDNN TFLOP/s; a07 / a06; a06 and a07 / cuDNN")
for key, k in sorted(rows.items()):
    (a6, c), (a7, _) = k.get("a06", (None, None)), k.get("a07", (None, None))
    if a6 and a7:
        of = lambda x: f"{100 * x / c:.0f} %" if c else "-"
        print(key, f"{a6:.0f} {a7:.0f} {c or 0:.0f}", f"{100 * a7 / a6:.1f} %", of(a6), of(a7))
PY
         ;;
    cudnn-ncu) metrics=sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,smsp__average_warp_latency_issue_stalled_wait.ratio,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_math_pipe_throttle.ratio,smsp__inst_executed.sum,gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,launch__shared_mem_per_block_static
               : > "$out/cudnn-ncu.txt"
               for d in 64 128; do
                 echo "=== cuDNN d$d" >> "$out/cudnn-ncu.txt"
                 timeout 200 ncu --clock-control none --launch-skip 5 --launch-count 1 -k "regex:(sdpa|fprop|flash|fmha)" \
                   --metrics $metrics python3 bench/attention-sdpa.py --heat "$heat" --back-to-back "$b2b" --backends cudnn \
                   --shapes bf16:4x$((2048 / d))x4096x$d:none --min-time 0.01 >> "$out/cudnn-ncu.txt" 2>&1
                 echo "=== a08 d$d" >> "$out/cudnn-ncu.txt"
                 timeout 120 ncu --clock-control none --launch-count 1 -k "regex:a08_tma_store" --metrics $metrics \
                   $b/host -k a08 --twins off --verify-only --attn-type bf16 --head-dim $d --seq 4k --mask none \
                   >> "$out/cudnn-ncu.txt" 2>&1
               done
               grep -E "^===|  [a-z_0-9]+ \(|sm__|smsp__|gpu__|launch__" "$out/cudnn-ncu.txt" ;;
    traffic) # Every metric of ncu's full set, raw, for cuDNN and each step, and each step against
             # cuDNN metric by metric (bench/ncu-diff.py), its totals printed.
             ncu_cudnn --set full --page raw --csv --log-file "$out/traffic-cudnn.csv" > /dev/null 2>&1
             for step in $(echo "${TRAFFIC_STEPS:-a10}" | tr , ' '); do
               ncu_step "$step" --set full --page raw --csv --log-file "$out/traffic-$step.csv" > /dev/null 2>&1
               python3 bench/ncu-diff.py "$out/traffic-cudnn.csv" "$out/traffic-$step.csv" > "$out/traffic-diff-$step.txt"
               echo "traffic: $step against cuDNN: OUTDIR/traffic-diff-$step.txt (exit $?)"
               sed -n '/^totals:/,$p' "$out/traffic-diff-$step.txt"
             done ;;
    stream) source_page stream-cudnn ncu_cudnn
            gzip -f "$out/stream-cudnn.csv"
            for step in $(echo "${TRAFFIC_STEPS:-a10}" | tr , ' '); do
              source_page "stream-$step" ncu_step "$step"
              gzip -f "$out/stream-$step.csv"
            done ;;
    sass) p=$b/ptx/sm_90a/kernels.ptx; mkdir -p "$out/sass"
          for e in $(grep -Eo 'entry a(0[5-9]|[1-9][0-9])_[a-z0-9_]+_bf16_d(64|128)' "$p" | cut -d' ' -f2); do
            ( ptxas -arch=sm_90a -v -e "$e" "$p" -o "$out/sass/$e.cubin" > "$out/sass/$e.log" 2>&1
              echo "$e: $(grep -Eo 'Used [0-9]+ registers' "$out/sass/$e.log" | head -1)," \
                   "$(grep -Eo '[0-9]+ bytes spill stores' "$out/sass/$e.log" | head -1)," \
                   "R2UR $(cuobjdump -sass "$out/sass/$e.cubin" | grep -c R2UR)"
              rm -f "$out/sass/$e.cubin" ) &
          done > "$out/sass.unsorted"; wait
          sort "$out/sass.unsorted" > "$out/sass.txt"; rm -rf "$out/sass.unsorted" "$out/sass"; cat "$out/sass.txt" ;;
    sanitize-hopper) for step in a10 a09 a08 a07 a06 a05; do
                       SANITIZE_LOGS="$out/sanitize-$step" timeout 280 $b/run.sh --sanitize --tool memcheck,racecheck,synccheck \
                         attention/$step -- --skip cpp_twin --skip past_2 2>&1 | tail -5
                     done ;;
    sanitize) SANITIZE_LOGS="$out/sanitize" $b/run.sh --sanitize --tool memcheck,racecheck,synccheck attention/ \
                -- --skip cpp_twin --skip past_2 2>&1 | tail -16 ;;
    power) IFS=';' read -ra shapes <<< "${POWER_SHAPE:-128 none 1k}"
           for shape in "${shapes[@]}"; do
             set -- $shape
             dir="$out/power"; [ ${#shapes[@]} -gt 1 ] && dir="$out/power/d$1-$2-$3"
             [ -n "${POWER_TYPE:-}" ] && dir="$dir-${POWER_TYPE}"
             mkdir -p "$dir"
             case $3 in *k) seqs=$((${3%k} * 1024)) ;; *) seqs=$3 ;; esac; pheat=${POWER_HEAT:-3}
             ptype=${POWER_TYPE:-bf16}
             power_trace_start "$dir"
             $b/host --heat "$pheat" --back-to-back "$b2b" -k "${POWER_STEPS:-a05-a10}" --twins off --attn-type "$ptype" --head-dim $1 --mask $2 \
               --seq $3 --json "$dir/steps.json" 2>&1 | power_stamp > "$dir/steps.progress"
             echo "power steps ($shape): host exit ${PIPESTATUS[0]}"
             python3 bench/attention-sdpa.py --backends cudnn --heat "$pheat" --back-to-back "$b2b" \
               --shapes $ptype:$((16384 / seqs))x$((2048 / $1))x${seqs}x$1:$2 2>&1 | power_stamp > "$dir/sdpa.progress"
             echo "$(date +%s.%N) done" >> "$dir/sdpa.progress"
             power_trace_stop
             python3 bench/power-trace.py "$dir/smi.csv" "$dir/steps.progress" "$dir/sdpa.progress" | tee "$dir/power.txt"
           done ;;
    *) echo "unknown part $part"; exit 2 ;;
  esac
done

#!/usr/bin/env bash
# A change that must not move any kernel's speed, checked on a GPU machine: the same work from
# two bundles (`cargo xtask bundle` of the commit before and of the commit after, carried as
# dist/before and dist/gpu-bundle), the later host's `compare` between them, the GPU tests and
# sanitizers of the later one.
# Usage (from the repository root): bench/before-after.sh OUTDIR PART...
#   info          the GPU, its driver, clocks and power now
#   suite         the default suite from each bundle, interleaved: before, after, before,
#                 after (the later bundle's first run also draws its charts into OUTDIR/charts),
#                 then `host compare --fail-on-slowdown` of each pair (old ids are read under
#                 today's names)
#   record        the later bundle's default suite alone, with its records (JSON, CSV) and
#                 charts in OUTDIR/record: what docs/results/<gpu>/ keeps
#   tests         the later bundle's GPU tests (run.sh --tests-only)
#   hopper        the Hopper GEMM steps w06–w13 at 1024³, 4096³ and 8192³, interleaved under steady
#                 load: before, after, before, after (a GEMM at the power cap favours whichever
#                 runs on the cooler GPU), then compare of each pair
#   attention:S   attention steps S (a host `-k` list, e.g. a08 or a07,a08) at seq 1k, 4k and
#                 16k, both head dims and masks, bf16, twins off, each kernel heated ${HEAT:-0.5} s
#                 (so that both builds are timed at the clock the power cap leaves them, and one
#                 that draws more power shows it), in the order before, after, after, before,
#                 then `host compare` of each pair: a change to shared code that must leave
#                 these steps' speed alone; both bundles must be from 2026-11-29 on (--heat)
#   sanitize:F    the later bundle's GPU tests that match F (a test-name filter) under
#                 memcheck, racecheck and synccheck (host sanitize)
set -uo pipefail
out=${1:?output folder}; shift
old=dist/before
new=dist/gpu-bundle
mkdir -p "$out"
for part in "$@"; do
  echo "===== $part"
  case $part in
    info) nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw,power.limit --format=csv ;;
    suite)
      for round in 1 2; do
        for side in before after; do
          b=$old; [ $side = after ] && b=$new
          plots=""; [ $side-$round = after-1 ] && plots="--plots $out/charts"
          start=$(date +%s)
          $b/host --json "$out/suite-$side-$round.json" $plots > "$out/suite-$side-$round.txt" 2> "$out/suite-$side-$round.progress"
          echo "$side $round: host exit $?, $(( $(date +%s) - start )) s; $(grep -c '^WRONG' "$out/suite-$side-$round.txt") WRONG lines"
        done
        $new/host compare "$out/suite-before-$round.json" "$out/suite-after-$round.json" --fail-on-slowdown > "$out/compare-suite-$round.txt"
        echo "compare round $round: exit $?"; grep -E "^  (summary|slower|faster|WRONG)" -A3 "$out/compare-suite-$round.txt" | head -16
      done ;;
    record) mkdir -p "$out/record"
            $new/host --json "$out/record/suite.json" --csv "$out/record/suite.csv" --plots "$out/record/charts" \
              > "$out/record/suite.txt" 2> "$out/record/progress.log"
            echo "record: host exit $?"; grep -E "^WRONG" "$out/record/suite.txt" ;;
    tests) $new/run.sh --tests-only > "$out/tests.log" 2>&1; echo "tests exit $?"
           grep -E "^test result|FAILED|panicked" "$out/tests.log" ;;
    attention:*)
      steps=${part#attention:}
      run() { # side round
        local b=$old; [ "$1" = after ] && b=$new
        $b/host -k "$steps" --twins off --heat "${HEAT:-0.5}" --seq 1k,4k,16k --json "$out/attention-$1-$2.json" \
          > "$out/attention-$1-$2.txt" 2> /dev/null
        echo "$1 round $2: exit $?; $(grep -c 'WRONG' "$out/attention-$1-$2.txt") WRONG lines"
      }
      run before 1; run after 1; run after 2; run before 2
      for round in 1 2; do
        $new/host compare "$out/attention-before-$round.json" "$out/attention-after-$round.json" \
          > "$out/compare-attention-$round.txt"
        echo "compare round $round: exit $?"; grep -E "slower|faster|same, " "$out/compare-attention-$round.txt" | head -20
      done ;;
    hopper)
      # A few seconds of load first, so that every timed run finds the GPU at its held clock.
      $new/host -k w08 --twins off --gemm 8192 --verify-only > /dev/null 2>&1
      $new/host -k w08 --twins off --gemm 8192 --min-time 3 > /dev/null 2>&1
      for round in 1 2; do
        $old/host -k w06,w07,w08,w09,w10,w11,w12,w13 --twins off --gemm 1024,4096,8192 --json "$out/hopper-before-$round.json" > "$out/hopper-before-$round.txt" 2>/dev/null
        echo "before round $round: exit $?"
        $new/host -k w06-w13 --twins off --gemm 1024,4096,8192 --json "$out/hopper-after-$round.json" > "$out/hopper-after-$round.txt" 2>/dev/null
        echo "after round $round: exit $?"
        $new/host compare "$out/hopper-before-$round.json" "$out/hopper-after-$round.json" > "$out/compare-hopper-$round.txt"
        grep -E "slower|faster|same, " "$out/compare-hopper-$round.txt" | head -20
      done ;;
    sanitize:*)
      filter=${part#sanitize:}
      SANITIZE_LOGS="$out/sanitize-$filter-logs" $new/run.sh --sanitize --tool memcheck,racecheck,synccheck "$filter" > "$out/sanitize-$filter.txt" 2>&1
      echo "sanitize $filter: exit $?"; grep -vE "^\s*$" "$out/sanitize-$filter.txt" | tail -25 ;;
    *) echo "unknown part $part" ;;
  esac
done

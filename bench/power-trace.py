#!/usr/bin/env python3
"""The clock and power each kernel held under steady load, from an nvidia-smi trace.

Two kernels at the GPU's power cap run at the clocks their power buys: the one that spends
more energy per cycle is held lower, and times slower, though it may take no more cycles.
`bench/attention-run.sh OUT power` records what this reads:

- TRACE: `nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw.instant,temperature.gpu,
  clocks_event_reasons.active --format=csv,noheader,nounits -lms 50` (local time, as nvidia-smi
  writes it; `power.draw` is a one-second average, which lags a rising load by a second; the
  last column, the bit mask of what holds the clock below its maximum, may be left out);
- PROGRESS...: lines `UNIX_SECONDS TEXT`, the host's progress or attention-sdpa.py's output,
  each line stamped as it was written. A kernel's window opens at its `timing NAME, …` line
  (the host, any family: NAME may hold spaces, as cuBLAS's does) or at a backend's `  NAME: heating and timing` line (the script; in older
  progress files without those, at the case's `[i/n] …` line, which also holds the backends'
  planning) and closes at the next stamped line.

For each window past its first SETTLE seconds (the clock still falling from a cool start),
it prints the kernel, its TFLOP/s where the progress names it, and the SM clock's mean and
range, the mean power and temperature over the window's samples; with one figure, the TFLOP a
joule buys (the figure over the mean power), where the window has one; where the trace has the
clock's event reasons, the share of samples each one held the clock (a kernel held by the
power cap shows `SW power cap`; one held by its current's peaks, `HW power brake` or `HW
slowdown`: the same watts can then mean different things). Usage:

    bench/power-trace.py TRACE PROGRESS... [--settle 1.5]
    bench/power-trace.py --self-test
"""

import argparse
import datetime
import re
import sys

SETTLE_S = 1.5  # seconds of a window left out: the clock still settling
MIN_SAMPLES = 3  # fewer samples than this in a window: no figure


# nvidia-smi's clock event reasons (`clocks_event_reasons.active`), bit by bit: what holds the
# SM clock below its maximum. Idle and the applications' clock setting are left out.
EVENT_REASONS = [
    (0x4, "SW power cap"),
    (0x8, "HW slowdown"),
    (0x10, "sync boost"),
    (0x20, "SW thermal"),
    (0x40, "HW thermal"),
    (0x80, "HW power brake"),
]


def parse_trace(lines):
    """nvidia-smi's CSV lines -> [(unix seconds, SM MHz, W, °C, event reasons or None)],
    unreadable lines skipped."""
    rows = []
    for line in lines:
        parts = [p.strip() for p in line.split(",")]
        if len(parts) < 4:
            continue
        try:
            t = datetime.datetime.strptime(parts[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
            reasons = int(parts[4], 16) if len(parts) > 4 and parts[4].startswith("0x") else None
            rows.append((t, float(parts[1]), float(parts[2]), float(parts[3]), reasons))
        except ValueError:
            continue
    return rows


def held_by(seen):
    """`, held by SW power cap 96 %` (the share of samples with each reason set), `, held by
    nothing` where no sample has one, nothing where the trace has no reasons."""
    masks = [r[4] for r in seen if r[4] is not None]
    if not masks:
        return ""
    shares = [(name, sum(1 for m in masks if m & bit) / len(masks)) for bit, name in EVENT_REASONS]
    shares = [f"{name} {100 * share:.0f} %" for name, share in shares if share > 0]
    return f", held by {', '.join(shares) if shares else 'nothing'}"


HOST_TIMING = re.compile(r"^timing (.+?), (.*?) \.\.\.$")
SDPA_CASE = re.compile(r"^\[\d+/\d+\] (.*)$")
HOST_ROW = re.compile(r"^(a\d\d_\w+)\s.*?\s(\d+\.\d+)\s+\d+\.\d+\s+ok$")
SDPA_FIGURE = re.compile(r"^\s*(cuDNN|FA2): [\d.]+ µs, ([\d.]+) TFLOP/s$")
SDPA_START = re.compile(r"^\s*(cuDNN|FA2)(?:, (?:cuDNN|FA2))*: heating and timing$")


def parse_progress(lines):
    """Stamped lines -> [(name, start, end, figure text)]: the host's steps, named by id, with
    the TFLOP/s of their table row; the script's cases, with each backend's TFLOP/s."""
    stamped = []
    for line in lines:
        head, _, text = line.rstrip("\n").partition(" ")
        try:
            stamped.append((float(head), text))
        except ValueError:
            continue
    windows, host_rows, case_name = [], {}, None
    for i, (t, text) in enumerate(stamped):
        end = stamped[i + 1][0] if i + 1 < len(stamped) else None
        if (m := HOST_TIMING.match(text)) and end is not None:
            windows.append([m.group(1), t, end, ""])
        elif (m := SDPA_CASE.match(text)) and end is not None:
            # The script plans, heats and times its backends one after the other inside the
            # case's window, and prints their figures as it closes.
            case_name = "SDPA " + m.group(1)
            windows.append([case_name, t, end, ""])
        elif (m := SDPA_START.match(text)) and end is not None and windows:
            # A backend's own window: the case's window gives way to its backends'.
            if windows[-1][0] == case_name and len(windows[-1]) == 4:
                windows.pop()
            windows.append([case_name, t, end, "", text.strip().split(":")[0]])
        elif m := SDPA_FIGURE.match(text):
            for case in reversed(windows):
                if case[0].startswith("SDPA ") and case[1] <= t:
                    if len(case) == 5 and m.group(1) not in case[4].split(", "):
                        continue  # another backend's window
                    case[3] += f"{', ' if case[3] else ''}{m.group(1)} {float(m.group(2)):.1f}"
                    break
        elif m := HOST_ROW.match(text):
            host_rows[m.group(1)] = float(m.group(2))
    for w in windows:
        if w[0] in host_rows:
            w[3] = f"{host_rows[w[0]]:.1f}"
    return [tuple(w[:4]) for w in windows]


def per_joule(figure, watts):
    """`, 0.79 TFLOP/J` for a window with one figure (TFLOP/s over the mean power: the work a
    joule buys, which is what the power cap rations), else nothing (none, or one per backend)."""
    numbers = re.findall(r"\d+\.\d+", figure or "")
    return f", {float(numbers[0]) / watts:.2f} TFLOP/J" if len(numbers) == 1 and watts > 0 else ""


def summary(rows, windows, settle=SETTLE_S):
    """One line per window: the kernel, its TFLOP/s if known, clock, power (and power per MHz of
    clock: of two kernels that take the same cycles, the one that draws more per cycle is held
    lower by the cap), temperature."""
    out = []
    for name, start, end, figure in windows:
        seen = [r for r in rows if start + settle <= r[0] < end]
        if len(seen) < MIN_SAMPLES:
            out.append(f"{name}: {len(seen)} samples past its first {settle:g} s, too few")
            continue
        mean = lambda i: sum(r[i] for r in seen) / len(seen)
        clocks = [r[1] for r in seen]
        out.append(
            f"{name}: {figure + ' TFLOP/s, ' if figure else ''}SM {mean(1):.0f} MHz "
            f"({min(clocks):.0f}–{max(clocks):.0f}), {mean(2):.0f} W ({1000 * mean(2) / mean(1):.0f} mW per MHz), "
            f"{mean(3):.0f} °C, "
            f"{len(seen)} samples over {end - start - settle:.1f} s{per_joule(figure, mean(2))}{held_by(seen)}"
        )
    return out


def self_test():
    base = datetime.datetime(2026, 11, 29, 14, 0, 0)
    trace = ["garbage line"]
    for i in range(200):  # 10 s at 50 ms: 1980 MHz cool, then 1700 for a09's window, 1850 for cuDNN's
        t = base + datetime.timedelta(milliseconds=50 * i)
        clock, watts = (1980, 300) if i < 20 else (1700, 690) if i < 100 else (1850, 688)
        reasons = "" if i < 100 else ", 0x0000000000000004" if i % 2 else ", 0x0000000000000084"
        trace.append(f"{t.strftime('%Y/%m/%d %H:%M:%S.%f')[:-3]}, {clock}, {watts}.5, 60{reasons}")
    rows = parse_trace(trace)
    assert len(rows) == 200, len(rows)
    t0 = base.timestamp()
    progress = [
        f"{t0 + 0.5} checking a09_softmax_chains, bf16 d128 none seq 1024 ...",
        f"{t0 + 1.0} timing a09_softmax_chains, bf16 d128 none seq 1024 ...",
        f"{t0 + 5.0} a09_softmax_chains      251.8  -                -    545.9       60.8  ok",
        f"{t0 + 5.0} [1/1] bf16 1024 (16×16) bshd d=128 none",
        f"{t0 + 9.9}   cuDNN: 227.8 µs, 603.3 TFLOP/s",
        "not stamped",
    ]
    windows = parse_progress(progress)
    assert [w[0] for w in windows] == ["a09_softmax_chains", "SDPA bf16 1024 (16×16) bshd d=128 none"], windows
    lines = summary(rows, windows)
    assert lines[0].startswith("a09_softmax_chains: 545.9 TFLOP/s, SM 1700 MHz (1700–1700), 690 W (406 mW per MHz)"), lines[0]
    assert lines[0].endswith(", 0.79 TFLOP/J"), lines[0]
    assert lines[1].endswith(", 0.88 TFLOP/J, held by SW power cap 100 %, HW power brake 50 %"), lines[1]
    two = summary(rows, [("SDPA x", t0 + 5.0, t0 + 9.9, "cuDNN 603.3, FA2 331.8")])
    assert "TFLOP/J" not in two[0], "two backends' figures in one window: no one per joule"
    assert lines[1].startswith("SDPA bf16 1024 (16×16) bshd d=128 none: cuDNN 603.3 TFLOP/s, SM 1850 MHz"), lines[1]
    # A backend's own window, from its heating line: the case's planning before it left out.
    heated = parse_progress([
        f"{t0 + 5.0} [1/1] bf16 1024 (16×16) bshd d=128 none",
        f"{t0 + 5.2}   cuDNN: heating and timing",
        f"{t0 + 7.0}   FA2: heating and timing",
        f"{t0 + 9.0}   cuDNN: 227.8 µs, 603.3 TFLOP/s",
        f"{t0 + 9.0}   FA2: 414.0 µs, 331.8 TFLOP/s",
        f"{t0 + 9.1} done",
    ])
    assert [(round(w[1] - t0, 1), round(w[2] - t0, 1), w[3]) for w in heated] == [(5.2, 7.0, "cuDNN 603.3"), (7.0, 9.0, "FA2 331.8")], heated
    gemm = parse_progress([
        f"{t0 + 1.0} timing cuBLAS GemmEx (f32 compute), 4096×4096×4096 ...",
        f"{t0 + 4.0} timing w06_setmaxnreg_f16, 4096×4096×4096 ...",
        f"{t0 + 7.0} done",
    ])
    assert [w[0] for w in gemm] == ["cuBLAS GemmEx (f32 compute)", "w06_setmaxnreg_f16"], gemm
    short = summary(rows, [("x", t0 + 9.0, t0 + 9.1, "")])
    assert "too few" in short[0], short
    print("self-test: ok")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace", nargs="?")
    parser.add_argument("progress", nargs="*")
    parser.add_argument("--settle", type=float, default=SETTLE_S, help="seconds of each window left out (1.5)")
    parser.add_argument("--self-test", action="store_true", help="check the parsing and the summary, and exit")
    args = parser.parse_args()
    if args.self_test:
        self_test()
        return 0
    if not args.trace or not args.progress:
        parser.error("a trace and at least one progress file are needed")
    try:
        with open(args.trace) as f:
            rows = parse_trace(f)
        windows = []
        for path in args.progress:
            with open(path) as f:
                windows += parse_progress(f)
    except OSError as e:
        print(f"power-trace: {e}", file=sys.stderr)
        return 2
    if not rows:
        print(f"power-trace: no samples in {args.trace} (is it nvidia-smi's CSV?)", file=sys.stderr)
        return 1
    if not windows:
        print("power-trace: no kernel's window in the progress files", file=sys.stderr)
        return 1
    for line in summary(rows, windows, args.settle):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Two kernels side by side, metric by metric, from ncu's raw pages.

`ncu --set full --page raw --csv --log-file A.csv …` writes every metric ncu collected for a
launch (about 2200 with the full set on a Hopper GPU). Two kernels that take the same cycles
can still differ in what they do per cycle; this prints the metrics where they differ:

- the metrics whose values differ by more than RATIO either way (1.15 by default), where either
  value is large enough to matter (counts of at least MIN_COUNT, percentages of at least
  MIN_PERCENT), the largest differences first; rates per second and the min / max across units
  are left out, as they repeat their sums;
- then a fixed set of totals, whatever their ratio: cycles, instructions by pipe, `wgmma`,
  bytes into the SMs, L2 lookups and DRAM bytes, the shared-memory wavefronts.

Usage:

    bench/ncu-diff.py A.csv B.csv [--ratio 1.15]
    bench/ncu-diff.py --self-test

`bench/attention-run.sh OUT traffic` writes the CSVs (cuDNN's kernel and the steps) and this
script's tables beside them.
"""

import argparse
import csv
import math
import sys

RATIO = 1.15
MIN_COUNT = 1e5
MIN_PERCENT = 2.0
# The totals printed whatever their ratio: what the two kernels do, in the units ncu counts.
TOTALS = [
    "gpu__time_duration.sum",
    "sm__cycles_active.avg",
    "smsp__inst_executed.sum",
    "smsp__inst_executed_pipe_fma.sum",
    "smsp__inst_executed_pipe_alu.sum",
    "smsp__inst_executed_pipe_xu.sum",
    "smsp__inst_executed_pipe_uniform.sum",
    "sm__inst_executed_pipe_tensor_op_gmma.sum",
    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
    "l1tex__m_xbar2l1tex_read_bytes.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
    "lts__t_sectors.sum",
    "lrc__average_xbar2gpc_sectors_op_read.ratio",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
]


def load(lines):
    """ncu's raw CSV (its log: warnings, then a header row, a units row, one row per launch) ->
    (kernel name, {metric: (value text, unit)}) of the first launch."""
    rows = [r for r in csv.reader(lines) if r]
    header = next((i for i, r in enumerate(rows) if r[0] == "ID"), None)
    if header is None or header + 2 >= len(rows):
        raise ValueError("no ncu raw page in it (ncu --page raw --csv)")
    names, units, values = rows[header], rows[header + 1], rows[header + 2]
    metrics = {n: (values[i] if i < len(values) else "", units[i] if i < len(units) else "") for i, n in enumerate(names)}
    return metrics.get("Kernel Name", ("?", ""))[0], metrics


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def differences(a, b, ratio=RATIO):
    """[(b / a, metric, a, b, unit)] beyond `ratio` either way, the largest first."""
    out = []
    for name, (text, unit) in a.items():
        if name not in b or ".per_second" in name or name.endswith((".min", ".max")) or ".min." in name or ".max." in name:
            continue
        x, y = number(text), number(b[name][0])
        if x is None or y is None or x <= 0 or y <= 0:
            continue
        large = max(x, y) >= (MIN_PERCENT if unit == "%" else MIN_COUNT)
        r = y / x
        if large and (r > ratio or r < 1 / ratio):
            out.append((r, name, x, y, unit))
    out.sort(key=lambda d: -abs(math.log(d[0])))
    return out


def table(a_name, b_name, a, b, ratio=RATIO):
    lines = [f"A = {a_name}", f"B = {b_name}", "", f"metrics that differ by more than {ratio:g}× either way:"]
    rows = differences(a, b, ratio)
    width = max([len(r[1]) for r in rows] + [len(t) for t in TOTALS] + [6])
    lines.append(f"{'B / A':>7}  {'metric':<{width}}  {'A':>12}  {'B':>12}  unit")
    lines += [f"{r:7.3f}  {n:<{width}}  {x:12.4g}  {y:12.4g}  {u}" for r, n, x, y, u in rows] or ["  none"]
    lines += ["", "totals:"]
    for name in TOTALS:
        x, y = number(a.get(name, ("", ""))[0]), number(b.get(name, ("", ""))[0])
        if x is None or y is None:
            continue
        r = f"{y / x:7.3f}" if x else f"{'-':>7}"
        lines.append(f"{r}  {name:<{width}}  {x:12.4g}  {y:12.4g}  {a[name][1]}")
    return lines


def self_test():
    def raw(kernel, values):
        names = ["ID", "Kernel Name"] + [n for n, _, _ in values]
        units = ["", ""] + [u for _, u, _ in values]
        row = ["0", kernel] + [v for _, _, v in values]
        return ["==PROF== Connected", ",".join(f'"{x}"' for x in names), ",".join(f'"{x}"' for x in units), ",".join(f'"{x}"' for x in row)]

    a_name, a = load(raw("cudnn_kernel", [
        ("sm__cycles_active.avg", "cycle", "365,259.19"),
        ("lts__t_sectors.sum", "sector", "28,300,000"),
        ("lts__t_sectors.sum.per_second", "sector/s", "1"),
        ("smsp__inst_executed_pipe_uniform.sum", "inst", "3,209,400"),
        ("sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", "%", "19.33"),
        ("launch__barrier_count", "", "7"),
        ("gcc__xbar2gcc_sectors.sum", "", "5640"),
    ]))
    b_name, b = load(raw("a10_wide_pv_bf16_d128", [
        ("sm__cycles_active.avg", "cycle", "354,573.44"),
        ("lts__t_sectors.sum", "sector", "33,240,000"),
        ("lts__t_sectors.sum.per_second", "sector/s", "9"),
        ("smsp__inst_executed_pipe_uniform.sum", "inst", "7,814,824"),
        ("sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", "%", "16.88"),
        ("launch__barrier_count", "", "16"),
        ("gcc__xbar2gcc_sectors.sum", "", "7680"),
    ]))
    assert (a_name, b_name) == ("cudnn_kernel", "a10_wide_pv_bf16_d128"), (a_name, b_name)
    found = [d[1] for d in differences(a, b)]
    # Uniform (2.4×) before the L2 (1.17×); small counts, rates and the FMA pipe's 0.87 (within
    # 1.15) left out.
    assert found == ["smsp__inst_executed_pipe_uniform.sum", "lts__t_sectors.sum"], found
    lines = table(a_name, b_name, a, b)
    assert any(l.startswith("  0.971  sm__cycles_active.avg") for l in lines), lines
    try:
        load(["no table here"])
        raise AssertionError("a file without a raw page must be refused")
    except ValueError:
        pass
    print("self-test: ok")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", nargs="?")
    parser.add_argument("b", nargs="?")
    parser.add_argument("--ratio", type=float, default=RATIO, help="print metrics beyond this ratio either way (1.15)")
    parser.add_argument("--self-test", action="store_true", help="check the parsing and the tables, and exit")
    args = parser.parse_args()
    if args.self_test:
        self_test()
        return 0
    if not args.a or not args.b:
        parser.error("two ncu raw CSV files are needed")
    if args.ratio <= 1:
        parser.error("--ratio must be above 1")
    try:
        with open(args.a) as f:
            a_name, a = load(f)
        with open(args.b) as f:
            b_name, b = load(f)
    except (OSError, ValueError) as e:
        print(f"ncu-diff: {e}", file=sys.stderr)
        return 2
    print("\n".join(table(a_name, b_name, a, b, args.ratio)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

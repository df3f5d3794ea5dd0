#!/usr/bin/env python3
"""How far a compiler's `mma.sync` GEMM gets on this GPU: Triton with its Hopper path turned off.

The portable steps (t01–t05) use what every GPU since Ampere has: `mma.sync` m16n8k16,
`ldmatrix` and `cp.async`. On a Hopper, Triton's matrix products use `wgmma` instead; with
`DISABLE_MMA_V3=1` (set here before Triton is imported) it falls back to `mma.sync` with
`ldmatrix` and `cp.async` for the same kernel source. That gives the portable steps a second
opinion from an independent compiler with its own tile search: a plain blocked product (A
M × K and B K × N row-major, f32 accumulation, C in the input type or in f32 as the steps
write it, the tiles in bands of GROUP_M block rows or in the grid's order as the steps take
them), timed over a grid of block tiles, k tiles, warps and pipeline stages (or the
configurations given), checked against torch's f32 product of the same inputs (256 sampled
rows; C is poisoned with NaN first, and every element must be finite). Each configuration's
shared memory is the one Triton reports for the compiled kernel; "portable" are those within
99 KB, what a block may take on the GPUs of compute capability 8.6 and 8.9 (an A100 allows
163 KB, a Hopper 227).

Every compiled kernel's PTX is read: a configuration whose PTX holds a `wgmma` or a tensor
copy (`cp.async.bulk.tensor`) would not be an `mma.sync` figure, and the script stops. The
instructions it is made of are counted and printed.

Timing, as the host does: CUDA events around one call, the L2 flushed before each sample (a
read of twice its size), the median. The search times each configuration briefly (on a GPU
still cool, so these first figures read high); the best few are then timed again after
`--heat` seconds of back-to-back calls, at least 30 samples and 0.1 s of GPU time each, and
nvidia-smi's clock, power and whether the power cap holds the clock are read at the end of
each. TFLOP/s = 2·M·N·K / median. With `--ceilings FILE` (the host's output of a run with p8
in the same call), each figure is also given as % of the `mma.sync` ceiling.

Usage (on the GPU machine, from the repository root; `bench/portable-run.sh OUT heated
triton` runs it after p8 and t05):

    bench/gemm-triton.py [--sizes 4096,8192] [--types f16,bf16] [--ceilings HOST_OUTPUT]
                         [--configs 128x256x64w8s3,...] [--group 8] [--out input|f32]
                         [--json OUT.json] [--heat 0.5] [--quick]
    bench/gemm-triton.py --self-test
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

os.environ["DISABLE_MMA_V3"] = "1"  # before Triton compiles anything: mma.sync, not wgmma

PORTABLE_SHARED = 99 * 1024  # bytes a block may take on compute capability 8.6 and 8.9
HOPPER_SHARED = 227 * 1024  # a block's most on a Hopper
MAX_ACCUMULATORS = 128  # f32 accumulators per thread beyond which a tile spills
GROUP_M = 8  # block rows per band of the raster
RETIME = 3  # configurations timed again, per type and size, after the search
SEARCH_SAMPLES = 8
FINAL_SAMPLES = 30
FINAL_MIN_S = 0.1
TOLERANCE = 1e-2  # ‖C − ref‖ / ‖ref‖ over the sampled rows, for 16-bit C against an f32 reference
CHECKED_ROWS = 256  # rows of C compared with the reference (every element must be finite)

# Instructions counted in each kernel's PTX. The first two must be absent (Hopper's own
# tensor-core path); the rest say what the kernel is made of.
FORBIDDEN = ("wgmma", "cp.async.bulk.tensor")
COUNTED = ("mma.sync", "ldmatrix", "cp.async.cg", "cp.async.ca", "stmatrix", "setmaxnreg", "mbarrier")


def config_grid(quick=False):
    """The configurations searched: dicts of BM, BN, BK, warps, stages, with the tile's shared
    memory by the formula (stages × (BM·BK + BK·BN) × 2 bytes) within a Hopper block's and at
    most MAX_ACCUMULATORS f32 accumulators per thread."""
    tiles = [(128, 128), (128, 256), (256, 128), (64, 256), (256, 64)]
    ks, warps, stages = (32, 64), (4, 8), (2, 3, 4, 5)
    if quick:
        tiles, ks, warps, stages = [(128, 128), (128, 256)], (32,), (4, 8), (3, 4)
    grid = []
    for bm, bn in tiles:
        for bk in ks:
            for w in warps:
                for s in stages:
                    c = {"BM": bm, "BN": bn, "BK": bk, "warps": w, "stages": s}
                    if bm * bn // (32 * w) > MAX_ACCUMULATORS or formula_shared(c) > HOPPER_SHARED:
                        continue
                    grid.append(c)
    return grid


def parse_configs(text):
    """'128x256x64w8s3,128x128x32w4s3' -> config dicts (a given list instead of the grid)."""
    configs = []
    for item in text.split(","):
        m = re.fullmatch(r"(\d+)x(\d+)x(\d+)w(\d+)s(\d+)", item.strip())
        if not m:
            raise ValueError(f"bad configuration {item!r}: BMxBNxBKwWARPSsSTAGES, as 128x256x64w8s3")
        bm, bn, bk, w, st = map(int, m.groups())
        configs.append({"BM": bm, "BN": bn, "BK": bk, "warps": w, "stages": st})
    return configs


def formula_shared(c):
    return c["stages"] * (c["BM"] * c["BK"] + c["BK"] * c["BN"]) * 2


def label(c):
    return f"{c['BM']}×{c['BN']}×{c['BK']} w{c['warps']} s{c['stages']}"


def parse_ceilings(text):
    """The host's 'ceiling, f16 inputs: mma.sync m16n8k16 578.8, …' lines -> {'f16': 578.8, …}."""
    found = {}
    for m in re.finditer(r"ceiling, (\w+) inputs: mma\.sync m16n8k16 ([0-9.]+)", text):
        found[m.group(1)] = float(m.group(2))
    return found


def count_instructions(ptx):
    """Occurrences of each COUNTED and FORBIDDEN instruction in a PTX text (as whole opcodes
    at the start of a statement)."""
    counts = {}
    for name in COUNTED + FORBIDDEN:
        counts[name] = len(re.findall(r"^\s*(?:@!?%\w+\s+)?" + re.escape(name) + r"[.\s]", ptx, re.M))
    return counts


def forbidden_in(counts):
    return [name for name in FORBIDDEN if counts.get(name, 0)]


def percent(x, of):
    return None if x is None or not of else 100.0 * x / of


def fmt(x, digits=1):
    return "-" if x is None else f"{x:.{digits}f}"


def table(rows, ceiling):
    """Rows of (what, config or None, result dict) -> lines of a fixed-width table."""
    head = f"{'':26} {'config':24} {'shared KB':>9} {'regs':>4} {'µs':>9} {'TFLOP/s':>8} {'% ceiling':>9}"
    lines = [head]
    for what, c, r in rows:
        shared = r.get("shared")
        lines.append(
            f"{what:26} {label(c) if c else '-':24} {fmt(shared / 1024 if shared is not None else None, 0):>9} "
            f"{r.get('regs', '-')!s:>4} {fmt(r.get('median_us')):>9} {fmt(r.get('tflops')):>8} "
            f"{fmt(percent(r.get('tflops'), ceiling)):>9}"
        )
    return lines


def sample_stats(times_us):
    """Timed samples in µs -> the median, fastest, slowest, count and the interquartile range
    over the median in percent (the host's spread)."""
    q1, _, q3 = statistics.quantiles(times_us, n=4) if len(times_us) > 1 else (times_us[0],) * 3
    median = statistics.median(times_us)
    return {"median_us": median, "min_us": min(times_us), "max_us": max(times_us), "samples": len(times_us),
            "spread_percent": 100.0 * (q3 - q1) / median}


REFERENCE_KERNEL = "triton_mma_sync"  # the records' kernel (the results pages show it beside the steps)


def best_within(configs, shared_limit):
    """The fastest configuration timed again (heated) within `shared_limit` bytes, or None."""
    final = [c for c in configs if c.get("final") and c.get("shared", shared_limit + 1) <= shared_limit]
    return max(final, key=lambda c: c["tflops"], default=None)


def host_records(report, host):
    """Records of the host's form, one per type and size of `report` (this script's JSON): its
    best product within 99 KB, as % of the `mma.sync` ceiling and of cuBLAS that the host's
    document `host` (a run of the same call) measured."""
    template = next((r for r in host.get("records", []) if r.get("family") == "gemm"), {})
    ceilings = host.get("tensor_ceilings") or {}
    records = []
    for run in report.get("runs", []):
        best = best_within(run["configs"], PORTABLE_SHARED)
        if best is None:
            continue
        t, n = run["type"], run["size"]
        ceiling = ceilings.get(f"mma.sync m16n8k16 {t}")
        cublas = next((r for r in host.get("records", []) if r.get("kernel") == "cublas"
                       and r.get("precision") == t and r.get("m") == n and r.get("n") == n and r.get("k") == n), None)
        c_type = report.get("c_type", "input")
        record = {key: None for key in template}
        record.update(
            family="gemm",
            kernel=REFERENCE_KERNEL,
            variant=f"{label(best['config'])}, {best['shared'] // 1024} KB",
            precision=t, m=n, n=n, k=n,
            median_us=best["median_us"], min_us=best.get("min_us"), max_us=best.get("max_us"),
            spread_percent=best.get("spread_percent"), repetitions=best.get("samples"),
            figure=best["tflops"], unit="TFLOP/s",
            limit=f"mma.sync m16n8k16 {t} ceiling (p8)" if ceiling else None,
            percent_of_limit=percent(best["tflops"], ceiling),
            vendor=cublas.get("vendor") if cublas else None,
            percent_of_vendor=percent(best["tflops"], cublas.get("figure")) if cublas else None,
            passed=True, error=best.get("error_norm"),
            error_measure=f"relative Frobenius error over {CHECKED_ROWS} sampled rows",
            registers=best.get("regs"),
            details={"source": f"Triton {report.get('triton')}, DISABLE_MMA_V3=1",
                     "C": "16-bit" if c_type == "input" else "f32",
                     "raster": f"bands of {report.get('group', GROUP_M)} block rows",
                     "shared bytes": best.get("shared"), "conditions": best.get("conditions")},
        )
        records.append(record)
    return records


def merge_records(host, records):
    """`host` with `records` in place of any earlier records of the compiler's product."""
    kept = [r for r in host.get("records", []) if r.get("kernel") != REFERENCE_KERNEL]
    return dict(host, records=kept + records)


def conditions_line(csv_line):
    """nvidia-smi's 'SM MHz, W, °C, reasons' CSV line -> 'SM 1740 MHz, 612 W, 65 °C, power cap'."""
    parts = [p.strip() for p in csv_line.split(",")]
    if len(parts) < 4:
        return None
    try:
        reasons = int(parts[3], 16)
    except ValueError:
        reasons = None
    held = "clock held by the power cap" if reasons is not None and reasons & 0x4 else "clock not held by power"
    return f"SM {parts[0]} MHz, {parts[1]} W, {parts[2]} °C, {held}"


def gpu_conditions():
    """The clock, power and temperature now, from nvidia-smi, or None."""
    query = "clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active"
    try:
        out = subprocess.run(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return conditions_line(out.splitlines()[0]) if out.strip() else None


def self_test():
    grid = config_grid()
    assert grid and all(formula_shared(c) <= HOPPER_SHARED for c in grid)
    assert all(c["BM"] * c["BN"] // (32 * c["warps"]) <= MAX_ACCUMULATORS for c in grid)
    assert {"BM": 128, "BN": 128, "BK": 32, "warps": 4, "stages": 4} in grid  # t05's geometry
    assert {"BM": 128, "BN": 256, "BK": 32, "warps": 4, "stages": 4} not in grid  # 256 accumulators
    assert len(config_grid(quick=True)) < len(grid)
    assert parse_configs("128x256x64w8s3, 64x64x32w4s2") == [
        {"BM": 128, "BN": 256, "BK": 64, "warps": 8, "stages": 3},
        {"BM": 64, "BN": 64, "BK": 32, "warps": 4, "stages": 2},
    ]
    try:
        parse_configs("128x256")
        raise AssertionError("a bad configuration passed")
    except ValueError:
        pass
    text = (
        "  ceiling, f16 inputs: mma.sync m16n8k16 578.8, wgmma m64n256k16 839.1 TFLOP/s\n"
        "  ceiling, bf16 inputs: mma.sync m16n8k16 586.8, wgmma m64n256k16 849.9 TFLOP/s\n"
    )
    assert parse_ceilings(text) == {"f16": 578.8, "bf16": 586.8}
    assert parse_ceilings("nothing") == {}
    ptx = (
        "\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1}, {%r1}, {%r2}, {%f1};\n"
        "\t@%p1 cp.async.cg.shared.global [%r3], [%rd1], 16, %r4;\n"
        "\tldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r5}, [%r6];\n"
        "\t// wgmma in a comment is not an instruction\n"
    )
    counts = count_instructions(ptx)
    assert counts["mma.sync"] == 1 and counts["cp.async.cg"] == 1 and counts["ldmatrix"] == 1
    assert forbidden_in(counts) == []
    assert forbidden_in(count_instructions("\twgmma.mma_async.sync.aligned.m64n128k16 ...;\n")) == ["wgmma"]
    assert percent(289.4, 578.8) == 50.0 and percent(1.0, None) is None
    c = {"BM": 128, "BN": 128, "BK": 32, "warps": 4, "stages": 4}
    lines = table([("best within 99 KB", c, {"shared": 65536, "regs": 255, "median_us": 400.0, "tflops": 343.6})], 578.8)
    assert "128×128×32 w4 s4" in lines[1] and "59.4" in lines[1] and "64" in lines[1], lines
    assert conditions_line("1740, 612.30, 65, 0x0000000000000004") == (
        "SM 1740 MHz, 612.30 W, 65 °C, clock held by the power cap"
    )
    assert conditions_line("1980, 131.0, 47, 0x0000000000000000").endswith("not held by power")
    assert conditions_line("[N/A]") is None
    stats = sample_stats([10.0, 11.0, 12.0, 13.0, 100.0])
    assert stats["median_us"] == 12.0 and stats["min_us"] == 10.0 and stats["samples"] == 5
    host = {
        "tensor_ceilings": {"mma.sync m16n8k16 f16": 640.0},
        "records": [
            {"family": "gemm", "kernel": "cublas", "precision": "f16", "m": 4096, "n": 4096, "k": 4096,
             "figure": 660.0, "vendor": "cuBLAS GemmEx", "registers": None},
            {"family": "gemm", "kernel": REFERENCE_KERNEL, "precision": "f16", "m": 4096, "figure": 1.0},
        ],
    }
    big = {"BM": 128, "BN": 256, "BK": 64, "warps": 8, "stages": 3}
    report = {"triton": "3.6.0", "group": 8, "c_type": "input", "runs": [{"type": "f16", "size": 4096, "configs": [
        {"config": big, "final": True, "shared": 98304, "tflops": 400.0, "median_us": 343.6, "regs": 236,
         "error_norm": 2e-3},
        {"config": dict(big, stages=4), "final": True, "shared": 147456, "tflops": 410.0, "median_us": 335.2},
        {"config": dict(big, BK=32), "shared": 49152, "tflops": 420.0, "median_us": 327.0},  # not timed again
    ]}]}
    [r] = host_records(report, host)
    assert r["kernel"] == REFERENCE_KERNEL and r["figure"] == 400.0 and r["variant"] == "128×256×64 w8 s3, 96 KB", r
    assert r["percent_of_limit"] == 62.5 and r["limit"] == "mma.sync m16n8k16 f16 ceiling (p8)", r
    assert abs(r["percent_of_vendor"] - 100 * 400 / 660) < 1e-9 and r["vendor"] == "cuBLAS GemmEx", r
    assert r["passed"] is True and "registers" in r and r["registers"] == 236, r
    merged = merge_records(host, [r])
    assert [x["kernel"] for x in merged["records"]] == ["cublas", REFERENCE_KERNEL] and merged["records"][1] is r
    print("gemm-triton self-test: passed")


# ---------------------------------------------------------------- what runs on the GPU


def load_gpu():
    """torch and triton, or an exit with what is missing."""
    try:
        import torch
        import triton
        import triton.language as tl
    except ImportError as e:
        sys.exit(f"gemm-triton: needs torch and triton ({e}); run it on the GPU machine")
    if not torch.cuda.is_available():
        sys.exit("gemm-triton: no CUDA device visible to torch")
    return torch, triton, tl


def build_kernel(triton, tl):
    @triton.jit
    def matmul(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
        # Block `pid` of the grid takes tile (row, col) of C, the tiles walked in bands of
        # GROUP block rows so that a band's blocks share B's columns in L2.
        pid = tl.program_id(0)
        rows, cols = tl.cdiv(M, BM), tl.cdiv(N, BN)
        band = pid // (GROUP * cols)
        first_row = band * GROUP
        height = min(rows - first_row, GROUP)
        row = first_row + (pid % (GROUP * cols)) % height
        col = (pid % (GROUP * cols)) // height
        offs_m = row * BM + tl.arange(0, BM)
        offs_n = col * BN + tl.arange(0, BN)
        offs_k = tl.arange(0, BK)
        a_tile = a + offs_m[:, None].to(tl.int64) * K + offs_k[None, :]
        b_tile = b + offs_k[:, None].to(tl.int64) * N + offs_n[None, :]
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, K, BK):
            in_k = offs_k < K - k0
            x = tl.load(a_tile, mask=(offs_m[:, None] < M) & in_k[None, :], other=0.0)
            y = tl.load(b_tile, mask=in_k[:, None] & (offs_n[None, :] < N), other=0.0)
            acc = tl.dot(x, y, acc)
            a_tile += BK
            b_tile += BK * N
        out = c + offs_m[:, None].to(tl.int64) * N + offs_n[None, :]
        tl.store(out, acc.to(c.dtype.element_ty), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))

    return matmul


class Timer:
    """CUDA events around one call, the L2 flushed before each sample."""

    def __init__(self, torch):
        self.torch = torch
        l2 = torch.cuda.get_device_properties(0).L2_cache_size
        self.flush_buffer = torch.ones(max(2 * l2, 1 << 20) // 4, dtype=torch.float32, device="cuda")

    def heat(self, call, seconds):
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            for _ in range(4):
                call()
            self.torch.cuda.synchronize()

    def median_us(self, call, samples, min_s=0.0):
        return self.measure(call, samples, min_s)["median_us"]

    def measure(self, call, samples, min_s=0.0):
        """At least `samples` timed calls and `min_s` of GPU time: their statistics (`sample_stats`)."""
        torch = self.torch
        call()
        torch.cuda.synchronize()
        times = []
        while len(times) < samples or sum(times) < min_s * 1e6:
            self.flush_buffer.sum()
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            call()
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop) * 1e3)
        return sample_stats(times)


def read_json(path, what):
    """A JSON document, or an exit that names `what` it should have been."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"gemm-triton: cannot read {what} {path}: {e}")


def add_records(triton_json, host_json):
    """The records of this script's JSON `triton_json` added to the host's file `host_json`."""
    write_records(read_json(triton_json, "this script's figures"), host_json)


def write_records(report, host_json):
    host = read_json(host_json, "the host's records")
    records = host_records(report, host)
    if not records:
        sys.exit(f"gemm-triton: no configuration within 99 KB was timed again: nothing added to {host_json}")
    with open(host_json, "w") as f:
        json.dump(merge_records(host, records), f, indent=1)
        f.write("\n")
    noun = "record" if len(records) == 1 else "records"
    print(f"gemm-triton: {len(records)} {noun} of Triton's best within 99 KB added to {host_json}", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--self-test", action="store_true")
    parser.add_argument("--sizes", default="4096,8192", help="M = N = K, comma-separated")
    parser.add_argument("--types", default="f16,bf16")
    parser.add_argument("--ceilings", help="the host's output with p8's ceilings (same call)")
    parser.add_argument("--json", help="write every configuration's figures here")
    parser.add_argument("--heat", type=float, default=0.5, help="seconds of calls before each final timing")
    parser.add_argument("--quick", action="store_true", help="a small grid (to check the script)")
    parser.add_argument("--configs", help="time these instead of the grid: 128x256x64w8s3,...")
    parser.add_argument("--group", type=int, default=GROUP_M, help="block rows per band of the raster (1: none)")
    parser.add_argument("--records", metavar="HOST_JSON",
                        help="add the best product within 99 KB of each type and size to the host's records "
                             "of the same call (replacing any earlier ones), as % of its ceilings and cuBLAS")
    parser.add_argument("--merge", nargs=2, metavar=("TRITON_JSON", "HOST_JSON"),
                        help="no GPU: add the records of an earlier run's --json to HOST_JSON, as --records does")
    parser.add_argument("--out", choices=("input", "f32"), default="input",
                        help="C's type (f32: as the portable steps write it)")
    args = parser.parse_args()
    if args.self_test:
        self_test()
        return
    if args.merge:
        add_records(*args.merge)
        return

    try:
        sizes = [int(s) for s in args.sizes.split(",")]
    except ValueError:
        sys.exit(f"gemm-triton: --sizes {args.sizes!r}: sizes are integers, as 4096,8192")
    if any(n < 1 for n in sizes):
        sys.exit("gemm-triton: sizes are positive")
    types = args.types.split(",")
    ceilings = {}
    if args.ceilings:
        try:
            with open(args.ceilings) as f:
                ceilings = parse_ceilings(f.read())
        except OSError as e:
            print(f"gemm-triton: no ceilings ({e}); TFLOP/s only", file=sys.stderr)
    torch, triton, tl = load_gpu()
    matmul = build_kernel(triton, tl)
    dtypes = {"f16": torch.float16, "bf16": torch.bfloat16}
    for t in types:
        if t not in dtypes:
            sys.exit(f"gemm-triton: unknown type {t!r} (f16, bf16)")
    props = torch.cuda.get_device_properties(0)
    print(f"{props.name}, {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}; torch {torch.__version__}, "
          f"triton {triton.__version__}, DISABLE_MMA_V3=1 (mma.sync, ldmatrix, cp.async)")
    group = max(args.group, 1)
    c_type = "C in the input type" if args.out == "input" else "C in f32"
    bands = f"tiles in bands of {group} block rows" if group > 1 else "tiles in the grid's order (no bands)"
    print(f"A M×K and B K×N row-major, f32 accumulation, {c_type}; {bands}; the L2 flushed before each sample")
    timer = Timer(torch)
    try:
        grid_configs = parse_configs(args.configs) if args.configs else config_grid(args.quick)
    except ValueError as e:
        sys.exit(f"gemm-triton: {e}")
    report = {"device": props.name, "triton": triton.__version__, "torch": torch.__version__, "group": group,
              "c_type": args.out, "runs": []}
    failed = False

    for t in types:
        dtype = dtypes[t]
        ceiling = ceilings.get(t)
        for n in sizes:
            gen = torch.Generator(device="cuda").manual_seed(n)
            a = torch.randn((n, n), device="cuda", dtype=dtype, generator=gen)
            b = torch.randn((n, n), device="cuda", dtype=dtype, generator=gen)
            c = torch.empty((n, n), device="cuda", dtype=dtype if args.out == "input" else torch.float32)
            rows = torch.randint(0, n, (min(CHECKED_ROWS, n),), device="cuda", generator=gen)
            ref = a[rows].float() @ b.float()
            flops = 2.0 * n * n * n

            def launcher(cfg):
                """One product C = A·B by configuration `cfg`; the call returns the compiled kernel."""
                blocks = triton.cdiv(n, cfg["BM"]) * triton.cdiv(n, cfg["BN"])
                return lambda: matmul[(blocks,)](a, b, c, n, n, n, BM=cfg["BM"], BN=cfg["BN"], BK=cfg["BK"],
                                                 GROUP=group, num_warps=cfg["warps"], num_stages=cfg["stages"])

            results = []
            print(f"\n{t} {n}³: searching {len(grid_configs)} configurations ...", file=sys.stderr, flush=True)
            for cfg in grid_configs:
                call = launcher(cfg)
                entry = {"config": cfg}
                try:
                    c.fill_(float("nan"))
                    compiled = call()
                    torch.cuda.synchronize()
                except Exception as e:  # out of resources, a compile error: the configuration is out
                    entry["error"] = str(e).splitlines()[0][:200]
                    results.append(entry)
                    continue
                counts = count_instructions(compiled.asm["ptx"])
                bad = forbidden_in(counts)
                if bad:
                    sys.exit(f"gemm-triton: {label(cfg)} compiled to {', '.join(bad)}: DISABLE_MMA_V3 was not "
                             "honoured, so these would not be mma.sync figures")
                err = ((c[rows].float() - ref).norm() / ref.norm()).item()
                if not torch.isfinite(c).all().item():
                    err = float("nan")  # an element left unwritten (the NaN poison) or not finite
                entry.update(shared=compiled.metadata.shared, regs=compiled.n_regs, spills=compiled.n_spills,
                             ptx_counts=counts, error_norm=err)
                if not err <= TOLERANCE:  # NaN fails too
                    entry["error"] = f"wrong: ‖C − ref‖/‖ref‖ = {err:.3g}"
                    failed = True
                    results.append(entry)
                    continue
                entry["median_us"] = timer.median_us(call, SEARCH_SAMPLES)
                entry["tflops"] = entry["search_tflops"] = flops / entry["median_us"] / 1e6
                results.append(entry)

            timed = [r for r in results if "tflops" in r]
            portable = sorted((r for r in timed if r["shared"] <= PORTABLE_SHARED), key=lambda r: -r["tflops"])
            anywhere = sorted(timed, key=lambda r: -r["tflops"])
            again = {id(r): r for r in portable[:RETIME] + anywhere[:RETIME]}.values() if not args.configs else timed
            t05_like = next((r for r in timed if r["config"] == {"BM": 128, "BN": 128, "BK": 32, "warps": 4,
                                                                  "stages": 4}), None)
            if t05_like is not None and id(t05_like) not in {id(r) for r in again}:
                again = list(again) + [t05_like]
            for r in again:
                call = launcher(r["config"])
                timer.heat(call, args.heat)
                r.update(timer.measure(call, FINAL_SAMPLES, FINAL_MIN_S))
                r["tflops"] = flops / r["median_us"] / 1e6
                r["final"] = True
                r["conditions"] = gpu_conditions()

            c16 = c if args.out == "input" else torch.empty((n, n), device="cuda", dtype=dtype)

            def cublas():
                torch.matmul(a, b, out=c16)

            timer.heat(cublas, args.heat)
            torch_us = timer.median_us(cublas, FINAL_SAMPLES, FINAL_MIN_S)
            torch_conditions = gpu_conditions()
            final = [r for r in timed if r.get("final")]
            best_portable = max((r for r in final if r["shared"] <= PORTABLE_SHARED), key=lambda r: r["tflops"],
                                default=None)
            best_any = max(final, key=lambda r: r["tflops"], default=None)
            rows = []
            if best_portable:
                rows.append(("best within 99 KB", best_portable["config"], best_portable))
            if best_any:
                rows.append(("best within 227 KB", best_any["config"], best_any))
            if t05_like:
                rows.append(("t05's tile (128×128×32, s4)", t05_like["config"], t05_like))
            if args.configs:
                rows += [("as asked", r["config"], r) for r in final]
            rows.append(("torch.matmul (cuBLAS)", None, {"median_us": torch_us, "tflops": flops / torch_us / 1e6,
                                                         "conditions": torch_conditions}))
            print(f"\n{t}, {n}×{n}×{n}: Triton mma.sync, the best of {len(timed)} configurations "
                  f"({len(results) - len(timed)} failed to build or check)"
                  + (f"; % of the mma.sync ceiling {ceiling} TFLOP/s (p8, same call)" if ceiling else ""))
            for line in table(rows, ceiling):
                print("  " + line)
            for what, c, r in rows:
                if r.get("conditions"):
                    print(f"  {what}: at the end of its timing {r['conditions']}")
            if best_any:
                counts = best_any["ptx_counts"]
                print("  its PTX: " + ", ".join(f"{k} {v}" for k, v in counts.items() if v))
            print("  the search's best (TFLOP/s, first timing): "
                  + "; ".join(f"{label(r['config'])} {r['search_tflops']:.0f}" for r in anywhere[:8]))
            for r in results:
                if "error" in r and not r["error"].startswith("wrong"):
                    print(f"  not built: {label(r['config'])}: {r['error']}", file=sys.stderr)
                elif "error" in r:
                    print(f"  WRONG: {label(r['config'])}: {r['error']}")
            report["runs"].append({"type": t, "size": n, "ceiling": ceiling, "torch_matmul_us": torch_us,
                                   "configs": results})
            del a, b, c, c16, ref, rows
            torch.cuda.empty_cache()

    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    if args.records and not failed:
        if args.json:
            add_records(args.json, args.records)
        else:
            write_records(report, args.records)
    if failed:
        sys.exit("gemm-triton: a configuration computed a wrong product (above)")


if __name__ == "__main__":
    main()

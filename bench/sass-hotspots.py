#!/usr/bin/env python3
"""Summarizes ncu's source page (SASS, `ncu --import R --page source --csv --print-source sass`):
the warp-state samples of one kernel by instruction kind, then by how often the code runs (the
instructions executed the same number of times: a loop's body, a tile's prologue), then the
instructions with the most samples, and, where the page has them, the stall reasons of those
instructions. SOURCE may be gzipped (`.gz`).

Usage: bench/sass-hotspots.py SOURCE.csv[.gz] [TOP]"""
import csv
import gzip
import re
import sys
from collections import Counter

KINDS = [
    ("wgmma", r"HGMMA|QGMMA|IGMMA"),
    ("wgmma waits", r"WARPGROUP|DEPBAR|WARPSYNC"),
    ("mbarrier", r"SYNCS"),
    ("exponentials", r"MUFU"),
    ("barriers", r"\bBAR\b"),
    ("copy engine", r"UTMA|UBLKCP|UTMACCTL"),
    ("stores", r"\bST[GS]?\b|STG|STS|STSM"),
    ("loads", r"\bLD[GS]?\b|LDS|LDG|LDSM"),
    ("shuffles", r"SHFL"),
    ("float math", r"FMUL|FADD|FFMA|FMNMX|FSEL|F2F|F2FP"),
    ("integer and moves", r"IMAD|IADD|LOP|MOV|SEL|ISETP|R2UR|S2R|S2UR|LEA|SHF|UIADD|UMOV|ULDC"),
    ("branches", r"\bBRA\b|BSYNC|BSSY|EXIT|RET|CALL"),
]


def main():
    path = sys.argv[1]
    top_n = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    opened = gzip.open(path, "rt", newline="") if path.endswith(".gz") else open(path, newline="")
    rows = list(csv.reader(opened))
    head = next((i for i, r in enumerate(rows) if any(c.strip() == "Source" for c in r)), None)
    if head is None:
        sys.exit("no source table in " + path)
    cols = [c.strip() for c in rows[head]]
    src = cols.index("Source")
    samp = next((i for i, c in enumerate(cols) if "Sampling" in c and "All" in c), None)
    if samp is None:
        samp = next(i for i, c in enumerate(cols) if "Sampling" in c)
    # Per-reason columns, where the export has them (their names start with "stall_" or
    # hold "Stall").
    reasons = [i for i, c in enumerate(cols) if i != samp and ("stall" in c.lower())]
    executed = cols.index("Instructions Executed") if "Instructions Executed" in cols else None
    total, by, top = 0.0, Counter(), []
    # Executions -> [samples, instructions, the first instruction's text].
    runs = {}
    for r in rows[head + 1:]:
        if len(r) <= max(src, samp):
            continue
        try:
            n = float(r[samp].replace(",", ""))
        except ValueError:
            continue
        total += n
        kind = next((k for k, pat in KINDS if re.search(pat, r[src])), "other")
        by[kind] += n
        top.append((n, r[src].strip()[:72], r))
        if executed is not None:
            try:
                count = int(float(r[executed].replace(",", "")))
            except ValueError:
                count = -1
            group = runs.setdefault(count, [0.0, 0, r[src].strip()[:40]])
            group[0] += n
            group[1] += 1
    print(f"{path}: {total:.0f} samples")
    for kind, n in by.most_common():
        print(f"  {kind:18s} {100 * n / max(total, 1):5.1f} %")
    if runs:
        print("  by how often the code runs (warp-level executions per instruction):")
        for count, (n, size, first) in sorted(runs.items(), key=lambda kv: -kv[1][0])[:8]:
            print(f"  {count:10d} times  {size:5d} instructions  {n:8.0f} samples ({100 * n / max(total, 1):4.1f} %)"
                  f"  from {first}")
    for n, text, r in sorted(top, key=lambda t: -t[0])[:top_n]:
        line = f"  {n:7.0f}  {text}"
        stalls = []
        for i in reasons:
            try:
                v = float(r[i].replace(",", ""))
            except (ValueError, IndexError):
                continue
            if v >= 0.1 * n and v > 0:
                stalls.append(f"{cols[i]} {v:.0f}")
        if stalls:
            line += "   [" + ", ".join(stalls[:4]) + "]"
        print(line)


if __name__ == "__main__":
    main()

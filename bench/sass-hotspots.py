#!/usr/bin/env python3
"""Summarizes ncu's source page (SASS, `ncu --import R --page source --csv --print-source sass`):
the warp-state samples of one kernel by instruction kind, then the instructions with the most
samples, and, where the page has them, the stall reasons of those instructions.

Usage: bench/sass-hotspots.py SOURCE.csv [TOP]"""
import csv
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
    rows = list(csv.reader(open(path, newline="")))
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
    total, by, top = 0.0, Counter(), []
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
    print(f"{path}: {total:.0f} samples")
    for kind, n in by.most_common():
        print(f"  {kind:18s} {100 * n / max(total, 1):5.1f} %")
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

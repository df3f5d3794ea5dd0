#!/usr/bin/env python3
"""Summarizes GEMM tables printed by `host`: per table (precision, shape), the best step's
% of cuBLAS and the steps named on the command line. Usage: gemm-best.py FILE... [-s t12,t14]"""
import re, sys
files = [a for a in sys.argv[1:] if not a.startswith('-s')]
show = next((a[2:].split(',') for a in sys.argv[1:] if a.startswith('-s')), [])
for path in files:
    title = None
    rows = []
    def flush():
        if title and rows:
            best = max(rows, key=lambda r: r[1])
            extra = ' '.join(f'{k}={p:.1f}' for k, p in rows if any(k.startswith(s) for s in show))
            print(f'{title:<44} best {best[0]:<24} {best[1]:6.1f} %  {extra}')
    for line in open(path):
        m = re.match(r'^(FP32|FP16|BF16)\b.*M×N×K = (\S+),', line)
        if m:
            flush(); title = f'{m.group(1)} {m.group(2)}'; rows = []
            continue
        m = re.match(r'^([gt]\d+\w*)\s+([\d.]+)[†‡]?(?:\s+\d+(?=\s))?\s+([\d.]+)\s+([\d.]+)', line)
        if m and title:
            rows.append((m.group(1), float(m.group(4))))
    flush()

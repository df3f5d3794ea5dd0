#!/usr/bin/env python3
"""Turns the GEMM tables that `host` prints (one or more files of one run) into compact
Markdown for the benchmark notes: per precision, steps as rows and shapes as columns, each
cell the step's % of cuBLAS (TFLOP/s for the cuBLAS row), the best step per shape in bold;
then each tensor-core step's % of its instruction's ceiling.
Usage: gemm-notes.py FILE..."""
import re, sys
from collections import OrderedDict
tables = OrderedDict()   # (precision, shape) -> list of (kernel, tflops, pct, ceiling)
for path in sys.argv[1:]:
    key = None
    for line in open(path):
        m = re.match(r'^(FP32|FP16|BF16)\b.*M×N×K = (\S+),', line)
        if m:
            key = (m.group(1), m.group(2)); tables[key] = []; continue
        # kernel, median µs (a mark † or ‡ after it when cut short), [reps,] TFLOP/s, % of cuBLAS, % of ceiling
        m = re.match(r'^(cuBLAS \S+|[gt]\d+\w*)(?: \([^)]*\))?\s+([\d.]+)[†‡]?(?:\s+\d+(?=\s))?\s+([\d.]+)\s+([\d.]+)\s+(\S+)', line)
        if m and key:
            ceiling = None if m.group(5) == '-' else float(m.group(5))
            tables[key].append((m.group(1), float(m.group(3)), float(m.group(4)), ceiling))
shapes = list(OrderedDict.fromkeys(s for _, s in tables))
short = lambda s: s.replace('×', '×')
for precision in ['FP16', 'BF16', 'FP32']:
    cols = [s for s in shapes if (precision, s) in tables]
    if not cols: continue
    kernels = list(OrderedDict.fromkeys(k for s in cols for k, *_ in tables[(precision, s)] if not k.startswith('cuBLAS')))
    print(f'\n{precision}: % of cuBLAS (cuBLAS row: TFLOP/s)\n')
    print('| step | ' + ' | '.join(short(c) for c in cols) + ' |')
    print('| --- |' + ' ---: |' * len(cols))
    print('| cuBLAS TFLOP/s | ' + ' | '.join(f'{next(t for k, t, *_ in tables[(precision, c)] if k.startswith("cuBLAS")):.1f}' for c in cols) + ' |')
    best = {c: max((r for r in tables[(precision, c)] if not r[0].startswith('cuBLAS')), key=lambda r: r[2])[0] for c in cols}
    for k in kernels:
        cells = []
        for c in cols:
            r = next((r for r in tables[(precision, c)] if r[0] == k), None)
            cell = '' if r is None else f'{r[2]:.1f}'
            cells.append(f'**{cell}**' if best[c] == k else cell)
        print(f'| {re.sub(r"_(f16|bf16)$", "", k)} | ' + ' | '.join(cells) + ' |')
    if precision != 'FP32':
        print(f'\n{precision}: % of the instruction\'s ceiling (mma.sync for t1–t4, wgmma for t5 on; cuBLAS against wgmma)\n')
        print('| step | ' + ' | '.join(short(c) for c in cols) + ' |')
        print('| --- |' + ' ---: |' * len(cols))
        for k in ['cuBLAS'] + kernels:
            cells = []
            for c in cols:
                r = next((r for r in tables[(precision, c)] if r[0].startswith(k)), None)
                cells.append('' if r is None or r[3] is None else f'{r[3]:.1f}')
            print(f'| {re.sub(r"_(f16|bf16)$", "", k)} | ' + ' | '.join(cells) + ' |')

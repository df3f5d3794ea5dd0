#!/usr/bin/env python3
"""Turns the GEMM records of one run (the `--json` files that `host` writes, one or more per
run) into compact Markdown for the notes (docs/lessons.md, docs/history.md): per precision, steps as rows and shapes
as columns, each cell the step's % of cuBLAS (TFLOP/s for the cuBLAS row), the best step per
shape in bold; then each tensor-core step's % of its instruction's ceiling.

With --best, one line per table instead: the best step's % of cuBLAS, and the % of the steps
named by -s (prefixes, e.g. -s w08,w12).

It reads the JSON rather than the printed tables, whose columns change with the options
(`--twins` adds three).

Usage: gemm-notes.py [--best [-s w08,w10]] FILE.json..."""
import argparse, json, re, sys
from collections import OrderedDict

parser = argparse.ArgumentParser(description='GEMM records of one run as Markdown tables for the notes')
parser.add_argument('files', nargs='+', metavar='FILE.json')
parser.add_argument('--best', action='store_true', help='one line per table: the best step')
parser.add_argument('-s', '--show', default='', help='with --best: also these steps (prefixes, comma-separated)')
options = parser.parse_args()
best_only, files = options.best, options.files
show = [s for s in options.show.split(',') if s]

# (precision, shape) -> [(kernel, TFLOP/s, % of cuBLAS, % of ceiling or None)], from either
# layout `host --json` has written: records (one per kernel and size) or, in
# older runs, the printed tables as lists of rows.
tables = OrderedDict()
PRECISIONS = {'f32': 'FP32', 'f16': 'FP16', 'bf16': 'BF16'}
for path in files:
    run = json.load(open(path))
    for r in run.get('records', []):
        if r['family'] != 'gemm' or not r['passed']:
            continue
        key = (PRECISIONS[r['precision']], f"{r['m']}×{r['n']}×{r['k']}")
        kernel = r['vendor'] if r['kernel'] == 'cublas' else r['kernel']
        tables.setdefault(key, []).append((kernel, r['figure'], r['percent_of_vendor'], r['percent_of_limit']))
    for table in run.get('gemm', []):
        m = re.match(r'^(FP32|FP16|BF16)\b.*M×N×K = (\S+),', table['title'])
        if not m:
            continue  # the p8 ceiling table
        tables[(m.group(1), m.group(2))] = [
            (r['kernel'], r['TFLOP/s'], r['% of cuBLAS'], r['% of ceiling']) for r in table['rows'] if r.get('check') == 'ok'
        ]

is_vendor = lambda kernel: kernel.startswith('cuBLAS')
step = lambda kernel: re.sub(r'_(f16|bf16)$', '', kernel)


def best_step(rows):
    return max((r for r in rows if not is_vendor(r[0])), key=lambda r: r[2])


if best_only:
    for (precision, shape), rows in tables.items():
        name, _, pct, _ = best_step(rows)
        extra = ' '.join(f'{step(k)}={p:.1f}' for k, _, p, _ in rows if any(k.startswith(s) for s in show))
        print(f'{precision} {shape:<20} best {step(name):<24} {pct:6.1f} %  {extra}')
    sys.exit(0)

shapes = list(OrderedDict.fromkeys(s for _, s in tables))  # in the order the run took them
for precision in ['FP16', 'BF16', 'FP32']:
    cols = [s for s in shapes if (precision, s) in tables]
    if not cols:
        continue
    kernels = list(OrderedDict.fromkeys(k for s in cols for k, *_ in tables[(precision, s)] if not is_vendor(k)))
    best = {c: best_step(tables[(precision, c)])[0] for c in cols}
    header = '| step | ' + ' | '.join(cols) + ' |\n| --- |' + ' ---: |' * len(cols)
    print(f'\n{precision}: % of cuBLAS (cuBLAS row: TFLOP/s)\n\n{header}')
    print('| cuBLAS TFLOP/s | ' + ' | '.join(
        f'{next(t for k, t, *_ in tables[(precision, c)] if is_vendor(k)):.1f}' for c in cols) + ' |')
    for k in kernels:
        cells = []
        for c in cols:
            r = next((r for r in tables[(precision, c)] if r[0] == k), None)
            cell = '' if r is None else f'{r[2]:.1f}'
            cells.append(f'**{cell}**' if best[c] == k else cell)
        print(f'| {step(k)} | ' + ' | '.join(cells) + ' |')
    if precision != 'FP32':
        print(f"\n{precision}: % of the instruction's ceiling (mma.sync for the t steps, wgmma for the w steps; "
              f'cuBLAS against wgmma)\n\n{header}')
        for k in ['cuBLAS'] + kernels:
            cells = []
            for c in cols:
                r = next((r for r in tables[(precision, c)] if r[0].startswith(k)), None)
                cells.append('' if r is None or r[3] is None else f'{r[3]:.1f}')
            print(f'| {step(k)} | ' + ' | '.join(cells) + ' |')

#!/usr/bin/env python3
"""The yardsticks of the host's attention ladder: PyTorch's scaled_dot_product_attention
with its cuDNN backend and its FlashAttention-2 backend, on the shapes of the host's
records, written back into them as each step's % of each backend.

What it measures: the forward pass softmax(Q·Kᵀ/√d + mask)·V, bf16 or f16, on the GPU
the host ran on, in the same device call. Q, K and V lie in memory as the Rust kernel reads
them: `bshd` records get [batch, seq, heads, head dim] buffers passed as `.transpose(1, 2)`
views, `bhsd` records contiguous [batch, heads, seq, head dim]; values uniform in [-1, 1)
as the host's: on the 1/128 grid in bf16 (8 significant bits), the 1/1024 grid in f16 (11), so
that the tensor cores toggle as many bits for cuDNN as for the Rust kernel (under the power
cap, the bits they toggle set the clock). The causal mask is the host's, aligned at the bottom
right: `is_causal=True` when seq_q == seq_k, `causal_lower_right(seq_q, seq_k)` otherwise.
Grouped-query shapes use `enable_gqa=True` (PyTorch >= 2.5); where that is missing or a
backend refuses it, K and V are repeated to the query heads before timing, and the note
says so. Each backend is pinned by `sdpa_kernel([backend])`, and its first output is
checked against an f32 reference on the last 128 query rows of one head (batch 0, the last
query head) before it is timed: a wrong result gets no figure, and the exit status is 1.

How it times, as the host does: CUDA events around one call, the L2 flushed (a read of
twice its size) before each sample, outside the events; a GPU spin (torch.cuda._sleep)
queued before the start event covers Python's launch overhead, so the events see the
kernels and not the interpreter (without _sleep, sub-50-µs cases put a batch of calls
between the events instead, and the record says how many). Warm-up first, then samples
until there are at least 20 and they add up to at least --min-time seconds of GPU time; the
figure is the median, TFLOP/s = FLOPs / median, FLOPs = 4·batch·heads_q·seq_q·seq_k·head dim,
halved under the causal mask (the records' `details.flops` where present).

Sequential mode (the default) times backend after backend. --interleave alternates them
sample by sample instead (one round = one call of each backend, the order flipped every
round), after a 1.5 s warm-up under that load: at the power cap a hot GPU clocks lower, and
whichever backend runs first on a cool GPU would get the better clock. --heat S warms every
case (interleaved: every shape's cases together) for at least S seconds first, as the host's
--heat does its kernels: a backend that drives the GPU to its power cap is then timed at the
clock it holds under steady load in either mode.

--back-to-back N queues N calls between a sample's events (fewer where they would pass 20 ms)
with no spin between them, and heats N calls at a time, as the host's --back-to-back does its
launches: the spin before each call idles the GPU for twice Python's launch time, and at the
power cap that idle time lends the next call clock (cuDNN on an H200, head dim 128, 1k keys:
568–604 TFLOP/s timed one call a sample, 538–547 back to back). Only a case whose calls Python
queues faster than the GPU runs them is timed so (a trial chunk back to back must run within
1/0.8 of one call's time behind a spin; cuDNN at batch 1 and 512 keys runs in 14 µs and takes
Python 37 µs to queue); the others as before, with a note.

A backend that refuses a shape (dtype, head dim, mask, not built in) gets its reason
instead of a figure, and the run goes on. Into each attention step record it writes
`details.sdpa` (each backend's median_us and tflops or error, the mode, the torch and cuDNN
versions), `details.percent_of_cudnn`, `details.percent_of_flash`, `vendor` and
`percent_of_vendor` (of cuDNN); and it appends one record per shape and backend
(`sdpa_cudnn`, `sdpa_flash`) for the charts, replacing those of an earlier run. Other
records pass through untouched. Tables on stdout, progress on stderr.

--shapes times shapes given on the command line instead (precision:BxHxSxD:mask, layout
bshd, optionally :bhsd) and only prints. --self-test checks the parts that need neither
torch nor a GPU (records in and out, percentages, the table).

Usage: bench/attention-sdpa.py RECORDS.json [--out OUT.json] [--backends cudnn,flash]
                               [--interleave] [--min-time 0.2] [--heat 2] [--back-to-back 8]
       bench/attention-sdpa.py --shapes bf16:16x16x1024x128:none,bf16:16x16x4096x128:causal
       bench/attention-sdpa.py --self-test
"""
import argparse
import copy
import datetime
import json
import math
import os
import statistics
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field

from records_json import write_atomic

DEVICE = "cuda"  # where the tensors live ("cpu" lets the torch parts run on a machine without a GPU)
FAMILY = "attention"
BACKENDS = {"cudnn": "cuDNN", "flash": "FA2"}  # --backends name -> table column
BASELINE_KERNEL = {"cudnn": "sdpa_cudnn", "flash": "sdpa_flash"}
VENDOR = "cuDNN (PyTorch SDPA)"
PRECISIONS = ("bf16", "f16")
MASKS = ("none", "causal")
LAYOUTS = ("bshd", "bhsd")
SHAPE_FIELDS = ("batch", "heads_q", "heads_kv", "seq_q", "seq_k", "head_dim", "mask", "layout")

MIN_SAMPLES = 20
WARMUP_CALLS = 3
WARMUP_SEQUENTIAL_S = 0.05  # per backend, besides the calls
WARMUP_FIRST_S = 1.5  # interleaved: the first shape brings the GPU to its working temperature
WARMUP_NEXT_S = 0.5  # interleaved: every later shape
BUDGET_S = 60.0  # past this, a case stops at MIN_SAMPLES whatever its GPU time
CHUNK_ROUNDS = 8  # rounds queued between synchronizations
BATCH_BELOW_US = 50.0  # without a spin kernel, cases faster than this are timed in batches
# --back-to-back: a case is queued back to back only where Python queues a call in under this
# share of the call's GPU time (else the GPU would wait on the interpreter inside the events).
QUEUE_SHARE = 0.8
BACK_TO_BACK_SPAN_US = 20000.0  # --back-to-back: no more calls a sample than fill this (the host's rule)
CHECK_ROWS = 128
# The inputs' grid per precision: the host's random_bf16_value and random_f16_value (k / 128 for
# k in [-128, 127], and k / 1024 for k in [-1024, 1023]), every value exact.
INPUT_GRID = {"bf16": 128, "f16": 1024}
TOLERANCE = {"bf16": 2.0**-5, "f16": 2.0**-7}  # max |O - ref| / max |ref|


def note(message):
    print(message, file=sys.stderr, flush=True)


def finite(x):
    return x if isinstance(x, (int, float)) and math.isfinite(x) else None


# ---------------------------------------------------------------- shapes and records


@dataclass(frozen=True)
class Shape:
    precision: str
    batch: int
    heads_q: int
    heads_kv: int
    seq_q: int
    seq_k: int
    head_dim: int
    mask: str
    layout: str
    flops: float = field(default=0.0, compare=False)

    def __post_init__(self):
        if self.precision not in PRECISIONS:
            raise ValueError(f"precision {self.precision!r} (bf16 or f16)")
        if self.mask not in MASKS:
            raise ValueError(f"mask {self.mask!r} (none or causal)")
        if self.layout not in LAYOUTS:
            raise ValueError(f"layout {self.layout!r} (bshd or bhsd)")
        sizes = [self.batch, self.heads_q, self.heads_kv, self.seq_q, self.seq_k, self.head_dim]
        if any(not isinstance(v, int) or isinstance(v, bool) or v <= 0 for v in sizes):
            raise ValueError(f"sizes must be positive integers: {sizes}")
        if self.heads_q % self.heads_kv:
            raise ValueError(f"{self.heads_q} query heads are not a multiple of {self.heads_kv} key/value heads")
        if not self.flops:
            object.__setattr__(self, "flops", full_flops(self))

    def details(self):
        """The shape fields of a record's details."""
        return {**{name: getattr(self, name) for name in SHAPE_FIELDS}, "flops": self.flops}

    def label(self, with_layout=False):
        """`4096 (16×32)`; `1024/4096 (16×32/8)` when seq_k or the KV heads differ."""
        seq = f"{self.seq_q}" if self.seq_q == self.seq_k else f"{self.seq_q}/{self.seq_k}"
        heads = f"{self.heads_q}" if self.heads_q == self.heads_kv else f"{self.heads_q}/{self.heads_kv}"
        return f"{seq} ({self.batch}×{heads})" + (f" {self.layout}" if with_layout else "")

    def text(self):
        return f"{self.precision} {self.label(True)} d={self.head_dim} {self.mask}"


def full_flops(shape):
    """4·batch·heads_q·seq_q·seq_k·head dim, halved under the causal mask (as the host counts)."""
    flops = 4.0 * shape.batch * shape.heads_q * shape.seq_q * shape.seq_k * shape.head_dim
    return flops / 2 if shape.mask == "causal" else flops


def is_attention(record):
    return isinstance(record, dict) and record.get("family") == FAMILY


def is_baseline(record):
    return is_attention(record) and str(record.get("kernel", "")).startswith("sdpa_")


def is_step(record):
    return is_attention(record) and not is_baseline(record)


def shape_of(record):
    """The Shape of an attention record; ValueError says what is missing."""
    details = record.get("details")
    if not isinstance(details, dict):
        raise ValueError("no details")
    missing = [name for name in SHAPE_FIELDS if name not in details]
    if missing:
        raise ValueError(f"details lack {', '.join(missing)}")
    flops = finite(details.get("flops")) or 0.0
    return Shape(record.get("precision"), *(details[name] for name in SHAPE_FIELDS), flops=flops)


def collect_shapes(doc):
    """The distinct shapes of the attention step records, in the order they first appear,
    and each shape's step records."""
    steps = {}
    for record in doc.get("records", []):
        if not is_step(record):
            continue
        try:
            shape = shape_of(record)
        except (ValueError, TypeError) as e:
            note(f"skipping attention record {record.get('kernel')!r}: {e}")
            continue
        steps.setdefault(shape, []).append(record)
    return list(steps), steps


def load_records(path):
    if not os.path.isfile(path):
        sys.exit(f"attention-sdpa: no records file {path}")
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        sys.exit(f"attention-sdpa: cannot read {path}: {e}")
    if not isinstance(doc, dict) or not isinstance(doc.get("records"), list):
        sys.exit(f"attention-sdpa: {path} has no \"records\" list")
    return doc


def parse_shapes(text):
    """`bf16:16x16x1024x128:none,f16:4x32x8192x64:causal:bhsd` -> [Shape] (seq_k = seq_q,
    heads_kv = heads_q, layout bshd unless given)."""
    shapes = []
    for item in filter(None, (s.strip() for s in text.split(","))):
        parts = item.split(":")
        if len(parts) not in (3, 4):
            raise ValueError(f"{item!r}: want precision:BxHxSxD:mask[:layout]")
        dims = parts[1].lower().replace("×", "x").split("x")
        if len(dims) != 4 or not all(d.isdigit() for d in dims):
            raise ValueError(f"{item!r}: want BxHxSxD, four integers")
        b, h, s, d = map(int, dims)
        layout = parts[3] if len(parts) == 4 else "bshd"
        shapes.append(Shape(parts[0], b, h, h, s, s, d, parts[2], layout))
    if not shapes:
        raise ValueError("no shapes")
    return shapes


def percent(step, backend):
    if finite(step) is None or not finite(backend):
        return None
    return finite(100.0 * step / backend)


def tflops(entry):
    return entry.get("tflops") if isinstance(entry, dict) else None


def apply_results(doc, steps, results, meta):
    """Writes the measurements into `doc` (in place): each step record's details.sdpa and
    percentages, vendor fields, and one baseline record per (shape, backend), replacing
    baseline records an earlier run left for these shapes. `results[shape][backend]` is
    {"median_us", "tflops", ...} or {"error": ...}; `meta` has mode, torch, cudnn_version."""
    records = doc["records"]
    kept = []
    for record in records:
        if is_baseline(record):
            try:
                if shape_of(record) in results:
                    continue
            except (ValueError, TypeError):
                pass
        kept.append(record)
    records[:] = kept

    for shape, entries in results.items():
        cudnn, flash = tflops(entries.get("cudnn")), tflops(entries.get("flash"))
        for record in steps.get(shape, []):
            details = record["details"]
            details["sdpa"] = {**copy.deepcopy(entries), **meta}
            details["percent_of_cudnn"] = percent(record.get("figure"), cudnn)
            details["percent_of_flash"] = percent(record.get("figure"), flash)
            if cudnn is not None:
                record["vendor"] = VENDOR
                record["percent_of_vendor"] = details["percent_of_cudnn"]
        template = steps[shape][0] if steps.get(shape) else {}
        for backend, entry in entries.items():
            records.append(baseline_record(shape, backend, entry, template, cudnn))


def baseline_record(shape, backend, entry, template, cudnn):
    """A record of the host's form (the template's fields, all empty) for one backend."""
    record = {key: None for key in template}
    for key in ("variant", "m", "n", "k"):  # the size fields a step record may carry
        if template.get(key) is not None:
            record[key] = template[key]
    figure = tflops(entry)
    record.update(
        family=FAMILY,
        kernel=BASELINE_KERNEL[backend],
        precision=shape.precision,
        unit="TFLOP/s",
        figure=figure,
        median_us=entry.get("median_us"),
        min_us=entry.get("min_us"),
        max_us=entry.get("max_us"),
        spread_percent=entry.get("spread_percent"),
        repetitions=entry.get("samples"),
        stop=entry.get("stop"),
        passed=None,
        error=entry.get("check_error"),
        error_measure=entry.get("check_measure"),
        vendor=VENDOR if cudnn is not None else None,
        percent_of_vendor=percent(figure, cudnn),
        details=shape.details(),
    )
    return record


def short_names(keys):
    """Column labels for (kernel, variant) keys: `a03` when the prefixes before the first
    underscore tell the steps apart, the whole id otherwise."""
    prefixes = [k.split("_")[0] for k, _ in keys]
    unique = len(set(zip(prefixes, (v for _, v in keys)))) == len(keys)
    names = prefixes if unique else [k for k, _ in keys]
    return [n + (f"/{v}" if v else "") for n, (_, v) in zip(names, keys)]


def number(x, digits=1):
    return "-" if finite(x) is None else f"{x:.{digits}f}"


def table_lines(shapes, steps, results, backends, header):
    """One table per (precision, head dim, mask): rows the sequence lengths, columns each
    step's TFLOP/s and % of cuDNN, then each backend's TFLOP/s; the backends' errors below."""
    lines = list(header)
    groups = {}
    for shape in shapes:
        groups.setdefault((shape.precision, shape.head_dim, shape.mask), []).append(shape)
    for (precision, head_dim, mask), group in groups.items():
        group.sort(key=lambda s: (s.seq_q, s.seq_k, s.batch, s.heads_q, s.heads_kv, s.layout))
        mixed = len({s.layout for s in group}) > 1
        keys = []
        for shape in group:
            for record in steps.get(shape, []):
                # A column per step: its variant names the batch and heads, which change
                # with the length (the row says them).
                key = (record.get("kernel"), None)
                if key not in keys:
                    keys.append(key)
        keys.sort(key=lambda k: (str(k[0]), str(k[1] or "")))
        names = short_names(keys)
        layouts = "" if mixed else f", {group[0].layout}"
        lines.append("")
        lines.append(f"{precision}, head dim {head_dim}, mask {mask}{layouts}: TFLOP/s "
                     f"(% = of cuDNN); rows seq (batch×heads)")
        if any(n != k for n, (k, _) in zip(names, keys)):
            lines.append("  " + ", ".join(f"{n} = {k}" for n, (k, _) in zip(names, keys)))
        head = ["seq (b×h)"]
        for name in names:
            head += [name, "%"]
        head += [BACKENDS[b] for b in backends]
        rows = []
        errors = []
        for shape in group:
            by_key = {}
            for record in steps.get(shape, []):
                by_key.setdefault((record.get("kernel"), None), record)
            entries = results.get(shape, {})
            row = [shape.label(mixed)]
            for key in keys:
                record = by_key.get(key)
                if record is None:
                    row += ["", ""]
                    continue
                figure = "WRONG" if record.get("passed") is False else number(record.get("figure"))
                row += [figure, number(percent(record.get("figure"), tflops(entries.get("cudnn"))), 0)]
            for backend in backends:
                entry = entries.get(backend, {})
                if "error" in entry:
                    row.append("n/a")
                    errors.append(f"  {BACKENDS[backend]} at {shape.label(mixed)}: {entry['error']}")
                else:
                    row.append(number(tflops(entry)))
                    if entry.get("note"):
                        errors.append(f"  {BACKENDS[backend]} at {shape.label(mixed)}, note: {entry['note']}")
            rows.append(row)
        widths = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
        for r in [head] + rows:
            lines.append("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip())
        lines += errors
    return lines


# ---------------------------------------------------------------- torch and the GPU


def import_torch():
    try:
        import torch
    except ImportError as e:
        sys.exit(f"attention-sdpa: needs PyTorch ({e})")
    if not torch.cuda.is_available():
        sys.exit("attention-sdpa: CUDA is not available to PyTorch (no GPU, or a CPU-only build)")
    return torch


def torch_version(torch):
    parts = []
    for piece in torch.__version__.split("+")[0].split(".")[:2]:
        digits = "".join(c for c in piece if c.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


def first_line(text):
    lines = [line.strip() for line in str(text).strip().splitlines() if line.strip()]
    return lines[0] if lines else ""


def refusal(exc, caught, backend):
    """The exception's first line, with PyTorch's own reasons for this backend: when no
    kernel may run, SDPA warns why each one was not used, then raises 'No available kernel'."""
    messages = [first_line(str(w.message).split(" (Triggered internally at")[0]) for w in caught]
    header = "cudnn" if backend == "cudnn" else "flash attention"
    reasons, inside, seen_header = [], False, False
    for m in messages:
        if m.endswith("not used because:"):
            inside = m.lower().startswith(header)
            seen_header |= inside
        elif inside:
            reasons.append(m)
    if not seen_header:
        reasons = [m for m in messages if m and "runtime disabled" not in m and not m.endswith("because:")]
    reasons = list(dict.fromkeys(r for r in reasons if r))[:3]
    reason = first_line(exc) or type(exc).__name__
    return reason + (f" ({'; '.join(reasons)})" if reasons else "")


class Inputs:
    """Q, K, V of one shape, in the record's memory layout, as [b, h, s, d] views."""

    def __init__(self, torch, shape, seed=0x5eed):
        self.torch, self.shape = torch, shape
        self.dtype = {"bf16": torch.bfloat16, "f16": torch.float16}[shape.precision]
        generator = torch.Generator(device=DEVICE).manual_seed(seed)
        self.q = self.tensor(shape.heads_q, shape.seq_q, generator)
        self.k = self.tensor(shape.heads_kv, shape.seq_k, generator)
        self.v = self.tensor(shape.heads_kv, shape.seq_k, generator)

    def tensor(self, heads, seq, generator):
        torch, s = self.torch, self.shape
        dims = (s.batch, seq, heads, s.head_dim) if s.layout == "bshd" else (s.batch, heads, seq, s.head_dim)
        grid = INPUT_GRID[s.precision]
        t = torch.randint(-grid, grid, dims, generator=generator, device=DEVICE, dtype=torch.int16)
        t = t.to(self.dtype).div_(grid)  # uniform in [-1, 1) on the 1/grid grid: exact, as the host's
        return t.transpose(1, 2) if s.layout == "bshd" else t

    def repeated(self, t):
        """K or V with each head repeated to the query heads, in the same memory layout."""
        group = self.shape.heads_q // self.shape.heads_kv
        if self.shape.layout == "bshd":
            return t.transpose(1, 2).repeat_interleave(group, dim=2).transpose(1, 2)
        return t.repeat_interleave(group, dim=1)


def reference_error(torch, inputs, out):
    """max |O − ref| / max |ref| over the last CHECK_ROWS query rows of batch 0's last query
    head (rows that see no key left out), against an f32 reference; None if nothing to check."""
    s = inputs.shape
    rows = min(CHECK_ROWS, s.seq_q)
    head = s.heads_q - 1
    kv = head // (s.heads_q // s.heads_kv)
    q = inputs.q[0, head, s.seq_q - rows:].float()
    k, v = inputs.k[0, kv].float(), inputs.v[0, kv].float()
    scores = (q @ k.T) * (1.0 / math.sqrt(s.head_dim))
    keep = None
    if s.mask == "causal":  # query row i sees keys j <= i + seq_k - seq_q
        r = torch.arange(rows, device=DEVICE).unsqueeze(1)
        j = torch.arange(s.seq_k, device=DEVICE).unsqueeze(0)
        visible = j <= r + (s.seq_k - rows)
        scores = scores.masked_fill(~visible, float("-inf"))
        keep = visible.any(dim=1)
    ref = torch.softmax(scores, dim=-1) @ v
    got = out[0, head, s.seq_q - rows:].float()
    if keep is not None:
        ref, got = ref[keep], got[keep]
    if ref.numel() == 0:
        return None
    if not torch.isfinite(got).all():
        return math.inf
    return ((got - ref).abs().max() / ref.abs().max().clamp_min(1e-30)).item()


class Case:
    """One backend on one shape: the call, and the samples of its timing."""

    def __init__(self, backend, call):
        self.backend, self.call = backend, call
        self.samples = []  # µs per call
        self.host_us = []  # Python's time to queue one call
        self.calls = 1
        self.spin_cycles = 0
        self.back_to_back = False  # its samples' calls queued back to back, no spin between
        self.stop = "settled"
        self.check_error = None
        self.notes = []

    def done(self, min_time):
        return len(self.samples) >= MIN_SAMPLES and sum(self.samples) * self.calls * 1e-6 >= min_time


def prepare(torch, shape, backend, inputs, gqa_kwarg):
    """Builds the call for `backend`, runs it once and checks it: (Case, None) or (None, entry)."""
    from torch.nn.functional import scaled_dot_product_attention as sdpa

    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel

        kind = {"cudnn": "CUDNN_ATTENTION", "flash": "FLASH_ATTENTION"}[backend]
        enum = getattr(SDPBackend, kind)
    except (ImportError, AttributeError) as e:
        return None, {"error": f"this PyTorch has no sdpa_kernel / SDPBackend for {backend} ({first_line(e)})"}

    notes = []
    kwargs = {}
    if shape.mask == "causal" and shape.seq_q == shape.seq_k:
        kwargs["is_causal"] = True
    elif shape.mask == "causal":
        try:
            from torch.nn.attention.bias import causal_lower_right
        except ImportError as e:
            return None, {"error": f"no torch.nn.attention.bias.causal_lower_right ({first_line(e)})"}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "lower right causal bias will produce NaNs" when seq_q > seq_k
            kwargs["attn_mask"] = causal_lower_right(shape.seq_q, shape.seq_k)
        notes.append("mask: causal_lower_right(seq_q, seq_k)")
        if backend == "cudnn":  # CausalBias sends only flash and memory-efficient calls its own way
            notes.append("PyTorch passes it to cuDNN as a dense [seq_q, seq_k] boolean mask")

    q, k, v = inputs.q, inputs.k, inputs.v
    grouped = shape.heads_kv != shape.heads_q
    if grouped and gqa_kwarg:
        kwargs["enable_gqa"] = True
    elif grouped:
        k, v = inputs.repeated(k), inputs.repeated(v)
        notes.append("K and V heads repeated to the query heads (no enable_gqa in this PyTorch)")

    def attempt(q, k, v, kwargs):
        def call():
            with sdpa_kernel([enum]):
                return sdpa(q, k, v, **kwargs)

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                out = call()
                torch.cuda.synchronize()
                return call, out, None
            except Exception as e:  # a backend's refusal is a result, not a failure
                torch.cuda.synchronize()
                return None, None, refusal(e, caught, backend)

    call, out, error = attempt(q, k, v, kwargs)
    if error and grouped and kwargs.get("enable_gqa"):
        kwargs.pop("enable_gqa")
        k, v = inputs.repeated(k), inputs.repeated(v)
        call, out, _ = attempt(q, k, v, kwargs)
        if call is None:
            return None, {"error": error}
        notes.append(f"K and V heads repeated to the query heads (with enable_gqa=True: {error})")
    elif call is None:
        return None, {"error": error}

    err = reference_error(torch, inputs, out)
    del out
    tolerance = TOLERANCE[shape.precision]
    if err is not None and not err <= tolerance:
        return None, {"error": f"wrong result: max |O - ref| / max |ref| = {err:.3g} > {tolerance:.3g}",
                      "check_error": finite(err), "wrong": True}
    case = Case(backend, call)
    case.check_error, case.notes = err, notes
    return case, None


class Timer:
    """CUDA events around one call (or a batch), the L2 flushed before each sample and a GPU
    spin queued ahead of the start event, as described at the top."""

    def __init__(self, torch, min_time, back_to_back=1, clock=time.perf_counter):
        self.torch, self.min_time, self.back_to_back, self.clock = torch, min_time, back_to_back, clock
        props = torch.cuda.get_device_properties(torch.cuda.current_device())
        l2 = getattr(props, "L2_cache_size", 0) or (64 << 20)
        self.flush_buffer = torch.ones(max(2 * l2, 1 << 20) // 4, dtype=torch.float32, device=DEVICE)
        self.sleep = getattr(torch.cuda, "_sleep", None)
        self.cycles_per_us = self.calibrate() if self.sleep else None

    def calibrate(self):
        torch = self.torch
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        self.sleep(1000)
        cycles = 1_000_000
        start.record()
        self.sleep(cycles)
        stop.record()
        stop.synchronize()
        return cycles / max(start.elapsed_time(stop) * 1e3, 1.0)

    def flush(self):
        self.flush_buffer.sum()  # a read of twice the L2; the result is dropped

    def warm(self, cases, seconds):
        """Calls every case in turn, at least WARMUP_CALLS times and for `seconds` (waiting
        for the GPU after every round, or every `back_to_back` rounds), then sets each case's
        spin (or batch) from Python's queueing time and the GPU's: one call timed behind a
        spin, and (with back_to_back) a trial chunk timed back to back, which must keep the
        GPU's pace for the case to be timed so."""
        torch = self.torch
        begin, rounds = self.clock(), 0
        while rounds < WARMUP_CALLS or self.clock() - begin < seconds:
            for case in cases:
                t = self.clock()
                case.call()
                case.host_us.append((self.clock() - t) * 1e6)
            rounds += 1
            if rounds % self.back_to_back == 0:
                torch.cuda.synchronize()
        torch.cuda.synchronize()
        for case in cases:
            host_us = statistics.median(case.host_us)
            spin = int(min(2 * host_us + 20, 5000) * self.cycles_per_us) if self.sleep else 0
            if self.sleep and self.back_to_back == 1:
                case.spin_cycles = spin  # one call a sample behind a spin: nothing to decide
                continue
            one_us = self.trial(case, 1, spin, rounds=CHUNK_ROUNDS)  # a spin ahead of each call
            if self.back_to_back > 1 and not self.sleep:
                case.notes.append("not back to back: this torch has no torch.cuda._sleep to time one "
                                  "call without Python's time against")
            elif self.back_to_back > 1:
                fit = int(BACK_TO_BACK_SPAN_US // max(one_us, 1e-3))
                calls = max(1, min(self.back_to_back, fit))
                # A chunk timed as measure() would time it: where Python cannot keep ahead,
                # the GPU waits between the calls and the pace is Python's, not the GPU's.
                pace_us = self.trial(case, calls, spin, rounds=CHUNK_ROUNDS, back_to_back=True)
                if host_us < QUEUE_SHARE * one_us and pace_us * QUEUE_SHARE <= one_us:
                    case.back_to_back, case.calls, case.spin_cycles = True, calls, spin
                    continue
                case.notes.append(f"not back to back: Python queues a call in {host_us:.0f} µs, "
                                  f"the GPU runs it in {one_us:.0f} µs alone and {pace_us:.0f} µs "
                                  f"a call back to back")
            if self.sleep:
                case.spin_cycles = spin
            elif one_us < BATCH_BELOW_US:
                case.calls = math.ceil(BATCH_BELOW_US / max(one_us, 1.0))

    def queue_sample(self, case, calls, spin_cycles):
        """Queues one sample: the L2 flush, the spin (if any), then `calls` calls between two
        events, which it returns."""
        torch = self.torch
        self.flush()
        if spin_cycles:
            self.sleep(spin_cycles)
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(calls):
            case.call()
        stop.record()
        return start, stop

    def trial(self, case, calls, spin_cycles, rounds, back_to_back=False):
        """The median µs a call over `rounds` samples of `calls` calls, queued as measure()
        queues them (back to back: the spin ahead of the first sample alone)."""
        events = [self.queue_sample(case, calls, spin_cycles if r == 0 or not back_to_back else 0)
                  for r in range(rounds)]
        events[-1][1].synchronize()
        return statistics.median(start.elapsed_time(stop) * 1e3 / calls for start, stop in events)

    def measure(self, cases):
        """Rounds of one sample per case (the order flipped every round) until every case
        has MIN_SAMPLES samples and min_time of GPU time (or the budget is spent)."""
        begin, rounds, pending = self.clock(), 0, []
        while True:
            for case in cases if rounds % 2 == 0 else cases[::-1]:
                spin = case.spin_cycles if not case.back_to_back or not pending else 0
                pending.append((case, *self.queue_sample(case, case.calls, spin)))
            rounds += 1
            if rounds % CHUNK_ROUNDS:
                continue
            pending[-1][2].synchronize()
            for case, start, stop in pending:
                case.samples.append(start.elapsed_time(stop) * 1e3 / case.calls)
            pending.clear()
            if all(case.done(self.min_time) for case in cases):
                return
            if self.clock() - begin > BUDGET_S and all(len(c.samples) >= MIN_SAMPLES for c in cases):
                for case in cases:
                    case.stop = "settled" if case.done(self.min_time) else "budget"
                return


def entry_of(case, shape):
    samples = sorted(case.samples)
    median = statistics.median(samples)
    q1, _, q3 = statistics.quantiles(samples, n=4)
    entry = {
        "median_us": median,
        "tflops": finite(shape.flops / (median * 1e-6) / 1e12),
        "min_us": samples[0],
        "max_us": samples[-1],
        "spread_percent": finite(100.0 * (q3 - q1) / median),
        "samples": len(samples),
        "calls_per_sample": case.calls,
        "back_to_back": case.back_to_back,
        "stop": case.stop,
        "check_error": finite(case.check_error) if case.check_error is not None else None,
        "check_measure": f"max |O - ref| / max |ref|, last {min(CHECK_ROWS, shape.seq_q)} query rows "
                         f"of batch 0's last head, f32 reference",
    }
    if case.notes:
        entry["note"] = "; ".join(case.notes)
    return entry


def bench(shapes, backends, interleave, min_time, heat=0.0, back_to_back=1):
    """Times every backend on every shape, each warmed for at least `heat` seconds first,
    `back_to_back` calls a sample: ({shape: {backend: entry}}, meta, any_wrong)."""
    torch = import_torch()
    gqa_kwarg = torch_version(torch) >= (2, 5)
    cudnn_version = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
    meta = {
        "mode": "interleaved" if interleave else "sequential",
        "heat_s": heat,
        "back_to_back": back_to_back,
        "torch": torch.__version__,
        "cudnn_version": cudnn_version,
        "device": torch.cuda.get_device_name(),
    }
    timer = Timer(torch, min_time, back_to_back)
    results, wrong = {}, False
    with torch.inference_mode():
        for index, shape in enumerate(shapes):
            note(f"[{index + 1}/{len(shapes)}] {shape.text()}")
            entries, cases = {}, []
            inputs = Inputs(torch, shape)
            for backend in backends:
                case, entry = prepare(torch, shape, backend, inputs, gqa_kwarg)
                if case is None:
                    wrong |= bool(entry.pop("wrong", False))
                    entries[backend] = entry
                    note(f"  {BACKENDS[backend]}: {entry['error']}")
                else:
                    cases.append(case)
            # The "heating and timing" lines open each backend's window for
            # bench/power-trace.py (the case's line comes before the backends' planning).
            if interleave and cases:
                note(f"  {', '.join(BACKENDS[c.backend] for c in cases)}: heating and timing")
                timer.warm(cases, max(heat, WARMUP_FIRST_S if index == 0 else WARMUP_NEXT_S))
                timer.measure(cases)
            else:
                for case in cases:
                    note(f"  {BACKENDS[case.backend]}: heating and timing")
                    timer.warm([case], max(heat, WARMUP_SEQUENTIAL_S))
                    timer.measure([case])
            for case in cases:
                entries[case.backend] = entry_of(case, shape)
                e = entries[case.backend]
                note(f"  {BACKENDS[case.backend]}: {e['median_us']:.1f} µs, {e['tflops']:.1f} TFLOP/s")
            results[shape] = {b: entries[b] for b in backends}
            del inputs, cases
    return results, meta, wrong


def heated(meta):
    """The header's words for the heating, if any."""
    heat = meta.get("heat_s") or 0
    return f" after {heat:g} s of heating per case" if heat > 0 else ""


def queued(meta):
    """The header's words for --back-to-back, if above 1."""
    n = meta.get("back_to_back") or 1
    return f", up to {n} calls back to back a sample (as many as fill 20 ms; its time over their count)" if n > 1 else ""


def header_lines(device, date, meta, min_time):
    cudnn = meta.get("cudnn_version")
    return [
        f"{device}, {date}",
        f"PyTorch {meta['torch']} scaled_dot_product_attention, cuDNN {cudnn if cudnn is not None else 'none'}; "
        f"{meta['mode']} timing{heated(meta)}, median of >= {MIN_SAMPLES} samples and >= {min_time:g} s of GPU time each, "
        f"L2 flushed before each sample{queued(meta)}",
    ]


# ---------------------------------------------------------------- the self-test


def self_test():
    """The parts that need neither torch nor a GPU, on a small synthetic records file."""

    def step(kernel, precision, figure, shape_details, passed=True, **extra):
        return {"family": "attention", "kernel": kernel, "variant": None, "precision": precision,
                "median_us": 100.0, "figure": figure, "unit": "TFLOP/s", "percent_of_vendor": None,
                "vendor": None, "passed": passed, "details": dict(shape_details), **extra}

    causal = {"batch": 2, "heads_q": 8, "heads_kv": 2, "seq_q": 1024, "seq_k": 4096,
              "head_dim": 128, "mask": "causal", "layout": "bshd"}
    full = {"batch": 4, "heads_q": 16, "heads_kv": 16, "seq_q": 2048, "seq_k": 2048,
            "head_dim": 64, "mask": "none", "layout": "bhsd", "flops": 123.0}
    gemm = {"family": "gemm", "kernel": "w02_tma_pipeline", "precision": "bf16", "figure": 600.0,
            "details": {"tolerance": 0.01}}
    doc = {
        "date_utc": "2026-12-01T00:00:00Z",
        "device": {"name": "NVIDIA H100 80GB HBM3"},
        "records": [
            gemm,
            step("a01_three_pass", "bf16", 50.0, causal),
            step("a03_mma_sync", "bf16", 300.0, causal),
            step("a03_mma_sync", "f16", None, full, passed=False),
            step("a01_three_pass", "f16", 40.0, full),
            {"family": "attention", "kernel": "a99_broken", "precision": "bf16", "details": {"batch": 1}},
        ],
    }
    gemm_before = copy.deepcopy(gemm)

    shapes, steps = collect_shapes(doc)
    assert len(shapes) == 2, shapes
    s_causal, s_full = shapes
    assert s_causal.flops == 4.0 * 2 * 8 * 1024 * 4096 * 128 / 2, s_causal.flops
    assert s_full.flops == 123.0, "details.flops wins"
    assert [r["kernel"] for r in steps[s_causal]] == ["a01_three_pass", "a03_mma_sync"]
    assert Shape("bf16", 2, 8, 2, 1024, 4096, 128, "causal", "bshd", flops=1.0) == s_causal

    results = {
        s_causal: {"cudnn": {"median_us": 10.0, "tflops": 400.0}, "flash": {"error": "No available kernel."}},
        s_full: {"cudnn": {"median_us": 5.0, "tflops": 80.0}, "flash": {"median_us": 4.0, "tflops": 100.0}},
    }
    meta = {"mode": "interleaved", "torch": "2.5.1", "cudnn_version": 90100}
    apply_results(doc, steps, results, meta)

    by = {(r["kernel"], r.get("precision")): r for r in doc["records"]}
    a03 = by[("a03_mma_sync", "bf16")]
    assert a03["details"]["percent_of_cudnn"] == 75.0
    assert a03["details"]["percent_of_flash"] is None
    assert a03["vendor"] == VENDOR and a03["percent_of_vendor"] == 75.0
    assert a03["details"]["sdpa"]["flash"] == {"error": "No available kernel."}
    assert a03["details"]["sdpa"]["mode"] == "interleaved" and a03["details"]["sdpa"]["cudnn_version"] == 90100
    assert by[("a01_three_pass", "f16")]["details"]["percent_of_flash"] == 40.0
    assert by[("a03_mma_sync", "f16")]["details"]["percent_of_cudnn"] is None, "no figure, no percent"
    assert doc["records"][0] == gemm_before, "other families pass through"
    assert by[("a99_broken", "bf16")] == {"family": "attention", "kernel": "a99_broken", "precision": "bf16",
                                           "details": {"batch": 1}}
    baselines = [r for r in doc["records"] if is_baseline(r)]
    assert len(baselines) == 4, baselines
    flash_full = by[("sdpa_flash", "f16")]
    assert flash_full["figure"] == 100.0 and flash_full["median_us"] == 4.0 and flash_full["passed"] is None
    assert flash_full["percent_of_vendor"] == 125.0
    assert set(flash_full["details"]) == set(SHAPE_FIELDS) | {"flops"}
    assert set(flash_full) >= set(doc["records"][1]) - {"details"}, "the host's fields"
    assert by[("sdpa_flash", "bf16")]["figure"] is None
    assert shape_of(by[("sdpa_cudnn", "bf16")]) == s_causal

    # Again, as a second run would: the baselines are replaced, not added.
    shapes2, steps2 = collect_shapes(doc)
    assert shapes2 == shapes
    results[s_full]["cudnn"] = {"median_us": 4.0, "tflops": 100.0}
    apply_results(doc, steps2, results, meta)
    assert len([r for r in doc["records"] if is_baseline(r)]) == 4
    assert by[("a01_three_pass", "f16")]["details"]["percent_of_cudnn"] == 40.0

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "records.json")
        write_atomic(path, doc)
        assert json.load(open(path, encoding="utf-8")) == doc
        assert os.listdir(folder) == ["records.json"], "no temporary file left"

    lines = table_lines(shapes, steps, results, ["cudnn", "flash"], header_lines("GPU", "today", meta, 0.2))
    text = "\n".join(lines)
    print(text)
    assert "1024/4096 (2×8/2)" in text and "2048 (4×16)" in text
    assert "WRONG" in text and "FA2 at 1024/4096 (2×8/2): No available kernel." in text
    row = next(line for line in lines if line.startswith("1024/4096"))
    assert row.split() == ["1024/4096", "(2×8/2)", "50.0", "12", "300.0", "75", "400.0", "n/a"], row
    assert "heating" not in header_lines("GPU", "today", meta, 0.2)[1]
    heated_header = header_lines("GPU", "today", dict(meta, heat_s=2.0), 0.2)[1]
    assert "interleaved timing after 2 s of heating per case, median" in heated_header, heated_header

    class Caught:
        def __init__(self, message):
            self.message = UserWarning(message)

    caught = [Caught(m) for m in (
        "Memory efficient kernel not used because:", "Memory Efficient attention has been runtime disabled.",
        "Flash attention kernel not used because:", "Flash attention needs head dim <= 256.",
        "cuDNN attention kernel not used because:",
        "cuDNN needs head dim <= 128 (Triggered internally at sdp_utils.cpp:1.)")]
    exc = RuntimeError("No available kernel. Aborting execution.\nmore")
    assert refusal(exc, caught, "cudnn") == "No available kernel. Aborting execution. (cuDNN needs head dim <= 128)"
    flash_reason = "No available kernel. Aborting execution. (Flash attention needs head dim <= 256.)"
    assert refusal(exc, caught[:4], "flash") == flash_reason
    assert refusal(ValueError(""), [Caught("odd")], "flash") == "ValueError (odd)"

    parsed = parse_shapes("bf16:16x16x1024x128:none, f16:1×4×256×64:causal:bhsd")
    assert parsed[0] == Shape("bf16", 16, 16, 16, 1024, 1024, 128, "none", "bshd")
    assert parsed[1].layout == "bhsd" and parsed[1].flops == 4.0 * 4 * 256 * 256 * 64 / 2
    for bad in ("bf16:16x16x1024:none", "f32:1x1x1x1:none", "bf16:1x1x1x1:sliding", ""):
        try:
            parse_shapes(bad)
        except ValueError:
            continue
        raise AssertionError(f"accepted {bad!r}")
    assert short_names([("a01_x", None), ("a01_y", None)]) == ["a01_x", "a01_y"]
    assert percent(1.0, 0.0) is None and percent(None, 1.0) is None
    timer_self_test()
    print("\nself-test: ok")


class FakeTorch:
    """Just enough of torch for Timer, on a simulated Python and GPU: a call costs Python
    `python_us` to queue and the GPU `call_us` to run, and the GPU runs what is queued in
    order, as soon as it is queued and the GPU is free; an event is stamped when the GPU
    reaches it. `clock` is Python's time (for Timer's `clock`); `log` holds what was queued
    ("flush", "spin", "call", "event") and each wait ("sync")."""

    float32 = "float32"
    CYCLES_PER_US = 1000.0  # the simulated GPU's clock, for the spin
    FLUSH_US = 1.0  # the GPU's time for the L2 flush (done before Python queues what follows)
    QUEUE_US = 2.0  # Python's time to queue a flush, spin or event

    def __init__(self, call_us, python_us=5.0, wake_us=0.0):
        self.call_us, self.python_us, self.wake_us, self.log = call_us, python_us, wake_us, []
        self.host_us, self.gpu_free_us, self.woken = 0.0, 0.0, True
        fake = self

        class Event:
            def __init__(self, enable_timing):
                self.at_us = None

            def record(self):
                self.at_us = fake.queue("event", fake.QUEUE_US, 0.0)

            def synchronize(self):
                fake.wait(self.at_us)

            def elapsed_time(self, other):  # ms
                return (other.at_us - self.at_us) * 1e-3

        class Cuda:
            def get_device_properties(self, _):
                return type("Props", (), {"L2_cache_size": 1 << 20})()

            def current_device(self):
                return 0

            def synchronize(self):
                fake.wait(fake.gpu_free_us)

            def _sleep(self, cycles):
                fake.queue("spin", fake.QUEUE_US, cycles / fake.CYCLES_PER_US)

        Cuda.Event = Event
        self.cuda = Cuda()

    def queue(self, what, python_us, gpu_us):
        """Python spends `python_us` queueing `what`, which starts on the GPU once both are
        ready and runs `gpu_us`; returns when it starts."""
        self.host_us += python_us
        start = max(self.gpu_free_us, self.host_us)
        self.gpu_free_us = start + gpu_us
        self.log.append(what)
        return start

    def wait(self, until_us):
        self.host_us = max(self.host_us, until_us)
        self.woken = False
        self.log.append("sync")

    def clock(self):  # s, as time.perf_counter
        return self.host_us * 1e-6

    def ones(self, n, dtype, device):
        fake = self
        return type("Buffer", (), {"sum": lambda _: fake.queue("flush", fake.QUEUE_US, fake.FLUSH_US)})()

    def call(self):  # the first after a wait costs Python `wake_us` more (cold caches)
        self.queue("call", self.python_us + (0.0 if self.woken else self.wake_us), self.call_us)
        self.woken = True


def timer_self_test():
    """Timer's --back-to-back on a simulated Python and GPU: the calls of a sample queued with
    nothing between them, a spin only where the queue is empty, a case Python cannot keep
    ahead of left as before with a note, and every figure the GPU's time, not Python's."""
    torch = FakeTorch(call_us=1000.0)
    timer = Timer(torch, min_time=0.001, back_to_back=4, clock=torch.clock)
    case = Case("cudnn", torch.call)
    torch.log.clear()
    timer.warm([case], 0.01)
    heat = torch.log[:torch.log.index("event")]
    assert heat[:5] == ["call"] * 4 + ["sync"], heat  # heating waits every 4 calls, not every call
    assert case.back_to_back and case.calls == 4 and not case.notes, (case.calls, case.notes)
    torch.log.clear()
    timer.measure([case])
    assert case.samples and all(abs(x - 1000.0) < 1e-6 for x in case.samples), case.samples
    text = " ".join(torch.log)
    assert "event call call call call event" in text and "event spin" not in text, text
    chunks = text.count("sync")
    assert text.count("spin") == chunks, (text.count("spin"), chunks)  # one a chunk, ahead of it
    one = Timer(torch, min_time=0.001, clock=torch.clock)  # back_to_back 1: every sample has its spin
    single = Case("cudnn", torch.call)
    one.warm([single], 0.0)
    torch.log.clear()
    one.measure([single])
    assert not single.back_to_back and single.calls == 1
    assert torch.log.count("spin") == len(single.samples), torch.log.count("spin")
    long = FakeTorch(call_us=8000.0)  # 8 ms calls: two fill the 20 ms span
    long_case = Case("cudnn", long.call)
    Timer(long, min_time=0.001, back_to_back=8, clock=long.clock).warm([long_case], 0.0)
    assert long_case.back_to_back and long_case.calls == 2, long_case.calls
    # A 14 µs call that Python takes 37 µs to queue (cuDNN at batch 1, 512 keys): timed back
    # to back, a sample would be Python's pace. One call alone on an idle GPU, timed without a
    # spin, looks slower than Python too (the start event waits for Python), which is why the
    # warm-up times a chunk of calls back to back to decide. And the first call after a wait can
    # take Python longer than the spin covers: one sample alone is not the GPU's time either.
    slow = FakeTorch(call_us=14.0, python_us=37.0, wake_us=100.0)
    slow_python = Case("cudnn", slow.call)
    slow_timer = Timer(slow, min_time=1e-9, back_to_back=8, clock=slow.clock)
    slow_timer.warm([slow_python], 0.0)
    assert not slow_python.back_to_back and slow_python.notes[0].startswith("not back to back"), slow_python.notes
    slow_timer.measure([slow_python])
    assert abs(statistics.median(slow_python.samples) - 14.0) < 1e-6, slow_python.samples


# ---------------------------------------------------------------- main


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("records", nargs="?", metavar="RECORDS.json", help="the host's --json file")
    parser.add_argument("--out", metavar="OUT.json", help="where to write (default: RECORDS.json, atomically)")
    parser.add_argument("--backends", default="cudnn,flash", help="cudnn, flash or both (default: cudnn,flash)")
    parser.add_argument("--interleave", action="store_true", help="alternate the backends sample by sample")
    parser.add_argument("--min-time", type=float, default=0.2, help="GPU seconds per figure, at least (0.2)")
    parser.add_argument("--heat", type=float, default=0.0,
                        help="seconds each case runs untimed before its samples, as the host's --heat (0)")
    parser.add_argument("--back-to-back", type=int, default=1, metavar="N",
                        help="calls queued back to back a sample, and heating likewise, as the host's "
                             "--back-to-back: no spin or wait between them (1)")
    parser.add_argument("--shapes", help="time these shapes instead of a records file, print only")
    parser.add_argument("--self-test", action="store_true", help="check the torch-free parts and exit")
    args = parser.parse_args()

    if args.self_test:
        self_test()
        return 0
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    unknown = [b for b in backends if b not in BACKENDS]
    if unknown or not backends:
        parser.error(f"--backends: {', '.join(unknown) or 'none given'}; choose from {', '.join(BACKENDS)}")
    backends = list(dict.fromkeys(backends))
    if args.min_time <= 0:
        parser.error("--min-time must be positive")
    if not args.heat >= 0:
        parser.error("--heat must be a number of seconds >= 0")
    if not 1 <= args.back_to_back <= 1000:
        parser.error("--back-to-back must be a count from 1 to 1000")
    if (args.records is None) == (args.shapes is None):
        parser.error("give RECORDS.json or --shapes (one of them)")

    if args.shapes is not None:
        try:
            shapes = parse_shapes(args.shapes)
        except ValueError as e:
            parser.error(f"--shapes: {e}")
        results, meta, wrong = bench(list(dict.fromkeys(shapes)), backends, args.interleave, args.min_time, args.heat,
                                     args.back_to_back)
        date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        header = header_lines(meta["device"], date, meta, args.min_time)
        print("\n".join(table_lines(list(results), {}, results, backends, header)))
        return 1 if wrong else 0

    doc = load_records(args.records)
    shapes, steps = collect_shapes(doc)
    if not shapes:
        sys.exit(f"attention-sdpa: {args.records} has no attention records with a usable shape")
    results, meta, wrong = bench(shapes, backends, args.interleave, args.min_time, args.heat, args.back_to_back)
    device = (doc.get("device") or {}).get("name") or meta["device"]
    if device != meta["device"]:
        note(f"warning: the records are from {device!r}, this GPU is {meta['device']!r}: "
             f"the percentages compare two machines")
    apply_results(doc, steps, results, meta)
    print("\n".join(table_lines(shapes, steps, results, backends,
                                header_lines(device, doc.get("date_utc", "?"), meta, args.min_time))))
    out = args.out or args.records
    write_atomic(out, doc)
    note(f"wrote {out}")
    if wrong:
        note("a backend's output did not match the reference: see the errors above")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The yardstick of the host's m2 all-reduce: PyTorch's torch.distributed all-reduce
(NCCL backend), one process per GPU, at the GPU counts the host's node probes run at (2, 4,
... and all of them) and over the same sizes.

Figures as nccl-tests defines them: time per all-reduce (the mean of a batch of
back-to-back calls, the median of several batches, the slowest rank's), algorithm
bandwidth = bytes / time, bus bandwidth = algbw x 2(n-1)/n. Each size is checked once
before it is timed (every rank's sum of the ranks' values). NVLink multicast stays off
(NCCL_NVLS_ENABLE=0).

With --records FILE (the host's `--json` of a run with m2), each m2 record whose GPU count,
type and size were timed here gets PyTorch's figures beside its own:
`details.torch_bus_gbs`, `details.torch_median_us`, `vendor` (torch.distributed and its
NCCL) and `percent_of_vendor` (the host's bus bandwidth as % of PyTorch's).

Usage: bench/allreduce-torch.py [--gpus 2,4] [--min 4K] [--max 4G] [--dtype int32,float32]
                                [--records FILE]
       bench/allreduce-torch.py --self-test     (the torch-free parts)
"""
import argparse
import json
import os
import statistics
import sys

from records_json import write_atomic

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")

BATCHES = 7
# The host's names of the element types.
HOST_TYPES = {"int32": "i32", "float32": "f32"}


def parse_bytes(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    text = text.strip().upper().rstrip("B")
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


def gpu_counts(total):
    """The host's counts (measure::node::gpu_counts) less one: 2, 4, ... and `total`."""
    counts, c = [], 1
    while c <= total:
        counts.append(c)
        c *= 2
    if total > 0 and counts[-1] != total:
        counts.append(total)
    return [c for c in counts if c >= 2]


def iterations(nbytes):
    # About 20 back-to-back calls, as nccl-tests does, fewer for the largest sizes.
    return max(5, min(20, (1 << 33) // max(nbytes, 1)))


def worker(rank, world, args, out_path):
    import torch
    import torch.distributed as dist

    torch.cuda.set_device(rank)
    dist.init_process_group(
        "nccl", init_method=f"file://{args.rendezvous}-{world}", rank=rank, world_size=world,
        device_id=torch.device("cuda", rank),
    )
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    rows = []
    for dtype_name in args.dtype.split(","):
        dtype = getattr(torch, dtype_name)
        size = args.min
        while size <= args.max:
            count = size // torch.tensor([], dtype=dtype).element_size()
            # Checked first: rank r sends r + 1 everywhere, every rank must get n(n + 1)/2.
            x = torch.full((count,), rank + 1, dtype=dtype, device="cuda")
            dist.all_reduce(x)
            want = world * (world + 1) // 2
            wrong = int((x != want).sum().item())
            if wrong:
                raise SystemExit(f"rank {rank}: {dtype_name} all_reduce of {size} bytes: {wrong} elements "
                                 f"differ from {want}")
            # Timed in place on the same buffer (NCCL's sum takes as long whatever the values).
            for _ in range(5):
                dist.all_reduce(x)
            iters = iterations(size)
            batches = []
            for _ in range(BATCHES):
                dist.barrier()
                torch.cuda.synchronize()
                start.record()
                for _ in range(iters):
                    dist.all_reduce(x)
                stop.record()
                stop.synchronize()
                batches.append(start.elapsed_time(stop) * 1e3 / iters)  # µs per call
            mine = torch.tensor([statistics.median(batches)], device="cuda")
            dist.all_reduce(mine, op=dist.ReduceOp.MAX)  # the slowest rank's median
            us = mine.item()
            algbw = size / (us * 1e-6) / 1e9
            rows.append({"gpus": world, "dtype": dtype_name, "bytes": size, "us": us, "algbw": algbw,
                         "busbw": algbw * 2 * (world - 1) / world})
            del x
            size *= 2
    if rank == 0:
        meta = {"nccl": ".".join(map(str, torch.cuda.nccl.version())), "torch": torch.__version__,
                "device": torch.cuda.get_device_name(0)}
        with open(out_path, "w") as f:
            json.dump({"meta": meta, "rows": rows}, f)
    dist.destroy_process_group()


def print_table(meta, rows, world):
    for dtype_name in dict.fromkeys(r["dtype"] for r in rows):
        print(f"torch.distributed all_reduce (NCCL {meta['nccl']}, torch {meta['torch']}), {dtype_name}, "
              f"{world} GPUs ({meta['device']}), NCCL_NVLS_ENABLE={os.environ['NCCL_NVLS_ENABLE']}")
        print(f"{'bytes':>12} {'µs':>10} {'algbw GB/s':>11} {'busbw GB/s':>11}")
        for r in rows:
            if r["dtype"] == dtype_name:
                print(f"{r['bytes']:>12} {r['us']:>10.1f} {r['algbw']:>11.1f} {r['busbw']:>11.1f}")
    sys.stdout.flush()


def apply_to_records(doc, meta, rows):
    """Writes PyTorch's figures beside each m2 record they match; returns how many matched."""
    vendor = f"torch.distributed (NCCL {meta['nccl']})"
    by_key = {(r["gpus"], HOST_TYPES.get(r["dtype"], r["dtype"]), r["bytes"]): r for r in rows}
    matched = 0
    for record in doc.get("records", []):
        details = record.get("details") or {}
        if record.get("kernel") != "m2_allreduce" or "GPUs" not in details:
            continue
        row = by_key.get((details["GPUs"], details.get("type"), details.get("bytes")))
        if row is None:
            continue
        details["torch_bus_gbs"] = round(row["busbw"], 3)
        details["torch_median_us"] = round(row["us"], 3)
        record["details"] = details
        record["vendor"] = vendor
        figure = record.get("figure")
        record["percent_of_vendor"] = (100.0 * figure / row["busbw"]
                                       if figure is not None and row["busbw"] > 0 else None)
        matched += 1
    return matched


def self_test():
    assert gpu_counts(1) == [] and gpu_counts(2) == [2] and gpu_counts(4) == [2, 4]
    assert gpu_counts(3) == [2, 3] and gpu_counts(8) == [2, 4, 8] and gpu_counts(6) == [2, 4, 6]
    assert parse_bytes("4K") == 4096 and parse_bytes("4G") == 4 << 30 and parse_bytes("100") == 100
    assert iterations(4096) == 20 and iterations(4 << 30) == 5
    host = lambda gpus, t, b, fig: {"family": "probe", "kernel": "m2_allreduce", "figure": fig,
                                    "details": {"GPUs": gpus, "type": t, "bytes": b}}
    doc = {"records": [host(2, "i32", 1 << 30, 327.0), host(4, "f32", 1 << 30, 350.0),
                       host(4, "i32", 1 << 12, 0.2), {"kernel": "m1_interconnect", "details": {}}]}
    rows = [{"gpus": 2, "dtype": "int32", "bytes": 1 << 30, "us": 3228.0, "algbw": 332.6, "busbw": 332.6},
            {"gpus": 4, "dtype": "float32", "bytes": 1 << 30, "us": 4500.0, "algbw": 238.6, "busbw": 357.9}]
    assert apply_to_records(doc, {"nccl": "2.28.9"}, rows) == 2
    first = doc["records"][0]
    assert abs(first["percent_of_vendor"] - 100 * 327.0 / 332.6) < 1e-9
    assert first["vendor"] == "torch.distributed (NCCL 2.28.9)" and first["details"]["torch_bus_gbs"] == 332.6
    assert "vendor" not in doc["records"][2], "a size PyTorch did not time keeps no vendor"
    print("self-test passed")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpus", help="GPU counts, comma-separated (default: 2, 4, ... and all)")
    parser.add_argument("--min", type=parse_bytes, default=4 << 10)
    parser.add_argument("--max", type=parse_bytes, default=4 << 30)
    parser.add_argument("--dtype", default="int32,float32")
    parser.add_argument("--records", help="the host's --json file: PyTorch's figures go beside m2's")
    parser.add_argument("--self-test", action="store_true", help="test the torch-free parts and exit")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    if args.records and not os.path.isfile(args.records):
        sys.exit(f"--records {args.records}: no such file (the host's --json of a run with m2)")
    import torch
    import torch.multiprocessing as mp

    total = torch.cuda.device_count()
    worlds = [int(c) for c in args.gpus.split(",")] if args.gpus else gpu_counts(total)
    if not worlds or min(worlds) < 2 or max(worlds) > total:
        sys.exit(f"needs GPU counts from 2 to {total} (this machine's GPUs); got {worlds or 'none'}")
    args.rendezvous = f"/tmp/allreduce-torch-{os.getpid()}"
    all_rows, meta = [], None
    for world in worlds:
        out_path = f"{args.rendezvous}-{world}.json"
        mp.spawn(worker, args=(world, args, out_path), nprocs=world)
        with open(out_path) as f:
            result = json.load(f)
        os.unlink(out_path)
        meta = result["meta"]
        print_table(meta, result["rows"], world)
        all_rows += result["rows"]
    if args.records:
        with open(args.records) as f:
            doc = json.load(f)
        matched = apply_to_records(doc, meta, all_rows)
        write_atomic(args.records, doc)
        print(f"{args.records}: PyTorch's figures beside {matched} m2 records")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The yardstick of the host's m2 all-reduce: PyTorch's torch.distributed all-reduce
(NCCL backend) on every GPU of the node, one process per GPU, over the same sizes.

Figures as nccl-tests defines them: time per all-reduce (the mean of a batch of
back-to-back calls, the median of several batches), algorithm bandwidth = bytes / time,
bus bandwidth = algbw x 2(n-1)/n. NVLink multicast stays off (NCCL_NVLS_ENABLE=0).

Usage: bench/allreduce-torch.py [--min 4K] [--max 4G] [--dtype int32,float32]
"""
import argparse
import os
import statistics
import sys

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

BATCHES = 7


def parse_bytes(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    text = text.strip().upper().rstrip("B")
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


def iterations(nbytes):
    # About 20 back-to-back calls, as nccl-tests does, fewer for the largest sizes.
    return max(5, min(20, (1 << 33) // max(nbytes, 1)))


def worker(rank, world, args):
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method=f"file://{args.rendezvous}", rank=rank, world_size=world)
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for dtype_name in args.dtype.split(","):
        dtype = getattr(torch, dtype_name)
        size = args.min
        rows = []
        while size <= args.max:
            count = size // torch.tensor([], dtype=dtype).element_size()
            x = torch.ones(count, dtype=dtype, device="cuda")
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
            rows.append((size, us, algbw, algbw * 2 * (world - 1) / world))
            del x
            size *= 2
        if rank == 0:
            print(f"torch.distributed all_reduce (NCCL {'.'.join(map(str, torch.cuda.nccl.version()))}, "
                  f"torch {torch.__version__}), {dtype_name}, {world} GPUs "
                  f"({torch.cuda.get_device_name(0)}), NCCL_NVLS_ENABLE={os.environ['NCCL_NVLS_ENABLE']}")
            print(f"{'bytes':>12} {'µs':>10} {'algbw GB/s':>11} {'busbw GB/s':>11}")
            for size, us, algbw, busbw in rows:
                print(f"{size:>12} {us:>10.1f} {algbw:>11.1f} {busbw:>11.1f}")
            sys.stdout.flush()
    dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--min", type=parse_bytes, default=4 << 10)
    parser.add_argument("--max", type=parse_bytes, default=4 << 30)
    parser.add_argument("--dtype", default="int32,float32")
    args = parser.parse_args()
    world = torch.cuda.device_count()
    if world < 2:
        sys.exit(f"needs at least 2 GPUs; this machine has {world}")
    args.rendezvous = f"/tmp/allreduce-torch-{os.getpid()}"
    mp.spawn(worker, args=(world, args), nprocs=world)


if __name__ == "__main__":
    main()

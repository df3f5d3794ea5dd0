# Probe: cuDNN's attention timed two ways after the same heating: back to back (20 calls
# between two events, the GPU never idle) and as bench/attention-sdpa.py times it (the L2
# flushed and a GPU spin of 2 * Python's time + 20 us before each call, the events around
# the one call).
import statistics, sys, time, subprocess
import torch
from torch.nn.functional import scaled_dot_product_attention as sdpa
from torch.nn.attention import SDPBackend, sdpa_kernel
dev = "cuda"
l2 = torch.cuda.get_device_properties(0).L2_cache_size
flushbuf = torch.ones(2 * l2 // 4, device=dev)
def clock():
    return subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,power.draw.instant", "--format=csv,noheader,nounits"],
                          capture_output=True, text=True).stdout.strip()
def sleep_cal():
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda._sleep(1000); s.record(); torch.cuda._sleep(1_000_000); e.record(); e.synchronize()
    return 1_000_000 / (s.elapsed_time(e) * 1e3)
cyc_per_us = sleep_cal()
shapes = [(16, 1024), (4, 4096), (1, 16384)] if len(sys.argv) < 2 else [tuple(map(int, a.split("x"))) for a in sys.argv[1:]]
for b, s in shapes:
    h, d = 16, 128
    g = torch.Generator(device=dev).manual_seed(0x5eed)
    def t():
        x = torch.randint(-128, 128, (b, s, h, d), generator=g, device=dev, dtype=torch.int16).to(torch.bfloat16).div_(128)
        return x.transpose(1, 2)
    q, k, v = t(), t(), t()
    flops = 4 * b * h * s * s * d
    def call():
        with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
            return sdpa(q, k, v)
    call(); torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(50): call()
    host_us = (time.perf_counter() - t0) / 50 * 1e6
    torch.cuda.synchronize()
    def heat(sec, sync_each):
        t0, n = time.perf_counter(), 0
        while time.perf_counter() - t0 < sec:
            call(); n += 1
            if sync_each or n % 20 == 0: torch.cuda.synchronize()
        torch.cuda.synchronize()
    def steady():
        heat(2.0, False)
        xs = []
        for _ in range(20):
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            e0.record()
            for _ in range(20): call()
            e1.record(); e1.synchronize(); xs.append(e0.elapsed_time(e1) * 1e3 / 20)
        return statistics.median(xs), clock()
    def gappy():
        heat(2.0, True)
        spin = int(min(2 * host_us + 20, 5000) * cyc_per_us)
        xs, pend = [], []
        for i in range(40):
            flushbuf.sum(); torch.cuda._sleep(spin)
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            e0.record(); call(); e1.record(); pend.append((e0, e1))
            if len(pend) == 8:
                pend[-1][1].synchronize(); xs += [a.elapsed_time(c) * 1e3 for a, c in pend]; pend = []
        return statistics.median(xs), clock()
    for name, f in [("steady", steady), ("gappy", gappy), ("steady", steady), ("gappy", gappy)]:
        us, clk = f()
        print(f"cuDNN {b}x{h}x{s} d{d} none {name:6s}: {us:8.1f} us {flops / us / 1e6:6.1f} TFLOP/s  (python {host_us:.0f} us a call; smi after: {clk} MHz,W)", flush=True)

#!/usr/bin/env python3
"""How many clusters of 1, 2, 4 and 8 blocks of a Hopper GEMM step fit on this GPU at once.

A cluster's blocks must sit in one GPC, and an H100 SXM's GPCs are not all the same size,
so clusters of four or eight blocks of one SM each may leave SMs unused where pairs use all
of them. The answer decides whether 2 x 2 clusters (A and B both multicast) could keep the
four waves of 4096^3 on every SM. Asks the driver (cuOccupancyMaxActiveClusters) for the
step's real function, block size and dynamic shared memory.

usage: bench/max-clusters.py [PTX [KERNEL [THREADS [SHARED_BYTES]]]]
"""
import ctypes
import sys

ptx_path = sys.argv[1] if len(sys.argv) > 1 else "dist/gpu-bundle/ptx/sm_90a/kernels.ptx"
kernel = sys.argv[2] if len(sys.argv) > 2 else "w08_latency_trims_f16"
threads = int(sys.argv[3]) if len(sys.argv) > 3 else 384
# w06-w08: 4 stages of 48 KB, 32 KB of C staging, the barriers and the alignment slack.
shared = int(sys.argv[4]) if len(sys.argv) > 4 else 230464

CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16
CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4


class LaunchAttribute(ctypes.Structure):
    # CUlaunchAttribute: the id, 4 bytes of padding, then a 64-byte value union whose
    # clusterDim member is three unsigned ints.
    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4), ("value", ctypes.c_uint * 16)]


class LaunchConfig(ctypes.Structure):
    _fields_ = [
        ("gridDimX", ctypes.c_uint),
        ("gridDimY", ctypes.c_uint),
        ("gridDimZ", ctypes.c_uint),
        ("blockDimX", ctypes.c_uint),
        ("blockDimY", ctypes.c_uint),
        ("blockDimZ", ctypes.c_uint),
        ("sharedMemBytes", ctypes.c_uint),
        ("hStream", ctypes.c_void_p),
        ("attrs", ctypes.POINTER(LaunchAttribute)),
        ("numAttrs", ctypes.c_uint),
    ]


assert ctypes.sizeof(LaunchAttribute) == 72 and ctypes.sizeof(LaunchConfig) == 56

cuda = ctypes.CDLL("libcuda.so.1")


def check(result, what):
    if result != 0:
        name = ctypes.c_char_p()
        cuda.cuGetErrorName(result, ctypes.byref(name))
        sys.exit(f"{what} failed: {name.value.decode() if name.value else result}")


check(cuda.cuInit(0), "cuInit")
device = ctypes.c_int()
check(cuda.cuDeviceGet(ctypes.byref(device), 0), "cuDeviceGet")
context = ctypes.c_void_p()
check(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(context), device), "cuDevicePrimaryCtxRetain")
check(cuda.cuCtxSetCurrent(context), "cuCtxSetCurrent")
name = ctypes.create_string_buffer(256)
check(cuda.cuDeviceGetName(name, 256, device), "cuDeviceGetName")
sms = ctypes.c_int()
check(cuda.cuDeviceGetAttribute(ctypes.byref(sms), CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device), "SM count")

with open(ptx_path, "rb") as f:
    image = f.read() + b"\0"
module = ctypes.c_void_p()
check(cuda.cuModuleLoadData(ctypes.byref(module), image), f"loading {ptx_path}")
function = ctypes.c_void_p()
check(cuda.cuModuleGetFunction(ctypes.byref(function), module, kernel.encode()), f"finding {kernel}")
check(
    cuda.cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, shared),
    f"allowing {shared} bytes of dynamic shared memory",
)

print(f"{name.value.decode()}, {sms.value} SMs: {kernel}, {threads} threads, {shared} bytes of shared memory a block")
for size in (1, 2, 3, 4, 6, 8):
    attribute = LaunchAttribute()
    attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
    attribute.value[0], attribute.value[1], attribute.value[2] = size, 1, 1
    config = LaunchConfig()
    config.gridDimX, config.gridDimY, config.gridDimZ = size * sms.value, 1, 1
    config.blockDimX, config.blockDimY, config.blockDimZ = threads, 1, 1
    config.sharedMemBytes = shared
    config.attrs = ctypes.pointer(attribute)
    config.numAttrs = 1
    clusters = ctypes.c_int()
    result = cuda.cuOccupancyMaxActiveClusters(ctypes.byref(clusters), function, ctypes.byref(config))
    if result != 0:
        # A size the driver refuses (not a divisor of the GPC, say) is reported, not fatal.
        error = ctypes.c_char_p()
        cuda.cuGetErrorName(result, ctypes.byref(error))
        print(f"clusters of {size}: refused ({error.value.decode() if error.value else result})")
        continue
    print(f"clusters of {size}: {clusters.value} at once, {clusters.value * size} of {sms.value} SMs")

// CUB's scans and select behind a plain C ABI, so that the Rust host can load it at run time
// (libloading / dlopen) and time cub::DeviceScan and cub::DeviceSelect::If beside its own scan
// kernels in the same process, on the same buffers and the same stream.
//
//   bench/cub/build-scan-library.sh [OUTDIR]        # -> OUTDIR/libscan_cub.so (default dist/cub)
//
// which runs, with the CUDA runtime linked statically so that the .so needs only libcuda:
//
//   nvcc -O3 -std=c++17 -shared -Xcompiler -fPIC -Xcompiler -fvisibility=hidden \
//        -Xlinker --exclude-libs,ALL -cudart static \
//        -gencode arch=compute_90,code=sm_90 -gencode arch=compute_80,code=sm_80 \
//        -gencode arch=compute_90,code=compute_90 -o libscan_cub.so scan_library.cu
//
// (hidden visibility and --exclude-libs keep the static runtime's own cuda* symbols out of the
// dynamic table, so they cannot bind to, or be bound by, another libcudart in the process).
// bench/cub/scan_library_check.cu checks it against a CPU scan and select; it passed on an
// H200 with CUDA 13.0 (CUB 3.0.1), up to n = 2^31 + 1000.
//
// The ABI (every call returns a cudaError_t as an int, 0 = success):
//   int scan_cub_version(void);                         CUB_VERSION, e.g. 300500 for CCCL 3.5.0
//   int scan_cub_workspace(unsigned long long n, int op, unsigned long long* bytes);
//   int scan_cub_run(void* temp, unsigned long long temp_bytes, const void* input, void* output,
//                    unsigned long long n, int op, void* stream);
//   int select_cub_workspace(unsigned long long n, unsigned long long* bytes);
//   int select_cub_run(void* temp, unsigned long long temp_bytes, const int* input, int* output,
//                      unsigned int* count, unsigned long long n, void* stream);
//   const char* scan_cub_error_string(int error);      cudaGetErrorString
// op: 0 = inclusive sum of int32, 1 = exclusive sum of int32, 2 = inclusive sum of float,
//     3 = exclusive sum of float. Anything else: cudaErrorInvalidValue.
//
// Method. Each call is exactly one CUB call, as a CUB user writes it: InclusiveSum/ExclusiveSum
// (cuda::std::plus<>; the int32 sums wrap; the exclusive sums start from int{} = 0 and
// float{} = 0.0f) and DeviceSelect::If with `x > 0` on int32, the kept count written through a
// plain `unsigned int*` (4 bytes). Nothing is allocated, synchronised or printed: the host
// allocates the workspace (the size from the *_workspace call for the same n and op) and
// passes its stream; the kernels are enqueued on that stream and the call returns.
//
// Element counts. A scan with n <= INT32_MAX is called with an `int` count, as most CUB users
// call it (CUB then uses 32-bit offsets); a larger n with a 64-bit count (64-bit offsets).
// DeviceScan takes a templated count from CCCL 2.7 (CUB_VERSION 200700) and DeviceSelect::If a
// 64-bit one from the same release (it splits larger inputs into partitions of < 2^31 itself);
// built against an older CUB, both refuse n > INT32_MAX with cudaErrorInvalidValue. Select
// always refuses n > UINT32_MAX (2^32 - 1): the ABI's count is 32 bits wide.
//
// What the caller must know.
// - Pointers: device pointers in the context current on the calling thread (the static runtime
//   in this library adopts the context the driver API made current, e.g. cudarc's primary
//   context); elements naturally aligned (4 bytes); the workspace needs no alignment (CUB
//   aligns inside it to 256 bytes). A scan may run in place (input == output exactly); select
//   may not (input and output must not overlap).
// - The workspace: temp must not be null (CUB treats a null temp as a size query and would
//   silently do nothing, so it is refused here with cudaErrorInvalidValue); CUB refuses a
//   temp_bytes smaller than it needs (cudaErrorInvalidValue). CUB asks for at least 1 byte even
//   for n = 0. The size depends on n (and, for a scan, on op); query it for the n you run.
// - n = 0: a scan enqueues nothing and returns 0; select enqueues one small kernel that writes
//   *count = 0.
// - Stream semantics: asynchronous; errors of the kernels themselves surface at the host's next
//   synchronisation. The first call on a device pays for loading the module and CUB's
//   per-device queries: warm up before timing. On sm_90 recent CUB launches its kernels with
//   programmatic dependent launch; they wait for the previous work on the stream before
//   reading, so events recorded around a call still time it.
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cub/version.cuh>
#include <cuda/std/functional>
#include <cuda_runtime.h>
#include <climits>
#include <cstddef>
#include <cstdint>

#if CUB_VERSION >= 200700
#define SCAN_CUB_64BIT 1
#else
#define SCAN_CUB_64BIT 0
#endif

#define SCAN_CUB_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

struct Positive {
  __host__ __device__ bool operator()(const int& x) const { return x > 0; }
};

// One CUB scan; temp == nullptr is CUB's size query.
template <typename T, bool Inclusive>
cudaError_t scan(void* temp, size_t& bytes, const void* input, void* output, unsigned long long n,
                 cudaStream_t stream) {
  const T* in = static_cast<const T*>(input);
  T* out = static_cast<T*>(output);
  if (n <= (unsigned long long)INT_MAX) {
    int count = (int)n;
    if constexpr (Inclusive)
      return cub::DeviceScan::InclusiveSum(temp, bytes, in, out, count, stream);
    else
      return cub::DeviceScan::ExclusiveSum(temp, bytes, in, out, count, stream);
  }
#if SCAN_CUB_64BIT
  std::uint64_t count = n;
  if constexpr (Inclusive)
    return cub::DeviceScan::InclusiveSum(temp, bytes, in, out, count, stream);
  else
    return cub::DeviceScan::ExclusiveSum(temp, bytes, in, out, count, stream);
#else
  return cudaErrorInvalidValue;
#endif
}

cudaError_t scan_op(void* temp, size_t& bytes, const void* input, void* output,
                    unsigned long long n, int op, cudaStream_t stream) {
  switch (op) {
    case 0: return scan<int, true>(temp, bytes, input, output, n, stream);
    case 1: return scan<int, false>(temp, bytes, input, output, n, stream);
    case 2: return scan<float, true>(temp, bytes, input, output, n, stream);
    case 3: return scan<float, false>(temp, bytes, input, output, n, stream);
    default: return cudaErrorInvalidValue;
  }
}

// One CUB select; temp == nullptr is CUB's size query.
cudaError_t select_if(void* temp, size_t& bytes, const int* input, int* output,
                      unsigned int* count, unsigned long long n, cudaStream_t stream) {
  if (n > (unsigned long long)UINT_MAX) return cudaErrorInvalidValue;
#if SCAN_CUB_64BIT
  std::int64_t items = (std::int64_t)n;
#else
  if (n > (unsigned long long)INT_MAX) return cudaErrorInvalidValue;
  int items = (int)n;
#endif
  return cub::DeviceSelect::If(temp, bytes, input, output, count, items, Positive{}, stream);
}

}  // namespace

SCAN_CUB_EXPORT int scan_cub_version(void) { return CUB_VERSION; }

SCAN_CUB_EXPORT int scan_cub_workspace(unsigned long long n, int op, unsigned long long* bytes) {
  if (bytes == nullptr) return cudaErrorInvalidValue;
  size_t b = 0;
  cudaError_t e = scan_op(nullptr, b, nullptr, nullptr, n, op, nullptr);
  if (e == cudaSuccess) *bytes = b;
  return e;
}

SCAN_CUB_EXPORT int scan_cub_run(void* temp, unsigned long long temp_bytes, const void* input,
                                 void* output, unsigned long long n, int op, void* stream) {
  if (temp == nullptr) return cudaErrorInvalidValue;
  size_t b = temp_bytes;
  return scan_op(temp, b, input, output, n, op, static_cast<cudaStream_t>(stream));
}

SCAN_CUB_EXPORT int select_cub_workspace(unsigned long long n, unsigned long long* bytes) {
  if (bytes == nullptr) return cudaErrorInvalidValue;
  size_t b = 0;
  cudaError_t e = select_if(nullptr, b, nullptr, nullptr, nullptr, n, nullptr);
  if (e == cudaSuccess) *bytes = b;
  return e;
}

SCAN_CUB_EXPORT int select_cub_run(void* temp, unsigned long long temp_bytes, const int* input,
                                   int* output, unsigned int* count, unsigned long long n,
                                   void* stream) {
  if (temp == nullptr) return cudaErrorInvalidValue;
  size_t b = temp_bytes;
  return select_if(temp, b, input, output, count, n, static_cast<cudaStream_t>(stream));
}

SCAN_CUB_EXPORT const char* scan_cub_error_string(int error) {
  return cudaGetErrorString(static_cast<cudaError_t>(error));
}

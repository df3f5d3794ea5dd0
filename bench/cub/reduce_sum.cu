// CUB baseline for the reduction ladder: cub::DeviceReduce::Sum over int32, timed the way
// the Rust runner times its kernels, so the two can be compared within one session.
//
//   nvcc -O3 -gencode=arch=compute_90,code=sm_90 -o reduce_sum reduce_sum.cu
//   ./reduce_sum [reps] [log2_min] [log2_max]
//
// Method (the same as host/src/timing.rs): random input (never zeros), the result checked
// against a CPU sum, temporary storage allocated once outside the timed region, 3 warm-up
// calls, then `reps` repetitions each preceded by an L2 flush (a read-only pass over twice
// the L2, outside the timed region) and timed with CUDA events; the median is reported.
// Bandwidth counts the input bytes only.
#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t e_ = (call);                                                          \
    if (e_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,              \
                   cudaGetErrorString(e_));                                           \
      std::exit(2);                                                                   \
    }                                                                                 \
  } while (0)

// SplitMix64 finalizer, as in common/src/input.rs.
__host__ __device__ inline uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
__host__ __device__ inline int32_t random_i32(uint64_t seed, uint64_t i) {
  return (int32_t)(uint32_t)(mix(seed + (i + 1) * 0x9E3779B97F4A7C15ull) >> 32);
}

__global__ void fill(int32_t* out, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    out[i] = random_i32(seed, i);
}

__global__ void flush_read(const int4* buf, size_t units, int* sink) {
  int folded = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < units;
       i += (size_t)gridDim.x * blockDim.x) {
    int4 v = buf[i];
    folded ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (folded == INT32_MIN + (int)threadIdx.x) *sink = folded;
}

int main(int argc, char** argv) {
  int reps = argc > 1 ? std::atoi(argv[1]) : 30;
  int lo = argc > 2 ? std::atoi(argv[2]) : 16;
  int hi = argc > 3 ? std::atoi(argv[3]) : 30;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int l2 = prop.l2CacheSize;
  std::printf("# CUB DeviceReduce::Sum int32 on %s, CUB %d.%d.%d, median of %d, L2 flushed\n",
              prop.name, CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION, reps);
  std::printf("%-12s %12s %10s\n", "n", "median_us", "GB/s");

  size_t max_n = (size_t)1 << hi;
  int32_t *in, *out;
  CHECK(cudaMalloc(&in, max_n * 4));
  CHECK(cudaMalloc(&out, 4));
  size_t flush_bytes = 2 * (size_t)l2;
  int4* flush_buf;
  int* sink;
  CHECK(cudaMalloc(&flush_buf, flush_bytes));
  CHECK(cudaMemset(flush_buf, 0x55, flush_bytes));
  CHECK(cudaMalloc(&sink, 4));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  int status = 0;

  for (int k = lo; k <= hi; ++k) {
    size_t n = (size_t)1 << k;
    uint64_t seed = 0x1234567ull + k;
    fill<<<1024, 256>>>(in, n, seed);
    CHECK(cudaGetLastError());
    size_t temp_bytes = 0;
    CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, in, out, (int64_t)n));
    void* temp;
    CHECK(cudaMalloc(&temp, std::max<size_t>(temp_bytes, 16)));

    CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, in, out, (int64_t)n));
    int32_t got;
    CHECK(cudaMemcpy(&got, out, 4, cudaMemcpyDeviceToHost));
    uint32_t want = 0;
    for (size_t i = 0; i < n; ++i) want += (uint32_t)random_i32(seed, i);
    if ((uint32_t)got != want) {
      std::fprintf(stderr, "n=%zu: CUB gave %d, CPU %d\n", n, got, (int32_t)want);
      status = 1;
    }

    for (int w = 0; w < 3; ++w) CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, in, out, (int64_t)n));
    std::vector<float> ms(reps);
    for (int r = 0; r < reps; ++r) {
      flush_read<<<prop.multiProcessorCount * 8, 256>>>(flush_buf, flush_bytes / 16, sink);
      CHECK(cudaEventRecord(start));
      CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, in, out, (int64_t)n));
      CHECK(cudaEventRecord(stop));
      CHECK(cudaEventSynchronize(stop));
      CHECK(cudaEventElapsedTime(&ms[r], start, stop));
    }
    std::sort(ms.begin(), ms.end());
    double med = reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
    std::printf("%-12zu %12.2f %10.1f\n", n, med * 1e3, n * 4.0 / (med * 1e-3) / 1e9);
    CHECK(cudaFree(temp));
  }
  return status;
}

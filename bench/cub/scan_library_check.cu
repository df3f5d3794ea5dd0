// Check of libscan_cub.so (bench/cub/scan_library.cu), loaded the way the Rust host loads it:
// dlopen of the library and of libcuda (as cudarc does), the primary context made current,
// a non-blocking stream, memory from cuMemAllocAsync on it, no CUDA runtime in this program.
//
//   bench/cub/build-scan-library.sh OUTDIR            # builds both, or by hand:
//   nvcc -O2 -std=c++17 -x c++ -cudart none -o scan_library_check scan_library_check.cu -ldl
//   ./scan_library_check [path/to/libscan_cub.so] [--big]
//
// The library defaults to libscan_cub.so beside this program. For n in 0, 1, 1000, 2^20 + 3
// (with --big also 2^31 + 1000, the 64-bit path: about 17 GiB of device and 17 GiB of host
// memory, and some seconds of CPU), each of the four scans and the select against a CPU
// reference: int32 inputs random over the whole range (the sums wrap), float inputs small
// integers so that every partial sum is exact in any order and the comparison can be exact;
// the select input has zeros and negatives. A guard element past the end of each output must
// be left alone, and n = 0 must write nothing but select's count (0). Then the refusals: a null
// workspace, a workspace one byte short, an unknown op, a select past 2^32 - 1.
// Prints one line a case and PASS or FAIL; exits 0 on PASS.
#include <cuda.h>
#include <dlfcn.h>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

// The library's ABI.
typedef int (*version_fn)(void);
typedef int (*scan_workspace_fn)(unsigned long long, int, unsigned long long*);
typedef int (*scan_run_fn)(void*, unsigned long long, const void*, void*, unsigned long long, int,
                           void*);
typedef int (*select_workspace_fn)(unsigned long long, unsigned long long*);
typedef int (*select_run_fn)(void*, unsigned long long, const int*, int*, unsigned int*,
                             unsigned long long, void*);
typedef const char* (*error_string_fn)(int);

static version_fn lib_version;
static scan_workspace_fn scan_workspace;
static scan_run_fn scan_run;
static select_workspace_fn select_workspace;
static select_run_fn select_run;
static error_string_fn error_string;

// The driver, by the names libcuda exports (cuda.h maps several to their _v2 forms).
static CUresult (*drv_init)(unsigned int);
static CUresult (*drv_device_get)(CUdevice*, int);
static CUresult (*drv_device_get_name)(char*, int, CUdevice);
static CUresult (*drv_primary_retain)(CUcontext*, CUdevice);
static CUresult (*drv_primary_release)(CUdevice);
static CUresult (*drv_ctx_set_current)(CUcontext);
static CUresult (*drv_stream_create)(CUstream*, unsigned int);
static CUresult (*drv_stream_destroy)(CUstream);
static CUresult (*drv_stream_sync)(CUstream);
static CUresult (*drv_alloc_async)(CUdeviceptr*, size_t, CUstream);
static CUresult (*drv_free_async)(CUdeviceptr, CUstream);
static CUresult (*drv_htod_async)(CUdeviceptr, const void*, size_t, CUstream);
static CUresult (*drv_dtoh_async)(void*, CUdeviceptr, size_t, CUstream);
static CUresult (*drv_error_string)(CUresult, const char**);

static void die(const char* what, const char* why) {
  std::fprintf(stderr, "scan_library_check: %s: %s\nFAIL\n", what, why);
  std::exit(1);
}

static void drv(CUresult r, const char* what) {
  if (r != CUDA_SUCCESS) {
    const char* s = "unknown error";
    if (drv_error_string) drv_error_string(r, &s);
    die(what, s);
  }
}

template <typename F>
static void load(void* lib, F& f, const char* name) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  if (!f) die(name, "symbol not found");
}

// SplitMix64 finalizer, as in common/src/input.rs.
static inline uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static inline uint32_t random_u32(uint64_t seed, uint64_t i) {
  return (uint32_t)(mix(seed + (i + 1) * 0x9E3779B97F4A7C15ull) >> 32);
}

static CUstream stream;
static int failures = 0;

static CUdeviceptr alloc(size_t bytes) {
  CUdeviceptr p = 0;
  drv(drv_alloc_async(&p, bytes ? bytes : 1, stream), "cuMemAllocAsync");
  return p;
}
static void release(CUdeviceptr p) { drv(drv_free_async(p, stream), "cuMemFreeAsync"); }

static const uint32_t GUARD = 0x7FC0DEADu;  // a NaN as a float: never a result here

static void report(const char* what, unsigned long long n, const std::string& wrong) {
  if (wrong.empty()) {
    std::printf("ok     %-22s n=%llu\n", what, n);
  } else {
    std::printf("WRONG  %-22s n=%llu: %s\n", what, n, wrong.c_str());
    ++failures;
  }
}

static const char* OP_NAMES[4] = {"inclusive sum int32", "exclusive sum int32",
                                  "inclusive sum float", "exclusive sum float"};

static void check_scan(unsigned long long n, int op, uint64_t seed) {
  const bool is_float = op >= 2, inclusive = op % 2 == 0;
  // Host input as 32-bit patterns; floats are small integers (exact partial sums).
  std::vector<uint32_t> in(n ? n : 1);
  for (unsigned long long i = 0; i < n; ++i) {
    uint32_t r = random_u32(seed, i);
    if (is_float) {
      float f = n <= (1ull << 21) ? (float)((int)(r % 16) - 8) : (float)((int)(r % 3) - 1);
      std::memcpy(&in[i], &f, 4);
    } else {
      in[i] = r;
    }
  }
  CUdeviceptr d_in = alloc(n * 4), d_out = alloc((n + 1) * 4);
  drv(drv_htod_async(d_in, in.data(), n * 4, stream), "copy in");
  std::vector<uint32_t> out(n + 1, GUARD);
  drv(drv_htod_async(d_out, out.data(), (n + 1) * 4, stream), "copy guard");

  unsigned long long bytes = 0;
  int e = scan_workspace(n, op, &bytes);
  std::string wrong;
  if (e != 0) {
    wrong = std::string("scan_cub_workspace: ") + error_string(e);
  } else {
    CUdeviceptr temp = alloc(bytes);
    e = scan_run((void*)temp, bytes, (const void*)d_in, (void*)d_out, n, op, (void*)stream);
    if (e != 0) wrong = std::string("scan_cub_run: ") + error_string(e);
    release(temp);
  }
  drv(drv_dtoh_async(out.data(), d_out, (n + 1) * 4, stream), "copy out");
  drv(drv_stream_sync(stream), "kernels");
  release(d_in);
  release(d_out);

  char buf[160];
  uint32_t isum = 0;
  float fsum = 0.0f;  // exact: the partial sums are small integers
  for (unsigned long long i = 0; wrong.empty() && i < n; ++i) {
    uint32_t want;
    if (is_float) {
      float x;
      std::memcpy(&x, &in[i], 4);
      if (inclusive) fsum += x;
      std::memcpy(&want, &fsum, 4);
      if (!inclusive) fsum += x;
    } else {
      if (inclusive) isum += in[i];
      want = isum;
      if (!inclusive) isum += in[i];
    }
    if (out[i] != want) {
      if (is_float) {
        float g, w;
        std::memcpy(&g, &out[i], 4);
        std::memcpy(&w, &want, 4);
        std::snprintf(buf, sizeof buf, "at %llu got %.1f, want %.1f", i, g, w);
      } else {
        std::snprintf(buf, sizeof buf, "at %llu got %d, want %d", i, (int)out[i], (int)want);
      }
      wrong = buf;
    }
  }
  if (wrong.empty() && out[n] != GUARD) {
    std::snprintf(buf, sizeof buf, "wrote past the end (element %llu)", n);
    wrong = buf;
  }
  report(OP_NAMES[op], n, wrong);
}

static void check_select(unsigned long long n, uint64_t seed) {
  std::vector<int> in(n ? n : 1);
  for (unsigned long long i = 0; i < n; ++i) {
    uint32_t r = random_u32(seed, i);
    in[i] = r % 5 == 0 ? 0 : (int)r;  // about 10% zeros, 45% negatives
  }
  CUdeviceptr d_in = alloc(n * 4), d_out = alloc((n + 1) * 4), d_count = alloc(4);
  drv(drv_htod_async(d_in, in.data(), n * 4, stream), "copy in");
  std::vector<uint32_t> out(n + 1, GUARD);
  uint32_t count = GUARD;
  drv(drv_htod_async(d_out, out.data(), (n + 1) * 4, stream), "copy guard");
  drv(drv_htod_async(d_count, &count, 4, stream), "copy guard");

  unsigned long long bytes = 0;
  int e = select_workspace(n, &bytes);
  std::string wrong;
  if (e != 0) {
    wrong = std::string("select_cub_workspace: ") + error_string(e);
  } else {
    CUdeviceptr temp = alloc(bytes);
    e = select_run((void*)temp, bytes, (const int*)d_in, (int*)d_out, (unsigned int*)d_count, n,
                   (void*)stream);
    if (e != 0) wrong = std::string("select_cub_run: ") + error_string(e);
    release(temp);
  }
  drv(drv_dtoh_async(out.data(), d_out, (n + 1) * 4, stream), "copy out");
  drv(drv_dtoh_async(&count, d_count, 4, stream), "copy count");
  drv(drv_stream_sync(stream), "kernels");
  release(d_in);
  release(d_out);
  release(d_count);

  char buf[160];
  unsigned long long kept = 0;
  for (unsigned long long i = 0; wrong.empty() && i < n; ++i) {
    if (in[i] > 0) {
      if ((int)out[kept] != in[i]) {
        std::snprintf(buf, sizeof buf, "kept element %llu is %d, want %d", kept, (int)out[kept],
                      in[i]);
        wrong = buf;
      }
      ++kept;
    }
  }
  if (wrong.empty() && count != kept) {
    std::snprintf(buf, sizeof buf, "count %u, want %llu", count, kept);
    wrong = buf;
  }
  if (wrong.empty() && out[kept] != GUARD) {
    std::snprintf(buf, sizeof buf, "wrote past the kept elements (element %llu)", kept);
    wrong = buf;
  }
  report("select if > 0 int32", n, wrong);
}

static void expect_refused(const char* what, int e) {
  if (e == 0) {
    std::printf("WRONG  %s: accepted\n", what);
    ++failures;
  } else {
    std::printf("ok     %s: refused (%d, %s)\n", what, e, error_string(e));
  }
}

static void check_refusals() {
  const unsigned long long n = 1000;
  CUdeviceptr d_in = alloc(n * 4), d_out = alloc(n * 4), d_count = alloc(4);
  unsigned long long bytes = 0, ignored = 0;
  int e = scan_workspace(n, 0, &bytes);
  if (e != 0) die("scan_cub_workspace", error_string(e));
  CUdeviceptr temp = alloc(bytes);
  expect_refused("null workspace (scan)",
                 scan_run(nullptr, bytes, (void*)d_in, (void*)d_out, n, 0, (void*)stream));
  expect_refused("null workspace (select)",
                 select_run(nullptr, bytes, (const int*)d_in, (int*)d_out,
                            (unsigned int*)d_count, n, (void*)stream));
  expect_refused("workspace 1 byte short",
                 scan_run((void*)temp, bytes - 1, (void*)d_in, (void*)d_out, n, 0, (void*)stream));
  expect_refused("unknown op 4", scan_workspace(n, 4, &ignored));
  expect_refused("select n = 2^32", select_workspace(1ull << 32, &ignored));
  drv(drv_stream_sync(stream), "refusals");
  release(temp);
  release(d_in);
  release(d_out);
  release(d_count);
  drv(drv_stream_sync(stream), "free");
}

int main(int argc, char** argv) {
  std::string path;
  bool big = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--big") == 0) big = true;
    else path = argv[i];
  }
  if (path.empty()) {
    std::string self = argv[0];
    size_t slash = self.rfind('/');
    path = (slash == std::string::npos ? std::string(".") : self.substr(0, slash)) +
           "/libscan_cub.so";
  }

  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) die(path.c_str(), dlerror());
  load(lib, lib_version, "scan_cub_version");
  load(lib, scan_workspace, "scan_cub_workspace");
  load(lib, scan_run, "scan_cub_run");
  load(lib, select_workspace, "select_cub_workspace");
  load(lib, select_run, "select_cub_run");
  load(lib, error_string, "scan_cub_error_string");

  void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!cuda) die("libcuda.so.1", dlerror());
  load(cuda, drv_error_string, "cuGetErrorString");
  load(cuda, drv_init, "cuInit");
  load(cuda, drv_device_get, "cuDeviceGet");
  load(cuda, drv_device_get_name, "cuDeviceGetName");
  load(cuda, drv_primary_retain, "cuDevicePrimaryCtxRetain");
  load(cuda, drv_primary_release, "cuDevicePrimaryCtxRelease_v2");
  load(cuda, drv_ctx_set_current, "cuCtxSetCurrent");
  load(cuda, drv_stream_create, "cuStreamCreate");
  load(cuda, drv_stream_destroy, "cuStreamDestroy_v2");
  load(cuda, drv_stream_sync, "cuStreamSynchronize");
  load(cuda, drv_alloc_async, "cuMemAllocAsync");
  load(cuda, drv_free_async, "cuMemFreeAsync");
  load(cuda, drv_htod_async, "cuMemcpyHtoDAsync_v2");
  load(cuda, drv_dtoh_async, "cuMemcpyDtoHAsync_v2");

  drv(drv_init(0), "cuInit");
  CUdevice dev;
  drv(drv_device_get(&dev, 0), "cuDeviceGet");
  char name[256] = {0};
  drv(drv_device_get_name(name, sizeof name, dev), "cuDeviceGetName");
  CUcontext ctx;
  drv(drv_primary_retain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  drv(drv_ctx_set_current(ctx), "cuCtxSetCurrent");
  drv(drv_stream_create(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");

  int v = lib_version();
  std::printf("# %s on %s, CUB %d.%d.%d (CUB_VERSION %d)\n", path.c_str(), name, v / 100000,
              v / 100 % 1000, v % 100, v);

  std::vector<unsigned long long> sizes = {0, 1, 1000, (1ull << 20) + 3};
  uint64_t seed = 0x5CA11AB1Eull;
  for (unsigned long long n : sizes) {
    for (int op = 0; op < 4; ++op) check_scan(n, op, seed++);
    check_select(n, seed++);
  }
  if (big) {
    unsigned long long n = (1ull << 31) + 1000;
    check_scan(n, 0, seed++);
    check_scan(n, 3, seed++);
    check_select(n, seed++);
  }
  check_refusals();

  drv(drv_stream_destroy(stream), "cuStreamDestroy");
  drv(drv_primary_release(dev), "cuDevicePrimaryCtxRelease");
  if (failures)
    std::printf("FAIL (%d wrong)\n", failures);
  else
    std::printf("PASS\n");
  return failures ? 1 : 0;
}

#!/usr/bin/env bash
# A syntax and template check of every CUDA C++ twin with the host's g++, for machines without
# NVRTC or nvcc (a developer machine, CI): CUDA's keywords and built-ins are declared by the shim
# below, so g++ parses each twin and instantiates its templates; nothing is compiled for a GPU,
# and inline PTX is not checked (ptxas and NVRTC do that on a GPU machine).
# Usage (from the repository root): bench/twin-syntax-check.sh [TWIN.cu ...]   (default: all)
set -uo pipefail
shim=$(mktemp --suffix=.h)
trap 'rm -f "$shim"' EXIT
cat > "$shim" <<'SHIM'
#pragma once
#include <cstddef>
#include <cstdint>
using std::size_t;
#define __device__
#define __global__
#define __host__
#define __forceinline__ inline
#define __shared__
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
#define __restrict__
#define __grid_constant__
struct dim3_ { unsigned x, y, z; };
extern dim3_ threadIdx, blockIdx, blockDim, gridDim;
struct int4 { int x, y, z, w; };
struct uint4 { unsigned x, y, z, w; };
struct float2 { float x, y; };
struct float4 { float x, y, z, w; };
struct uint2 { unsigned x, y; };
inline uint4 make_uint4(unsigned a, unsigned b, unsigned c, unsigned d) { return {a, b, c, d}; }
inline int4 make_int4(int a, int b, int c, int d) { return {a, b, c, d}; }
inline float2 make_float2(float a, float b) { return {a, b}; }
inline float4 make_float4(float a, float b, float c, float d) { return {a, b, c, d}; }
template <class T> T __ldg(const T* p) { return *p; }
void __syncthreads();
void __syncwarp(unsigned m = 0xffffffff);
unsigned long long __cvta_generic_to_shared(const void*);
unsigned long long __cvta_generic_to_global(const void*);
enum { __NV_ATOMIC_RELAXED, __NV_ATOMIC_ACQUIRE, __NV_ATOMIC_RELEASE, __NV_ATOMIC_ACQ_REL, __NV_ATOMIC_SEQ_CST };
enum { __NV_THREAD_SCOPE_THREAD, __NV_THREAD_SCOPE_BLOCK, __NV_THREAD_SCOPE_DEVICE, __NV_THREAD_SCOPE_SYSTEM };
void __nv_atomic_thread_fence(int, int);
template <class T> T __nv_atomic_fetch_add(T*, T, int, int);
template <class T> T __nv_atomic_load_n(const T*, int, int);
template <class T> void __nv_atomic_store_n(T*, T, int, int);
template <class T> T __shfl_sync(unsigned, T, int, int = 32);
template <class T> T __shfl_xor_sync(unsigned, T, int, int = 32);
template <class T> T __shfl_up_sync(unsigned, T, unsigned, int = 32);
template <class T> T __shfl_down_sync(unsigned, T, unsigned, int = 32);
unsigned __ballot_sync(unsigned, int);
int __popc(unsigned);
int __clz(unsigned);
int __ffs(unsigned);
float __int_as_float(int); int __float_as_int(float);
unsigned __float_as_uint(float); float __uint_as_float(unsigned);
float exp2f(float); float fmaxf(float, float); float fminf(float, float);
float __fmaf_rn(float, float, float); float fmaf(float, float, float);
long long clock64();
void __nanosleep(unsigned);
template <class T> T atomicAdd(T*, T);
template <class T> T atomicMax(T*, T);
void __threadfence();
template <class T> T __ldcg(const T* p) { return *p; }
template <class T> T __ldcs(const T* p) { return *p; }
template <class T> void __stcs(T* p, T v) { *p = v; }
template <class T> void __stcg(T* p, T v) { *p = v; }
SHIM
status=0
files=("$@")
[ ${#files[@]} -eq 0 ] && files=(twins/*/*.cu)
for f in "${files[@]}"; do
  if ! out=$(g++ -x c++ -std=c++17 -fsyntax-only -include "$shim" -I twins "$f" 2>&1); then
    echo "$f:"; echo "$out" | grep -E "error" | head -5; status=1
  fi
done
[ $status -eq 0 ] && echo "every twin parses (${#files[@]} files)"
exit $status

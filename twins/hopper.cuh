// twins/hopper.cuh: Hopper (sm_90a) instructions for the CUDA C++ twins of the GEMM steps w01–w13.
//
// One thin inline-PTX wrapper per wrapper of kernels/src/device/{wgmma,tma,cluster}.rs (and the
// sync / atomic / cp.async ones those steps use), emitting the same instruction with the same
// operands. Names follow the Rust wrappers (the wgmma ones get a `wgmma_` prefix, as the Rust
// calls them `wgmma::fence()` etc.). Shared memory is addressed, as in the Rust, by 32-bit
// shared-window addresses (`smem_u32`); tensor maps by their generic address.
// An asm without a "memory" clobber is one the Rust marks `nomem`; all others clobber memory.
// No system headers: NVRTC compiles this without a toolkit include path.
#pragma once

// ---------------------------------------------------------------------------------------------
// Shared-memory addresses
// ---------------------------------------------------------------------------------------------

// cvta.to.shared: the 32-bit shared-window address of a generic pointer into shared memory.
__device__ __forceinline__ unsigned smem_u32(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// ---------------------------------------------------------------------------------------------
// Barriers (device/sync.rs): __syncthreads() is the block barrier; named barriers need PTX.
// ---------------------------------------------------------------------------------------------

// bar.sync id, threads: named barrier `id` (1-15) for `threads` threads (whole warps).
__device__ __forceinline__ void sync_named(unsigned id, unsigned threads) {
    asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(threads) : "memory");
}
// bar.arrive id, threads: an arrival at named barrier `id` without waiting (those who wait
// there with sync_named see this thread's earlier memory accesses), used by w12.
__device__ __forceinline__ void arrive_named(unsigned id, unsigned threads) {
    asm volatile("bar.arrive %0, %1;" :: "r"(id), "r"(threads) : "memory");
}

// ---------------------------------------------------------------------------------------------
// cp.async (device/async_copy.rs), used by w01
// ---------------------------------------------------------------------------------------------

// cp.async.cg.shared.global [dst], [src], 16, src_bytes: 16 bytes, zero-filled past src_bytes.
__device__ __forceinline__ void cp_async_16(unsigned dst, const void* src, unsigned src_bytes) {
    asm volatile("{ .reg .b64 g; cvta.to.global.u64 g, %1; cp.async.cg.shared.global [%0], [g], 16, %2; }"
                 :: "r"(dst), "l"(src), "r"(src_bytes) : "memory");
}
// @p cp.async.ca.shared.global [dst], [src], 4: one 4-byte element, copied only where `copy`
// holds (a predicated instruction, not a branch).
__device__ __forceinline__ void cp_async_4_if(bool copy, unsigned dst, const float* src) {
    asm volatile("{ .reg .pred p; .reg .b64 g; setp.ne.u32 p, %0, 0; cvta.to.global.u64 g, %2; "
                 "@p cp.async.ca.shared.global [%1], [g], 4; }"
                 :: "r"((unsigned)copy), "r"(dst), "l"(src) : "memory");
}
// cp.async.commit_group: closes this thread's group of copies.
__device__ __forceinline__ void cp_async_commit() {
    asm volatile("cp.async.commit_group;" ::: "memory");
}
// cp.async.wait_group N: at most N of this thread's copy groups still in flight.
template <unsigned N>
__device__ __forceinline__ void cp_async_wait_group() {
    asm volatile("cp.async.wait_group %0;" :: "n"(N) : "memory");
}

// ---------------------------------------------------------------------------------------------
// wgmma (device/wgmma.rs)
// ---------------------------------------------------------------------------------------------

// The 64-bit shared-memory matrix descriptor, 128-byte swizzle: start >> 4 in bits 0-13,
// leading byte offset >> 4 in 16-29, stride byte offset >> 4 in 32-45, swizzle mode 1 in 62-63.
__device__ __forceinline__ unsigned long long descriptor(unsigned address, unsigned leading_bytes,
                                                         unsigned stride_bytes) {
    auto encode = [](unsigned x) { return static_cast<unsigned long long>((x & 0x3FFFF) >> 4); };
    return encode(address) | encode(leading_bytes) << 16 | encode(stride_bytes) << 32 | (1ull << 62);
}

// wgmma.fence.sync.aligned: orders earlier accumulator register writes before the next wgmma.
__device__ __forceinline__ void wgmma_fence() {
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
// wgmma.commit_group.sync.aligned: closes the group of wgmma issued since the last commit.
__device__ __forceinline__ void wgmma_commit_group() {
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
// wgmma.wait_group.sync.aligned N: at most N of this warpgroup's wgmma groups unfinished.
template <unsigned N>
__device__ __forceinline__ void wgmma_wait_group() {
    asm volatile("wgmma.wait_group.sync.aligned %0;" :: "n"(N) : "memory");
}
// wgmma_wait_group<N> that also holds the 64 registers d back (device/wgmma.rs wait_group_for):
// they are its operands (named in a PTX comment), so their reads cannot move above the wait.
template <unsigned N>
__device__ __forceinline__ void wgmma_wait_group_for(float (&d)[64]) {
    asm volatile("wgmma.wait_group.sync.aligned %64; // %0 %1 %2 %3 %4 %5 %6 %7 %8 %9 %10 %11 %12 %13 %14 %15 "
                 "%16 %17 %18 %19 %20 %21 %22 %23 %24 %25 %26 %27 %28 %29 %30 %31 %32 %33 %34 %35 %36 %37 %38 "
                 "%39 %40 %41 %42 %43 %44 %45 %46 %47 %48 %49 %50 %51 %52 %53 %54 %55 %56 %57 %58 %59 %60 %61 "
                 "%62 %63"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "n"(N)
                 : "memory");
}
// fence.proxy.async.shared::cta: this thread's generic-proxy shared writes become visible to
// the async proxy (wgmma operand reads, TMA stores).
__device__ __forceinline__ void fence_proxy_async_shared() {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// Accumulator registers per thread of m64n256k16 / m64n128k16 with f32 accumulation.
constexpr int M64N256_ACC = 128;
constexpr int M64N128_ACC = 64;
constexpr int M64N192_ACC = 96;  // m64n192: w22's 192-wide tile

// wgmma.mma_async.sync.aligned.m64nNk16.f32.TY.TY: d += A * B for the warpgroup, A (64x16,
// K-major) and B (16xN, N-major: imm-trans-b = 1) by descriptor; scale-d is a predicate set
// from a register holding 1, as in the Rust. Asynchronous until wgmma_wait_group.
// HOPPER_WGMMA_M64N256(INSTR, TAIL) writes any m64n256 form: INSTR its shape and types, TAIL
// what follows scale-a and scale-b (the transposes of 16-bit inputs; none for 8-bit ones).
// ---- m64n256: 128 accumulators per thread ----
#define HOPPER_WGMMA_M64N256K16(TY) HOPPER_WGMMA_M64N256("m64n256k16.f32." TY "." TY, ", 0, 1")
#define HOPPER_WGMMA_M64N256(INSTR, TAIL) \
  asm volatile( \
    "{ .reg .pred keep; setp.ne.b32 keep, %130, 0; " \
    "wgmma.mma_async.sync.aligned." INSTR " {" \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
    "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
    "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
    "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
    "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127" \
    "}, %128, %129, keep, 1, 1" TAIL "; }" \
    : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
      "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
      "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
      "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
      "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
      "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
      "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
      "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
      "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
      "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
      "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
      "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
      "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
      "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
      "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127]) \
    : "l"(a), "l"(b), "r"(1u) \
    : "memory")

// ---- m64n128: 64 accumulators per thread ----
#define HOPPER_WGMMA_M64N128K16(TY) HOPPER_WGMMA_M64N128("m64n128k16.f32." TY "." TY, ", 0, 1", 1u)
// KEEP: scale-d, 1 to add into the accumulators, 0 to overwrite them.
#define HOPPER_WGMMA_M64N128(INSTR, TAIL, KEEP) \
  asm volatile( \
    "{ .reg .pred keep; setp.ne.b32 keep, %66, 0; " \
    "wgmma.mma_async.sync.aligned." INSTR " {" \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63" \
    "}, %64, %65, keep, 1, 1" TAIL "; }" \
    : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
      "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
      "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
      "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
      "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
      "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
      "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]) \
    : "l"(a), "l"(b), "r"(KEEP) \
    : "memory")


// ---- m64n192: 96 accumulators per thread (w22) ----
// KEEP: scale-d, 1 to add into the accumulators, 0 to overwrite them.
#define HOPPER_WGMMA_M64N192(INSTR, TAIL, KEEP) \
  asm volatile( \
    "{ .reg .pred keep; setp.ne.b32 keep, %98, 0; " \
    "wgmma.mma_async.sync.aligned." INSTR " {" \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
    "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
    "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95" \
    "}, %96, %97, keep, 1, 1" TAIL "; }" \
    : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
      "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
      "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
      "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
      "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
      "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
      "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
      "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
      "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
      "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
      "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]) \
    : "l"(a), "l"(b), "r"(KEEP) \
    : "memory")

// ---- m64n128, A from registers (8-bit: mma.m16n8k32's A fragment of the warp's 16 rows) ----
#define HOPPER_WGMMA_M64N128_A_REGS(INSTR, KEEP) \
  asm volatile( \
    "{ .reg .pred keep; setp.ne.b32 keep, %69, 0; " \
    "wgmma.mma_async.sync.aligned." INSTR " {" \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63" \
    "}, {%64, %65, %66, %67}, %68, keep, 1, 1; }" \
    : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]) \
    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(KEEP) \
    : "memory")

// wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
__device__ __forceinline__ void mma_m64n256k16_f16(float (&d)[M64N256_ACC], unsigned long long a,
                                                   unsigned long long b) {
    HOPPER_WGMMA_M64N256K16("f16");
}
// wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
__device__ __forceinline__ void mma_m64n256k16_bf16(float (&d)[M64N256_ACC], unsigned long long a,
                                                    unsigned long long b) {
    HOPPER_WGMMA_M64N256K16("bf16");
}
// wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
__device__ __forceinline__ void mma_m64n128k16_f16(float (&d)[M64N128_ACC], unsigned long long a,
                                                   unsigned long long b) {
    HOPPER_WGMMA_M64N128K16("f16");
}
// wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
__device__ __forceinline__ void mma_m64n128k16_bf16(float (&d)[M64N128_ACC], unsigned long long a,
                                                    unsigned long long b) {
    HOPPER_WGMMA_M64N128K16("bf16");
}
// wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3: 8-bit A and B, both K-major (8-bit
// wgmma has no transpose), 32 k values per instruction (device/wgmma.rs mma_m64n256k32_e4m3).
__device__ __forceinline__ void mma_m64n256k32_e4m3(float (&d)[M64N256_ACC], unsigned long long a,
                                                    unsigned long long b) {
    HOPPER_WGMMA_M64N256("m64n256k32.f32.e4m3.e4m3", "");
}
// wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3; with accumulate false the accumulators
// are overwritten (scale-d = 0): a fresh partial sum, no zeroing needed.
__device__ __forceinline__ void mma_m64n128k32_e4m3(float (&d)[M64N128_ACC], unsigned long long a,
                                                    unsigned long long b, bool accumulate = true) {
    HOPPER_WGMMA_M64N128("m64n128k32.f32.e4m3.e4m3", "", accumulate ? 1u : 0u);
}
// wgmma.mma_async.sync.aligned.m64n192k32.f32.e4m3.e4m3; with accumulate false the accumulators
// are overwritten (scale-d = 0): w22's whole-width partial (device/wgmma.rs
// mma_m64n192k32_e4m3 and _fresh).
__device__ __forceinline__ void mma_m64n192k32_e4m3(float (&d)[M64N192_ACC], unsigned long long a,
                                                    unsigned long long b, bool accumulate = true) {
    HOPPER_WGMMA_M64N192("m64n192k32.f32.e4m3.e4m3", "", accumulate ? 1u : 0u);
}
// wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e5m2: e5m2 B, as above otherwise (w20).
__device__ __forceinline__ void mma_m64n128k32_e4m3_e5m2(float (&d)[M64N128_ACC], unsigned long long a,
                                                         unsigned long long b, bool accumulate = true) {
    HOPPER_WGMMA_M64N128("m64n128k32.f32.e4m3.e5m2", "", accumulate ? 1u : 0u);
}
// wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 with A in registers (four per thread,
// as ldmatrix.x4 gives them from the stage's 16-byte rows), B K-major by descriptor;
// accumulate false: scale-d = 0, the accumulators overwritten (device/wgmma.rs
// mma_m64n128k32_e4m3_a_regs and _a_regs_fresh).
__device__ __forceinline__ void mma_m64n128k32_e4m3_a_regs(float (&d)[M64N128_ACC], const unsigned (&a)[4],
                                                           unsigned long long b, bool accumulate = true) {
    HOPPER_WGMMA_M64N128_A_REGS("m64n128k32.f32.e4m3.e4m3", accumulate ? 1u : 0u);
}
#undef HOPPER_WGMMA_M64N128_A_REGS
#undef HOPPER_WGMMA_M64N256K16
#undef HOPPER_WGMMA_M64N128K16
#undef HOPPER_WGMMA_M64N256
#undef HOPPER_WGMMA_M64N128
#undef HOPPER_WGMMA_M64N192

// Picks the instruction by input type, as the Rust steps do with their generic parameter:
// mma_m64n256k16<true>(...) is bf16, <false> f16.
template <bool BF16>
__device__ __forceinline__ void mma_m64n256k16(float (&d)[M64N256_ACC], unsigned long long a,
                                               unsigned long long b) {
    if constexpr (BF16) mma_m64n256k16_bf16(d, a, b); else mma_m64n256k16_f16(d, a, b);
}
template <bool BF16>
__device__ __forceinline__ void mma_m64n128k16(float (&d)[M64N128_ACC], unsigned long long a,
                                               unsigned long long b) {
    if constexpr (BF16) mma_m64n128k16_bf16(d, a, b); else mma_m64n128k16_f16(d, a, b);
}

// Emits nothing: an empty asm per accumulator that pins the accumulators' values at this point
// (CUTLASS's warpgroup_fence_operand), so that the compiler cannot rematerialize or duplicate
// their definitions (e.g. the zero-initialization) between a wgmma and its wait_group; ptxas
// serializes the wgmmas (warning C7515) when it finds such a definition there.
template <int N>
__device__ __forceinline__ void fence_accumulators(float (&d)[N]) {
#pragma unroll
    for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i]));
}

// setmaxnreg.inc.sync.aligned.u32 N: raise this warpgroup's registers per thread to N.
template <unsigned N>
__device__ __forceinline__ void claim_registers() {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" :: "n"(N));
}
// setmaxnreg.dec.sync.aligned.u32 N: lower this warpgroup's registers per thread to N.
template <unsigned N>
__device__ __forceinline__ void release_registers() {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" :: "n"(N));
}

// ---------------------------------------------------------------------------------------------
// mbarrier and TMA (device/tma.rs)
// ---------------------------------------------------------------------------------------------

// mbarrier.init.shared::cta.b64 [bar], count: a barrier expecting `count` arrivals, phase 0.
__device__ __forceinline__ void mbarrier_init(unsigned bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(bar), "r"(count) : "memory");
}
// fence.mbarrier_init.release.cluster: releases this thread's mbarrier inits to the cluster.
__device__ __forceinline__ void fence_barrier_init() {
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
// mbarrier.arrive.expect_tx.shared::cta.b64: arrive, and expect `bytes` more copy bytes.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(unsigned bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(bytes) : "memory");
}
// mbarrier.arrive.shared::cta.b64: one arrival.
__device__ __forceinline__ void mbarrier_arrive(unsigned bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(bar) : "memory");
}
// mbarrier.try_wait.parity.shared::cta.b64: whether the phase of parity `parity` completed.
__device__ __forceinline__ bool mbarrier_try_wait(unsigned bar, unsigned parity) {
    unsigned done;
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(bar), "r"(parity) : "memory");
    return done != 0;
}
// mbarrier.test_wait.parity: whether the phase of parity `parity` of `bar` has completed,
// answered at once (a probe to issue while other work runs).
__device__ __forceinline__ bool mbarrier_test_wait(unsigned bar, unsigned parity) {
    unsigned done;
    asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(bar), "r"(parity) : "memory");
    return done != 0;
}
// Loop on mbarrier.try_wait until the phase of parity `parity` of `bar` has completed.
__device__ __forceinline__ void mbarrier_wait(unsigned bar, unsigned parity) {
    while (!mbarrier_try_wait(bar, parity)) {
    }
}
// mbarrier.arrive.shared::cluster.b64: one arrival on a (possibly other block's) barrier at a
// cluster-window address from map_shared_to_rank.
__device__ __forceinline__ void mbarrier_arrive_remote(unsigned bar) {
    asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" :: "r"(bar) : "memory");
}

// cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes: TMA load of the
// box at (x, y) of tensor map `map` to shared `dst`, completing its bytes on `bar`.
__device__ __forceinline__ void copy_tensor_2d(unsigned dst, const void* map, unsigned x, unsigned y,
                                               unsigned bar) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
        :: "r"(dst), "l"(map), "r"(x), "r"(y), "r"(bar) : "memory");
}
// The same with .multicast::cluster: lands at `dst` (and completes on `bar`) in every block of
// the cluster whose rank bit is set in `cta_mask`.
__device__ __forceinline__ void copy_tensor_2d_multicast(unsigned dst, const void* map, unsigned x,
                                                         unsigned y, unsigned bar, unsigned short cta_mask) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
        " [%0], [%1, {%2, %3}], [%4], %5;"
        :: "r"(dst), "l"(map), "r"(x), "r"(y), "r"(bar), "h"(cta_mask) : "memory");
}
// cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes: a plain copy of `bytes`
// contiguous bytes (16-byte aligned, a multiple of 16) from global `src` to shared `dst`,
// completing its bytes on `bar` (used by w12).
__device__ __forceinline__ void copy_bulk(unsigned dst, const void* src, unsigned bytes, unsigned bar) {
    asm volatile("{ .reg .b64 g; cvta.to.global.u64 g, %1;"
                 " cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [g], %2, [%3]; }"
                 :: "r"(dst), "l"(src), "r"(bytes), "r"(bar) : "memory");
}
// cp.async.bulk.prefetch.L2.global [src], bytes: the copy engine brings `bytes` contiguous
// bytes into L2 (device/tma.rs prefetch_bulk_l2); 16-byte aligned, a multiple of 16.
__device__ __forceinline__ void prefetch_bulk_l2(const void* src, unsigned bytes) {
    asm volatile("{ .reg .b64 g; cvta.to.global.u64 g, %0; cp.async.bulk.prefetch.L2.global [g], %1; }"
                 :: "l"(src), "r"(bytes) : "memory");
}
// fence.proxy.async.global: global writes this thread has seen (through an acquire) become
// visible to its later bulk copies, which read through the async proxy (used by w12).
__device__ __forceinline__ void fence_proxy_async_global() {
    asm volatile("fence.proxy.async.global;" ::: "memory");
}
// cp.async.bulk.tensor.2d.global.shared::cta.bulk_group: TMA store of the box at shared `src`
// to (x, y) of tensor map `map`, in this thread's current bulk group.
__device__ __forceinline__ void store_tensor_2d(const void* map, unsigned x, unsigned y, unsigned src) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
                 :: "l"(map), "r"(x), "r"(y), "r"(src) : "memory");
}
// cp.async.bulk.commit_group: closes this thread's bulk group.
__device__ __forceinline__ void bulk_commit_group() {
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
// cp.async.bulk.wait_group.read N: at most N bulk groups still reading their shared sources.
template <unsigned N>
__device__ __forceinline__ void bulk_wait_group_read() {
    asm volatile("cp.async.bulk.wait_group.read %0;" :: "n"(N) : "memory");
}
// cp.async.bulk.wait_group N: at most N bulk groups unfinished, global writes included.
template <unsigned N>
__device__ __forceinline__ void bulk_wait_group() {
    asm volatile("cp.async.bulk.wait_group %0;" :: "n"(N) : "memory");
}
// prefetch.tensormap [map]: fetch the tensor map into the copy engine's descriptor cache.
__device__ __forceinline__ void prefetch_tensor_map(const void* map) {
    asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
}

// ---------------------------------------------------------------------------------------------
// Clusters (device/cluster.rs)
// ---------------------------------------------------------------------------------------------

// mov.u32 %r, %cluster_ctarank: this block's rank in its cluster.
__device__ __forceinline__ unsigned cluster_rank() {
    unsigned r;
    asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
// mov.u32 %r, %clusterid.x: this block's cluster's index in the grid (x).
__device__ __forceinline__ unsigned cluster_idx() {
    unsigned r;
    asm("mov.u32 %0, %%clusterid.x;" : "=r"(r));
    return r;
}
// mov.u32 %r, %nclusterid.x: clusters in the grid (x).
__device__ __forceinline__ unsigned cluster_count() {
    unsigned r;
    asm("mov.u32 %0, %%nclusterid.x;" : "=r"(r));
    return r;
}
// barrier.cluster.arrive.release + barrier.cluster.wait.acquire: the whole cluster meets.
__device__ __forceinline__ void cluster_sync() {
    asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
}
// barrier.cluster.arrive.relaxed + barrier.cluster.wait: cluster_sync without the release.
__device__ __forceinline__ void cluster_sync_relaxed() {
    asm volatile("barrier.cluster.arrive.relaxed;\n\tbarrier.cluster.wait;" ::: "memory");
}
// mapa.shared::cluster.u32: the cluster-window address of shared `addr` in block `rank`.
__device__ __forceinline__ unsigned map_shared_to_rank(unsigned addr, unsigned rank) {
    unsigned m;
    asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(m) : "r"(addr), "r"(rank));
    return m;
}

// ---------------------------------------------------------------------------------------------
// Global-memory ordering (device/atomic.rs), used by w07
// ---------------------------------------------------------------------------------------------

// fence.acq_rel.gpu (the Rust's fence_acq_rel_gpu; __threadfence() emits fence.sc.gpu instead).
__device__ __forceinline__ void fence_acq_rel_gpu() {
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
}
// st.release.gpu.global.u32 [p], v
__device__ __forceinline__ void store_release_u32(unsigned* p, unsigned v) {
    asm volatile("{ .reg .b64 g; cvta.to.global.u64 g, %0; st.release.gpu.global.u32 [g], %1; }"
                 :: "l"(p), "r"(v) : "memory");
}
// ld.acquire.gpu.global.u32 v, [p]
__device__ __forceinline__ unsigned load_acquire_u32(const unsigned* p) {
    unsigned v;
    asm volatile("{ .reg .b64 g; cvta.to.global.u64 g, %1; ld.acquire.gpu.global.u32 %0, [g]; }"
                 : "=r"(v) : "l"(p) : "memory");
    return v;
}
// st.relaxed.gpu.global.u32 [p], v
__device__ __forceinline__ void store_relaxed_u32(unsigned* p, unsigned v) {
    asm volatile("{ .reg .b64 g; cvta.to.global.u64 g, %0; st.relaxed.gpu.global.u32 [g], %1; }"
                 :: "l"(p), "r"(v) : "memory");
}

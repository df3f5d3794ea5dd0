// Which of our cuBLASLt FP8 call's choices does cuBLASLt decline? (probe, not part of the course)
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdint>
static void run(int m, int n, int k, bool in_place, int scale_gap, bool fast_accum) {
  cublasLtHandle_t h; cublasLtCreate(&h);
  void *a, *b, *c, *d, *ws, *sc; size_t wsz = 32 << 20;
  cudaMalloc(&a, size_t(m) * k); cudaMalloc(&b, size_t(n) * k);
  cudaMalloc(&c, size_t(m) * n * 4); cudaMalloc(&d, size_t(m) * n * 4);
  cudaMalloc(&ws, wsz); cudaMalloc(&sc, 64);
  cudaMemset(a, 0x38, size_t(m) * k); cudaMemset(b, 0x38, size_t(n) * k);
  float ones[16]; for (auto &x : ones) x = 1.f; cudaMemcpy(sc, ones, 64, cudaMemcpyHostToDevice);
  cublasLtMatmulDesc_t desc; cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasOperation_t t = CUBLAS_OP_T, nn = CUBLAS_OP_N;
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &t, 4);
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &nn, 4);
  void *sa = sc, *sb = (char *)sc + scale_gap;
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sb, 8);
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sa, 8);
  if (fast_accum) { int8_t f = 1; cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &f, 1); }
  cublasLtMatrixLayout_t la, lb, lc;
  cublasLtMatrixLayoutCreate(&la, CUDA_R_8F_E4M3, k, n, k);
  cublasLtMatrixLayoutCreate(&lb, CUDA_R_8F_E4M3, k, m, k);
  cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, n, m, n);
  cublasLtMatmulPreference_t p; cublasLtMatmulPreferenceCreate(&p);
  cublasLtMatmulPreferenceSetAttribute(p, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsz, 8);
  cublasLtMatmulHeuristicResult_t r; int found = 0;
  cublasStatus_t hs = cublasLtMatmulAlgoGetHeuristic(h, desc, la, lb, lc, lc, p, 1, &r, &found);
  float alpha = 1, beta = 0;
  cublasStatus_t s = cublasLtMatmul(h, desc, &alpha, b, la, a, lb, &beta, c, lc, in_place ? c : d, lc,
                                    &r.algo, ws, wsz, 0);
  cudaError_t e = cudaDeviceSynchronize();
  float out = 0; cudaMemcpy(&out, in_place ? c : d, 4, cudaMemcpyDeviceToHost);
  printf("%d x %d x %d in_place=%d scale_gap=%d fast_accum=%d: heuristic %d (found %d), matmul %d, cuda %d, C[0]=%g (expect %g)\n",
         m, n, k, in_place, scale_gap, fast_accum, hs, found, s, e, out, k * 1.0);
  cudaFree(a); cudaFree(b); cudaFree(c); cudaFree(d); cudaFree(ws); cudaFree(sc); cublasLtDestroy(h);
}
int main() {
  for (int in_place = 1; in_place >= 0; --in_place)
    for (int gap : {4, 16})
      for (int fa = 0; fa <= 1; ++fa) run(256, 256, 256, in_place, gap, fa);
  run(4096, 4096, 4096, 0, 16, 0);
}

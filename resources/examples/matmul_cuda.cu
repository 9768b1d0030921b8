// Tiled SIMT matrix multiply C = A @ B (row-major float32) with the seed's CUDA calling convention:
// inputs, output, extra arguments, size_t* workspace_size, void* workspace, stream. Each block
// computes a BM x BN tile from BK-wide slices in shared memory; each thread a TM x TN micro-tile.
// kiln autotune defines BM, BN, BK, TM, TN; M, N, K must be multiples of the tiles (restrictions).
// The entry point is exported explicitly: CUDA libraries build with -fvisibility=hidden, as in Inductor.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#define THREADS ((BM / TM) * (BN / TN))

__global__ void __launch_bounds__(THREADS) kiln_matmul_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                                              float* __restrict__ C, int M, int N, int K) {
    __shared__ float As[BK][BM];  // A's slice, transposed so a warp reads consecutive rows
    __shared__ float Bs[BK][BN];
    const int tx = threadIdx.x % (BN / TN);
    const int ty = threadIdx.x / (BN / TN);
    const int row0 = blockIdx.y * BM;
    const int col0 = blockIdx.x * BN;
    float acc[TM][TN];
#pragma unroll
    for (int m = 0; m < TM; ++m)
#pragma unroll
        for (int n = 0; n < TN; ++n) acc[m][n] = 0.0f;
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int i = threadIdx.x; i < BM * BK; i += THREADS) As[i % BK][i / BK] = A[(row0 + i / BK) * K + k0 + i % BK];
        for (int i = threadIdx.x; i < BK * BN; i += THREADS) Bs[i / BN][i % BN] = B[(k0 + i / BN) * N + col0 + i % BN];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[TM], b[TN];
#pragma unroll
            for (int m = 0; m < TM; ++m) a[m] = As[k][ty * TM + m];
#pragma unroll
            for (int n = 0; n < TN; ++n) b[n] = Bs[k][tx * TN + n];
#pragma unroll
            for (int m = 0; m < TM; ++m)
#pragma unroll
                for (int n = 0; n < TN; ++n) acc[m][n] += a[m] * b[n];
        }
        __syncthreads();
    }
#pragma unroll
    for (int m = 0; m < TM; ++m)
#pragma unroll
        for (int n = 0; n < TN; ++n) C[(row0 + ty * TM + m) * N + col0 + tx * TN + n] = acc[m][n];
}

extern "C" __attribute__((visibility("default"))) int kiln_matmul(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K,
                           std::size_t* workspace_size, void* workspace, cudaStream_t stream) {
    (void)workspace;
    if (workspace_size) {
        *workspace_size = 0;
        return 0;
    }
    dim3 grid(static_cast<unsigned>(N / BN), static_cast<unsigned>(M / BM));
    kiln_matmul_kernel<<<grid, THREADS, 0, stream>>>(A, B, C, static_cast<int>(M), static_cast<int>(N), static_cast<int>(K));
    return static_cast<int>(cudaGetLastError());
}

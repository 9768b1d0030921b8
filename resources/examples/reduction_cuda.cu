// Row sums out[r] = sum_c x[r, c] (float32) with the seed's CUDA calling convention. One block
// per row: BLOCK threads stride over the row UNROLL elements at a time, then reduce through warp
// shuffles and shared memory. kiln autotune defines BLOCK and UNROLL.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

__global__ void __launch_bounds__(BLOCK) kiln_row_sum_kernel(const float* __restrict__ x, float* __restrict__ out, int cols) {
    const float* row = x + static_cast<std::int64_t>(blockIdx.x) * cols;
    float acc[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) acc[u] = 0.0f;
    int c = threadIdx.x;
    for (; c + (UNROLL - 1) * BLOCK < cols; c += UNROLL * BLOCK)
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) acc[u] += row[c + u * BLOCK];
    for (; c < cols; c += BLOCK) acc[0] += row[c];
    float v = 0.0f;
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) v += acc[u];
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    __shared__ float partial[BLOCK / 32];
    if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        float total = 0.0f;
        for (int w = 0; w < BLOCK / 32; ++w) total += partial[w];
        out[blockIdx.x] = total;
    }
}

extern "C" __attribute__((visibility("default"))) int kiln_row_sum(const float* x, float* out, std::int64_t rows, std::int64_t cols, std::size_t* workspace_size,
                            void* workspace, cudaStream_t stream) {
    (void)workspace;
    if (workspace_size) {
        *workspace_size = 0;
        return 0;
    }
    kiln_row_sum_kernel<<<static_cast<unsigned>(rows), BLOCK, 0, stream>>>(x, out, static_cast<int>(cols));
    return static_cast<int>(cudaGetLastError());
}

// Tiled matrix multiply C = A @ B for the CPU (row-major float32). kiln autotune puts the tile
// sizes BLOCK_M, BLOCK_N, BLOCK_K in front as #defines; every choice sums k in the same order.
#include <cstdint>

extern "C" void kiln_matmul(const float* A, const float* B, float* C, std::int64_t M, std::int64_t N, std::int64_t K) {
    for (std::int64_t i0 = 0; i0 < M; i0 += BLOCK_M)
        for (std::int64_t j0 = 0; j0 < N; j0 += BLOCK_N) {
            const std::int64_t i1 = i0 + BLOCK_M < M ? i0 + BLOCK_M : M;
            const std::int64_t j1 = j0 + BLOCK_N < N ? j0 + BLOCK_N : N;
            for (std::int64_t i = i0; i < i1; ++i)
                for (std::int64_t j = j0; j < j1; ++j) C[i * N + j] = 0.0f;
            for (std::int64_t k0 = 0; k0 < K; k0 += BLOCK_K) {
                const std::int64_t k1 = k0 + BLOCK_K < K ? k0 + BLOCK_K : K;
                for (std::int64_t i = i0; i < i1; ++i)
                    for (std::int64_t k = k0; k < k1; ++k) {
                        const float a = A[i * K + k];
                        for (std::int64_t j = j0; j < j1; ++j) C[i * N + j] += a * B[k * N + j];
                    }
            }
        }
}

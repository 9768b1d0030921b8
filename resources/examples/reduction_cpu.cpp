// Row sums out[r] = sum_c x[r, c] for the CPU (float32). ACCS independent accumulators break the
// add dependency chain; UNROLL columns are handled per step. Different ACCS sum in different
// orders, hence the spec's tolerance.
#include <cstdint>

extern "C" void kiln_row_sum(const float* x, float* out, std::int64_t rows, std::int64_t cols) {
    for (std::int64_t r = 0; r < rows; ++r) {
        const float* row = x + r * cols;
        float acc[ACCS] = {};
        std::int64_t c = 0;
        for (; c + ACCS * UNROLL <= cols; c += ACCS * UNROLL)
            for (int u = 0; u < UNROLL; ++u)
                for (int a = 0; a < ACCS; ++a) acc[a] += row[c + u * ACCS + a];
        for (; c < cols; ++c) acc[0] += row[c];
        float total = 0.0f;
        for (int a = 0; a < ACCS; ++a) total += acc[a];
        out[r] = total;
    }
}

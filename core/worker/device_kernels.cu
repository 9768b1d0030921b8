// Kiln's own device kernels, loaded as PTX through the driver (no CUDA runtime, no nvcc at build):
// seeded random fill of a tensor's storage and an element-wise tolerance check of two outputs.
#include <stdint.h>

__device__ __forceinline__ uint64_t kiln_mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// dtype: 0 float32, 1 float16, 2 bfloat16. Magnitudes in [0.1, 1) with a random sign, never zero,
// element i from splitmix64 state base + (i + 1) * golden as the host's random_storage.
extern "C" __global__ void kiln_fill_random(void* out, uint64_t n, uint32_t dtype, uint64_t seed) {
    const uint64_t golden = 0x9E3779B97F4A7C15ull;
    const uint64_t base = seed * golden + 0x632BE59BD9B4E019ull;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t z = kiln_mix(base + (i + 1) * golden);
        float mag = 0.1f + 0.9f * (float)(z >> 40) * (1.0f / 16777216.0f);
        float v = (z & 1) ? mag : -mag;
        if (dtype == 0) {
            ((float*)out)[i] = v;
        } else if (dtype == 1) {
            unsigned short h;
            asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(v));
            ((unsigned short*)out)[i] = h;
        } else {
            uint32_t bits = __float_as_uint(v);
            bits += 0x7FFFu + ((bits >> 16) & 1u);  // round to nearest even (finite values only)
            ((unsigned short*)out)[i] = (unsigned short)(bits >> 16);
        }
    }
}

__device__ __forceinline__ float kiln_load(const void* p, uint64_t i, uint32_t dtype) {
    if (dtype == 0) return ((const float*)p)[i];
    unsigned short h = ((const unsigned short*)p)[i];
    if (dtype == 1) {
        float f;
        asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
        return f;
    }
    return __uint_as_float(((uint32_t)h) << 16);
}

// Counts elements with !(|a - b| <= atol + rtol * |b|): NaN and infinities count as different.
extern "C" __global__ void kiln_count_mismatches(const void* a, const void* b, uint64_t n, uint32_t dtype, float atol,
                                                 float rtol, unsigned long long* bad) {
    unsigned long long mine = 0;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
        float x = kiln_load(a, i, dtype), y = kiln_load(b, i, dtype);
        float d = fabsf(x - y);
        if (!(d <= atol + rtol * fabsf(y)) || !isfinite(x)) ++mine;
    }
    if (mine) atomicAdd(bad, mine);
}

// compare_storage: outputs within tolerance are equal; one element off is found, in float16,
// bfloat16 and float32, contiguous and strided.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "worker/tensor.hpp"

using namespace kiln::worker;

namespace {

TensorMeta meta(DType d, std::vector<std::int64_t> strides = {}) {
    TensorMeta t;
    t.dtype = d;
    t.sizes = {64, 48};
    t.strides = std::move(strides);
    return t;
}

void set(std::vector<std::byte>& s, const TensorMeta& t, std::size_t element, std::uint16_t bits) {
    std::memcpy(s.data() + element * dtype_size(t.dtype), &bits, 2);
}

}  // namespace

TEST(CompareStorage, SixteenBitFloatsWithinToleranceAreEqualAndOneBadElementIsFound) {
    for (DType d : {DType::f16, DType::bf16}) {
        for (auto strides : {std::vector<std::int64_t>{}, std::vector<std::int64_t>{1, 64}}) {
            TensorMeta t = meta(d, strides);
            auto want = random_storage(t, 7);
            auto got = want;
            EXPECT_EQ(compare_storage(t, got.data(), want.data(), {1e-3, 1e-5}), "");
            // 0x3c00 is 1.0 in float16, 0x3f80 in bfloat16; the random values are in [-1, -0.1] u [0.1, 1].
            set(got, t, 100, d == DType::f16 ? 0x4400 : 0x4080);  // 4.0
            std::string diff = compare_storage(t, got.data(), want.data(), {1e-3, 1e-5});
            EXPECT_NE(diff.find("1 of 3072 elements differ"), std::string::npos) << diff;
            EXPECT_NE(diff.find("got 4"), std::string::npos) << diff;
            set(got, t, 100, d == DType::f16 ? 0x7e00 : 0x7fc0);  // NaN
            EXPECT_NE(compare_storage(t, got.data(), want.data(), {1, 1}), "");
        }
    }
}

TEST(CompareStorage, Float32OffByMoreThanTheToleranceDiffers) {
    TensorMeta t = meta(DType::f32);
    auto want = random_storage(t, 3);
    auto got = want;
    float v;
    std::memcpy(&v, got.data() + 4 * 10, 4);
    v += 0.01f;
    std::memcpy(got.data() + 4 * 10, &v, 4);
    EXPECT_NE(compare_storage(t, got.data(), want.data(), {1e-4, 1e-4}), "");
    EXPECT_EQ(compare_storage(t, got.data(), want.data(), {0, 0.02}), "");
}

TEST(RandomStorage, LargeTensorsFillInParallelWithTheSerialValues) {
    // Element i of a large tensor equals element i of a small one with the same seed: the chunks
    // filled on several threads draw the same sequence as one thread does.
    for (DType d : {DType::f32, DType::bf16, DType::f16}) {
        TensorMeta big;
        big.dtype = d;
        big.sizes = {3, 1 << 20};  // 3 chunks
        TensorMeta small;
        small.dtype = d;
        small.sizes = {1000};
        auto a = random_storage(big, 11), b = random_storage(small, 11);
        ASSERT_EQ(std::memcmp(a.data(), b.data(), b.size()), 0);
    }
}

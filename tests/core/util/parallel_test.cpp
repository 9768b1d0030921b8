// The one parallel loop and the parallel sort built on it.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <string>
#include <vector>

#include "util/parallel.hpp"

namespace kiln {
namespace {

TEST(ParallelFor, EveryItemOnce) {
    std::vector<std::atomic<int>> seen(10007);
    parallel_for(seen.size(), 4, nullptr, [&](std::size_t i) { seen[i].fetch_add(1); });
    for (const auto& s : seen) EXPECT_EQ(s.load(), 1);
}

TEST(ParallelSort, GivesStdSortsOrder) {
    // Sizes around the slice and merge boundaries, thread counts that leave odd slices to merge.
    std::mt19937 rng(7);
    for (std::size_t n : {0u, 1u, 4095u, 4096u, 4097u, 10000u, 65537u}) {
        for (unsigned threads : {1u, 2u, 3u, 5u, 8u}) {
            std::vector<std::string> v(n);
            for (auto& s : v) s = std::to_string(rng() % 5000) + "/" + std::to_string(rng() % 7);
            std::vector<std::string> want = v;
            std::sort(want.begin(), want.end());
            parallel_sort(v.begin(), v.end(), threads, std::less<>());
            EXPECT_EQ(v, want) << n << " items on " << threads << " threads";
        }
    }
}

TEST(ParallelSort, ByAnIndexLikeTheBrowsersPathIndex) {
    std::vector<std::string> keys(50000);
    std::mt19937 rng(11);
    for (auto& k : keys) k = "triton/0/" + std::to_string(rng());
    std::vector<int> idx(keys.size());
    for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<int>(i);
    auto less = [&](int x, int y) { return keys[x] != keys[y] ? keys[x] < keys[y] : x < y; };
    parallel_sort(idx.begin(), idx.end(), 2, less);
    EXPECT_TRUE(std::is_sorted(idx.begin(), idx.end(), less));
    std::vector<int> sorted = idx;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < sorted.size(); ++i) ASSERT_EQ(sorted[i], static_cast<int>(i));  // a permutation
}

}  // namespace
}  // namespace kiln

// The stored per-kernel times of a cache (the re-benchmark dialog's comparison), read from the
// fixture's three .kernel_perf files and from copies of them.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "test_support.hpp"
#include "timings/stored_kernel_times.hpp"

namespace fs = std::filesystem;
using namespace kiln::timings;

namespace {
constexpr const char* kIva = "civajokyboeliebqp7f4xamimvjhu6p7vwdu6k3x43oocfxgum7u";
}

TEST(StoredKernelTimes, ReadsEveryKernelPerfOfTheFixture) {
    auto stored = read_stored_kernel_times(kiln::test::h100_root());
    ASSERT_TRUE(stored.ok()) << stored.error().str();
    ASSERT_EQ(stored->by_key.size(), 3u);
    EXPECT_DOUBLE_EQ(stored->by_key.at(kIva), 0.011807999573647976);
    EXPECT_TRUE(stored->warnings.empty());
    // All three modules define `triton_`: each name is kept apart by its key's first 12 characters.
    ASSERT_EQ(stored->by_name.size(), 3u);
    EXPECT_DOUBLE_EQ(stored->by_name.at("triton_ (civajokyboel)"), 0.011807999573647976);
    EXPECT_EQ(stored->by_name.count("triton_"), 0u);
}

TEST(StoredKernelTimes, FindsAKernelByKeyPrefixThenByName) {
    auto stored = read_stored_kernel_times(kiln::test::h100_root());
    ASSERT_TRUE(stored.ok()) << stored.error().str();
    EXPECT_EQ(stored_time_for(*stored, "triton_", "civajokybo"), 0.011807999573647976);
    EXPECT_EQ(stored_time_for(*stored, "triton_", "cnotstored"), std::nullopt);
    EXPECT_EQ(stored_time_for(*stored, "triton_", "ci"), std::nullopt);  // too short to be a key
    EXPECT_EQ(stored_time_for(*stored, "triton_ (civajokyboel)", ""), 0.011807999573647976);
}

TEST(StoredKernelTimes, AUniqueNameIsNotQualifiedAndABadFileIsAWarning) {
    kiln::test::ScratchDir dir("stored_kernel_times");
    const fs::path src = kiln::test::h100_root() / "iv";
    fs::create_directories(dir.path() / "iv");
    for (const auto& e : fs::directory_iterator(src))
        if (e.path().stem() == kIva) fs::copy_file(e.path(), dir.path() / "iv" / e.path().filename());
    fs::create_directories(dir.path() / "zz");
    std::ofstream(dir.path() / "zz" / "czzbad.kernel_perf") << "not a number\n";
    auto stored = read_stored_kernel_times(dir.path());
    ASSERT_TRUE(stored.ok()) << stored.error().str();
    ASSERT_EQ(stored->by_name.size(), 1u);
    EXPECT_DOUBLE_EQ(stored->by_name.at("triton_"), 0.011807999573647976);
    EXPECT_EQ(stored->by_key.size(), 1u);
    ASSERT_EQ(stored->warnings.size(), 1u);
    EXPECT_NE(stored->warnings[0].find("czzbad.kernel_perf"), std::string::npos);
}

TEST(StoredKernelTimes, ErrorsAreValues) {
    auto missing = read_stored_kernel_times(kiln::test::h100_root() / "no-such-dir");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, kiln::Errc::not_found);
    EXPECT_NE(missing.error().str().find("no-such-dir"), std::string::npos);
    std::atomic<bool> cancel{true};
    auto cancelled = read_stored_kernel_times(kiln::test::h100_root(), &cancel);
    ASSERT_FALSE(cancelled.ok());
    EXPECT_EQ(cancelled.error().code, kiln::Errc::cancelled);
}

// Inductor's timing cache file: the system hash rule reproduces the file names Inductor wrote.
#include <gtest/gtest.h>

#include <filesystem>

#include "hash/sha256.hpp"
#include "inductor/timing_cache_file.hpp"
#include "test_support.hpp"

using namespace kiln::inductor;
using nlohmann::ordered_json;

TEST(PythonJson, SystemHashRuleReproducesTheFixtureFileName) {
    auto dir = kiln::test::h100_root() / "cache";
    int checked = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        auto f = read_cache_file(e.path());
        ASSERT_TRUE(f.ok()) << f.error().str();
        ordered_json sys = (*f)["system"];
        std::string stored = sys["hash"];
        sys.erase("hash");
        EXPECT_EQ(system_hash(sys), stored);
        EXPECT_EQ(stored, e.path().filename().string());
        ++checked;
    }
    EXPECT_EQ(checked, 1);
}

TEST(PythonJson, CpuSystemHashesTheEmptyObject) {
    // Inductor without CUDA: system = {} -> sha256(b"{}").
    EXPECT_EQ(cpu_system().hash, kiln::hash::sha256_hex("{}"));
    EXPECT_EQ(cpu_system().system.dump(), "{\"hash\":\"" + kiln::hash::sha256_hex("{}") + "\"}");
}

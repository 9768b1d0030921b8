// `kiln-cli stats` end to end: the real binary on the real fixtures.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>

#include "newer_torch_cache.hpp"
#include "test_support.hpp"

namespace kiln::test {
namespace {

TEST(CliStats, JsonOnH100FixtureIsExactlyTheReadmeCounts) {
    auto r = run_command({cli_path(), "stats", h100_root().string(), "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = nlohmann::ordered_json::parse(r.out);  // ordered: the key order is part of the schema
    EXPECT_EQ(j["root"], h100_root().string());
    auto files = [&](const char* c) { return j["categories"][c]["files"].get<int>(); };
    EXPECT_EQ(files("fxgraph"), 13);
    EXPECT_EQ(files("aotautograd"), 12);
    EXPECT_EQ(files("output_code"), 15);
    EXPECT_EQ(files("kernel_module"), 74);
    EXPECT_EQ(files("best_config"), 5);
    EXPECT_EQ(files("kernel_perf"), 3);
    EXPECT_EQ(files("cpp_source"), 13);
    EXPECT_EQ(files("cpp_library"), 13);
    EXPECT_EQ(files("triton_compiled"), 905);
    EXPECT_EQ(j["categories"]["triton_compiled"]["entries"], 114);
    EXPECT_EQ(files("autotune_local_cache"), 1);
    EXPECT_EQ(files("lock"), 13);
    EXPECT_FALSE(j["categories"].contains("temp"));  // zero-file categories are left out
    EXPECT_FALSE(j["categories"].contains("other"));
    EXPECT_EQ(j["fxgraph_keys"], 13);
    EXPECT_EQ(j["total"]["files"], 1067);
    // The fixture README says 63,905,170 bytes, but its files add up to 63,905,377 (find -printf '%s'
    // agrees): compare with an independent walk instead of the README's misprint.
    std::uintmax_t walked = 0;
    for (auto& e : std::filesystem::recursive_directory_iterator(h100_root()))
        if (e.is_regular_file() && !e.is_symlink()) walked += e.file_size();
    EXPECT_EQ(j["total"]["bytes"], walked);
    EXPECT_EQ(j["unreadable"], 0);
    // Exactly the documented keys, in order.
    std::vector<std::string> keys;
    for (auto& [k, v] : j.items()) keys.push_back(k);
    EXPECT_EQ(keys, (std::vector<std::string>{"root", "categories", "fxgraph_keys", "total", "unreadable"}));
    for (auto& [name, c] : j["categories"].items()) EXPECT_EQ(c.size(), 3u) << name;
}

TEST(CliStats, HumanOutputLikeCcache) {
    auto r = run_command({cli_path(), "stats", two_entries_root().string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("fxgraph"), std::string::npos);
    EXPECT_NE(r.out.find("triton_compiled"), std::string::npos);
    EXPECT_NE(r.out.find("645.6 kB"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("oldest"), std::string::npos);
}

TEST(CliStats, RootFromTheEnvironmentLikeTorch) {
    auto r =
        run_command({"env", "TORCHINDUCTOR_CACHE_DIR=" + two_entries_root().string(), cli_path(), "stats", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["total"]["files"], 33);
    auto t = run_command({"env", "-u", "TORCHINDUCTOR_CACHE_DIR", "TMPDIR=" + (fixture_dir() / "two").string(),
                          "LOGNAME=nobody-kiln", cli_path(), "stats"});
    EXPECT_EQ(t.exit_code, 2);
    EXPECT_NE(t.err.find("torchinductor_nobody-kiln"), std::string::npos) << t.err;
}

TEST(CliStats, StandaloneTritonCache) {
    auto r = run_command({cli_path(), "stats", (h100_root() / "triton" / "0").string(), "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["categories"]["triton_compiled"]["files"], 905);
    EXPECT_EQ(j["categories"]["triton_compiled"]["entries"], 114);
    auto e = run_command({"env", "TRITON_CACHE_DIR=" + (h100_root() / "triton" / "0").string(), cli_path(), "stats",
                          "--triton", "--json"});
    ASSERT_EQ(e.exit_code, 0) << e.err;
    EXPECT_EQ(nlohmann::json::parse(e.out)["total"]["files"], 905);
}

TEST(CliStats, MissingRootExitsTwoWithThePath) {
    auto r = run_command({cli_path(), "stats", "/nonexistent/kiln/cache"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("/nonexistent/kiln/cache"), std::string::npos);
    EXPECT_TRUE(r.out.empty());
}

TEST(CliStats, SampleCacheShippedWithKilnIsReal) {
    auto r = run_command(
        {cli_path(), "stats", (source_dir() / "resources" / "sample-cache" / "inductor").string(), "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_GE(j["fxgraph_keys"].get<int>(), 2);
    EXPECT_GE(j["categories"]["output_code"]["files"].get<int>(), 1);
    EXPECT_GE(j["categories"]["kernel_module"]["files"].get<int>(), 1);
    EXPECT_EQ(j["categories"]["autotune_local_cache"]["files"], 1);
    EXPECT_FALSE(j["categories"].contains("other"));
    EXPECT_LT(j["total"]["bytes"].get<long>(), 1000000);
}

// A cache of a torch newer than 2.11: what Kiln does not know is named (folders, key components) and
// never counted as something it knows; every category it knows counts as in the fixture.
TEST(CliStats, ACacheOfANewerTorchNamesWhatKilnDoesNotKnow) {
    ScratchDir dir("cli-stats-newer-torch");
    const auto cache = make_newer_torch_cache(dir.path());
    auto r = run_command({cli_path(), "stats", cache.root.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const char* said :
         {"unknown to Kiln: ", "aot_compile/ (1 file, 2 B)", "cutedsl_compile_cache/ (2 files, ",
          "key components torch 2.11 does not write: ", "pre_grad_pass_timing", "provenance_tracking_level",
          "(1 of 13 graph entries read)", "written by a torch newer than 2.11 (2.12?)"})
        EXPECT_NE(r.out.find(said), std::string::npos) << said << "\n" << r.out;
    auto j = nlohmann::json::parse(run_command({cli_path(), "stats", cache.root.string(), "--json"}).out);
    auto fixture = nlohmann::json::parse(run_command({cli_path(), "stats", h100_root().string(), "--json"}).out);
    for (const auto& [name, counts] : fixture["categories"].items()) EXPECT_EQ(j["categories"][name], counts) << name;
    EXPECT_EQ(j["unknown_to_kiln"]["places"]["aot_compile/"]["files"], 1);
    EXPECT_EQ(j["unknown_to_kiln"]["places"]["cutedsl_compile_cache/"]["files"], 2);
    EXPECT_EQ(j["unknown_to_kiln"]["entries_with_unknown"], 1);
    EXPECT_EQ(j["unknown_to_kiln"]["known_torch"], "2.11");
    EXPECT_FALSE(fixture.contains("unknown_to_kiln"));  // a 2.11 cache holds nothing unknown
}

}  // namespace
}  // namespace kiln::test

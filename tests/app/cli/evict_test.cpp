// `kiln-cli evict` end to end on a copy of the two-entries fixture.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace fs = std::filesystem;

namespace kiln::test {
namespace {

std::uint64_t file_count(const fs::path& root) {
    std::uint64_t n = 0;
    for (auto& e : fs::recursive_directory_iterator(root)) n += e.is_regular_file();
    return n;
}

class CliEvict : public ::testing::Test {
protected:
    ScratchDir dir{"cli-evict"};
    fs::path root = dir.path() / "cache";
    void SetUp() override { fs::copy(two_entries_root(), root, fs::copy_options::recursive); }
};

TEST_F(CliEvict, DryRunByDefaultThenYesDeletes) {
    // max-size 0: everything must go.
    auto dry = run_command({cli_path(), "evict", root.string(), "--max-size", "0"});
    ASSERT_EQ(dry.exit_code, 0) << dry.err;
    EXPECT_NE(dry.out.find("would remove"), std::string::npos);
    EXPECT_NE(dry.out.find("--yes"), std::string::npos);
    EXPECT_EQ(file_count(root), 33u);

    auto real = run_command({cli_path(), "evict", root.string(), "--max-size", "0", "--yes", "--json"});
    ASSERT_EQ(real.exit_code, 0) << real.err;
    auto j = nlohmann::json::parse(real.out);
    EXPECT_EQ(j["freed_bytes"], 645561);
    std::uint64_t sum = 0;
    for (auto& g : j["removed"]) {
        EXPECT_FALSE(fs::exists(g["path"].get<std::string>()));
        sum += g["bytes"].get<std::uint64_t>();
    }
    EXPECT_EQ(sum, 645561u);
    EXPECT_TRUE(j["skipped"].empty());
    EXPECT_EQ(file_count(root), 0u);
}

TEST_F(CliEvict, OlderThanKeepsRecentlyUsed) {
    auto r = run_command({cli_path(), "evict", root.string(), "--older-than", "1d", "--yes", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["freed_bytes"], 0);  // just copied: all used today
    EXPECT_EQ(file_count(root), 33u);
}

TEST_F(CliEvict, CategoryFilter) {
    auto r = run_command(
        {cli_path(), "evict", root.string(), "--max-size", "0", "--category", "triton_compiled", "--yes", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["removed"].size(), 3u);
    EXPECT_EQ(file_count(root), 9u);
}

TEST_F(CliEvict, BadInputs) {
    EXPECT_EQ(run_command({cli_path(), "evict", root.string()}).exit_code, 2);  // no limit
    EXPECT_EQ(run_command({cli_path(), "evict", root.string(), "--older-than", "1d", "--max-size", "1G"}).exit_code, 2);
    EXPECT_EQ(run_command({cli_path(), "evict", root.string(), "--older-than", "soon"}).exit_code, 2);
    EXPECT_EQ(run_command({cli_path(), "evict", root.string(), "--max-size", "0", "--category", "nope"}).exit_code, 2);
    auto missing = run_command({cli_path(), "evict", (dir.path() / "nope").string(), "--max-size", "0"});
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_NE(missing.err.find("nope"), std::string::npos);
    EXPECT_EQ(file_count(root), 33u);
}

TEST_F(CliEvict, ForeignRootNeedsForce) {
    fs::path home = dir.path() / "home";
    fs::create_directories(home);
    std::ofstream(home / "notes.txt") << "mine";
    auto refused = run_command({cli_path(), "evict", home.string(), "--max-size", "0", "--yes"});
    EXPECT_EQ(refused.exit_code, 2);
    EXPECT_NE(refused.err.find("--force"), std::string::npos);
    EXPECT_TRUE(fs::exists(home / "notes.txt"));
    auto forced = run_command({cli_path(), "evict", home.string(), "--max-size", "0", "--force", "--json"});
    EXPECT_EQ(forced.exit_code, 0);
    EXPECT_EQ(nlohmann::json::parse(forced.out)["removed"].size(), 1u);
    EXPECT_TRUE(fs::exists(home / "notes.txt"));  // --force without --yes is still a dry run
}

}  // namespace
}  // namespace kiln::test

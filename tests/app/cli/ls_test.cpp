// kiln-cli ls: graph entries by function and inputs, the hash as a column.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace {

using kiln::test::run_command;

TEST(CliLs, TwoEntries) {
    auto r = run_command({kiln::test::cli_path(), "ls", kiln::test::two_entries_root().string(), "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["entries"].size(), 4u);
    EXPECT_EQ(j["entries"][0]["label"], "pw (gen_holdout.py:67) forward s77, float16[s77], float16[s77]");
    EXPECT_EQ(j["entries"][0]["symbols"][0]["source"], "L['x'].size()[0]");
    r = run_command({kiln::test::cli_path(), "ls", kiln::test::two_entries_root().string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("t0 = s77 = L['x'].size()[0]"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("fsbnatbp6m2ke"), std::string::npos) << r.out;
    r = run_command({kiln::test::cli_path(), "ls", kiln::test::fixture_dir().string()});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("no fxgraph/"), std::string::npos) << r.err;
}

}  // namespace

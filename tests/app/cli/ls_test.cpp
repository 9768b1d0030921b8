// kiln-cli ls: graph entries by function and inputs, the hash as a column.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "newer_torch_cache.hpp"
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

// A cache of a torch newer than 2.11: its rows as ever, then the keys' components 2.11 does not write.
TEST(CliLs, ACacheOfANewerTorchNamesItsNewKeyComponents) {
    kiln::test::ScratchDir dir("cli-ls-newer-torch");
    const auto cache = kiln::test::make_newer_torch_cache(dir.path());
    const std::string trace = (kiln::test::fixture_dir() / "h100/trace").string();
    auto r = run_command({kiln::test::cli_path(), "ls", cache.root.string(), "--trace", trace});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto fixture = run_command({kiln::test::cli_path(), "ls", kiln::test::h100_root().string(), "--trace", trace});
    EXPECT_EQ(r.out.substr(r.out.find('\n')), fixture.out.substr(fixture.out.find('\n')) +
                                                  "\nkey components torch 2.11 does not write: pre_grad_pass_timing, "
                                                  "provenance_tracking_level (1 of 13 graph entries read): written by "
                                                  "a torch newer than 2.11 (2.12?); Kiln shows these as they are and "
                                                  "reads nothing into them\n");
}

}  // namespace

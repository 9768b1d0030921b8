// kiln-cli diff: entries and trace-log events aligned by component name.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "newer_torch_cache.hpp"
#include "test_support.hpp"

namespace {

using kiln::test::run_command;
using nlohmann::json;

std::string h100(const std::string& rel) { return (kiln::test::h100_root() / rel).string(); }
const std::string kCold = "fxgraph/mo/fmo2n45uv3b62qq26v3dxc7irosaefewdkqwv5x66fwyzrtffovi";
const std::string kChanged = "fxgraph/bt/fbthtgcfn6jl7ghas2zkbej2nhbianoo76mqbeuwqawaoxcxbhv5";
std::string changed_log() { return (kiln::test::fixture_dir() / "h100/trace/changed").string(); }

TEST(CliDiff, ChangedConfigBetweenEntries) {
    auto r = run_command({kiln::test::cli_path(), "diff", h100(kCold), h100(kChanged), "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = json::parse(r.out);
    std::vector<std::string> keys;
    auto ordered = nlohmann::ordered_json::parse(r.out);  // key order as printed
    for (auto& [k, v] : ordered.items()) keys.push_back(k);
    EXPECT_EQ(keys, (std::vector<std::string>{"changed", "only_a", "only_b", "same"}));
    ASSERT_EQ(j["changed"].size(), 2u);
    EXPECT_EQ(j["changed"][0]["component"], "inductor_config[realize_opcount_threshold]");
    EXPECT_EQ(j["changed"][1]["component"], "inductor_config[max_fusion_size]");
    EXPECT_NE(j["changed"][0]["a"], j["changed"][0]["b"]);
    EXPECT_EQ(j["only_a"].size(), 0u);
    EXPECT_EQ(j["same"], 539);
}

TEST(CliDiff, EntryAgainstItsOwnTraceEvent) {
    // The changed run's miss event carries the same components as the entry it wrote.
    auto r = run_command({kiln::test::cli_path(), "diff", changed_log() + "#0", h100(kChanged), "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = json::parse(r.out);
    EXPECT_EQ(j["changed"].size(), 0u);
    EXPECT_EQ(j["same"], 541);
}

TEST(CliDiff, GraphCodeGetsALineDiff) {
    auto r = run_command({kiln::test::cli_path(), "diff", h100(kCold),
                          h100("fxgraph/pc/fpcye2sboffhsdw2klzl7dravdgn3qctsmfkisehk733aaz7atbd")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("~ gm (line diff, - A + B)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("    -    sin = torch.ops.aten.sin.default(arg1_1)"), std::string::npos) << r.out;
}

TEST(CliDiff, BadInput) {
    auto r = run_command({kiln::test::cli_path(), "diff", h100(kCold), "/nonexistent"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("no such entry, key dir or log"), std::string::npos) << r.err;
    // AOTAutograd entries store no debug lines.
    r = run_command({kiln::test::cli_path(), "diff", h100(kCold),
                     h100("aotautograd/aojam2cfkjwlqcxcqpd3plr2uvmfbweeyzfiywbwqsv44vqf3wlt")});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("no _fx_graph_cache_debug_lines"), std::string::npos) << r.err;
    r = run_command({kiln::test::cli_path(), "diff", changed_log() + "#7", h100(kCold)});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("no fx_graph cache event #7 (the log has 1)"), std::string::npos) << r.err;
}

TEST(CliDiff, ADirectoryOrAnEmptyFileSaysWhatDiffTakes) {
    // Issue 16: these said "0 fx_graph cache events in the log".
    kiln::test::ScratchDir dir("cli-diff-unclear");
    const auto empty_dir = dir.path() / "nothing-here";
    std::filesystem::create_directory(empty_dir);
    auto r = run_command({kiln::test::cli_path(), "diff", empty_dir.string(), h100(kCold)});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(empty_dir.string() + ": no graph entry and no TORCH_TRACE log"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("diff takes a graph entry file, a key dir"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("0 fx_graph cache events"), std::string::npos) << r.err;

    const auto empty_file = dir.path() / "empty";
    std::ofstream(empty_file).flush();
    r = run_command({kiln::test::cli_path(), "diff", empty_file.string(), h100(kCold)});
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.err.find(empty_file.string() + ": "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("empty"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("0 fx_graph cache events"), std::string::npos) << r.err;
}

TEST(CliDiff, ABadDebugLineNamesItsLogAndLine) {
    // Issue 16: a debug-line error named no file. Break the first component of the log's fx_graph event.
    kiln::test::ScratchDir dir("cli-diff-debug-line");
    std::filesystem::path src;
    for (const auto& e : std::filesystem::directory_iterator(changed_log())) src = e.path();
    std::string text = kiln::test::read_file(src);
    auto event = text.find("{\"artifact\": {\"name\": \"fx_graph_cache_");  // the payload is on the next line
    ASSERT_NE(event, std::string::npos);
    auto item = text.find("\"components\": [\"[", event);
    ASSERT_NE(item, std::string::npos);
    text.replace(item + 15, 2, "\"no hash here ");
    const auto log = dir.path() / src.filename();
    std::ofstream(log, std::ios::binary) << text;

    auto r = run_command({kiln::test::cli_path(), "diff", log.string() + "#0", h100(kCold)});
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.err.find(log.string() + ":"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("debug lines do not start with '[<hash>] <name>: '"), std::string::npos) << r.err;
}

// A key of a torch newer than 2.11 against 2.11's: a new component is shown as such, never as a
// config that changed.
TEST(CliDiff, ANewKeyComponentIsShownAsANewerTorchs) {
    kiln::test::ScratchDir dir("cli-diff-newer-torch");
    const auto cache = kiln::test::make_newer_torch_cache(dir.path());
    auto r = run_command({kiln::test::cli_path(), "diff", cache.old_entry.string(), cache.new_entry.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("+ pre_grad_pass_timing (only in B; a key component torch 2.11 does not write: keyed by a "
                         "newer torch)"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("+ provenance_tracking_level (only in B; a key component torch 2.11 does not write"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("- joint_custom_pre_pass (only in A)\n"), std::string::npos) << r.out;
    auto j = json::parse(
        run_command({kiln::test::cli_path(), "diff", cache.old_entry.string(), cache.new_entry.string(), "--json"})
            .out);
    EXPECT_EQ(j["unknown_to_kiln"], json::parse(R"(["pre_grad_pass_timing", "provenance_tracking_level"])"));
}

}  // namespace

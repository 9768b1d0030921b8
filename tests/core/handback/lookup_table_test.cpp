// --pin: the Inductor lookup table of each op's measured winner.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "decoy_root.hpp"
#include "handback/lookup_table.hpp"
#include "retune_run_fixture.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace kiln::handback;

namespace {

const std::string kH100 = "NVIDIA H100 80GB HBM3";

std::vector<MeasuredOp> fixture_ops(double extern_factor) {
    auto file = kiln::test::cache_file_for(kiln::test::h100_root(), kH100);
    auto j = kiln::test::run_json_from_cache_file(file, kH100, 1.0);
    // Make the extern mm lose on the first op and win on the second.
    for (auto& c : j["ops"][1]["choices"])
        if (c["kind"] == "extern") c["measured"][0]["ms"] = c["measured"][0]["ms"].get<double>() * extern_factor;
    return complete_ops(run_from_json(j, "t").value(), std::nullopt).ops;
}

}  // namespace

TEST(LookupTable, InputKeyIsKernelInputsKeySpelling) {
    auto k = lookup_input_key(
        "[('cuda', 'torch.float16', 512, 512, 512, 1, 0), ('cuda', 'torch.float16', 512, 256, "
        "256, 1, 0)]");
    ASSERT_TRUE(k) << k.error().str();
    EXPECT_EQ(*k, "((torch.float16, [512, 512], [512, 1]), (torch.float16, [512, 256], [256, 1]))");
    auto one = lookup_input_key("[('cuda', 'torch.bfloat16', 4, 8, 16, 128, 16, 1, 0)]");
    ASSERT_TRUE(one) << one.error().str();
    EXPECT_EQ(*one, "((torch.bfloat16, [4, 8, 16], [128, 16, 1]),)");
    EXPECT_FALSE(lookup_input_key("not a key"));
}

// The fixture's first op is won by a Triton config (its module gives the tile), the second by the
// extern mm (made so): one device-specific entry each, one config per entry (no autotuning).
TEST(LookupTable, PinsEachWinnerWithDeviceKeys) {
    auto ops = fixture_ops(0.01);
    ASSERT_EQ(ops.size(), 2u);
    auto t = build_lookup_table(ops, kiln::test::open_dir(kiln::test::h100_root()));
    ASSERT_EQ(t.pinned.size(), 2u);
    EXPECT_TRUE(t.skipped.empty());
    const auto& a = t.pinned[0];
    EXPECT_EQ(a.key, kH100 + "+((torch.float16, [512, 512], [512, 1]), (torch.float16, [512, 512], [512, 1]))+mm");
    EXPECT_EQ(a.winner, ops[0].winner()->name);
    EXPECT_EQ(a.config["template_id"], "triton::mm");
    for (const char* k : {"BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M", "num_stages", "num_warps", "EVEN_K", "ACC_TYPE"})
        EXPECT_TRUE(a.config.contains(k)) << k << " " << a.config.dump();
    EXPECT_FALSE(a.config.contains("size_hints"));
    EXPECT_FALSE(a.config.contains("ALLOW_TF32"));  // torch passes it itself: a duplicate fails the compile
    // The winner of the fixture's 512 op is triton_mm-cy2dwohf… (0.00579 ms).
    EXPECT_EQ(a.winner.substr(0, 20), "triton_mm-cy2dwohf74");
    const auto& b = t.pinned[1];
    EXPECT_EQ(b.config, nlohmann::ordered_json({{"template_id", "aten::mm"}}));
    auto table = t.table();
    ASSERT_EQ(table.size(), 2u);
    EXPECT_EQ(table[a.key].size(), 1u);
}

// addmm's key carries torch's scalars (choices.py: inputs key + "+alpha=1&beta=1"), read off the
// extern choice's name; without such a name the op is skipped with why, never guessed.
TEST(LookupTable, AddmmKeysCarryTheScalarsOfItsExternChoice) {
    auto ops = fixture_ops(100.0);
    ops[0].op = "addmm";
    for (auto& c : ops[0].choices)
        if (c.kind == "extern") c.name = "addmm-alpha=1-beta=0.5-c" + c.name.substr(c.name.find("-c") + 2);
    auto t = build_lookup_table(ops, kiln::test::open_dir(kiln::test::h100_root()));
    ASSERT_EQ(t.pinned.size(), 2u) << (t.skipped.empty() ? "" : t.skipped[0].why);
    EXPECT_EQ(t.pinned[0].key, kH100 +
                                   "+((torch.float16, [512, 512], [512, 1]), (torch.float16, [512, 512], [512, 1]))"
                                   "+alpha=1&beta=0.5+addmm");
    EXPECT_EQ(t.pinned[1].key.substr(t.pinned[1].key.size() - 3), "+mm");

    auto unnamed = fixture_ops(1.0);
    unnamed[0].op = "addmm";  // its extern choice is still named mm-…: no scalars to read
    auto u = build_lookup_table(unnamed, kiln::test::open_dir(kiln::test::h100_root()));
    ASSERT_EQ(u.pinned.size(), 1u);
    ASSERT_EQ(u.skipped.size(), 1u);
    EXPECT_NE(u.skipped[0].why.find("alpha, beta"), std::string::npos);
    // Without the root the Triton winner's tile is unknown: skipped, never guessed.
    auto no_root = build_lookup_table(fixture_ops(100.0), kiln::test::open_dir("/nonexistent"));
    for (const auto& s : no_root.skipped) EXPECT_NE(s.why.find("module"), std::string::npos) << s.why;
    EXPECT_EQ(no_root.skipped.size(), 2u);
}

// The Triton winner's benchmark module is read beneath the opened root (issue 44): the root renamed
// after the open, a decoy module with another tile at its old path, the table still pins the opened
// root's tile; a module beneath it that became a symlink (to the decoy) is not followed.
TEST(LookupTable, ReadsTheWinnersModuleBeneathTheOpenedRootNotItsPath) {
    kiln::test::ScratchDir dir("hb-pin-decoy");
    const kiln::test::DecoyedRoot d = kiln::test::open_h100_root_then_decoy(dir);
    ASSERT_TRUE(d.opened.fd.valid());
    auto ops = fixture_ops(0.01);
    ASSERT_EQ(ops.size(), 2u);
    const std::string key = ops[0].winner()->name.substr(ops[0].winner()->name.find('-') + 1);
    const fs::path rel = fs::path(key.substr(1, 2)) / (key + ".py");
    std::string module = kiln::test::read_file(d.moved / rel);
    const std::string tile = "'BLOCK_M': 64,";
    ASSERT_NE(module.find(tile), std::string::npos);
    module.replace(module.find(tile), tile.size(), "'BLOCK_M': 256,");
    fs::create_directories(d.root / rel.parent_path());
    { std::ofstream(d.root / rel) << module; }
    auto t = build_lookup_table(ops, d.opened);
    ASSERT_EQ(t.pinned.size(), 2u) << (t.skipped.empty() ? "" : t.skipped[0].why);
    EXPECT_EQ(t.pinned[0].config["BLOCK_M"], 64);  // the opened root's module, not the decoy's 256
    // The opened root's module swapped for a symlink to the decoy: not followed, the winner skipped.
    fs::remove(d.moved / rel);
    fs::create_symlink(d.root / rel, d.moved / rel);
    auto linked = build_lookup_table(ops, d.opened);
    ASSERT_EQ(linked.pinned.size(), 1u);
    ASSERT_EQ(linked.skipped.size(), 1u);
    EXPECT_NE(linked.skipped[0].why.find("module"), std::string::npos) << linked.skipped[0].why;
    EXPECT_NE(linked.skipped[0].why.find((d.root / rel).string()), std::string::npos)  // named as opened
        << linked.skipped[0].why;
}

TEST(LookupTable, WritesANewFileAndRefusesAnExistingPath) {
    kiln::test::ScratchDir d("hb-pin");
    auto t = build_lookup_table(fixture_ops(0.01), kiln::test::open_dir(kiln::test::h100_root()));
    fs::path out = d.path() / "table.json";
    ASSERT_TRUE(write_lookup_table(out, t));
    auto j = kiln::py_loads(kiln::test::read_file(out)).value();
    EXPECT_EQ(kiln::py_dumps(j, {.indent = 2}), kiln::test::read_file(out));  // json.dump(indent=2)'s bytes
    EXPECT_EQ(j.size(), 2u);
    fs::path existing = d.path() / "mine.json";
    { std::ofstream(existing) << "someone's table"; }
    for (const fs::path& p : {out, existing}) {
        std::string before = kiln::test::read_file(p);
        auto st = write_lookup_table(p, t);
        ASSERT_FALSE(st.ok());
        EXPECT_EQ(st.error().code, kiln::Errc::busy);
        EXPECT_EQ(kiln::test::read_file(p), before);
    }
    auto nodir = write_lookup_table(d.path() / "missing" / "t.json", t);
    EXPECT_FALSE(nodir.ok());
}

// The rank comparison on the real 4-rank H100 job (tests/data/ranks-h100x4-torch2.11.tar.xz), and on
// copies of its ranks changed into another GPU kind or left out.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "ranks/ranks_report.hpp"
#include "test_support.hpp"
#include "util/python_json.hpp"

namespace fs = std::filesystem;
using namespace kiln::ranks;
using kiln::test::fixture_dir;
using kiln::test::read_file;
using kiln::test::ScratchDir;

namespace {

const std::string kTimingCache = "2b00ebb9d40b504fab0d8c9073411848066a922b8fa47b047b01c18e86e43158";

fs::path rank_dir(int r) { return fixture_dir() / "ranks" / ("rank" + std::to_string(r)); }

std::vector<RankSpec> specs_of(const std::vector<fs::path>& dirs) {
    std::vector<RankSpec> out;
    for (const auto& d : dirs) out.push_back({d, "", "", {}, ""});
    return out;
}

RanksReport report_of(const std::vector<fs::path>& dirs, std::vector<LoadedRank>* keep = nullptr) {
    std::vector<RankProblem> problems;
    auto loaded = load_ranks(specs_of(dirs), problems);
    auto rep = compare_ranks(loaded, problems);
    if (keep) *keep = std::move(loaded);
    return rep;
}

std::vector<fs::path> four_ranks() { return {rank_dir(0), rank_dir(1), rank_dir(2), rank_dir(3)}; }

// Each AUTOTUNE table of a stderr log (op, sizes, strides) -> its first row's template family and
// config: read here with plain string handling, independently of Kiln's readers.
std::map<std::string, std::string> table_winners(const fs::path& log) {
    std::map<std::string, std::string> out;
    std::istringstream in(read_file(log));
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("AUTOTUNE ", 0) != 0) continue;
        std::string strides, dtypes, row;
        std::getline(in, strides);
        std::getline(in, dtypes);
        std::getline(in, row);
        // "  triton_mm_3 0.0160 ms 100.0% ACC_TYPE=..., num_warps=8" or "  mm 0.0089 ms 100.0% "
        std::istringstream r(row);
        std::string name, ms, unit, pct;
        r >> name >> ms >> unit >> pct;
        std::string config;
        std::getline(r, config);
        auto us = name.rfind('_');
        if (us != std::string::npos && name.find_first_not_of("0123456789", us + 1) == std::string::npos)
            name.resize(us);  // triton_mm_3 -> triton_mm: the number counts choices per process
        out[line + " " + strides] = name + config;
    }
    return out;
}

}  // namespace

TEST(RanksReport, FourH100RanksDisagreeOnTenOfSixteenOps) {
    // The count the stderr tables give: winners compared by family and config, not by name.
    std::vector<std::map<std::string, std::string>> winners;
    for (int r = 0; r < 4; ++r) winners.push_back(table_winners(rank_dir(r) / "stderr.log"));
    ASSERT_EQ(winners[0].size(), 16u);
    std::size_t differ = 0;
    for (const auto& [op, w] : winners[0])
        for (int r = 1; r < 4; ++r)
            if (winners[r].at(op) != w) {
                ++differ;
                break;
            }
    EXPECT_EQ(differ, 10u);

    auto rep = report_of(four_ranks());
    ASSERT_EQ(rep.groups.size(), 1u);
    EXPECT_TRUE(rep.unreadable.empty());
    EXPECT_EQ(rep.ops_compared(), 16u);
    EXPECT_EQ(rep.ops_differ(), differ);
    EXPECT_EQ(rep.headline(), "ranks disagree on 10 of 16 autotuned ops");
    const auto& g = rep.groups.front();
    EXPECT_EQ(g.device, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(g.torch_version, "2.11.0+cu130");
    EXPECT_EQ(g.ranks, (std::vector<std::string>{"rank0", "rank1", "rank2", "rank3"}));
}

TEST(RanksReport, EachDivergentOpHasEveryRanksWinnerAndTimes) {
    auto rep = report_of(four_ranks());
    const auto& ops = rep.groups.front().ops.differ;
    for (const auto& d : ops) {
        ASSERT_EQ(d.winner.size(), 4u) << d.op << " " << d.inputs;
        for (int r = 0; r < 4; ++r) {
            ASSERT_GE(d.winner[r], 0) << d.op;
            const auto& w = d.competing[d.winner[r]];
            ASSERT_TRUE(w.ms[r].has_value());
            // The rank's winner is its fastest of the competing choices it measured.
            for (const auto& c : d.competing) {
                if (c.ms[r]) {
                    EXPECT_LE(*w.ms[r], *c.ms[r]) << d.op << " rank" << r;
                }
            }
            EXPECT_FALSE(w.names[r].empty());
        }
        EXPECT_GE(d.competing.size(), 2u);
        EXPECT_GT(d.spread_pct, 0);
    }
    // bmm 24x256x256 with A transposed: the ranks differ by num_stages alone (4 vs 5): speed only.
    auto stages = std::find_if(ops.begin(), ops.end(), [](const OpDivergence& d) {
        return d.op == "bmm" && d.strides == "[65536, 1, 256], [16384, 64, 1]";
    });
    ASSERT_NE(stages, ops.end());
    EXPECT_EQ(stages->verdict.effect, Effect::speed) << stages->verdict.why;
    EXPECT_NE(stages->verdict.why.find("num_stages"), std::string::npos);
    EXPECT_EQ(stages->competing.front().label, "triton_bmm (BLOCK 64×64×128, 4 stages, 4 warps)");
    // mm 1024x384 @ 384x1536: cuBLAS on three ranks, a Triton template on rank1: another algorithm.
    auto family = std::find_if(ops.begin(), ops.end(), [](const OpDivergence& d) {
        return d.op == "mm" && d.inputs == "1024x384 bfloat16, 384x1536 bfloat16";
    });
    ASSERT_NE(family, ops.end());
    EXPECT_EQ(family->verdict.effect, Effect::numerics);
    EXPECT_EQ(family->competing[family->winner[1]].label, "triton_mm (BLOCK 128×128×64, 5 stages, 8 warps)");
    EXPECT_EQ(family->competing[family->winner[0]].label, "mm");
    // Each rank names a Triton choice its own way (the module key hashes the device index).
    const auto& tri = family->competing[family->winner[1]];
    EXPECT_NE(tri.names[0], tri.names[1]);
}

TEST(RanksReport, BestConfigsAreMatchedByCandidateSet) {
    auto rep = report_of(four_ranks());
    const auto& k = rep.groups.front().kernels;
    EXPECT_EQ(k.kernels, (std::vector<std::size_t>{26, 26, 26, 26}));
    EXPECT_EQ(k.sets, 7u);
    // The one candidate set with one kernel per rank (a 2-D pointwise tile): an exact match.
    auto one = std::find_if(k.differ.begin(), k.differ.end(), [](const KernelConfigSet& s) { return s.one_per_rank; });
    ASSERT_NE(one, k.differ.end());
    EXPECT_EQ(one->configs_hash.substr(0, 8), "adaa6f42");
    EXPECT_EQ(one->verdict.effect, Effect::speed) << one->verdict.why;
    // A looped reduction's R0_BLOCK differs between ranks: the sums change.
    auto red = std::find_if(k.differ.begin(), k.differ.end(), [](const KernelConfigSet& s) {
        return std::find(s.keys.begin(), s.keys.end(), "R0_BLOCK") != s.keys.end();
    });
    ASSERT_NE(red, k.differ.end());
    EXPECT_EQ(red->verdict.effect, Effect::numerics);
}

TEST(RanksReport, GraphKeysDifferByTheDeviceIndexAndCodeByTheTile) {
    auto rep = report_of(four_ranks());
    const auto& gr = rep.groups.front().graphs;
    EXPECT_EQ(gr.keys, 5u);
    EXPECT_EQ(gr.keys_differ, 5u);
    EXPECT_EQ(gr.modules, 3u);
    EXPECT_EQ(gr.modules_device_index_only, 1u);  // the all_reduce graph: the same code on every GPU
    for (const auto& d : gr.differ) {
        if (d.kind != "key") continue;
        EXPECT_EQ(d.verdict.effect, Effect::none) << d.what;
        ASSERT_FALSE(d.components.empty());
        for (const auto& c : d.components) EXPECT_EQ(c.kind, "device_index") << c.component;
        EXPECT_NE(d.components.front().values[1].find("index=1"), std::string::npos);
    }
    auto fwd = std::find_if(gr.differ.begin(), gr.differ.end(),
                            [](const GraphDivergence& d) { return d.what == "output code ['0_forward']"; });
    ASSERT_NE(fwd, gr.differ.end());
    EXPECT_EQ(fwd->verdict.effect, Effect::numerics);
    auto tile = std::find_if(fwd->code.begin(), fwd->code.end(), [](const CodeDifference& c) {
        return c.section == "triton_tem_fused_addmm_native_layer_norm_t_view_1";
    });
    ASSERT_NE(tile, fwd->code.end());
    EXPECT_EQ(tile->kind, "config");
    EXPECT_EQ(tile->values[0], "BLOCK 64×32×32, 5 stages, 8 warps");
    EXPECT_EQ(tile->values[1], "BLOCK 64×64×128, 5 stages, 4 warps");
}

TEST(RanksReport, AMissingRankIsNamedAndTheRestCompared) {
    ScratchDir d("ranks-missing");
    auto dirs = four_ranks();
    dirs.insert(dirs.begin() + 2, d.path() / "rank9");
    auto rep = report_of(dirs);
    ASSERT_EQ(rep.unreadable.size(), 1u);
    EXPECT_NE(rep.unreadable[0].rank.find("rank9"), std::string::npos);
    EXPECT_NE(rep.unreadable[0].error.find("no such rank folder"), std::string::npos);
    EXPECT_EQ(rep.ops_compared(), 16u);
    EXPECT_EQ(rep.ops_differ(), 10u);
    EXPECT_TRUE(std::any_of(rep.notes.begin(), rep.notes.end(),
                            [](const std::string& n) { return n.find("rank9") != std::string::npos; }));
}

TEST(RanksReport, AnEmptyFolderIsUnreadable) {
    ScratchDir d("ranks-empty");
    fs::create_directories(d.path() / "rankX");
    auto rep = report_of({rank_dir(0), rank_dir(1), d.path() / "rankX"});
    ASSERT_EQ(rep.unreadable.size(), 1u);
    EXPECT_NE(rep.unreadable[0].error.find("no Inductor cache root"), std::string::npos);
    EXPECT_EQ(rep.ops_compared(), 16u);
}

TEST(RanksReport, RanksOfAnotherGpuKindAreGroupedApart) {
    ScratchDir d("ranks-h200");
    fs::copy(rank_dir(3), d.path() / "rank3", fs::copy_options::recursive);
    fs::path cache = d.path() / "rank3" / "inductor" / "cache" / kTimingCache;
    auto j = kiln::py_loads(read_file(cache)).value();
    j["system"]["device"]["name"] = "NVIDIA H200";
    std::ofstream(cache, std::ios::trunc) << kiln::py_dumps(j, {.sort_keys = false, .indent = 4});

    auto rep = report_of({rank_dir(0), rank_dir(1), rank_dir(2), d.path() / "rank3"});
    ASSERT_EQ(rep.groups.size(), 2u);
    EXPECT_EQ(rep.groups[0].ranks, (std::vector<std::string>{"rank0", "rank1", "rank2"}));
    EXPECT_EQ(rep.groups[1].device, "NVIDIA H200");
    EXPECT_EQ(rep.groups[1].ranks, (std::vector<std::string>{"rank3"}));
    EXPECT_EQ(rep.groups[1].ops.compared, 0u);  // alone in its kind: compared with nobody
    EXPECT_EQ(rep.ops_compared(), 16u);         // the three H100s among themselves
    EXPECT_TRUE(std::any_of(rep.notes.begin(), rep.notes.end(), [](const std::string& n) {
        return n.find("2 kinds") != std::string::npos && n.find("never with another") != std::string::npos;
    }));
}

// A rank whose trace says another torch made its entries (compilation_metrics' pytorch_version) is a
// kind of its own too: its winners come from another autotuner, its keys from another code base.
TEST(RanksReport, RanksOfAnotherTorchVersionAreGroupedApart) {
    ScratchDir d("ranks-torch");
    fs::copy(rank_dir(2), d.path() / "rank2", fs::copy_options::recursive);
    int rewritten = 0;
    for (const auto& f : fs::directory_iterator(d.path() / "rank2" / "trace")) {
        std::string text = kiln::test::read_file(f.path());
        for (std::size_t at; (at = text.find("\"pytorch_version\": \"2.11.0+cu130\"")) != std::string::npos;
             ++rewritten)
            text.replace(at, 33, "\"pytorch_version\": \"2.12.0+cu130\"");
        std::ofstream(f.path(), std::ios::trunc | std::ios::binary) << text;
    }
    ASSERT_GT(rewritten, 0);

    auto rep = report_of({rank_dir(0), rank_dir(1), d.path() / "rank2", rank_dir(3)});
    ASSERT_EQ(rep.groups.size(), 2u);
    EXPECT_EQ(rep.groups[0].ranks, (std::vector<std::string>{"rank0", "rank1", "rank3"}));
    EXPECT_EQ(rep.groups[0].torch_version, "2.11.0+cu130");
    EXPECT_EQ(rep.groups[1].ranks, (std::vector<std::string>{"rank2"}));
    EXPECT_EQ(rep.groups[1].torch_version, "2.12.0+cu130");
    EXPECT_EQ(rep.groups[1].ops.compared, 0u);
    EXPECT_TRUE(std::any_of(rep.notes.begin(), rep.notes.end(),
                            [](const std::string& n) { return n.find("2 kinds") != std::string::npos; }));
}

TEST(RanksReport, LoadingReportsEachRankAndStopsWhenCancelled) {
    std::atomic<bool> cancel{false};
    std::vector<std::size_t> tried;
    std::vector<RankProblem> problems;
    // Cancelled after the second rank (the GUI's Cancel between two ranks): the rest is not read.
    auto loaded = load_ranks(specs_of(four_ranks()), problems, &cancel, [&](std::size_t n) {
        tried.push_back(n);
        if (n == 2) cancel = true;
    });
    EXPECT_EQ(tried, (std::vector<std::size_t>{1, 2}));
    ASSERT_EQ(loaded.size(), 2u);
    EXPECT_EQ(loaded[1].label, "rank1");
    EXPECT_TRUE(problems.empty());
}

TEST(RanksReport, TwoReadableRanksAreNeeded) {
    EXPECT_TRUE(check_two_readable(2, {}).ok());
    auto none = check_two_readable(0, {});
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.error().code, kiln::Errc::invalid_argument);
    ScratchDir d("ranks-one");
    std::vector<RankProblem> problems;
    auto loaded = load_ranks(specs_of({rank_dir(0), d.path() / "rank9"}), problems);
    auto one = check_two_readable(loaded.size(), problems);
    ASSERT_FALSE(one.ok());
    EXPECT_EQ(one.error().code, kiln::Errc::not_found);
    EXPECT_NE(one.error().str().find("1 read"), std::string::npos);
    EXPECT_NE(one.error().str().find("rank9"), std::string::npos);
}

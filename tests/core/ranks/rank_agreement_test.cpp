// One agreed choice per op, written into each rank's own timing cache, on copies of the 4-rank job.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "ranks/rank_agreement.hpp"
#include "ranks/ranks_report.hpp"
#include "test_support.hpp"
#include "util/python_json.hpp"

namespace fs = std::filesystem;
using namespace kiln::ranks;
using kiln::test::fixture_dir;
using kiln::test::read_file;
using kiln::test::ScratchDir;

namespace {

const std::string kAgreedCache = "2b00ebb9d40b504fab0d8c9073411848066a922b8fa47b047b01c18e86e43158";

std::vector<fs::path> copy_ranks(const ScratchDir& d) {
    std::vector<fs::path> out;
    for (int r = 0; r < 4; ++r) {
        std::string name = "rank" + std::to_string(r);
        fs::copy(fixture_dir() / "ranks" / name, d.path() / name, fs::copy_options::recursive);
        out.push_back(d.path() / name);
    }
    return out;
}

struct Loaded {
    std::vector<LoadedRank> ranks;
    RanksReport report;
    std::vector<const LoadedRank*> group() const {
        std::vector<const LoadedRank*> g;
        for (const auto& r : ranks) g.push_back(&r);
        return g;
    }
};

Loaded load(const std::vector<fs::path>& dirs) {
    std::vector<RankSpec> specs;
    for (const auto& d : dirs) specs.push_back({d, "", "", {}, ""});
    std::vector<RankProblem> problems;
    Loaded l;
    l.ranks = load_ranks(specs, problems);
    l.report = compare_ranks(l.ranks, problems);
    return l;
}

nlohmann::ordered_json cache_json(const fs::path& rank) {
    return kiln::py_loads(read_file(rank / "inductor" / "cache" / kAgreedCache)).value();
}

}  // namespace

TEST(RankAgreement, WrittenCachesMakeTheAgreedChoiceFastestOnEveryRankAndKeepTheRest) {
    ScratchDir d("ranks-agree");
    auto dirs = copy_ranks(d);
    std::vector<nlohmann::ordered_json> before;
    for (const auto& r : dirs) before.push_back(cache_json(r));

    auto l = load(dirs);
    auto a = agree(l.group(), AgreeRule::median, l.report.groups.front().label);
    EXPECT_EQ(a.ops.size(), 16u);
    EXPECT_TRUE(a.skipped.empty());
    EXPECT_EQ(a.to_write(), 10u);  // the ops the ranks disagreed on
    auto written = write_agreed_caches(l.group(), a);
    ASSERT_TRUE(written.ok()) << written.error().str();
    ASSERT_EQ(written->size(), 4u);

    // Read back as torch would: every rank's fastest choice of every op is the same config.
    auto after = load(dirs);
    EXPECT_EQ(after.report.headline(), "ranks agree on all 16 autotuned ops");
    for (const auto& ag : a.ops) {
        for (size_t r = 0; r < 4; ++r) {
            const auto& ops = after.ranks[r].ops;
            auto op = std::find_if(ops.begin(), ops.end(), [&](const RankOp& o) {
                return o.op == ag.op && o.inputs_key == ag.inputs_key && o.precision == ag.precision;
            });
            ASSERT_NE(op, ops.end());
            ASSERT_GE(op->winner, 0);
            // The rank's own name for the agreed choice. (Its table row no longer fits the time now
            // written, so the config comes from the other ranks' tables or the choice's position.)
            EXPECT_EQ(op->choices[op->winner].name, ag.names[r]) << ag.op << " rank" << r;
            // Strictly the fastest: no tie for torch to break.
            for (const auto& c : op->choices) {
                if (&c != &op->choices[op->winner] && c.ms) {
                    EXPECT_LT(*op->choices[op->winner].ms, *c.ms);
                }
            }
        }
    }
    // Every other entry is untouched: per rank, exactly one time changed per written op, and
    // failed choices are still Infinity.
    for (size_t r = 0; r < 4; ++r) {
        auto now = cache_json(dirs[r]);
        EXPECT_EQ(now["system"], before[r]["system"]);
        int changed = 0, infinite = 0;
        for (auto op = before[r]["cache"].begin(); op != before[r]["cache"].end(); ++op)
            for (auto in = op->begin(); in != op->end(); ++in)
                for (auto pr = in->begin(); pr != in->end(); ++pr) {
                    const auto& mine = now["cache"][op.key()][in.key()][pr.key()];
                    ASSERT_EQ(mine.size(), pr->size());
                    for (auto c = pr->begin(); c != pr->end(); ++c) {
                        double was = c->get<double>(), is = mine[c.key()].get<double>();
                        if (std::isinf(was)) {
                            EXPECT_TRUE(std::isinf(is));
                            ++infinite;
                        } else if (was != is) {
                            ++changed;
                        }
                    }
                }
        int expected = 0;
        for (const auto& ag : a.ops) expected += ag.write_ms[r].has_value();
        EXPECT_EQ(changed, expected) << "rank" << r;
        EXPECT_EQ(infinite, r == 2 ? 10 : 9);
        EXPECT_EQ((*written)[r].ops, expected);
    }
}

TEST(RankAgreement, MajorityTakesWhatMostRanksPicked) {
    auto l = load({fixture_dir() / "ranks" / "rank0", fixture_dir() / "ranks" / "rank1",
                   fixture_dir() / "ranks" / "rank2", fixture_dir() / "ranks" / "rank3"});
    auto a = agree(l.group(), AgreeRule::majority, "g");
    // mm 1024x384 @ 384x1536: cuBLAS won on ranks 0, 2 and 3, a Triton template on rank 1.
    auto mm = std::find_if(a.ops.begin(), a.ops.end(), [](const AgreedOp& o) {
        return o.op == "mm" && o.inputs == "1024x384 bfloat16, 384x1536 bfloat16";
    });
    ASSERT_NE(mm, a.ops.end());
    EXPECT_EQ(mm->label, "mm");
    EXPECT_EQ(mm->votes, 3);
    EXPECT_TRUE(mm->ranks_differed);
    EXPECT_TRUE(mm->write_ms[0] == std::nullopt);  // rank0 already runs it
    EXPECT_TRUE(mm->write_ms[1].has_value());
    EXPECT_EQ(agree_rule_name(a.rule), std::string("majority"));
    EXPECT_FALSE(parse_agree_rule("fastest").ok());
}

TEST(RankAgreement, MedianIsTheSmallestMedianOfEveryRanksTimes) {
    auto l = load({fixture_dir() / "ranks" / "rank0", fixture_dir() / "ranks" / "rank1",
                   fixture_dir() / "ranks" / "rank2", fixture_dir() / "ranks" / "rank3"});
    auto a = agree(l.group(), AgreeRule::median, "g");
    for (const auto& ag : a.ops) {
        std::vector<double> ms = ag.ms;
        std::sort(ms.begin(), ms.end());
        EXPECT_DOUBLE_EQ(ag.median_ms, (ms[1] + ms[2]) / 2) << ag.op;
        // No choice every rank measured has a smaller median.
        const RankOp* first = nullptr;
        for (const auto& o : l.ranks[0].ops)
            if (o.op == ag.op && o.inputs_key == ag.inputs_key) first = &o;
        ASSERT_NE(first, nullptr);
        for (const auto& c : first->choices) {
            if (!c.config_known || !c.ms) continue;
            std::vector<double> t;
            for (const auto& rank : l.ranks)
                for (const auto& o : rank.ops)
                    if (o.op == ag.op && o.inputs_key == ag.inputs_key)
                        for (const auto& x : o.choices)
                            if (x.identity == c.identity && x.ms) t.push_back(*x.ms);
            if (t.size() != 4) continue;
            std::sort(t.begin(), t.end());
            EXPECT_GE((t[1] + t[2]) / 2, ag.median_ms) << ag.op << " " << c.identity;
        }
    }
}

TEST(RankAgreement, ALookupTablePinsEveryAgreedOp) {
    auto l = load({fixture_dir() / "ranks" / "rank0", fixture_dir() / "ranks" / "rank1",
                   fixture_dir() / "ranks" / "rank2", fixture_dir() / "ranks" / "rank3"});
    auto a = agree(l.group(), AgreeRule::median, "g");
    auto table = agreed_lookup_table(l.group(), a);
    EXPECT_EQ(table.pinned.size(), 16u);
    for (const auto& p : table.pinned) {
        EXPECT_EQ(p.key.rfind("NVIDIA H100 80GB HBM3+", 0), 0u) << p.key;
        EXPECT_TRUE(p.config.contains("template_id"));
    }
}

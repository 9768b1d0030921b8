// Whole roots judged against real targets.
#include <gtest/gtest.h>

#include "inductor/scanner.hpp"
#include "opened_dir.hpp"
#include "portability/portable.hpp"
#include "portability/sources.hpp"
#include "test_support.hpp"

namespace {

using namespace kiln::portability;
namespace fs = std::filesystem;

Fingerprint load(const fs::path& p) {
    auto fp = load_fingerprint(p);
    EXPECT_TRUE(fp.ok()) << fp.error().str();
    return fp.value_or({});
}

PortableReport assess(const fs::path& root, const Fingerprint& target) {
    auto r = assess_root(kiln::test::open_dir(root), target);
    EXPECT_TRUE(r.ok()) << r.error().str();
    return r.value_or({});
}

const KindCounts& counts(const PortableReport& r, ItemKind k) { return r.summary.counts[static_cast<std::size_t>(k)]; }

TEST(Portable, H100CacheOnItsOwnMachineHitsEverywhere) {
    // The probe's values (torch_key, backend hash, device properties) decide .best_config too.
    PortableReport r =
        assess(kiln::test::h100_root(), load(kiln::test::source_dir() / "tests/data/probe-h100-from-trace.json"));
    EXPECT_TRUE(r.skipped.empty());
    for (auto k : {ItemKind::fx_graph, ItemKind::aot_autograd, ItemKind::timing_cache, ItemKind::best_config,
                   ItemKind::triton_kernel}) {
        const KindCounts& c = counts(r, k);
        EXPECT_GT(c.total, 0u) << item_kind_name(k);
        EXPECT_EQ(c.hit, c.total) << item_kind_name(k);
    }
    EXPECT_EQ(counts(r, ItemKind::fx_graph).total, 13u);
    EXPECT_EQ(counts(r, ItemKind::aot_autograd).total, 12u);
    EXPECT_EQ(counts(r, ItemKind::best_config).total, 5u);  // each named by torch_key 36e6df12… for its own module
    EXPECT_EQ(counts(r, ItemKind::triton_kernel).total, 114u);
    ASSERT_EQ(r.summary.hazards.size(), 1u);
    EXPECT_EQ(r.summary.hazards[0].component, "inductor_config[cpp.cxx]");
    EXPECT_EQ(r.summary.hazards[0].items, 25u);
}

TEST(Portable, AKeptScanGivesTheStreamingReport) {
    // The GUI assesses the window's scan (assess_scan); the CLI streams its own walk (assess_root).
    const Fingerprint target = load(kiln::test::fixture_dir() / "h100h200/h200/trace/warm");
    for (const fs::path& root : {kiln::test::h100_root(), kiln::test::pgo_root()}) {
        auto scan = kiln::inductor::scan_cache(root);
        ASSERT_TRUE(scan.ok()) << scan.error().str();
        auto kept = assess_scan(*scan, target);
        ASSERT_TRUE(kept.ok()) << kept.error().str();
        EXPECT_EQ(report_to_json(*kept).dump(), report_to_json(assess(root, target)).dump()) << root;
    }
}

TEST(Portable, TheSummaryAloneOfAKeptScanIsTheFullReportsSummary) {
    // The GUI's Overview folds the items a chunk at a time (summarize_scan); `kiln-cli portable` keeps them.
    const std::vector<Fingerprint> targets = {
        load(kiln::test::source_dir() / "tests/data/probe-h100-from-trace.json"),  // hits everywhere
        load(kiln::test::fixture_dir() / "h100h200/h200/trace/warm"),              // misses, unknown .best_config
        local_fingerprint(),                                                       // unknowns
    };
    for (const fs::path& root : {kiln::test::h100_root(), kiln::test::pgo_root(), kiln::test::h100_h200_root(),
                                 kiln::test::two_entries_root()}) {
        auto scan = kiln::inductor::scan_cache(root);
        ASSERT_TRUE(scan.ok()) << scan.error().str();
        for (const Fingerprint& target : targets) {
            PortableReport full = assess(root, target);
            auto alone = summarize_scan(*scan, target);
            ASSERT_TRUE(alone.ok()) << alone.error().str();
            EXPECT_FALSE(alone->lines.empty());
            PortableReport folded = full;
            folded.summary = *alone;
            EXPECT_EQ(report_to_json(folded)["summary"].dump(), report_to_json(full)["summary"].dump())
                << root << " on " << target.label();
        }
    }
}

TEST(Portable, H100CacheOnTheH200) {
    PortableReport r = assess(kiln::test::h100_root(), load(kiln::test::fixture_dir() / "h100h200/h200/trace/warm"));
    EXPECT_EQ(counts(r, ItemKind::fx_graph).miss, 13u);
    EXPECT_EQ(counts(r, ItemKind::aot_autograd).miss, 12u);
    EXPECT_EQ(counts(r, ItemKind::timing_cache).miss, 1u);
    // sm 90 and Triton 3.6.0 on both; the launcher module's Python ABI (cpython-312) too.
    EXPECT_EQ(counts(r, ItemKind::triton_kernel).hit, 114u);
    EXPECT_EQ(counts(r, ItemKind::best_config).unknown, 5u);  // a trace shows torch_key's hash, not its bytes
    ASSERT_EQ(r.summary.differing.size(), 2u);
    EXPECT_EQ(r.summary.differing[0].component, "system_info[device]");
    EXPECT_EQ(r.summary.differing[0].items, 25u);
    EXPECT_NE(r.summary.lines[0].find("none of the 25 graph entries would hit"), std::string::npos)
        << r.summary.lines[0];
    EXPECT_NE(r.summary.lines[1].find("0 of 13 would hit on NVIDIA H200"), std::string::npos) << r.summary.lines[1];
    EXPECT_NE(r.summary.lines[3].find("autotune results for NVIDIA H100 80GB HBM3 do not apply"), std::string::npos);
}

TEST(Portable, DriverOnlyTargetIsUnknownNotHit) {
    Fingerprint local = local_fingerprint();  // no GPU, no torch here
    PortableReport r = assess(kiln::test::h100_root(), local);
    // cpp.cxx from this environment is (None, 'g++') unless $CXX says /opt/gcc/bin/g++: a known miss
    // then; either way no graph entry is called a hit without torch_version and the system.
    EXPECT_EQ(counts(r, ItemKind::fx_graph).hit, 0u);
    EXPECT_EQ(counts(r, ItemKind::triton_kernel).hit, 0u);
    EXPECT_EQ(counts(r, ItemKind::triton_kernel).unknown, 114u);
}

TEST(Portable, JsonShape) {
    PortableReport r =
        assess(kiln::test::two_entries_root(), load(kiln::test::fixture_dir() / "h100h200/h200/trace/warm"));
    auto j = report_to_json(r);
    ASSERT_TRUE(j["entries"].is_array());
    const auto& e = j["entries"][0];
    EXPECT_EQ(e["kind"], "fxgraph");
    EXPECT_EQ(e["verdict"], "miss");
    EXPECT_EQ(e["differs"][0]["component"], "system_info[device]");
    EXPECT_EQ(e["differs"][0]["cached"], "{'name': 'NVIDIA H100 80GB HBM3'}");
    EXPECT_EQ(e["differs"][0]["target"], "{'name': 'NVIDIA H200'}");
    EXPECT_TRUE(e["unknown"].is_array());
    EXPECT_EQ(j["summary"]["counts"]["fxgraph"]["total"], 2);
    EXPECT_EQ(j["target"]["kiln_fingerprint"], 1);
}

TEST(Portable, PgoProfilesAreNamedAsBoundToTheJob) {
    PortableReport r = assess(kiln::test::pgo_root(), load(kiln::test::fixture_dir() / "h100h200/h100/trace/warm"));
    EXPECT_EQ(r.pgo_profiles, std::vector<std::string>{"dynamo/code_state_kiln-dev-job_None_.pkl"});
    EXPECT_NE(r.summary.lines.back().find("PGO profile dynamo/code_state_kiln-dev-job_None_.pkl"), std::string::npos);
    EXPECT_EQ(counts(r, ItemKind::fx_graph).hit, 2u);
}

TEST(Portable, UnreadableEntryIsSkippedNotFatal) {
    kiln::test::ScratchDir dir("portable-broken");
    fs::copy(kiln::test::two_entries_root(), dir.path() / "root", fs::copy_options::recursive);
    fs::path key = dir.path() / "root/fxgraph/sb";
    fs::path entry = fs::directory_iterator(fs::directory_iterator(key)->path())->path();
    fs::resize_file(entry, 100);
    PortableReport r = assess(dir.path() / "root", load(kiln::test::fixture_dir() / "h100h200/h200/trace/warm"));
    ASSERT_EQ(r.skipped.size(), 1u);
    EXPECT_NE(r.skipped[0].find("fxgraph/sb/"), std::string::npos) << r.skipped[0];
    EXPECT_EQ(counts(r, ItemKind::fx_graph).total, 1u);
}

}  // namespace

// The Overview's value on the real fixtures: the same numbers as the functions each CLI command
// prints (stats, compile times, timings, portable, evict), and a clear error for a missing root.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "health/check.hpp"
#include "inductor/evict.hpp"
#include "inductor/evict_needs.hpp"
#include "inductor/graph_entry.hpp"
#include "inductor/graph_list.hpp"
#include "inductor/scanner.hpp"
#include "opened_dir.hpp"
#include "overview/overview.hpp"
#include "portability/sources.hpp"
#include "test_support.hpp"
#include "timings/choice_name.hpp"
#include "timings/collect.hpp"
#include "trace/compile_timeline.hpp"
#include "trace/graph_names.hpp"

namespace {

using namespace kiln;

TEST(Overview, H100CacheAtAGlance) {
    const auto root = test::h100_root();
    portability::Fingerprint h200;
    {
        auto fp = portability::load_fingerprint(test::fixture_dir() / "h100h200" / "h200" / "trace" / "warm");
        ASSERT_TRUE(fp.ok()) << fp.error().str();
        h200 = *fp;
    }
    overview::OverviewOptions opt;
    opt.target = h200;
    auto o = overview::compute_overview(test::open_dir(root), opt);
    ASSERT_TRUE(o.ok()) << o.error().str();

    auto scan = inductor::scan_cache(root);
    ASSERT_TRUE(scan.ok());
    const auto stats = inductor::compute_stats(*scan);
    EXPECT_EQ(o->stats.total_files, stats.total_files);
    EXPECT_EQ(o->stats.total_bytes, stats.total_bytes);
    EXPECT_EQ(o->entries.size(), stats[inductor::Category::fxgraph].files);
    EXPECT_EQ(o->aot_entries, stats[inductor::Category::aotautograd].files);

    // Slowest first; every entry named by the frame that compiled it (the trace beside the root).
    for (std::size_t i = 1; i < o->entries.size(); ++i)
        EXPECT_GE(o->entries[i - 1].compile_ns.value_or(-1), o->entries[i].compile_ns.value_or(-1));
    ASSERT_EQ(o->trace_dirs.size(), 1u);
    auto timeline = trace::read_compile_timeline(o->trace_dirs[0]);
    ASSERT_TRUE(timeline.ok());
    const auto frames = trace::frames_by_key(*timeline);
    for (const auto& e : o->entries) {
        ASSERT_TRUE(frames.count(e.key)) << e.key;
        EXPECT_EQ(e.name, frames.at(e.key).label());
    }
    const auto slow = overview::slowest_compiles(*o, 3);
    ASSERT_EQ(slow.size(), 3u);
    EXPECT_EQ(slow[0].key, o->entries[0].key);
    EXPECT_EQ(slow[0].name.rfind("c (", 0), 0u) << slow[0].name;  // the CPU graph: 47.7 s

    // Autotuned ops: those of `timings` with two or more choices, winners as it picks them.
    auto set = timings::collect_timings({root});
    ASSERT_TRUE(set.ok());
    std::size_t autotuned = 0;
    for (const auto& op : set->ops) autotuned += op.choices.size() >= 2;
    EXPECT_EQ(o->ops.size(), autotuned);
    EXPECT_GT(autotuned, 0u);
    for (const auto& op : o->ops) {
        EXPECT_FALSE(op.winner.empty());
        ASSERT_TRUE(op.best_ms && op.runner_up_ms);
        EXPECT_LE(*op.best_ms, *op.runner_up_ms);
    }
    EXPECT_EQ(o->timing_sources, set->sources.size());

    // Portability against the H200: none of the graph entries would hit there.
    EXPECT_EQ(o->portability.graph_entries, 25u);
    EXPECT_EQ(o->portability.hit, 0u);
    EXPECT_EQ(o->portability.miss, 25u);
    EXPECT_NE(o->portability.answer.find("NVIDIA H200"), std::string::npos) << o->portability.answer;

    // Eviction at the default limit, a dry run like `evict --older-than 30d`.
    EXPECT_EQ(o->evict.limit, "--older-than 30d");
    inductor::EvictPolicy p;
    p.dry_run = true;  // never touch the fixture
    p.older_than_ns = *inductor::parse_age_ns("30d");
    auto ev = inductor::evict_cache(kiln::test::open_dir(root), p);
    ASSERT_TRUE(ev.ok());
    EXPECT_EQ(o->evict.freed_bytes, ev->freed_bytes);
    EXPECT_EQ(o->evict.groups, ev->removed.size());
    EXPECT_TRUE(o->evict.error.empty()) << o->evict.error;
}

TEST(Overview, HealthCountsWhatCheckFinds) {
    // A healthy cache has none; a truncated graph entry is at least one, and the Overview says what check says.
    auto healthy = overview::compute_overview(test::open_dir(test::h100_root()));
    ASSERT_TRUE(healthy.ok()) << healthy.error().str();
    EXPECT_EQ(healthy->health.problems, 0u);
    EXPECT_TRUE(healthy->health.error.empty()) << healthy->health.error;

    test::ScratchDir dir("overview-health");
    const std::filesystem::path root = dir.path() / "inductor";
    std::filesystem::copy(test::h100_root(), root, std::filesystem::copy_options::recursive);
    std::filesystem::path entry;
    for (const auto& e : std::filesystem::recursive_directory_iterator(root / "fxgraph"))
        if (e.is_regular_file()) entry = e.path();
    ASSERT_FALSE(entry.empty());
    std::filesystem::resize_file(entry, std::filesystem::file_size(entry) / 2);
    auto broken = overview::compute_overview(test::open_dir(root));
    ASSERT_TRUE(broken.ok()) << broken.error().str();
    EXPECT_GE(broken->health.problems, 1u);
    auto counted = health::count_problems(kiln::test::open_dir(root));
    ASSERT_TRUE(counted.ok());
    EXPECT_EQ(broken->health.problems, *counted);
}

// The GUI's evict section takes what its one read of the graph entries saw (EntryNeeds): the same
// glance as the dry run reading the entries itself.
TEST(Overview, EvictFromTheSharedReadOfEntriesEqualsItsOwn) {
    auto scan = inductor::scan_cache(test::open_dir(test::h100_root()));
    ASSERT_TRUE(scan.ok()) << scan.error().str();
    inductor::EntryNeeds needs;
    const Status read = inductor::for_each_graph_batch(
        *scan, 512, [](std::vector<inductor::GraphRow>&) {}, nullptr,
        [&](std::size_t, const inductor::GraphRow& row, const inductor::GraphEntry& e) { needs.add(row.path, e); });
    ASSERT_TRUE(read.ok()) << read.error().str();
    ASSERT_EQ(needs.size(), 25u);
    const auto own = overview::evict_section(*scan);
    const auto shared = overview::evict_section(*scan, &needs);
    EXPECT_TRUE(own.error.empty()) << own.error;
    EXPECT_EQ(shared.error, own.error);
    EXPECT_EQ(shared.groups, own.groups);
    EXPECT_EQ(shared.freed_bytes, own.freed_bytes);
    EXPECT_EQ(shared.bytes_before, own.bytes_before);
}

// The GUI's path: every section from the browser's one scan gives what compute_overview(root) (its own
// walks: stats, compile times, evict's, check's, portable's) gives.
TEST(Overview, FromOneScanEqualsFromTheRoot) {
    test::ScratchDir dir("overview-scan");
    const std::filesystem::path root = dir.path() / "inductor";
    std::filesystem::copy(test::h100_root(), root, std::filesystem::copy_options::recursive);
    std::filesystem::copy(test::h100_root().parent_path() / "trace", dir.path() / "trace",
                          std::filesystem::copy_options::recursive);
    std::filesystem::path entry;  // one broken entry: the errors come the same way too
    for (const auto& e : std::filesystem::recursive_directory_iterator(root / "fxgraph"))
        if (e.is_regular_file()) entry = e.path();
    std::filesystem::resize_file(entry, std::filesystem::file_size(entry) / 2);
    auto fromRoot = overview::compute_overview(test::open_dir(root));
    ASSERT_TRUE(fromRoot.ok()) << fromRoot.error().str();
    auto scan = inductor::scan_cache(root);
    ASSERT_TRUE(scan.ok());
    auto fromScan = overview::compute_overview(*scan);
    ASSERT_TRUE(fromScan.ok()) << fromScan.error().str();
    const auto& a = *fromRoot;
    const auto& b = *fromScan;
    EXPECT_EQ(a.stats.total_files, b.stats.total_files);
    EXPECT_EQ(a.stats.total_bytes, b.stats.total_bytes);
    ASSERT_EQ(a.entries.size(), b.entries.size());
    for (std::size_t i = 0; i < a.entries.size(); ++i) {
        EXPECT_EQ(a.entries[i].path, b.entries[i].path);
        EXPECT_EQ(a.entries[i].name, b.entries[i].name);
        EXPECT_EQ(a.entries[i].compile_ns, b.entries[i].compile_ns);
    }
    EXPECT_EQ(a.aot_entries, b.aot_entries);
    EXPECT_EQ(a.entry_errors, b.entry_errors);
    EXPECT_EQ(a.entry_errors.size(), 1u);
    EXPECT_EQ(a.ops.size(), b.ops.size());
    EXPECT_EQ(a.evict.groups, b.evict.groups);
    EXPECT_EQ(a.evict.freed_bytes, b.evict.freed_bytes);
    EXPECT_EQ(a.evict.bytes_before, b.evict.bytes_before);
    EXPECT_EQ(a.portability.answer, b.portability.answer);
    EXPECT_EQ(a.portability.lines, b.portability.lines);
    EXPECT_EQ(a.portability.hit, b.portability.hit);
    EXPECT_EQ(a.portability.miss, b.portability.miss);
    EXPECT_EQ(a.health.problems, b.health.problems);
    EXPECT_GE(b.health.problems, 1u);
    EXPECT_EQ(a.trace_dirs, b.trace_dirs);

    // The entries section from ls's rows (what the GUI reads once for the Overview and the browser's
    // names) is the one from compile times.
    auto list = trace::list_named_graphs(*scan, std::nullopt);
    ASSERT_TRUE(list.ok()) << list.error().str();
    const auto viaList = overview::entries_section(*scan, *list);
    const auto viaTimes = overview::entries_section(*scan);
    ASSERT_EQ(viaList.entries.size(), viaTimes.entries.size());
    for (std::size_t i = 0; i < viaList.entries.size(); ++i) {
        EXPECT_EQ(viaList.entries[i].path, viaTimes.entries[i].path);
        EXPECT_EQ(viaList.entries[i].compile_ns, viaTimes.entries[i].compile_ns);
    }
    EXPECT_EQ(viaList.entry_errors, viaTimes.entry_errors);

    // The GUI's way since issue 33: the same rows a few at a time, none kept: the same section.
    overview::EntriesFromRows gathered;
    std::size_t rows = 0;
    auto read = trace::for_each_named_graph_batch(
        *scan, std::nullopt, 4,
        [&](std::vector<inductor::GraphRow>& batch) {
            for (const auto& r : batch) gathered.add(r), ++rows;
        },
        nullptr);
    ASSERT_TRUE(read.ok()) << read.error().str();
    EXPECT_EQ(rows, list->rows.size());
    const auto viaBatches = gathered.finish(*scan);
    ASSERT_EQ(viaBatches.entries.size(), viaList.entries.size());
    for (std::size_t i = 0; i < viaList.entries.size(); ++i) {
        EXPECT_EQ(viaBatches.entries[i].path, viaList.entries[i].path);
        EXPECT_EQ(viaBatches.entries[i].key, viaList.entries[i].key);
        EXPECT_EQ(viaBatches.entries[i].name, viaList.entries[i].name);
        EXPECT_EQ(viaBatches.entries[i].compile_ns, viaList.entries[i].compile_ns);
    }
    EXPECT_EQ(viaBatches.aot_entries, viaList.aot_entries);
    EXPECT_EQ(viaBatches.entry_errors, viaList.entry_errors);
    EXPECT_EQ(viaBatches.entry_errors.size(), 1u);
    EXPECT_EQ(viaBatches.entries.size(), a.entries.size());  // what compute_overview shows, row for row
    for (std::size_t i = 0; i < a.entries.size(); ++i) {
        EXPECT_EQ(viaBatches.entries[i].path, a.entries[i].path);
        EXPECT_EQ(viaBatches.entries[i].compile_ns, a.entries[i].compile_ns);
    }
}

// Issue 33: the GUI gives the Overview its one read of the root's timings (the Autotune view's set):
// the rows are those of the Overview's own read, and each op_index names that set's op.
TEST(Overview, OpsFromTheSharedSetEqualFromTheRoot) {
    const auto fromRoot = overview::ops_section(test::open_dir(test::h100_root()));
    auto set = timings::collect_timings({test::h100_root()});
    ASSERT_TRUE(set.ok()) << set.error().str();
    const auto fromSet = overview::ops_section(*set);
    ASSERT_FALSE(fromRoot.ops.empty());
    ASSERT_EQ(fromRoot.ops.size(), fromSet.ops.size());
    EXPECT_EQ(fromRoot.timing_sources, fromSet.timing_sources);
    EXPECT_EQ(fromRoot.kernel_configs, fromSet.kernel_configs);
    int triton_winners = 0;
    for (std::size_t i = 0; i < fromSet.ops.size(); ++i) {
        const auto& a = fromRoot.ops[i];
        const auto& b = fromSet.ops[i];
        EXPECT_EQ(a.op, b.op);
        EXPECT_EQ(a.inputs, b.inputs);
        EXPECT_EQ(a.winner, b.winner);
        EXPECT_EQ(a.best_ms, b.best_ms);
        EXPECT_EQ(a.runner_up_ms, b.runner_up_ms);
        EXPECT_EQ(a.op_index, b.op_index);
        ASSERT_LT(b.op_index, set->ops.size());
        EXPECT_EQ(set->ops[b.op_index].best, b.winner);
        EXPECT_EQ(set->ops[b.op_index].choices.size(), b.choices);
        // Shown by the name every other view gives that choice (one name per choice), not its cache key.
        const auto& choices = set->ops[b.op_index].choices;
        auto w = std::find_if(choices.begin(), choices.end(), [&](const auto& c) { return c.name == b.winner; });
        ASSERT_NE(w, choices.end());
        EXPECT_EQ(b.winner_name, timings::choice_display_name(*w));
        if (b.winner.rfind("triton_mm-", 0) == 0) {
            ++triton_winners;
            EXPECT_NE(b.winner_name.find("BLOCK"), std::string::npos) << b.winner_name;
            EXPECT_EQ(b.winner_name.find(b.winner), std::string::npos) << b.winner_name;
        }
    }
    EXPECT_GT(triton_winners, 0);  // the H100 fixture has a Triton winner
}

// The root is opened by frontend::open_cache (which says "no cache here"); one it could not open is refused.
TEST(Overview, ARootNotOpenedIsRefused) {
    auto o = overview::compute_overview(test::open_dir("/nonexistent/kiln-overview"));
    ASSERT_FALSE(o.ok());
    EXPECT_EQ(o.error().code, Errc::invalid_argument);
}

}  // namespace

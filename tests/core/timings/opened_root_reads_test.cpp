// Timings read through an opened root's descriptor (issue 44) are what the same root read by its path
// gives: the same sources, ops and joined kernel modules (the JSON `kiln-cli timings` prints), and the
// same kernels joined to each graph entry (`show --kernels`, "used by graph").
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>

#include "inductor/graph_entry.hpp"
#include "inductor/graph_list.hpp"
#include "inductor/scanner.hpp"
#include "opened_dir.hpp"
#include "test_support.hpp"
#include "timings/collect.hpp"
#include "timings/graph_kernels.hpp"

namespace {

namespace fs = std::filesystem;
using namespace kiln::timings;

// A root, a root without graph entries, and a root's cache/ named alone (its modules are the root's).
const fs::path kRoots[] = {kiln::test::h100_root(), kiln::test::fixture_dir() / "model" / "inductor",
                           kiln::test::h100_root() / "cache"};

TEST(TimingsBeneathARoot, CollectsWhatTheRootReadByItsPathGives) {
    for (const auto& root : kRoots) {
        SCOPED_TRACE(root.string());
        auto by_path = collect_timings({root});
        ASSERT_TRUE(by_path.ok()) << by_path.error().str();
        const auto opened = kiln::test::open_dir(root);
        auto beneath = collect_timings_from({kiln::inductor::OpenedRoot(opened)});
        ASSERT_TRUE(beneath.ok()) << beneath.error().str();
        ASSERT_FALSE(by_path->ops.empty());
        EXPECT_EQ(to_json(*beneath).dump(), to_json(*by_path).dump());
        EXPECT_EQ(beneath->warnings, by_path->warnings);
    }
}

// The GUI finds the root's timing files among its scan's files instead of walking the root again.
TEST(TimingsBeneathARoot, FromAKeptScanCollectsWhatTheWalkGives) {
    kiln::test::ScratchDir dir{"timings-from-scan"};
    const fs::path copy = dir.path() / "inductor";
    fs::copy(kiln::test::h100_root(), copy, fs::copy_options::recursive);
    // Timing files where the walk reads them (a folder of its own) and where it does not (fxgraph/, a
    // trace/ below the top): the scan's files must be taken the same way.
    std::string log;
    for (const auto& e : fs::directory_iterator(kiln::test::fixture_dir() / "h100"))  // its mm log
        if (e.is_regular_file() && e.path().extension() == ".json" &&
            classify_timing_file(e.path()) == SourceKind::mm_log) {
            log = e.path().string();
            break;
        }
    ASSERT_FALSE(log.empty()) << "no mm log among the fixtures";
    for (const fs::path& at : {copy / "logs" / "run1", copy / "fxgraph" / "logs", copy / "logs" / "trace"}) {
        fs::create_directories(at);
        fs::copy_file(log, at / "mm_log.json");
    }
    for (const auto& root : {kRoots[0], kRoots[1], copy}) {
        SCOPED_TRACE(root.string());
        const auto opened = kiln::test::open_dir(root);
        auto walked = collect_timings_from({kiln::inductor::OpenedRoot(opened)});
        ASSERT_TRUE(walked.ok()) << walked.error().str();
        auto scan = kiln::inductor::scan_cache(kiln::inductor::OpenedRoot(opened));
        ASSERT_TRUE(scan.ok()) << scan.error().str();
        auto from_scan = collect_timings_from(*scan);
        ASSERT_TRUE(from_scan.ok()) << from_scan.error().str();
        ASSERT_FALSE(walked->ops.empty());
        EXPECT_EQ(to_json(*from_scan).dump(), to_json(*walked).dump());
        EXPECT_EQ(from_scan->warnings, walked->warnings);
        if (root == copy) {
            std::size_t logs = 0;
            for (const auto& s : from_scan->sources) logs += s.kind == SourceKind::mm_log;
            EXPECT_EQ(logs, 1u);  // logs/run1's only
        }
    }
    auto scan = kiln::inductor::scan_cache(kRoots[0]);
    ASSERT_TRUE(scan.ok());
    std::atomic<bool> cancel{true};
    auto cancelled = collect_timings_from(*scan, &cancel);
    ASSERT_FALSE(cancelled.ok());
    EXPECT_EQ(cancelled.error().code, kiln::Errc::cancelled);
}

TEST(TimingsBeneathARoot, JoinsTheKernelsTheRootReadByItsPathJoins) {
    for (const fs::path& fixture : {kiln::test::h100_root(), kiln::test::fixture_dir() / "h100h200" / "inductor"}) {
        SCOPED_TRACE(fixture.string());
        // A copy: both reads see the same files whatever other tests do to the fixtures meanwhile.
        kiln::test::ScratchDir dir{"timings-beneath"};
        const fs::path root = dir.path() / "inductor";
        fs::copy(fixture, root, fs::copy_options::recursive);
        const auto opened = kiln::test::open_dir(root);
        auto set = collect_timings({root});
        ASSERT_TRUE(set.ok()) << set.error().str();
        auto list = kiln::inductor::list_graphs(opened);
        ASSERT_TRUE(list.ok()) << list.error().str();
        std::size_t joined = 0;
        for (const auto& row : list->rows) {
            if (row.kind != "fxgraph") continue;
            auto entry = kiln::inductor::load_graph_entry(root / row.path);
            ASSERT_TRUE(entry.ok()) << entry.error().str();
            auto a = graph_kernels(root, *entry, &*set);
            auto b = graph_kernels(kiln::inductor::OpenedRoot(opened), *entry, &*set);
            ASSERT_EQ(a.ok(), b.ok()) << row.path;
            if (!a.ok()) continue;
            EXPECT_EQ(a->output_module, b->output_module);
            ASSERT_EQ(a->kernels.size(), b->kernels.size());
            for (std::size_t i = 0; i < a->kernels.size(); ++i) {
                const auto &x = a->kernels[i], &y = b->kernels[i];
                EXPECT_EQ(x.module_path, y.module_path);
                EXPECT_EQ(x.params, y.params);
                EXPECT_EQ(x.best_config_path, y.best_config_path);
                EXPECT_EQ(x.best_config, y.best_config);
                EXPECT_EQ(x.note, y.note);
                EXPECT_EQ(x.fused_ops, y.fused_ops);
                ASSERT_EQ(x.autotune.has_value(), y.autotune.has_value());
                if (x.autotune) {
                    EXPECT_EQ(x.autotune->choice, y.autotune->choice);
                }
                joined += !y.module_path.empty();
            }
        }
        EXPECT_GT(joined, 0u);
    }
}

}  // namespace

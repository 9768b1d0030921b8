// Timings read through an opened root's descriptor (issue 44) are what the same root read by its path
// gives: the same sources, ops and joined kernel modules (the JSON `kiln-cli timings` prints), and the
// same kernels joined to each graph entry (`show --kernels`, "used by graph").
#include <gtest/gtest.h>

#include <filesystem>

#include "inductor/graph_entry.hpp"
#include "inductor/graph_list.hpp"
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

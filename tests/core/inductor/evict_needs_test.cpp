// Eviction's units from a read of the graph entries made anyway (EntryNeeds, fed by for_each_graph_batch's
// EntryVisit as the GUI's one read feeds it): the same plan as the dry run's own read of the entries, and
// no entry read again.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "inductor/evict.hpp"
#include "inductor/evict_needs.hpp"
#include "inductor/graph_entry.hpp"
#include "inductor/graph_list.hpp"
#include "opened_dir.hpp"
#include "scanner_test_helpers.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;

namespace kiln::inductor {
namespace {

std::vector<std::string> removed_paths(const EvictReport& r) {
    std::vector<std::string> out;
    for (const auto& g : r.removed) out.push_back(g.path);
    return out;
}

// The h100 fixture with every file a month old but its AOT entries, used today: the FX graphs those
// name are as recent as they are (evict.hpp's units) and stay under --older-than 7d.
class EvictNeedsTest : public ::testing::Test {
protected:
    test::ScratchDir dir{"evict-needs"};
    fs::path root = dir.path() / "inductor";
    std::int64_t now = test::now_ns();
    EvictPolicy policy;

    void SetUp() override {
        test::copy_tree(test::h100_root(), root);
        test::set_tree_times(root, now - 30 * test::kDayNs);
        for (const auto& e : fs::directory_iterator(root / "aotautograd")) test::set_tree_times(e.path(), now);
        policy.older_than_ns = 7 * test::kDayNs;
        policy.now_ns = now;
    }
};

TEST_F(EvictNeedsTest, DryRunTakesTheSharedReadOfTheEntries) {
    auto scan = scan_cache(kiln::test::open_dir(root));
    ASSERT_TRUE(scan.ok()) << scan.error().str();
    EntryNeeds needs;
    std::size_t rows = 0;
    const Status read = for_each_graph_batch(
        *scan, 4, [&](std::vector<GraphRow>& batch) { rows += batch.size(); }, nullptr,
        [&](std::size_t, const GraphRow& row, const GraphEntry& entry) { needs.add(row.path, entry); });
    ASSERT_TRUE(read.ok()) << read.error().str();
    EXPECT_EQ(rows, 25u);
    EXPECT_EQ(needs.size(), 25u);  // every entry decodes

    auto own = evict_dry_run(*scan, policy);
    ASSERT_TRUE(own.ok()) << own.error().str();
    auto shared = evict_dry_run(*scan, policy, &needs);
    ASSERT_TRUE(shared.ok()) << shared.error().str();
    EXPECT_FALSE(own->removed.empty());
    EXPECT_EQ(removed_paths(*shared), removed_paths(*own));
    EXPECT_EQ(shared->freed_bytes, own->freed_bytes);

    // What an AOT entry needs, and an FX entry's bundled kernels, as the entries say.
    std::size_t aot_keys = 0, fx_dirs = 0;
    for (const auto& a : scan->artifacts) {
        if (a.category == Category::aotautograd)
            if (auto keys = needs.fx_keys_of_aot(a.rel_path())) aot_keys += keys->size();
        if (a.category == Category::fxgraph)
            if (auto dirs = needs.kernel_dirs_of_fx(a.rel_path())) fx_dirs += dirs->size();
    }
    EXPECT_GE(aot_keys, 12u);  // each AOT entry names its forward graph at least
    EXPECT_GT(fx_dirs, 0u);
    EXPECT_FALSE(needs.fx_keys_of_aot("aotautograd/no-such-key/entry"));

    // Every entry file emptied after the shared read: given `needs`, the plan is the entries' still
    // (none read again); the dry run's own read now finds no AOT entry's graphs and plans to remove them.
    for (const auto& a : scan->artifacts)
        if (a.category == Category::fxgraph || a.category == Category::aotautograd)
            fs::resize_file(root / std::string(a.rel_path()), 0);
    auto after = evict_dry_run(*scan, policy, &needs);
    ASSERT_TRUE(after.ok()) << after.error().str();
    EXPECT_EQ(removed_paths(*after), removed_paths(*own));
    auto reread = evict_dry_run(*scan, policy);
    ASSERT_TRUE(reread.ok()) << reread.error().str();
    EXPECT_GT(reread->removed.size(), own->removed.size());
}

// An entry the shared read did not see (it failed there, or came later) is read by the dry run itself.
TEST_F(EvictNeedsTest, EntriesNotSeenAreReadByTheDryRun) {
    auto scan = scan_cache(kiln::test::open_dir(root));
    ASSERT_TRUE(scan.ok()) << scan.error().str();
    EntryNeeds none;
    auto own = evict_dry_run(*scan, policy);
    auto given = evict_dry_run(*scan, policy, &none);
    ASSERT_TRUE(own.ok() && given.ok());
    EXPECT_EQ(removed_paths(*given), removed_paths(*own));
}

}  // namespace
}  // namespace kiln::inductor

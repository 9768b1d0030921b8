// The scanner against the real fixtures: every count must equal ../shared/fixtures/README.md.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "inductor/scanner.hpp"
#include "inductor/stats.hpp"
#include "scanner_test_helpers.hpp"
#include "test_support.hpp"

namespace kiln::inductor {
namespace {

struct Expected {
    Category c;
    std::uint64_t files, entries;
};

void expect_counts(const CacheStats& s, const std::vector<Expected>& want) {
    std::set<Category> listed;
    for (auto& w : want) {
        listed.insert(w.c);
        EXPECT_EQ(s[w.c].files, w.files) << category_name(w.c);
        EXPECT_EQ(s[w.c].entries, w.entries) << category_name(w.c);
    }
    for (std::size_t i = 0; i < kCategoryCount; ++i)
        if (!listed.count(static_cast<Category>(i))) {
            EXPECT_EQ(s.categories[i].files, 0u) << category_name(static_cast<Category>(i));
        }
}

TEST(ScannerCounts, H100FixtureMatchesReadme) {
    auto scan = scan_cache(test::h100_root());
    ASSERT_TRUE(scan.ok()) << scan.error().str();
    EXPECT_EQ(scan->kind, RootKind::inductor);
    CacheStats s = compute_stats(*scan);
    expect_counts(s, {{Category::fxgraph, 13, 13},
                      {Category::aotautograd, 12, 12},
                      {Category::output_code, 15, 15},
                      {Category::kernel_module, 74, 74},
                      {Category::best_config, 5, 5},
                      {Category::kernel_perf, 3, 3},
                      {Category::cpp_source, 13, 13},
                      {Category::cpp_library, 13, 13},
                      {Category::triton_compiled, 905, 114},
                      {Category::autotune_local_cache, 1, 1},
                      {Category::lock, 13, 13}});
    EXPECT_EQ(s.fxgraph_keys, 13u);
    EXPECT_EQ(s.total_files, 1067u);
    // The fixture README says 63,905,170 bytes, but the archive's files add up to 63,905,377
    // (`find inductor -type f -printf '%s\n'` agrees; every file count matches the README). Check
    // against an independent walk and the archive's real total.
    std::uint64_t walked = 0;
    for (auto& e : std::filesystem::recursive_directory_iterator(test::h100_root()))
        if (e.is_regular_file()) walked += e.file_size();
    EXPECT_EQ(s.total_bytes, walked);
    EXPECT_EQ(s.total_bytes, 63905377u);
    EXPECT_EQ(scan->total_bytes(), s.total_bytes);
    EXPECT_EQ(s.unreadable, 0u);
    EXPECT_EQ(scan->symlinks, 0u);
}

TEST(ScannerCounts, TwoEntriesFixtureMatchesReadme) {
    auto scan = scan_cache(test::two_entries_root());
    ASSERT_TRUE(scan.ok()) << scan.error().str();
    CacheStats s = compute_stats(*scan);
    expect_counts(s, {{Category::fxgraph, 2, 2},
                      {Category::aotautograd, 2, 2},
                      {Category::output_code, 2, 2},
                      {Category::kernel_module, 2, 2},
                      {Category::best_config, 1, 1},
                      {Category::triton_compiled, 24, 3}});
    EXPECT_EQ(s.fxgraph_keys, 1u);
    EXPECT_EQ(s.total_files, 33u);
    EXPECT_EQ(s.total_bytes, 645561u);
}

TEST(ScannerGroups, EveryArtifactBelongsToOneGroupAndBytesAddUp) {
    auto scan = scan_cache(test::h100_root());
    ASSERT_TRUE(scan.ok());
    std::vector<int> seen(scan->artifacts.size(), 0);
    std::uint64_t bytes = 0;
    for (std::size_t g = 0; g < scan->groups.size(); ++g) {
        const Group& group = scan->groups[g];
        EXPECT_EQ(group.id, g);
        bytes += group.bytes;
        for (auto i : group.artifacts) {
            ++seen[i];
            EXPECT_EQ(scan->artifacts[i].group, group.id);
            EXPECT_GE(group.last_use_ns, scan->artifacts[i].last_use_ns());
        }
    }
    for (int n : seen) EXPECT_EQ(n, 1);
    EXPECT_EQ(bytes, scan->total_bytes());

    std::map<GroupKind, int> kinds;
    for (auto& g : scan->groups) ++kinds[g.kind];
    EXPECT_EQ(kinds[GroupKind::key_dir], 13 + 12);  // fxgraph keys + aotautograd keys
    EXPECT_EQ(kinds[GroupKind::triton_kernel_dir], 114);
}

TEST(ScannerGroups, ModuleKeepsItsSidecars) {
    auto scan = scan_cache(test::h100_root());
    ASSERT_TRUE(scan.ok());
    // tv/ holds a kernel module, its .kernel_perf and the kernel's .best_config: one group. The module
    // carries Inductor's benchmark harness (`def call(`), so §2 counts it as output_code.
    const std::string key = "ctvutvc7u56qwzlil6z22qlzgmpg6lffeiw557aoz6vi4q2q26jd";
    const Group* found = nullptr;
    for (auto& g : scan->groups)
        if (g.key == key) found = &g;
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(found->kind, GroupKind::module);
    EXPECT_EQ(found->path(), scan->root + "/tv/" + key);
    std::multiset<Category> cats;
    for (auto i : found->artifacts) cats.insert(scan->artifacts[i].category);
    EXPECT_EQ(cats, (std::multiset<Category>{Category::output_code, Category::kernel_perf, Category::best_config}));
    EXPECT_EQ(found->category, Category::output_code);
    // A C++ module: source and library together, named after the lock's key.
    const std::string cpp = "c24kvwr6kusedkhok3emjdjffgmokvb7hdk5uqnmed7h576xrh5t";
    const Group* cpp_group = nullptr;
    for (auto& g : scan->groups)
        if (g.key == cpp && g.kind == GroupKind::module) cpp_group = &g;
    ASSERT_NE(cpp_group, nullptr);
    EXPECT_EQ(cpp_group->artifacts.size(), 2u);
    EXPECT_EQ(cpp_group->category, Category::cpp_source);
}

TEST(ScannerArtifacts, PathsKeysAndTimes) {
    auto scan = scan_cache(test::two_entries_root());
    ASSERT_TRUE(scan.ok());
    for (auto& a : scan->artifacts) {
        EXPECT_EQ(a.path().substr(0, scan->root.size() + 1), scan->root + "/");
        EXPECT_EQ(scan->root + "/" + std::string(a.rel_path()), a.path());
        EXPECT_EQ(a.size, std::filesystem::file_size(a.path()));
        EXPECT_GT(a.mtime_ns, 0);
        if (a.category == Category::fxgraph) {
            EXPECT_EQ(a.key().substr(0, 1), "f");
            EXPECT_NE(a.path().find("/" + std::string(a.key()) + "/"), std::string::npos);
        }
        if (a.category == Category::triton_compiled) {
            EXPECT_EQ(a.key().size(), 52u);
        }
    }
}

}  // namespace
}  // namespace kiln::inductor

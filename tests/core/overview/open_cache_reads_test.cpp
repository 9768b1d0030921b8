// What `timings` and the GUI's Overview read of a cache is the directory frontend::open_cache opened,
// through its descriptor, never its path again (issue 44; the scan, eviction and `ls` are
// tests/core/frontend's OpenCache.CommandsWorkOnTheOpenedDirectoryNotOnItsPathAgain).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "frontend/open_cache.hpp"
#include "opened_dir.hpp"
#include "overview/overview.hpp"
#include "test_support.hpp"
#include "timings/collect.hpp"
#include "timings/used_by.hpp"

namespace {

namespace fs = std::filesystem;
using kiln::frontend::open_cache;

void write(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

// The root renamed away after the open and a decoy cache put at its path (an entry, a timing cache):
// the graph entries, the timing files and the kernel modules they name are those of the opened one.
TEST(OpenCache, TimingsAndTheOverviewReadTheOpenedDirectoryNotItsPathAgain) {
    kiln::test::ScratchDir dir{"open-cache-moved-reads"};
    const fs::path root = dir.path() / "root", moved = dir.path() / "moved";
    fs::copy(kiln::test::h100_root(), root, fs::copy_options::recursive);
    auto cache = open_cache(root);
    ASSERT_TRUE(cache) << cache.error().str();
    fs::rename(root, moved);
    fs::create_directories(root / "fxgraph" / "de" / "decoykey");
    write(root / "fxgraph" / "de" / "decoykey" / "entry", "not the cache that was opened");
    fs::create_directories(root / "cache");
    write(root / "cache" / std::string(64, 'd'),
          R"({"system": {"device": {"name": "decoy"}}, "cache": {"decoy_op": {"[]": {"float32": {"x": 1.0}}}}})");
    const auto fresh = kiln::test::open_dir(moved);  // what the opened directory holds, read anew

    auto timings = kiln::timings::collect_timings_from({cache->opened()});
    ASSERT_TRUE(timings) << timings.error().str();
    auto want = kiln::timings::collect_timings_from({kiln::inductor::OpenedRoot(fresh)});
    ASSERT_TRUE(want) << want.error().str();
    ASSERT_FALSE(want->ops.empty());
    EXPECT_EQ(timings->ops.size(), want->ops.size());
    EXPECT_EQ(timings->sources.size(), want->sources.size());
    std::size_t modules = 0;
    for (const auto& op : timings->ops) {
        EXPECT_NE(op.op, "decoy_op") << "timings read the path again";
        for (const auto& c : op.choices) modules += !c.module_path->empty();
    }
    EXPECT_GT(modules, 0u) << "no kernel module joined beneath the opened directory";
    // "used by graph ...": the entries' output code and the kernel modules it launches, beneath it too.
    auto marks = kiln::timings::mark_used_by(*timings, {cache->opened()});
    ASSERT_TRUE(marks) << marks.error().str();
    auto want_marks = kiln::timings::mark_used_by(*want, {kiln::inductor::OpenedRoot(fresh)});
    ASSERT_TRUE(want_marks) << want_marks.error().str();
    EXPECT_GT(*want_marks, 0);
    EXPECT_EQ(*marks, *want_marks);

    auto overview = kiln::overview::compute_overview(cache->opened());
    ASSERT_TRUE(overview) << overview.error().str();
    auto anew = kiln::overview::compute_overview(fresh);
    ASSERT_TRUE(anew) << anew.error().str();
    ASSERT_FALSE(anew->entries.empty());
    EXPECT_EQ(overview->entries.size(), anew->entries.size());
    EXPECT_EQ(overview->aot_entries, anew->aot_entries);
    EXPECT_EQ(overview->entry_errors, anew->entry_errors);
    EXPECT_EQ(overview->ops.size(), anew->ops.size());
    EXPECT_EQ(overview->timing_sources, anew->timing_sources);
    for (const auto& e : overview->entries) EXPECT_NE(e.key, "decoykey") << "the Overview read the path again";
    for (const auto& op : overview->ops) EXPECT_NE(op.op, "decoy_op") << "the Overview read the path again";
}

}  // namespace

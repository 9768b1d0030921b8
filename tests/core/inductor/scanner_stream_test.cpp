// The streaming scan (`stats` at a million files) and the parallel .py sniff must give exactly the
// answers of the plain scan: same categories, groups and totals on every fixture.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <map>

#include "inductor/graph_list.hpp"
#include "inductor/scanner.hpp"
#include "inductor/stats.hpp"
#include "opened_dir.hpp"
#include "test_support.hpp"

namespace kiln::inductor {
namespace {

namespace fs = std::filesystem;

std::map<std::string, Category> categories_of(const ScanResult& scan) {
    std::map<std::string, Category> out;
    for (const auto& a : scan.artifacts) out[std::string(a.rel_path())] = a.category;
    return out;
}

void expect_same_stats(const CacheStats& a, const CacheStats& b) {
    EXPECT_EQ(to_json(a).dump(), to_json(b).dump());
    EXPECT_EQ(a.groups, b.groups);
    EXPECT_EQ(a.oldest_mtime_ns, b.oldest_mtime_ns);
    EXPECT_EQ(a.newest_mtime_ns, b.newest_mtime_ns);
}

TEST(ScannerStream, StatsWithoutTheFileListEqualTheFullScanOnEveryFixture) {
    // Private copies: other tests read the shared fixtures in parallel, and a read may move an atime
    // (a group's last use) between the two scans compared here.
    test::ScratchDir dir("scanner-stream-stats");
    int n = 0;
    for (const fs::path& fixture :
         {test::h100_root(), test::two_entries_root(), test::h100_h200_root(), test::pgo_root()}) {
        SCOPED_TRACE(fixture.string());
        const fs::path root = dir.path() / std::to_string(n++);
        fs::copy(fixture, root, fs::copy_options::recursive);
        auto full = scan_cache(root);
        ASSERT_TRUE(full.ok()) << full.error().str();
        auto streamed = scan_stats(kiln::test::open_dir(root));
        ASSERT_TRUE(streamed.ok()) << streamed.error().str();
        EXPECT_TRUE(streamed->scan.artifacts.empty());
        EXPECT_EQ(streamed->scan.files, full->artifacts.size());
        expect_same_stats(streamed->stats, compute_stats(*full));
        ASSERT_EQ(streamed->scan.groups.size(), full->groups.size());
        for (std::size_t i = 0; i < full->groups.size(); ++i) {
            const Group& f = full->groups[i];
            const Group& s = streamed->scan.groups[i];
            EXPECT_EQ(s.path(), f.path());
            EXPECT_EQ(s.category, f.category) << f.path();
            EXPECT_EQ(s.bytes, f.bytes) << f.path();
            EXPECT_EQ(s.files, f.artifacts.size()) << f.path();
            EXPECT_EQ(s.last_use_ns, f.last_use_ns) << f.path();
            EXPECT_TRUE(s.artifacts.empty());
        }
    }
}

TEST(ScannerStream, EveryFileIsStreamedOnceWithItsFinalCategory) {
    auto full = scan_cache(test::h100_root());
    ASSERT_TRUE(full.ok());
    std::map<std::string, Category> seen;
    ScanOptions opt;
    opt.on_artifact = [&](const Artifact& a) {
        EXPECT_TRUE(seen.emplace(std::string(a.rel_path()), a.category).second) << a.path();
        EXPECT_NE(a.group, kNoGroup) << a.path();
    };
    auto kept = scan_cache(test::h100_root(), opt);  // streaming and keeping at once
    ASSERT_TRUE(kept.ok());
    EXPECT_EQ(seen, categories_of(*full));
    EXPECT_EQ(categories_of(*kept), categories_of(*full));
}

TEST(ScannerStream, ParallelSniffEqualsOneThreadAndNoSniff) {
    ScanOptions one;
    one.sniff_threads = 1;
    ScanOptions many;
    many.sniff_threads = 8;
    auto a = scan_cache(test::h100_root(), one);
    auto b = scan_cache(test::h100_root(), many);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(categories_of(*a), categories_of(*b));
    EXPECT_EQ(compute_stats(*a)[Category::output_code].files, 15u);  // the fixture README's count
    EXPECT_EQ(compute_stats(*b)[Category::output_code].files, 15u);
    for (std::size_t i = 0; i < a->groups.size(); ++i)
        EXPECT_TRUE(std::ranges::equal(a->groups[i].artifacts, b->groups[i].artifacts));

    ScanOptions none;
    none.sniff_python = false;  // every module is then a kernel module, and nothing is read
    auto c = scan_cache(test::h100_root(), none);
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(compute_stats(*c)[Category::output_code].files, 0u);
    EXPECT_EQ(compute_stats(*c)[Category::kernel_module].files, 89u);
}

TEST(ScannerStream, ModulesThatVanishOrBecomeFifosBeforeTheSniffAreUnreadableNeverFatal) {
    // The heads are read after the walk: a module removed in between (another process evicting) or
    // swapped for a FIFO is an unreadable file named by its path; the FIFO is never waited on.
    test::ScratchDir dir("scanner-stream-vanish");
    fs::copy(test::h100_root(), dir.path() / "inductor", fs::copy_options::recursive);
    fs::path root = dir.path() / "inductor";
    std::vector<fs::path> py;
    std::uint64_t total = 0;
    for (const auto& e : fs::recursive_directory_iterator(root)) {
        if (!e.is_regular_file()) continue;
        ++total;
        if (e.path().extension() == ".py") py.push_back(e.path());
    }
    ASSERT_GE(py.size(), 2u);
    ScanOptions opt;
    opt.progress_every = 1;
    bool swapped = false;
    opt.progress = [&](const ScanProgress& p) {
        if (swapped || p.files != total) return;  // the walk has just listed the last file
        swapped = true;
        fs::remove(py[0]);
        fs::remove(py[1]);
        ASSERT_EQ(::mkfifo(py[1].c_str(), 0600), 0);
    };
    auto scan = scan_cache(root, opt);
    ASSERT_TRUE(scan.ok()) << scan.error().str();
    ASSERT_TRUE(swapped);
    EXPECT_EQ(scan->unreadable, 2u);
    ASSERT_EQ(scan->errors.size(), 2u);
    std::string errors = scan->errors[0].str() + "\n" + scan->errors[1].str();
    EXPECT_NE(errors.find(py[0].filename().string()), std::string::npos) << errors;
    EXPECT_NE(errors.find(py[1].filename().string()), std::string::npos) << errors;
}

// The GUI reads the graph entries beside the walk (ScanOptions::on_graph_dirs): the files handed over
// mid-walk are every graph entry file the whole scan has, and the scan is the same as without the hook.
TEST(ScannerStream, GraphDirsAreHandedOverBeforeTheRestWithEveryEntryFile) {
    for (const fs::path& root :
         {test::h100_root(), test::two_entries_root(), test::h100_h200_root(), test::pgo_root()}) {
        SCOPED_TRACE(root.string());
        int calls = 0;
        std::vector<std::string> handed;
        std::size_t fx_handed = 0, walked_before = 0;
        ScanOptions opt;
        opt.on_graph_dirs = [&](std::span<const Artifact> artifacts) {
            ++calls;
            const GraphEntryFiles files = graph_entry_files(artifacts);
            handed = files.rels;
            fx_handed = files.fx_count;
            walked_before = artifacts.size();
        };
        auto hooked = scan_cache(root, opt);
        auto plain = scan_cache(root);
        ASSERT_TRUE(hooked.ok() && plain.ok());
        EXPECT_EQ(calls, 1);
        const GraphEntryFiles whole = graph_entry_files(std::span<const Artifact>(hooked->artifacts));
        ASSERT_FALSE(whole.rels.empty());
        EXPECT_EQ(handed, whole.rels);
        EXPECT_EQ(fx_handed, whole.fx_count);
        EXPECT_EQ(walked_before, whole.rels.size());  // nothing else was walked before them
        EXPECT_EQ(graph_entry_files(std::span<const Artifact>(plain->artifacts)).rels, whole.rels);
        EXPECT_EQ(categories_of(*hooked), categories_of(*plain));
        ASSERT_EQ(hooked->groups.size(), plain->groups.size());
        expect_same_stats(compute_stats(*hooked), compute_stats(*plain));
    }
    // A Triton cache has no graph dirs to hand over.
    ScanOptions triton;
    triton.kind = RootKind::triton;
    int calls = 0;
    triton.on_graph_dirs = [&](std::span<const Artifact>) { ++calls; };
    ASSERT_TRUE(scan_cache(test::h100_root(), triton).ok());
    EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace kiln::inductor

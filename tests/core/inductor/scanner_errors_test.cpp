// Bad inputs: missing roots, unreadable parts, symlinks, cancellation. None may crash the scan.
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>

#include "inductor/scanner.hpp"
#include "scanner_test_helpers.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;

namespace kiln::inductor {
namespace {

TEST(ScannerErrors, MissingRootIsAnErrorWithThePath) {
    auto r = scan_cache("/nonexistent/torchinductor_nobody");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, Errc::not_found);
    EXPECT_NE(r.error().str().find("/nonexistent/torchinductor_nobody"), std::string::npos);
}

TEST(ScannerErrors, UnreadableDirectoryAndModuleAreCountedNotFatal) {
    test::ScratchDir dir("scan-unreadable");
    fs::path root = dir.path() / "cache";
    test::copy_tree(test::two_entries_root(), root);
    fs::create_directories(root / "fxgraph" / "zz" / "fzzlocked");
    std::ofstream(root / "fxgraph" / "zz" / "fzzlocked" / "entry") << "x";
    fs::permissions(root / "fxgraph" / "zz" / "fzzlocked", fs::perms::none);
    fs::path py;
    for (auto& e : fs::recursive_directory_iterator(root))
        if (e.path().extension() == ".py") py = e.path();
    ASSERT_FALSE(py.empty());
    fs::permissions(py, fs::perms::none);
    // As root the permission bits would not apply: the scan runs as `nobody` then.
    int unreadable = test::run_unprivileged([&] {
        auto r = scan_cache(root);
        if (!r.ok()) return 200;
        if (r->artifacts.size() != 33) return 201;  // the unreadable .py still counts (stat works)
        return static_cast<int>(r->unreadable);
    });
    EXPECT_EQ(unreadable, 2);  // the directory and the module's head
}

TEST(ScannerErrors, SymlinksAreNeverFollowed) {
    test::ScratchDir dir("scan-symlinks");
    fs::path root = dir.path() / "cache";
    fs::path outside = dir.path() / "outside";
    test::copy_tree(test::two_entries_root(), root);
    fs::create_directories(outside / "deep");
    std::ofstream(outside / "deep" / "big") << std::string(10000, 'x');
    fs::create_directory_symlink(outside, root / "fxgraph" / "outside_dir");
    fs::create_symlink(outside / "deep" / "big", root / "aotautograd" / "link_to_big");
    fs::create_directory_symlink(root, root / "loop");  // would loop if followed
    auto r = scan_cache(root);
    ASSERT_TRUE(r.ok()) << r.error().str();
    EXPECT_EQ(r->artifacts.size(), 33u);
    EXPECT_EQ(r->total_bytes(), 645561u);
    EXPECT_EQ(r->symlinks, 3u);
    EXPECT_EQ(r->unreadable, 0u);
}

TEST(ScannerErrors, CancelFlagStopsTheScan) {
    std::atomic<bool> cancel{true};
    ScanOptions options;
    options.cancel = &cancel;
    auto r = scan_cache(test::h100_root(), options);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, Errc::cancelled);
}

TEST(ScannerErrors, ProgressIsReported) {
    ScanOptions options;
    options.progress_every = 100;
    std::vector<std::uint64_t> files;
    options.progress = [&](const ScanProgress& p) { files.push_back(p.files); };
    auto r = scan_cache(test::h100_root(), options);
    ASSERT_TRUE(r.ok());
    ASSERT_GE(files.size(), 10u);  // 1067 files: every 100, plus the final report
    EXPECT_EQ(files.back(), 1067u);
    EXPECT_TRUE(std::is_sorted(files.begin(), files.end()));
}

TEST(ScannerErrors, TempFilesFromInterruptedWritesAreFound) {
    test::ScratchDir dir("scan-temp");
    fs::path root = dir.path() / "cache";
    test::copy_tree(test::two_entries_root(), root);
    std::ofstream(root / "sf" / ".4242.139876.tmp") << "half a module";
    auto r = scan_cache(root);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(test::count(*r, Category::temp), 1u);
    EXPECT_EQ(test::count(*r, Category::other), 0u);
}

}  // namespace
}  // namespace kiln::inductor

// Eviction on copies of the fixtures: age, size, dry run, held locks, symlinks, foreign roots.
#include <gtest/gtest.h>
#include <sys/file.h>

#include <fstream>

#include "inductor/evict.hpp"
#include "scanner_test_helpers.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;

namespace kiln::inductor {
namespace {

const std::string kFxKeyDir = "fxgraph/sb";  // the one key dir of the two-entries fixture lives below

class EvictTest : public ::testing::Test {
protected:
    test::ScratchDir dir{"evict"};
    fs::path root = dir.path() / "torchinductor_test";
    std::int64_t now = test::now_ns();

    void SetUp() override {
        test::copy_tree(test::two_entries_root(), root);
        test::set_tree_times(root, now - 30 * test::kDayNs);  // everything old ...
    }
    // ... except what a test marks as recently used.
    void touch_group(const fs::path& p, std::int64_t ns) {
        if (fs::is_directory(p)) test::set_tree_times(p, ns);
        else test::set_times(p, ns);
    }
    fs::path fx_key_dir() const {
        for (auto& e : fs::directory_iterator(root / kFxKeyDir)) return e.path();
        return {};
    }
    std::uint64_t files_left() const {
        std::uint64_t n = 0;
        for (auto& e : fs::recursive_directory_iterator(root)) n += e.is_regular_file();
        return n;
    }
};

TEST_F(EvictTest, DryRunListsButDeletesNothing) {
    EvictPolicy p;
    p.older_than_ns = 7 * test::kDayNs;
    auto r = evict_cache(root.string(), p);
    ASSERT_TRUE(r.ok()) << r.error().str();
    EXPECT_TRUE(r->dry_run);
    EXPECT_FALSE(r->removed.empty());
    EXPECT_EQ(r->freed_bytes, 645561u);
    EXPECT_EQ(files_left(), 33u);
}

TEST_F(EvictTest, OlderThanRemovesOnlyOldGroupsAsAWhole) {
    fs::path fresh = fx_key_dir();
    ASSERT_FALSE(fresh.empty());
    touch_group(fresh, now - test::kDayNs);
    EvictPolicy p;
    p.older_than_ns = 7 * test::kDayNs;
    p.dry_run = false;
    auto r = evict_cache(root.string(), p);
    ASSERT_TRUE(r.ok()) << r.error().str();
    EXPECT_TRUE(fs::exists(fresh));
    EXPECT_EQ(files_left(), 2u);  // the fresh key dir's two entries
    std::uint64_t fresh_bytes = 0;
    for (auto& e : fs::directory_iterator(fresh)) fresh_bytes += e.file_size();
    EXPECT_EQ(r->freed_bytes + fresh_bytes, 645561u);
    for (auto& g : r->removed) EXPECT_FALSE(fs::exists(g.path)) << g.path;
    EXPECT_TRUE(fs::is_empty(root / "aotautograd"));
    EXPECT_TRUE(fs::exists(root / "fxgraph"));  // only groups go, never the layout
}

TEST_F(EvictTest, MaxSizeRemovesLeastRecentlyUsedFirst) {
    // Give each group a distinct last use; the newest must survive a tight size limit.
    auto scan = scan_cache(root);
    ASSERT_TRUE(scan.ok());
    std::int64_t t = now - 20 * test::kDayNs;
    const Group* newest = nullptr;
    for (auto& g : scan->groups) {
        t += 1000000000LL;
        for (auto i : g.artifacts) test::set_times(scan->artifacts[i].path, t);
        newest = &g;
    }
    EvictPolicy p;
    p.max_bytes = newest->bytes;
    p.dry_run = false;
    auto r = evict_cache(root.string(), p);
    ASSERT_TRUE(r.ok()) << r.error().str();
    EXPECT_EQ(r->removed.size(), scan->groups.size() - 1);
    for (std::size_t i = 1; i < r->removed.size(); ++i)
        EXPECT_LE(r->removed[i - 1].last_use_ns, r->removed[i].last_use_ns);
    auto after = scan_cache(root);
    ASSERT_TRUE(after.ok());
    EXPECT_LE(after->total_bytes(), newest->bytes);
    ASSERT_EQ(after->groups.size(), 1u);
    EXPECT_EQ(after->groups[0].path, newest->path);
}

TEST_F(EvictTest, HeldLockSkipsTheGroup) {
    auto scan = scan_cache(root);
    ASSERT_TRUE(scan.ok());
    const Group* module = nullptr;
    for (auto& g : scan->groups)
        if (g.kind == GroupKind::module) module = &g;
    ASSERT_NE(module, nullptr);
    fs::create_directories(root / "locks");
    fs::path lock = root / "locks" / (module->key + ".lock");
    std::ofstream(lock).close();
    test::set_times(lock, now - 30 * test::kDayNs);

    // A child process holds the lock the way torch's FileLock does, until told to stop.
    int ready[2], done[2];
    ASSERT_EQ(pipe(ready), 0);
    ASSERT_EQ(pipe(done), 0);
    pid_t child = fork();
    if (child == 0) {
        int fd = ::open(lock.c_str(), O_RDONLY);
        if (fd < 0 || flock(fd, LOCK_EX) != 0) _exit(1);
        char c = 1;
        (void)!write(ready[1], &c, 1);
        (void)!read(done[0], &c, 1);
        _exit(0);
    }
    char c;
    ASSERT_EQ(read(ready[0], &c, 1), 1);

    EvictPolicy p;
    p.older_than_ns = test::kDayNs;
    p.dry_run = false;
    auto r = evict_cache(root.string(), p);
    ASSERT_TRUE(r.ok()) << r.error().str();
    ASSERT_EQ(r->skipped.size(), 1u);
    EXPECT_EQ(r->skipped[0].path, module->path);
    EXPECT_NE(r->skipped[0].reason.find("locked"), std::string::npos);
    for (auto i : module->artifacts) EXPECT_TRUE(fs::exists(scan->artifacts[i].path));
    EXPECT_TRUE(fs::exists(lock));  // locks are never evicted by default

    (void)!write(done[1], &c, 1);
    int status = 0;
    waitpid(child, &status, 0);
    auto again = evict_cache(root.string(), p);
    ASSERT_TRUE(again.ok());
    EXPECT_TRUE(again->skipped.empty());
    for (auto i : module->artifacts) EXPECT_FALSE(fs::exists(scan->artifacts[i].path));
}

TEST_F(EvictTest, SymlinksPointingOutsideAreNeverFollowed) {
    fs::path outside = dir.path() / "precious";
    fs::create_directories(outside / "sub");
    std::ofstream(outside / "sub" / "data") << "keep me";
    // A link inside a key dir that goes to the outside, and a key dir that is itself a link.
    fs::path key_dir = fx_key_dir();
    fs::create_directory_symlink(outside, key_dir / "evil_dir");
    fs::create_symlink(outside / "sub" / "data", key_dir / "evil_file");
    fs::create_directories(root / "fxgraph" / "zz");
    fs::create_directory_symlink(outside, root / "fxgraph" / "zz" / "fzzlinked");
    EvictPolicy p;
    p.older_than_ns = 0;
    p.now_ns = now + test::kDayNs;
    p.dry_run = false;
    auto r = evict_cache(root.string(), p);
    ASSERT_TRUE(r.ok()) << r.error().str();
    EXPECT_TRUE(r->skipped.empty());
    EXPECT_TRUE(fs::exists(outside / "sub" / "data"));
    EXPECT_EQ(test::read_file(outside / "sub" / "data"), "keep me");
    EXPECT_FALSE(fs::exists(key_dir));                                   // the key dir went, with its links as links
    EXPECT_TRUE(fs::is_symlink(root / "fxgraph" / "zz" / "fzzlinked"));  // not a cache group: left alone
}

TEST_F(EvictTest, GroupOutsideTheRootIsRefused) {
    auto scan = scan_cache(root);
    ASSERT_TRUE(scan.ok());
    Group g = scan->groups[0];
    g.path = dir.path().string();  // the root's parent
    auto r = remove_group(*scan, g);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, Errc::invalid_argument);
    g.path = scan->root + "/../escape";
    g.kind = GroupKind::key_dir;
    EXPECT_FALSE(remove_group(*scan, g).ok());
    EXPECT_TRUE(fs::exists(root));
}

TEST_F(EvictTest, ForeignRootRefusedUnlessForced) {
    fs::path foreign = dir.path() / "home";
    fs::create_directories(foreign / "Documents");
    std::ofstream(foreign / "Documents" / "thesis.tex") << "years of work";
    test::set_tree_times(foreign, now - 30 * test::kDayNs);
    EvictPolicy p;
    p.older_than_ns = test::kDayNs;
    p.dry_run = false;
    auto r = evict_cache(foreign.string(), p);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, Errc::invalid_argument);
    EXPECT_NE(r.error().hint.find("--force"), std::string::npos);
    EXPECT_TRUE(fs::exists(foreign / "Documents" / "thesis.tex"));
    p.force = true;
    p.dry_run = true;
    auto forced = evict_cache(foreign.string(), p);
    ASSERT_TRUE(forced.ok());
    EXPECT_EQ(forced->removed.size(), 1u);
}

TEST_F(EvictTest, CategoryFilterAndMissingRoot) {
    EvictPolicy p;
    p.older_than_ns = test::kDayNs;
    p.categories = {Category::triton_compiled};
    p.dry_run = false;
    auto r = evict_cache(root.string(), p);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->removed.size(), 3u);
    for (auto& g : r->removed) EXPECT_EQ(g.kind, GroupKind::triton_kernel_dir);
    EXPECT_EQ(files_left(), 33u - 24u);
    auto missing = evict_cache((dir.path() / "nope").string(), p);
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, Errc::not_found);
}

TEST(EvictParse, AgesAndSizes) {
    EXPECT_EQ(*parse_age_ns("30d"), 30 * test::kDayNs);
    EXPECT_EQ(*parse_age_ns("12h"), 12 * 3600LL * 1000000000LL);
    EXPECT_EQ(*parse_age_ns("90m"), 90 * 60LL * 1000000000LL);
    EXPECT_EQ(*parse_age_ns("45"), 45LL * 1000000000LL);
    EXPECT_EQ(*parse_age_ns("2w"), 14 * test::kDayNs);
    EXPECT_EQ(*parse_age_ns("1.5d"), 36 * 3600LL * 1000000000LL);
    EXPECT_FALSE(parse_age_ns("soon").ok());
    EXPECT_FALSE(parse_age_ns("3y").ok());
    EXPECT_FALSE(parse_age_ns("-1d").ok());
    EXPECT_EQ(*parse_size("123"), 123u);
    EXPECT_EQ(*parse_size("500M"), 500000000u);
    EXPECT_EQ(*parse_size("2G"), 2000000000u);
    EXPECT_EQ(*parse_size("1.5GiB"), 1610612736u);
    EXPECT_EQ(*parse_size("100KB"), 100000u);
    EXPECT_EQ(*parse_size("4Ki"), 4096u);
    EXPECT_FALSE(parse_size("lots").ok());
    EXPECT_FALSE(parse_size("5X").ok());
    EXPECT_FALSE(parse_size("5GiBB").ok());
}

}  // namespace
}  // namespace kiln::inductor

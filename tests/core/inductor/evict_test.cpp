// Eviction on copies of the fixtures: age, size, dry run, held locks, symlinks, foreign roots.
#include <gtest/gtest.h>
#include <sys/file.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <vector>

#include "inductor/evict.hpp"
#include "opened_dir.hpp"
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
    auto r = evict_cache(kiln::test::open_dir(root), p);
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
    auto r = evict_cache(kiln::test::open_dir(root), p);
    ASSERT_TRUE(r.ok()) << r.error().str();
    EXPECT_TRUE(fs::exists(fresh));
    // The fresh key dir's two entries and the three Triton kernel dirs they bundle (8 files each), as
    // recently used as the entries: an entry without them is broken (issue 42 #12).
    EXPECT_EQ(files_left(), 2u + 24u);
    std::uint64_t fresh_bytes = 0;
    for (auto& e : fs::directory_iterator(fresh)) fresh_bytes += e.file_size();
    for (auto& e : fs::recursive_directory_iterator(root / "triton"))
        if (e.is_regular_file()) fresh_bytes += e.file_size();
    EXPECT_EQ(r->freed_bytes + fresh_bytes, 645561u);
    for (auto& g : r->removed) EXPECT_FALSE(fs::exists(g.path)) << g.path;
    EXPECT_TRUE(fs::is_empty(root / "aotautograd"));
    EXPECT_TRUE(fs::exists(root / "fxgraph"));  // only groups go, never the layout
}

TEST_F(EvictTest, MaxSizeRemovesLeastRecentlyUsedFirst) {
    // Give each group a distinct last use; the newest must survive a tight size limit. The AOT entry and
    // the FX graph it names are one unit (as recent as its newest member): they are the oldest here. A
    // kernel module is the newest: the output code importing it goes first (a group others need is as
    // recent as they are, and goes after them).
    auto scan = scan_cache(root);
    ASSERT_TRUE(scan.ok());
    std::vector<const Group*> order;
    for (auto& g : scan->groups) order.push_back(&g);
    std::stable_partition(order.begin(), order.end(), [](const Group* g) {
        return g->category == Category::aotautograd || g->category == Category::fxgraph;
    });
    std::stable_partition(order.begin(), order.end(),
                          [](const Group* g) { return g->category != Category::kernel_module; });
    std::int64_t t = now - 20 * test::kDayNs;
    const Group* newest = nullptr;
    for (const Group* g : order) {
        t += 1000000000LL;
        for (auto i : g->artifacts) test::set_times(scan->artifacts[i].path(), t);
        newest = g;
    }
    EvictPolicy p;
    p.max_bytes = newest->bytes;
    p.dry_run = false;
    auto r = evict_cache(kiln::test::open_dir(root), p);
    ASSERT_TRUE(r.ok()) << r.error().str();
    EXPECT_EQ(r->removed.size(), scan->groups.size() - 1);
    for (std::size_t i = 1; i < r->removed.size(); ++i)
        EXPECT_LE(r->removed[i - 1].last_use_ns, r->removed[i].last_use_ns);
    auto after = scan_cache(root);
    ASSERT_TRUE(after.ok());
    EXPECT_LE(after->total_bytes(), newest->bytes);
    ASSERT_EQ(after->groups.size(), 1u);
    EXPECT_EQ(after->groups[0].path(), newest->path());
}

TEST_F(EvictTest, HeldLockSkipsTheGroup) {
    auto scan = scan_cache(root);
    ASSERT_TRUE(scan.ok());
    const Group* module = nullptr;
    for (auto& g : scan->groups)
        if (g.kind == GroupKind::module) module = &g;
    ASSERT_NE(module, nullptr);
    fs::create_directories(root / "locks");
    fs::path lock = root / "locks" / (std::string(module->key) + ".lock");
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
    auto r = evict_cache(kiln::test::open_dir(root), p);
    ASSERT_TRUE(r.ok()) << r.error().str();
    // The locked module is output code; the kernel module it imports stays with it (issue 42 #12: output
    // code left without its kernel module is broken).
    ASSERT_EQ(r->skipped.size(), 2u);
    auto locked = std::find_if(r->skipped.begin(), r->skipped.end(),
                               [&](const SkippedGroup& s) { return s.path == module->path(); });
    ASSERT_NE(locked, r->skipped.end());
    EXPECT_NE(locked->reason.find("locked"), std::string::npos);
    for (const auto& s : r->skipped) {
        if (s.path != module->path()) {
            EXPECT_NE(s.reason.find("needs it"), std::string::npos) << s.path;
        }
    }
    for (auto i : module->artifacts) EXPECT_TRUE(fs::exists(scan->artifacts[i].path()));
    EXPECT_TRUE(fs::exists(lock));  // locks are never evicted by default

    (void)!write(done[1], &c, 1);
    int status = 0;
    waitpid(child, &status, 0);
    auto again = evict_cache(kiln::test::open_dir(root), p);
    ASSERT_TRUE(again.ok());
    EXPECT_TRUE(again->skipped.empty());
    for (auto i : module->artifacts) EXPECT_FALSE(fs::exists(scan->artifacts[i].path()));
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
    auto r = evict_cache(kiln::test::open_dir(root), p);
    ASSERT_TRUE(r.ok()) << r.error().str();
    EXPECT_TRUE(r->skipped.empty());
    EXPECT_TRUE(fs::exists(outside / "sub" / "data"));
    EXPECT_EQ(test::read_file(outside / "sub" / "data"), "keep me");
    EXPECT_FALSE(fs::exists(key_dir));                                   // the key dir went, with its links as links
    EXPECT_TRUE(fs::is_symlink(root / "fxgraph" / "zz" / "fzzlinked"));  // not a cache group: left alone
}

class RootFd {
public:
    explicit RootFd(const fs::path& p) : fd_(::open(p.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {}
    ~RootFd() { ::close(fd_); }
    int get() const { return fd_; }

private:
    int fd_;
};

TEST_F(EvictTest, GroupOutsideTheRootIsRefused) {
    RootFd fd(root);
    auto scan = scan_cache(root);
    ASSERT_TRUE(scan.ok());
    Group g = scan->groups[0];
    const std::string parent = dir.path().string(), other_root = parent;  // g views them
    g.root = nullptr;  // built by hand: its whole path, the root's parent
    g.rel = parent;
    auto r = remove_group(fd.get(), *scan, g);
    ASSERT_FALSE(r.status.ok());
    EXPECT_EQ(r.status.error().code, Errc::invalid_argument);
    g.root = &other_root;  // under another root
    g.rel = "torchinductor_test";
    r = remove_group(fd.get(), *scan, g);
    ASSERT_FALSE(r.status.ok());
    EXPECT_EQ(r.status.error().code, Errc::invalid_argument);
    g = scan->groups[0];
    g.rel = "../escape";
    g.kind = GroupKind::key_dir;
    EXPECT_FALSE(remove_group(fd.get(), *scan, g).status.ok());
    EXPECT_TRUE(fs::exists(root));
}

// A key dir replaced (moved away, a new one made in its place) after the scan is not the group the
// scan saw: it is skipped, and the moved one is untouched.
TEST_F(EvictTest, GroupReplacedSinceTheScanIsSkipped) {
    RootFd fd(root);
    auto scan = scan_cache(OpenedRoot{root, fd.get()});
    ASSERT_TRUE(scan.ok());
    const Group* key_dir = nullptr;
    for (auto& g : scan->groups)
        if (g.kind == GroupKind::key_dir && g.category == Category::fxgraph) key_dir = &g;
    ASSERT_NE(key_dir, nullptr);
    EXPECT_NE(key_dir->ino, 0u);
    fs::rename(key_dir->path(), dir.path() / "moved");
    fs::create_directory(key_dir->path());
    std::ofstream(fs::path(key_dir->path()) / "newer") << "written after the scan";
    auto r = remove_group(fd.get(), *scan, *key_dir);
    ASSERT_FALSE(r.status.ok());
    EXPECT_EQ(r.freed, 0u);
    EXPECT_NE(r.status.error().message.find("changed since the scan"), std::string::npos);
    EXPECT_TRUE(fs::exists(fs::path(key_dir->path()) / "newer"));
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.path() / "moved"), fs::directory_iterator()), 2);
}

// A module whose sidecar was rewritten (a new inode) after the scan: the rest of the group goes, the
// removal counts the bytes really freed and says why it is not whole, and the new file stays.
TEST_F(EvictTest, PartlyRemovedGroupCountsTheBytesFreed) {
    RootFd fd(root);
    auto scan = scan_cache(OpenedRoot{root, fd.get()});
    ASSERT_TRUE(scan.ok());
    const Group* module = nullptr;
    for (auto& g : scan->groups)
        if (g.kind == GroupKind::module && g.artifacts.size() >= 2) module = &g;
    ASSERT_NE(module, nullptr) << "the fixture has a kernel module with its .best_config";
    const Artifact& replaced = scan->artifacts[module->artifacts.back()];
    fs::path tmp = replaced.path() + ".new";
    fs::copy_file(replaced.path(), tmp);
    fs::rename(tmp, replaced.path());  // the way Inductor rewrites a file: same name, new inode
    auto r = remove_group(fd.get(), *scan, *module);
    ASSERT_FALSE(r.status.ok());
    EXPECT_EQ(r.freed, module->bytes - replaced.size);
    EXPECT_NE(r.status.error().message.find("changed since the scan"), std::string::npos);
    EXPECT_TRUE(fs::exists(replaced.path()));
    for (auto i : module->artifacts) {
        if (i != module->artifacts.back()) {
            EXPECT_FALSE(fs::exists(scan->artifacts[i].path()));
        }
    }
}

// An undeletable subfolder (the files in it belong to someone else): what could go went, and the
// group is partial, not "skipped".
TEST_F(EvictTest, UndeletableSubfolderMakesThePartialReport) {
    fs::path key_dir = fx_key_dir();
    fs::path sub = key_dir / "held";
    fs::create_directory(sub);
    std::ofstream(sub / "file") << "not yours";
    if (geteuid() == 0) {  // the evicting child runs as nobody: the cache is its, the subfolder root's
        for (auto& e : fs::recursive_directory_iterator(root))
            ASSERT_EQ(::lchown(e.path().c_str(), 65534, 65534), 0) << e.path();
        ASSERT_EQ(::lchown(root.c_str(), 65534, 65534), 0);
        ASSERT_EQ(::lchown(sub.c_str(), 0, 0), 0);
        ASSERT_EQ(::lchown((sub / "file").c_str(), 0, 0), 0);
    } else {
        ::chmod(sub.c_str(), 0555);  // our own, but not writable: its file cannot be unlinked
    }
    std::string key_dir_s = key_dir.string(), root_s = root.string();
    int rc = test::run_unprivileged([&] {
        EvictPolicy p;
        p.max_bytes = 0;
        p.categories = {Category::fxgraph};
        p.dry_run = false;
        auto r = evict_cache(kiln::test::open_dir(root_s), p);
        if (!r.ok()) return 1;
        for (auto& part : r->partial)
            if (part.path == key_dir_s && part.bytes > 0) return 0;
        return 2;
    });
    EXPECT_EQ(rc, 0);
    EXPECT_TRUE(fs::exists(sub / "file"));
    ::chmod(sub.c_str(), 0755);
}

TEST_F(EvictTest, ForeignRootRefusedUnlessForced) {
    fs::path foreign = dir.path() / "home";
    fs::create_directories(foreign / "Documents");
    std::ofstream(foreign / "Documents" / "thesis.tex") << "years of work";
    test::set_tree_times(foreign, now - 30 * test::kDayNs);
    EvictPolicy p;
    p.older_than_ns = test::kDayNs;
    p.dry_run = false;
    auto r = evict_cache(kiln::test::open_dir(foreign), p);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, Errc::invalid_argument);
    EXPECT_NE(r.error().hint.find("--force"), std::string::npos);
    EXPECT_TRUE(fs::exists(foreign / "Documents" / "thesis.tex"));
    p.force = true;
    p.dry_run = true;
    auto forced = evict_cache(kiln::test::open_dir(foreign), p);
    ASSERT_TRUE(forced.ok());
    EXPECT_EQ(forced->removed.size(), 1u);
}

TEST_F(EvictTest, CategoryFilterAndUnopenedRoot) {
    EvictPolicy p;
    p.older_than_ns = test::kDayNs;
    p.categories = {Category::triton_compiled};
    p.dry_run = false;
    auto r = evict_cache(kiln::test::open_dir(root), p);
    ASSERT_TRUE(r.ok());
    // The three Triton kernel dirs, and the entries that need them (issue 42 #12): the FX entry bundling
    // them goes first, and the AOT entry naming that FX graph before it. Both are key dirs of 2 files.
    EXPECT_EQ(r->removed.size(), 5u);
    std::size_t kernel_dirs = 0;
    for (auto& g : r->removed) kernel_dirs += g.kind == GroupKind::triton_kernel_dir;
    EXPECT_EQ(kernel_dirs, 3u);
    EXPECT_EQ(files_left(), 33u - 24u - 2u - 2u);
    // A root that was never opened is refused, never opened here by its path (frontend::open_cache
    // opens it, and says what is missing).
    auto unopened = evict_cache(OpenedRoot{root, -1}, p);
    ASSERT_FALSE(unopened.ok());
    EXPECT_EQ(unopened.error().code, Errc::invalid_argument);
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
    EXPECT_EQ(*parse_size("123B"), 123u);
    EXPECT_EQ(*parse_size("20"), 20000000000u);  // a bare number is GB, as in ccache
    EXPECT_EQ(*parse_size("0"), 0u);
    EXPECT_EQ(*parse_size("500M"), 500000000u);
    EXPECT_EQ(*parse_size("2G"), 2000000000u);
    EXPECT_EQ(*parse_size("1.5GiB"), 1610612736u);
    EXPECT_EQ(*parse_size("100KB"), 100000u);
    EXPECT_EQ(*parse_size("4Ki"), 4096u);
    EXPECT_FALSE(parse_size("lots").ok());
    EXPECT_FALSE(parse_size("5X").ok());
    EXPECT_FALSE(parse_size("5GiBB").ok());
}

// Out of range is an error, never a wrapped (or zero) limit: a limit of 0 deletes everything.
TEST(EvictParse, OutOfRangeIsAnErrorNotZero) {
    EXPECT_EQ(*parse_size("18446744073709551615B"), 18446744073709551615u);
    for (const char* text : {"18446744073709551615", "18446744073709551616B", "2e19", "1e30", "1e300",
                             "99999999999999999999999999999999999999999", "18446744073709551615T", "0.5.5G", ".G", "-1",
                             "nanG", "inf", "1e3B"}) {
        auto r = parse_size(text);
        EXPECT_FALSE(r.ok()) << text << " gave " << (r.ok() ? *r : 0);
    }
    EXPECT_EQ(*parse_size("1.5"), 1500000000u);
    EXPECT_EQ(*parse_size("0.000000001G"), 1u);
    EXPECT_EQ(*parse_age_ns("106751d"), 106751LL * test::kDayNs);
    for (const char* text :
         {"106752d", "1e300", "2e19", "9223372036854775808", "99999999999999999999w", "inf", "nan"}) {
        auto r = parse_age_ns(text);
        EXPECT_FALSE(r.ok()) << text << " gave " << (r.ok() ? *r : 0);
    }
}

}  // namespace
}  // namespace kiln::inductor

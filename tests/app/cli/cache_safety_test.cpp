// Issue 29, part B: `kiln-cli check --quarantine` on a cache other processes use at the same time.
// Writers in flight are no problems (their temporaries, the locks they hold), and a file this user
// may not read is reported, never moved.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "../../core/inductor/scanner_test_helpers.hpp"
#include "hash/sha256.hpp"
#include "test_support.hpp"
#include "util/json_in.hpp"
#include "util/json_out.hpp"

namespace fs = std::filesystem;

namespace kiln::test {
namespace {

struct Check {
    int rc = -1;
    nlohmann::json json;
    std::string err;
};

Check check(const fs::path& root, std::vector<std::string> extra = {}) {
    std::vector<std::string> argv{cli_path(), "check", root.string(), "--json"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    auto r = run_command(argv);
    return {r.exit_code, parse_json_bytes(r.out), r.out + r.err};
}

std::multiset<std::string> kinds(const nlohmann::json& report) {
    std::multiset<std::string> out;
    if (report.contains("problems"))
        for (const auto& p : report["problems"])
            out.insert(p["kind"].get<std::string>() + " " + p["path"].get<std::string>());
    return out;
}

// sha256 of every regular file under `root` (the quarantine folder left out), by relative path.
std::map<std::string, std::string> digest_tree(const fs::path& root) {
    std::map<std::string, std::string> out;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        std::string rel = fs::relative(it->path(), root).string();
        if (rel.rfind(".kiln-quarantine", 0) == 0) continue;
        if (it->is_regular_file() && !it->is_symlink()) out[rel] = hash::sha256_hex(read_file(it->path()));
    }
    return out;
}

void set_mtime_ago(const fs::path& p, std::chrono::hours ago) {
    fs::last_write_time(p, fs::file_time_type::clock::now() - ago);
}

// Item 2: a compiler's output in flight (an empty ".<key>.<pid>.<tid>.tmp.so"), a write_atomic temporary,
// a per-key lock a writer holds (however old), fresh locks (Kiln's own autotune lock among them) are
// no problems, and --quarantine moves none of them; old unheld locks of gone keys and old temporaries are.
TEST(CliCacheSafety, WritersInFlightAreNoProblemsAndNeverQuarantined) {
    ScratchDir dir{"safety-writers"};
    fs::path root = dir.path() / "cache";
    copy_tree(two_entries_root(), root);
    const std::string key = "c" + std::string(51, 'q');
    fs::create_directories(root / "qq");
    fs::create_directories(root / "locks");
    const fs::path in_flight = root / "qq" / ("." + key + ".4242.4243.tmp.so");
    std::ofstream(in_flight).flush();  // the compiler has not written a byte yet
    const fs::path atomic_tmp = root / "sf" / ".4242.4244.tmp";
    std::ofstream(atomic_tmp) << "partial";
    // The writer's lock: held right now, and its file is old (torch never removes lock files).
    const fs::path held = root / "locks" / (key + ".lock");
    std::ofstream(held).flush();
    set_mtime_ago(held, std::chrono::hours(3));
    int held_fd = ::open(held.c_str(), O_RDWR | O_CLOEXEC);
    ASSERT_GE(held_fd, 0);
    ASSERT_EQ(::flock(held_fd, LOCK_EX), 0);
    // Kiln's own timing cache lock right after an autotune, and a fresh lock of a key with no files yet.
    const std::string hash(64, 'a');
    std::ofstream(root / "locks" / ("autotune-" + hash + ".lock")).flush();
    fs::create_directories(root / "cache");
    std::ofstream(root / "cache" / hash) << "{}";
    const std::string fresh_key = "c" + std::string(51, 'r');
    std::ofstream(root / "locks" / (fresh_key + ".lock")).flush();

    auto c = check(root);
    EXPECT_EQ(c.rc, 0) << c.err;
    EXPECT_TRUE(kinds(c.json).empty()) << c.json["problems"].dump(1);
    auto q = check(root, {"--quarantine"});
    EXPECT_EQ(q.rc, 0) << q.err;
    EXPECT_FALSE(fs::exists(root / ".kiln-quarantine")) << q.err;
    for (const fs::path& p : {in_flight, atomic_tmp, held}) EXPECT_TRUE(fs::exists(p)) << p;

    // Once old and released, the same files are left behind by writers that died: problems.
    ::close(held_fd);
    set_mtime_ago(atomic_tmp, std::chrono::hours(2));
    set_mtime_ago(in_flight, std::chrono::hours(2));
    auto later = check(root);
    EXPECT_EQ(later.rc, 1);
    std::multiset<std::string> expected{"stale_temp sf/.4242.4244.tmp", "stale_temp qq/." + key + ".4242.4243.tmp.so",
                                        "orphan_lock locks/" + key + ".lock"};
    EXPECT_EQ(kinds(later.json), expected) << later.json["problems"].dump(1);
}

// Item 14: a file this user may not read is `unreadable` (not a broken entry), a folder it may not list
// hides nothing that counts as missing, and --quarantine moves none of it. Run as `nobody` on a copy
// that `nobody` owns (root ignores permission bits; CI runs as root).
TEST(CliCacheSafety, UnreadableFilesAreReportedAsSuchAndNeverQuarantined) {
    ASSERT_EQ(geteuid(), 0u) << "needs root to hand the copy to another user";
    ScratchDir dir{"safety-perms"};
    fs::path root = dir.path() / "cache";
    copy_tree(two_entries_root(), root);
    const std::string entry =
        "fxgraph/sb/fsbnatbp6m2keoozno6te7auv6dbw22iozfrx4joxfgl6rn734eh/"
        "deg4ivyb4kcgy5eslbjybulmyzbjan4oasgg56equm4f3dzcmga";
    for (auto& e : fs::recursive_directory_iterator(root)) ASSERT_EQ(::lchown(e.path().c_str(), 65534, 65534), 0);
    ASSERT_EQ(::lchown(root.c_str(), 65534, 65534), 0);
    for (fs::path p = dir.path(); p != p.root_path(); p = p.parent_path()) ::chmod(p.c_str(), 0755);
    fs::permissions(root / entry, fs::perms::none);
    fs::permissions(root / "w3", fs::perms::none);  // holds a kernel module output code imports
    const auto before = digest_tree(root);
    const std::string out_path = (dir.path() / "out.json").string();
    std::ofstream(out_path).flush();
    ASSERT_EQ(::chown(out_path.c_str(), 65534, 65534), 0);  // the unprivileged child writes its findings here
    int rc = run_unprivileged([&] {
        auto r = run_command({cli_path(), "check", root.string(), "--json"});
        auto q = run_command({cli_path(), "check", root.string(), "--quarantine", "--json"});
        std::ofstream(out_path) << r.out << "\n@@@\n" << q.out << "\n@@@\n" << q.err;
        return r.exit_code;
    });
    std::string text = read_file(out_path);
    auto plain = parse_json_bytes(text.substr(0, text.find("\n@@@\n")));
    ASSERT_FALSE(plain.is_discarded()) << text;
    EXPECT_EQ(rc, 1) << text;
    std::multiset<std::string> expected{"unreadable " + entry, "unreadable w3"};
    EXPECT_EQ(kinds(plain), expected) << plain["problems"].dump(1);
    EXPECT_FALSE(fs::exists(root / ".kiln-quarantine")) << text;
    fs::permissions(root / entry, fs::perms::owner_read | fs::perms::owner_write);
    fs::permissions(root / "w3", fs::perms::owner_all);
    EXPECT_EQ(digest_tree(root), before);
}

}  // namespace
}  // namespace kiln::test

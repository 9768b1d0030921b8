// Issue 29, part B: `kiln-cli check --quarantine` / `--restore` on a cache other processes use at the
// same time. Writers in flight are no problems (their temporaries, the locks they hold), a restore
// removes only what its manifest names, manifests hold names of any bytes, a root path swapped
// mid-run never redirects the moves, and a file this user may not read is reported, never moved.
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

// Item 3: a restore moves back what its manifest names and removes only folders left empty: a file
// in files/ that the manifest does not name stays where it is.
TEST(CliCacheSafety, RestoreRemovesOnlyWhatItsManifestNames) {
    ScratchDir dir{"safety-restore"};
    fs::path root = dir.path() / "cache";
    copy_tree(two_entries_root(), root);
    const std::string id = "20260101T000000Z-1";
    const fs::path q = root / ".kiln-quarantine" / id;
    fs::create_directories(q / "files" / "locks");
    std::ofstream(q / "files" / "locks" / "one.lock") << "one";
    std::ofstream(q / "files" / "locks" / "two.lock") << "two";
    nlohmann::json manifest{{"kiln_quarantine", 1},
                            {"id", id},
                            {"created", "2026-01-01T00:00:00Z"},
                            {"root", root.string()},
                            {"groups",
                             {{{"group", "locks/one.lock"},
                               {"problems", {"orphan_lock"}},
                               {"items", {{{"path", "locks/one.lock"}, {"dir", false}}}}}}}};
    std::ofstream(q / "manifest.json") << manifest.dump(2);
    auto r = run_command({cli_path(), "check", root.string(), "--restore", id});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_EQ(read_file(root / "locks" / "one.lock"), "one");
    ASSERT_TRUE(fs::exists(q / "files" / "locks" / "two.lock")) << "a file no manifest named was deleted";
    EXPECT_EQ(read_file(q / "files" / "locks" / "two.lock"), "two");
}

// Item 4: names that are not UTF-8 (a file, and the root's own path) go into the manifest and come
// back byte for byte; the quarantine never dies half-way with groups moved and no manifest.
TEST(CliCacheSafety, NamesOfAnyBytesAreQuarantinedAndRestoredExactly) {
    ScratchDir dir{"safety-bytes"};
    fs::path root = dir.path() / "c\xfe\xff";
    copy_tree(two_entries_root(), root);
    fs::create_directories(root / "locks");
    const fs::path odd = root / "locks" / "x\xfe.lock";
    std::ofstream(odd) << "lock bytes";
    set_mtime_ago(odd, std::chrono::hours(2));  // an orphan: old, nobody holds it, key "x\xfe" has no files
    auto before = digest_tree(root);
    auto q = check(root, {"--quarantine"});
    ASSERT_FALSE(q.json.is_discarded()) << q.err;
    EXPECT_EQ(q.rc, 1) << q.err;  // the report is the check before the moves
    EXPECT_FALSE(fs::exists(odd));
    ASSERT_TRUE(q.json.contains("quarantine_moved")) << q.err;
    std::string id = q.json["quarantine_moved"]["manifest"]["id"];
    EXPECT_EQ(q.json["quarantine_moved"]["manifest"]["root"].get<std::string>(), root.string());
    auto list = run_command({cli_path(), "check", root.string(), "--list-quarantine", "--json"});
    EXPECT_EQ(list.exit_code, 0) << list.err;
    EXPECT_NE(list.out.find(id), std::string::npos) << list.out;
    auto r = run_command({cli_path(), "check", root.string(), "--restore", id});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_EQ(read_file(odd), "lock bytes");
    EXPECT_EQ(digest_tree(root), before);
    EXPECT_FALSE(fs::exists(root / ".kiln-quarantine"));
}

// Item 6: the root named by a symlink that flips between a broken cache and a healthy copy while
// `check --quarantine` runs: every check and every move goes through the one descriptor opened at the
// start, so nothing of the healthy copy is ever moved.
TEST(CliCacheSafety, ASwappedRootSymlinkNeverRedirectsTheQuarantine) {
    ScratchDir dir{"safety-flip"};
    const fs::path broken = dir.path() / "broken", healthy = dir.path() / "healthy", link = dir.path() / "root";
    copy_tree(two_entries_root(), broken);
    copy_tree(two_entries_root(), healthy);
    const fs::path entry =
        "fxgraph/sb/fsbnatbp6m2keoozno6te7auv6dbw22iozfrx4joxfgl6rn734eh/"
        "deg4ivyb4kcgy5eslbjybulmyzbjan4oasgg56equm4f3dzcmga";
    fs::resize_file(broken / entry, fs::file_size(broken / entry) / 2);
    const auto healthy_before = digest_tree(healthy);
    fs::create_directory_symlink(broken, link);
    std::atomic<bool> stop{false};
    std::thread flipper([&] {
        const fs::path tmp = dir.path() / "root.tmp";
        for (bool to_healthy = true; !stop.load(); to_healthy = !to_healthy) {
            std::error_code ec;
            fs::remove(tmp, ec);
            fs::create_directory_symlink(to_healthy ? healthy : broken, tmp, ec);
            fs::rename(tmp, link, ec);  // atomic: the link always names one of the two
            std::this_thread::sleep_for(std::chrono::microseconds(300));
        }
    });
    for (int i = 0; i < 12 && !HasFailure(); ++i) {
        auto q = check(link, {"--quarantine"});
        EXPECT_FALSE(fs::exists(healthy / ".kiln-quarantine")) << "run " << i << ": " << q.err;
        EXPECT_EQ(digest_tree(healthy), healthy_before) << "run " << i;
        // Put the broken entry back for the next round.
        std::vector<std::string> ids;
        std::error_code ec;
        for (auto it = fs::directory_iterator(broken / ".kiln-quarantine", ec); !ec && it != fs::directory_iterator();
             it.increment(ec))
            ids.push_back(it->path().filename().string());
        for (const auto& id : ids) {
            auto r = run_command({cli_path(), "check", broken.string(), "--restore", id});
            EXPECT_EQ(r.exit_code, 0) << r.err;
        }
    }
    stop = true;
    flipper.join();
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
    fs::permissions(root / entry, fs::perms::none);
    fs::permissions(root / "w3", fs::perms::none);  // holds a kernel module output code imports
    const auto before = digest_tree(root);
    const std::string out_path = (dir.path() / "out.json").string();
    std::ofstream(out_path).flush();
    ASSERT_EQ(::chown(out_path.c_str(), 65534, 65534), 0);  // the unprivileged child writes its findings here
    const std::string cli = cli_path_for_others(dir);
    int rc = run_unprivileged([&] {
        auto r = run_command({cli, "check", root.string(), "--json"});
        auto q = run_command({cli, "check", root.string(), "--quarantine", "--json"});
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

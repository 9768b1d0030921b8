// A kept scan stores its paths once (ScanStorage) and its artifacts and groups view them: copies and
// moves of the ScanResult must keep every view valid after the original is gone, and a streamed
// artifact must be whole during its callback. Run under ASan (build-asan) a dangling view is a
// use-after-free; in a plain build the freed 1 MiB chunks are unmapped, so it reads garbage or faults.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "inductor/scanner.hpp"
#include "test_support.hpp"

namespace kiln::inductor {
namespace {

namespace fs = std::filesystem;

// Everything a scan's views show, as owned strings.
struct Snapshot {
    std::vector<std::string> paths, rels, keys;
    std::vector<std::string> group_paths, group_keys;
    std::vector<std::vector<std::uint32_t>> members;
};

Snapshot snapshot(const ScanResult& scan) {
    Snapshot s;
    for (const Artifact& a : scan.artifacts) {
        s.paths.emplace_back(a.path());
        s.rels.emplace_back(a.rel_path());
        s.keys.emplace_back(a.key());
    }
    for (const Group& g : scan.groups) {
        s.group_paths.emplace_back(g.path());
        s.group_keys.emplace_back(g.key);
        s.members.emplace_back(g.artifacts.begin(), g.artifacts.end());
    }
    return s;
}

void expect_same(const Snapshot& s, const ScanResult& scan) {
    ASSERT_EQ(scan.artifacts.size(), s.paths.size());
    for (std::size_t i = 0; i < s.paths.size(); ++i) {
        const Artifact& a = scan.artifacts[i];
        EXPECT_EQ(a.path(), s.paths[i]);
        EXPECT_EQ(a.rel_path(), s.rels[i]);
        EXPECT_EQ(a.key(), s.keys[i]);
    }
    ASSERT_EQ(scan.groups.size(), s.group_paths.size());
    for (std::size_t i = 0; i < s.group_paths.size(); ++i) {
        const Group& g = scan.groups[i];
        EXPECT_EQ(g.path(), s.group_paths[i]);
        EXPECT_EQ(g.key, s.group_keys[i]);
        EXPECT_EQ(std::vector<std::uint32_t>(g.artifacts.begin(), g.artifacts.end()), s.members[i]) << g.path();
    }
}

TEST(ScanStorage, CopiedAndMovedScansKeepPathsKeysAndMembersAfterTheOriginalIsGone) {
    std::optional<Result<ScanResult>> original(scan_cache(test::h100_root()));
    ASSERT_TRUE(original->ok());
    const Snapshot before = snapshot(**original);
    ASSERT_GT(before.paths.size(), 100u);
    // The fixture's keys and group paths are real: the snapshot is not of empty views.
    EXPECT_EQ(before.paths[0], (*original)->root + "/" + before.rels[0]);
    std::size_t keyed = 0;
    for (const auto& k : before.keys) keyed += !k.empty();
    EXPECT_GT(keyed, before.keys.size() / 2);

    ScanResult copy = **original;                            // the CLI's way: by value
    ScanResult moved = std::move(**original);                // a move leaves the bytes where they are
    auto shared = std::make_shared<const ScanResult>(copy);  // the GUI's way: shared_ptr<const ScanResult>
    original.reset();
    expect_same(before, copy);
    expect_same(before, moved);
    {
        ScanResult gone = std::move(moved);  // the last of its line destroyed: the others must not care
    }
    copy = ScanResult{};
    // Memory the freed scan held may be reused: fill some, then look again through the survivor.
    std::vector<std::string> noise(5000, std::string(200, '#'));
    expect_same(before, *shared);
}

// Paths are stored relative to the root, the root once: joined again they are the files the walk
// found, the same set as a listing of the tree, and each names the inode the scan saw.
TEST(ScanStorage, RelativePathsJoinToTheFilesOnDisk) {
    for (const fs::path& fixture : {test::h100_root(), test::two_entries_root(), test::pgo_root()}) {
        auto scan = scan_cache(fixture);
        ASSERT_TRUE(scan.ok()) << fixture;
        ASSERT_TRUE(scan->storage);
        std::set<std::string> listed;
        for (auto it = fs::recursive_directory_iterator(fixture); it != fs::recursive_directory_iterator(); ++it)
            if (it->is_regular_file() && !it->is_symlink())
                listed.insert(fs::absolute(it->path()).lexically_normal().string());
        std::set<std::string> joined;
        for (const Artifact& a : scan->artifacts) {
            EXPECT_EQ(a.root, &scan->storage->root);
            EXPECT_EQ(*a.root, scan->root);
            ASSERT_FALSE(a.rel_path().empty());
            EXPECT_NE(a.rel_path().front(), '/') << a.rel_path();
            EXPECT_NE(a.rel_path().find(std::string_view(scan->root)), 0u) << a.rel_path();  // no root in the bytes
            const std::string path = a.path();
            EXPECT_EQ(path, scan->root + "/" + std::string(a.rel_path()));
            struct stat st;
            ASSERT_EQ(::lstat(path.c_str(), &st), 0) << path;
            EXPECT_EQ(static_cast<std::uint64_t>(st.st_ino), a.ino) << path;
            joined.insert(path);
        }
        EXPECT_EQ(joined, listed) << fixture;
        for (const Group& g : scan->groups) {
            EXPECT_EQ(g.root, &scan->storage->root);
            const std::string path = g.path();
            EXPECT_EQ(path, scan->root + "/" + std::string(g.rel_path()));
            // A module group is named by its key ("cu/<key>"), its files by the key and an extension.
            if (g.kind != GroupKind::module) {
                EXPECT_TRUE(fs::exists(fs::symlink_status(path))) << path;
            }
            for (auto i : g.artifacts) {  // a group's members are beneath its dir, or beside its name
                const std::string member = scan->artifacts[i].path();
                EXPECT_TRUE(member == path || member.starts_with(path.substr(0, path.rfind('/') + 1))) << member;
            }
        }
    }
}

TEST(ScanStorage, StreamedArtifactsAreWholeDuringTheirCallback) {
    auto kept = scan_cache(test::h100_root());
    ASSERT_TRUE(kept.ok());
    std::map<std::string, std::string> key_of;  // rel -> key, from the kept scan
    for (const Artifact& a : kept->artifacts) key_of[std::string(a.rel_path())] = a.key();

    std::size_t seen = 0;
    ScanOptions opt;
    opt.keep_artifacts = false;
    opt.on_artifact = [&](const Artifact& a) {
        ++seen;
        const std::string path(a.path()), rel(a.rel_path());
        EXPECT_EQ(path, kept->root + "/" + rel);
        struct stat st;
        EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;  // the path names the file itself
        EXPECT_EQ(static_cast<std::uint64_t>(st.st_ino), a.ino) << path;
        auto it = key_of.find(rel);
        ASSERT_NE(it, key_of.end()) << rel;
        EXPECT_EQ(a.key(), it->second) << rel;
    };
    auto streamed = scan_cache(test::h100_root(), opt);
    ASSERT_TRUE(streamed.ok());
    EXPECT_EQ(seen, kept->artifacts.size());
    // Groups outlive the walk in a streaming scan too: their paths are in its storage.
    ASSERT_EQ(streamed->groups.size(), kept->groups.size());
    for (std::size_t i = 0; i < kept->groups.size(); ++i) {
        EXPECT_EQ(streamed->groups[i].path(), kept->groups[i].path());
        EXPECT_EQ(streamed->groups[i].key, kept->groups[i].key);
    }
}

TEST(ScanStorage, OwnedArtifactsKeepStreamedFilesPastTheCallback) {
    std::vector<OwnedArtifact> owned;  // grows while the scan runs: the owned strings move
    std::vector<std::pair<std::string, std::string>> expected;
    ScanOptions opt;
    opt.keep_artifacts = false;
    opt.on_artifact = [&](const Artifact& a) {
        owned.emplace_back(a);
        expected.emplace_back(a.path(), a.key());
    };
    auto streamed = scan_cache(test::h100_root(), opt);
    ASSERT_TRUE(streamed.ok());
    ASSERT_EQ(owned.size(), expected.size());
    for (std::size_t i = 0; i < owned.size(); ++i) {
        const Artifact a = owned[i].get();
        EXPECT_EQ(a.path(), expected[i].first);
        EXPECT_EQ(a.key(), expected[i].second);
    }
    // Short paths live inside the std::string (SSO) and move with it: get() still views the right bytes.
    const std::string short_root = "/r";
    Artifact a;
    a.set_path(&short_root, "fx/k");
    a.set_key("k");
    std::vector<OwnedArtifact> few;
    for (int i = 0; i < 20; ++i) few.emplace_back(a);
    for (const auto& o : few) {
        EXPECT_EQ(o.get().path(), "/r/fx/k");
        EXPECT_EQ(o.get().key(), "k");
    }
}

TEST(ScanStorage, KeysAreFoundInTheRelativePathOrLeftEmpty) {
    const std::string root = "/root";
    Artifact a;
    a.set_path(&root, "fxgraph/ab/fkey123/entry");
    a.set_key(a.rel_path().substr(11, 7));  // a view into the path: its place is kept
    EXPECT_EQ(a.key(), "fkey123");
    a.set_key("entry");  // equal bytes elsewhere: found in the relative path
    EXPECT_EQ(a.key(), "entry");
    a.set_key("nowhere");
    EXPECT_EQ(a.key(), "");
}

// A guard, not the demonstration (bench/scale's gui_open measures the memory): an Artifact stays
// within 64 bytes plus its path bytes.
TEST(ScanStorage, AnArtifactIsAtMost64Bytes) { EXPECT_LE(sizeof(Artifact), 64u); }

}  // namespace
}  // namespace kiln::inductor

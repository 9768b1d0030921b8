// unpack writes what load_cache_artifacts writes (checked against the fixture caches torch wrote),
// safely; pack builds blobs that read back to the root's own files; diff compares the two.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <set>

#include "blob_craft.hpp"
#include "bundle/blob.hpp"
#include "bundle/blob_writer.hpp"
#include "bundle/diff.hpp"
#include "bundle/pack.hpp"
#include "bundle/unpack.hpp"
#include "bundle_fixtures.hpp"
#include "opened_dir.hpp"

namespace kiln::bundle {
namespace {

namespace fs = std::filesystem;
namespace craft = test::craft;

std::set<std::string> files_under(const fs::path& root) {
    std::set<std::string> out;
    for (auto& e : fs::recursive_directory_iterator(root))
        if (e.is_regular_file()) out.insert(fs::relative(e.path(), root).string());
    return out;
}

Blob must_open(const fs::path& p) {
    auto b = open_blob(p);
    EXPECT_TRUE(b.ok()) << b.error().str();
    return std::move(b).value();
}

TEST(Unpack, H200BlobGivesTheFixtureFilesByteForByte) {
    test::ScratchDir dir("unpack-h200");
    Blob blob = must_open(test::h200_blob());
    auto r = unpack_blob(blob, (dir.path() / "root").string(), {});
    ASSERT_TRUE(r.ok()) << r.error().str();
    EXPECT_EQ(r->files_written, 10u);  // 11 artifacts, one best_config superseded
    auto files = files_under(dir.path() / "root");
    EXPECT_EQ(files.size(), 10u);
    for (const auto& f : files)
        EXPECT_EQ(test::read_file(dir.path() / "root" / f), test::read_file(test::h100_h200_root() / f)) << f;
    // Again: every file is already there with the same bytes; nothing is written.
    auto again = unpack_blob(blob, (dir.path() / "root").string(), {});
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->files_written, 0u);
    for (const auto& s : again->steps) EXPECT_EQ(s.action, UnpackAction::same);
}

TEST(Unpack, PgoBlobWritesTheProfileAndItsLockLikeTorch) {
    test::ScratchDir dir("unpack-pgo");
    auto r = unpack_blob(must_open(test::pgo_blob()), dir.path().string(), {});
    ASSERT_TRUE(r.ok()) << r.error().str();
    auto files = files_under(dir.path());
    EXPECT_EQ(files.size(), 5u);
    EXPECT_TRUE(files.count("dynamo/code_state_kiln-dev-job_None_.pkl.lock"));
    EXPECT_EQ(fs::file_size(dir.path() / "dynamo/code_state_kiln-dev-job_None_.pkl.lock"), 0u);
    for (const auto& f : files) EXPECT_EQ(test::read_file(dir.path() / f), test::read_file(test::pgo_root() / f)) << f;
}

TEST(Unpack, DryRunWritesNothing) {
    test::ScratchDir dir("unpack-dry");
    UnpackOptions o;
    o.dry_run = true;
    auto r = unpack_blob(must_open(test::pgo_blob()), (dir.path() / "new").string(), o);
    ASSERT_TRUE(r.ok()) << r.error().str();
    EXPECT_EQ(r->files_written, 5u);
    EXPECT_FALSE(fs::exists(dir.path() / "new"));
}

TEST(Unpack, NeverOverwritesOtherBytesWithoutForce) {
    test::ScratchDir dir("unpack-conflict");
    Blob blob = must_open(test::pgo_blob());
    const std::string target = "cu/8a6e004d059faa86f042c57db31bc918aa7506a6f07d9c5a7f991603e1b728cb.best_config";
    fs::create_directories(dir.path() / "cu");
    craft::write(dir.path() / target, "{\"mine\": true}");
    auto refused = unpack_blob(blob, dir.path().string(), {});
    ASSERT_TRUE(refused.ok());
    EXPECT_TRUE(refused->refused);
    EXPECT_EQ(refused->conflicts(), 1u);
    EXPECT_EQ(files_under(dir.path()).size(), 1u);  // all or nothing
    EXPECT_EQ(test::read_file(dir.path() / target), "{\"mine\": true}");
    UnpackOptions force;
    force.force = true;
    auto forced = unpack_blob(blob, dir.path().string(), force);
    ASSERT_TRUE(forced.ok());
    EXPECT_FALSE(forced->refused);
    EXPECT_EQ(test::read_file(dir.path() / target), test::read_file(test::pgo_root() / target));
}

TEST(Unpack, SymlinksInTheRootAreNeverFollowed) {
    test::ScratchDir dir("unpack-symlink");
    fs::create_directories(dir.path() / "root");
    fs::create_directories(dir.path() / "outside");
    fs::create_directory_symlink(dir.path() / "outside", dir.path() / "root" / "fxgraph");
    for (bool force : {false, true}) {
        UnpackOptions o;
        o.force = force;
        auto r = unpack_blob(must_open(test::pgo_blob()), (dir.path() / "root").string(), o);
        ASSERT_TRUE(r.ok()) << r.error().str();
        EXPECT_TRUE(r->refused);
        EXPECT_TRUE(fs::is_empty(dir.path() / "outside"));
    }
    // A symlink where a file goes: a conflict even with force (never written through, never replaced).
    const std::string tune = "cu/8a6e004d059faa86f042c57db31bc918aa7506a6f07d9c5a7f991603e1b728cb.best_config";
    fs::remove(dir.path() / "root" / "fxgraph");
    fs::create_directories(dir.path() / "root" / "cu");
    craft::write(dir.path() / "outside" / "victim", "keep");
    fs::create_symlink(dir.path() / "outside" / "victim", dir.path() / "root" / tune);
    UnpackOptions force;
    force.force = true;
    auto r = unpack_blob(must_open(test::pgo_blob()), (dir.path() / "root").string(), force);
    ASSERT_TRUE(r.ok()) << r.error().str();
    EXPECT_TRUE(r->refused);
    EXPECT_EQ(test::read_file(dir.path() / "outside" / "victim"), "keep");
}

TEST(Unpack, HostileKeysAndUnknownTypesAreRefused) {
    test::ScratchDir dir("unpack-hostile");
    auto hostile =
        read_blob(pickle::own_bytes(craft::blob(craft::group("autotune", {{"../esc.best_config", "{}"}})), "h.bin"));
    ASSERT_TRUE(hostile.ok());
    auto r = unpack_blob(*hostile, (dir.path() / "root").string(), {});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("../esc.best_config"), std::string::npos);
    EXPECT_FALSE(fs::exists(dir.path() / "esc.best_config"));
    auto bogus = read_blob(pickle::own_bytes(
        craft::blob(craft::group("bogus", {{"k", "v"}}) + craft::group("autotune", {{craft::kTune, "{}"}})), "b.bin"));
    ASSERT_TRUE(bogus.ok());
    auto rejected = unpack_blob(*bogus, (dir.path() / "root").string(), {});
    ASSERT_FALSE(rejected.ok());
    EXPECT_NE(rejected.error().message.find("rejects"), std::string::npos);
    UnpackOptions o;
    o.ignore_unknown = true;
    auto rest = unpack_blob(*bogus, (dir.path() / "root").string(), o);
    ASSERT_TRUE(rest.ok());
    EXPECT_EQ(files_under(dir.path() / "root"), std::set<std::string>{craft::kTune});
}

TEST(Unpack, OnlyTheLastGroupOfATypeIsWrittenLikeTorch) {
    test::ScratchDir dir("unpack-dup");
    std::string a = "zz/" + std::string(64, 'a') + ".best_config", b = "zz/" + std::string(64, 'b') + ".best_config";
    auto blob = read_blob(
        pickle::own_bytes(craft::blob(craft::group("autotune", {{a, "A"}}) + craft::group("pgo", {{"x", "p"}}) +
                                      craft::group("autotune", {{b, "B"}})),
                          "d.bin"));
    ASSERT_TRUE(blob.ok());
    auto r = unpack_blob(*blob, dir.path().string(), {});
    ASSERT_TRUE(r.ok()) << r.error().str();
    // What torch 2.11 wrote for this blob on the device machine (research notes §1.3).
    EXPECT_EQ(files_under(dir.path()),
              (std::set<std::string>{b, "dynamo/code_state_x.pkl", "dynamo/code_state_x.pkl.lock"}));
}

TEST(Writer, RebuildsTorchsBlobsByteForByte) {
    for (const auto& path : {test::h200_blob(), test::pgo_blob()}) {
        Blob blob = must_open(path);
        std::vector<OutGroup> groups;
        for (const auto& g : blob.groups) {
            groups.push_back({g.kind, {}});
            for (std::size_t i = 0; i < g.count; ++i)
                groups.back().artifacts.push_back(
                    {blob.artifacts[g.first + i].key, blob.artifacts[g.first + i].content});
        }
        auto rebuilt = build_blob(groups);
        ASSERT_TRUE(rebuilt.ok()) << rebuilt.error().str();
        EXPECT_TRUE(*rebuilt == blob.bytes()) << path;
    }
    EXPECT_FALSE(build_blob({{ArtifactType::autotune, {}}, {ArtifactType::autotune, {}}}).ok());
    EXPECT_FALSE(build_blob({{ArtifactType::autotune, {{"../x", "{}"}}}}).ok());
}

TEST(Pack, RootRoundTripsThroughUnpack) {
    test::ScratchDir dir("pack-roundtrip");
    PackOptions o;
    o.include_pgo = true;
    auto packed = pack_root(kiln::test::open_dir(test::pgo_root()), o);
    ASSERT_TRUE(packed.ok()) << packed.error().str();
    EXPECT_EQ(packed->artifacts.size(), 7u);  // 2 fxgraph, 2 aotautograd, 2 best_config, 1 PGO profile
    auto again = pack_root(kiln::test::open_dir(test::pgo_root()), o);
    ASSERT_TRUE(again.ok());
    EXPECT_TRUE(again->blob == packed->blob);  // deterministic
    auto blob = read_blob(pickle::own_bytes(packed->blob, "packed.bin"));
    ASSERT_TRUE(blob.ok()) << blob.error().str();
    std::vector<std::string> types;
    for (const auto& g : blob->groups) types.push_back(g.type);
    EXPECT_EQ(types, (std::vector<std::string>{"aot_autograd", "inductor", "autotune", "pgo"}));
    auto r = unpack_blob(*blob, dir.path().string(), {});
    ASSERT_TRUE(r.ok()) << r.error().str();
    // torch's file names are the content hashes, so the unpacked tree is the root's own files.
    for (const auto& f : files_under(dir.path()))
        EXPECT_EQ(test::read_file(dir.path() / f), test::read_file(test::pgo_root() / f)) << f;
    EXPECT_EQ(files_under(dir.path()).size(), 8u);  // and the PGO lock
}

TEST(Pack, PgoOnlyWhenAskedAndSelectionAddsTheClosure) {
    auto plain = pack_root(kiln::test::open_dir(test::pgo_root()), {});
    ASSERT_TRUE(plain.ok());
    for (const auto& a : plain->artifacts) EXPECT_NE(a.type, ArtifactType::pgo);
    EXPECT_FALSE(plain->notes.empty());
    PackOptions o;
    o.select = {"alnhssopd435b6"};  // an AOTAutograd key of the H200 run: its forward and backward graphs come along
    auto sel = pack_root(kiln::test::open_dir(test::h100_h200_root()), o);
    ASSERT_TRUE(sel.ok()) << sel.error().str();
    std::set<std::string> keys;
    for (const auto& a : sel->artifacts) keys.insert(a.key + (a.closure_of.empty() ? "" : "+closure"));
    EXPECT_EQ(keys, (std::set<std::string>{"alnhssopd435b6ssoo4nodqy52k6t6bg4qk6id3bwgdvzzlob4ew",
                                           "fnoemmrzwpbfgqmvag6ytfb6u3okm2ojzfb6h6ia32xpla7w6xl6+closure",
                                           "fmpicp4a6d2ty3pb5dhbtenswnssbsgbclq3fcwimmj4uiqklhxh+closure"}));
    o.select = {"kiln-dev-job:None:"};  // a PGO profile by its original key
    auto pgo = pack_root(kiln::test::open_dir(test::pgo_root()), o);
    ASSERT_TRUE(pgo.ok()) << pgo.error().str();
    ASSERT_EQ(pgo->artifacts.size(), 1u);
    EXPECT_EQ(pgo->artifacts[0].type, ArtifactType::pgo);
    o.select = {"fnothere"};
    EXPECT_EQ(pack_root(kiln::test::open_dir(test::pgo_root()), o).error().code, Errc::invalid_argument);
    o.select = {"f"};
    EXPECT_FALSE(pack_root(kiln::test::open_dir(test::pgo_root()), o).ok());
}

TEST(Pack, SinceAgeOrDate) {
    std::int64_t now = 2000000000LL * 1000000000LL;
    EXPECT_EQ(*parse_since("2h", now), now - 7200LL * 1000000000LL);
    EXPECT_EQ(*parse_since("2026-11-26", now), 1795651200LL * 1000000000LL);
    EXPECT_EQ(*parse_since("2026-11-26T09:30:00Z", now), (1795651200LL + 9 * 3600 + 1800) * 1000000000LL);
    EXPECT_EQ(*parse_since("2026-11-26 09:30", now), (1795651200LL + 9 * 3600 + 1800) * 1000000000LL);
    EXPECT_FALSE(parse_since("2026-13-01", now).ok());
    EXPECT_FALSE(parse_since("2026-11-26T9:30", now).ok());
    EXPECT_FALSE(parse_since("yesterday", now).ok());
    PackOptions o;
    o.since_ns = now;  // the future: nothing
    EXPECT_EQ(pack_root(kiln::test::open_dir(test::pgo_root()), o).error().code, Errc::not_found);
}

TEST(Diff, BlobAgainstTheRootItCameFrom) {
    auto d = diff_bundles(test::h200_blob().string(), test::h100_h200_root().string());
    ASSERT_TRUE(d.ok()) << d.error().str();
    EXPECT_EQ(d->count(DiffStatus::same), 10u);  // 4 aot, 5 inductor, 1 best_config (the copy torch keeps)
    EXPECT_EQ(d->count(DiffStatus::only_a), 0u);
    EXPECT_EQ(d->count(DiffStatus::differ), 0u);
    EXPECT_GT(d->count(DiffStatus::only_b), 0u);
    // The blob's PGO key "kiln-dev-job:None:" is the root's code_state_kiln-dev-job_None_.pkl.
    auto pgo = diff_bundles(test::pgo_blob().string(), test::pgo_root().string());
    ASSERT_TRUE(pgo.ok()) << pgo.error().str();
    EXPECT_EQ(pgo->count(DiffStatus::same), 4u);
    EXPECT_EQ(pgo->count(DiffStatus::only_a), 0u);
    EXPECT_EQ(pgo->count(DiffStatus::only_b), 3u);
    auto self = diff_bundles(test::pgo_blob().string(), test::pgo_blob().string());
    ASSERT_TRUE(self.ok());
    EXPECT_EQ(self->count(DiffStatus::same), self->keys.size());
}

TEST(Diff, DifferentBytesUnderOneKey) {
    test::ScratchDir dir("diff-bytes");
    std::string k = "zz/" + std::string(64, 'c') + ".best_config";
    craft::write(dir.path() / "a.bin", craft::blob(craft::group("autotune", {{k, "{\"x\": 1}"}}) +
                                                   craft::group("inductor", {{craft::kFx, "one"}})));
    craft::write(dir.path() / "b.bin",
                 craft::blob(craft::group("autotune", {{k, "{\"x\": 2}"}}) +
                             craft::group("inductor", {{craft::kFx, "one"}, {craft::kFx, "two"}})));
    auto d = diff_bundles((dir.path() / "a.bin").string(), (dir.path() / "b.bin").string());
    ASSERT_TRUE(d.ok()) << d.error().str();
    ASSERT_EQ(d->keys.size(), 2u);
    EXPECT_EQ(d->keys[0].type, ArtifactType::inductor);  // blob order: inductor before autotune
    EXPECT_EQ(d->keys[0].status, DiffStatus::differ);    // a second guard set on one side
    EXPECT_EQ(d->keys[0].b.size(), 2u);
    EXPECT_EQ(d->keys[1].status, DiffStatus::differ);
}

}  // namespace
}  // namespace kiln::bundle

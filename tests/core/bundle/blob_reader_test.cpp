// The blob reader on torch's own blobs (the fixtures) and on broken and hostile ones.
#include <gtest/gtest.h>

#include "atime_check.hpp"
#include "blob_craft.hpp"
#include "bundle/blob.hpp"
#include "bundle_fixtures.hpp"
#include "hash/sha256.hpp"

namespace kiln::bundle {
namespace {

namespace craft = test::craft;

// A Buffer viewing bytes the test owns (no copy per truncated variant).
class ViewBuffer final : public pickle::Buffer {
public:
    explicit ViewBuffer(std::string_view b) : Buffer("test.bin"), b_(b) {}
    std::string_view bytes() const override { return b_; }

private:
    std::string_view b_;
};
Result<Blob> read_view(std::string_view b, ReadOptions o = {}) { return read_blob(std::make_shared<ViewBuffer>(b), o); }
Result<Blob> read_copy(std::string b) { return read_blob(pickle::own_bytes(std::move(b), "test.bin")); }

void expect_matches_torch(const Blob& blob, const std::filesystem::path& run_json) {
    auto info = test::torch_cache_info(run_json);
    ASSERT_FALSE(info.empty());
    std::vector<std::pair<std::string, std::vector<std::string>>> ours;
    for (const auto& g : blob.groups) {
        ours.push_back({g.type, {}});
        for (std::size_t i = 0; i < g.count; ++i) ours.back().second.push_back(blob.artifacts[g.first + i].key);
    }
    EXPECT_EQ(ours, info);
}

TEST(BlobReader, H200FixtureListsWhatTorchSaved) {
    auto blob = open_blob(test::h200_blob());
    ASSERT_TRUE(blob.ok()) << blob.error().str();
    EXPECT_TRUE(blob->checksum_ok());
    EXPECT_EQ(blob->stored_crc, 0xe5918990u);
    EXPECT_EQ(blob->version, 1u);
    expect_matches_torch(*blob, test::fixture_dir() / "h100h200/h200/run_mega.json");
    ASSERT_EQ(blob->artifacts.size(), 11u);
    // Every graph's bytes are the fixture cache's file of the same name: the target torch writes.
    for (const auto& a : blob->artifacts) {
        EXPECT_TRUE(a.key_problem.empty()) << a.key;
        ASSERT_FALSE(a.target.empty());
        if (a.superseded) continue;
        EXPECT_EQ(test::read_file(test::h100_h200_root() / a.target), a.content) << a.target;
    }
    // The same best_config key twice: the first is superseded, the second (the file on disk) wins.
    EXPECT_TRUE(blob->artifacts[9].superseded);
    EXPECT_FALSE(blob->artifacts[10].superseded);
    EXPECT_EQ(blob->artifacts[9].key, blob->artifacts[10].key);
    EXPECT_TRUE(blob->unknown_types().empty());
}

TEST(BlobReader, PgoFixtureListsWhatTorchSaved) {
    auto blob = open_blob(test::pgo_blob());
    ASSERT_TRUE(blob.ok()) << blob.error().str();
    expect_matches_torch(*blob, test::fixture_dir() / "pgo/run_mega.json");
    EXPECT_EQ(blob->artifacts[0].kind, ArtifactType::pgo);
    EXPECT_EQ(blob->artifacts[0].target, "dynamo/code_state_kiln-dev-job_None_.pkl");
    EXPECT_EQ(test::read_file(test::pgo_root() / blob->artifacts[0].target), blob->artifacts[0].content);
}

TEST(BlobReader, ContentsAreViewsIntoOneBuffer) {
    auto blob = open_blob(test::h200_blob());
    ASSERT_TRUE(blob.ok());
    const char* begin = blob->bytes().data();
    for (const auto& a : blob->artifacts) {
        EXPECT_GE(a.content.data(), begin);
        EXPECT_LE(a.content.data() + a.content.size(), begin + blob->bytes().size());
        EXPECT_EQ(blob->bytes().substr(a.content_offset, a.content.size()), a.content);
    }
}

TEST(BlobReader, TruncatedAtEvery4KiBIsAnErrorNamingTheOffset) {
    std::string bytes = test::read_file(test::h200_blob());
    std::size_t checked = 0;
    for (std::size_t cut = 0; cut < bytes.size(); cut += 4096, ++checked) {
        auto r = read_view(std::string_view(bytes).substr(0, cut));
        ASSERT_FALSE(r.ok()) << "cut at " << cut;
        EXPECT_EQ(r.error().code, Errc::parse) << r.error().str();
        EXPECT_NE(r.error().context.find("test.bin: byte "), std::string::npos) << r.error().str();
        if (cut >= 12) {
            EXPECT_NE(r.error().message.find("truncated"), std::string::npos) << r.error().str();
        }
    }
    EXPECT_GT(checked, 4000u);
}

TEST(BlobReader, EverySingleBitFlipIsRejected) {
    std::string good = test::read_file(test::pgo_blob());
    auto flip_rejected = [&](std::size_t byte, int bit) {
        std::string b = good;
        b[byte] = static_cast<char>(b[byte] ^ (1 << bit));
        auto r = read_copy(b);
        EXPECT_FALSE(r.ok()) << "flip at byte " << byte << " bit " << bit;
        if (!r.ok()) {
            EXPECT_FALSE(r.error().str().empty());
        }
    };
    // Every bit of the header and the first group's framing, then one bit every 4 KiB of content.
    for (std::size_t i = 0; i < 96; ++i)
        for (int bit = 0; bit < 8; ++bit) flip_rejected(i, bit);
    for (std::size_t i = 96; i < good.size(); i += 4096) flip_rejected(i, static_cast<int>(i % 8));
    // A content flip keeps the framing valid: the checksum is what catches it, and says so.
    std::string b = good;
    b[5000] ^= 1;
    auto r = read_copy(b);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("checksum mismatch"), std::string::npos) << r.error().str();
    EXPECT_EQ(r.error().context, "test.bin: byte 0");
    ReadOptions lenient;
    lenient.verify_checksum = false;
    auto listed = read_view(b, lenient);
    ASSERT_TRUE(listed.ok());
    EXPECT_FALSE(listed->checksum_ok());
    EXPECT_EQ(listed->artifacts.size(), 4u);
}

TEST(BlobReader, HeaderErrors) {
    EXPECT_NE(read_copy("abc").error().message.find("too short"), std::string::npos);
    EXPECT_NE(read_copy("abcd1234").error().message.find("truncated: the format version"), std::string::npos);
    auto v2 = read_copy(craft::blob("", 2));
    ASSERT_FALSE(v2.ok());
    EXPECT_EQ(v2.error().code, Errc::unsupported);
    EXPECT_NE(v2.error().message.find("version 2"), std::string::npos);
    EXPECT_NE(v2.error().context.find("byte 4"), std::string::npos);
    std::string junk(64, 'x');
    auto not_blob = read_copy(junk);
    ASSERT_FALSE(not_blob.ok());
    EXPECT_NE(not_blob.error().message.find("not a Mega-Cache blob"), std::string::npos);
    // standalone_compile's binary format has the same checksum frame but another header.
    std::string standalone = craft::u64(21) + "CacheCompiledArtifact" + craft::bytes(std::string(32, 'k'));
    std::uint32_t c = craft::crc32(standalone);
    standalone = std::string{char(c >> 24), char(c >> 16), char(c >> 8), char(c)} + standalone;
    EXPECT_NE(read_copy(standalone).error().message.find("standalone_compile"), std::string::npos);
    // The empty blob (no groups) is legal: torch loads nothing from it.
    auto empty = read_copy(craft::blob(""));
    ASSERT_TRUE(empty.ok()) << empty.error().str();
    EXPECT_TRUE(empty->artifacts.empty());
}

TEST(BlobReader, LengthsPastTheEndWithAValidChecksumAreErrorsNotLoops) {
    // torch's reader slices past the end and never finishes on these (its loop waits for len == pos).
    std::string key_past = craft::str("inductor") + craft::u64(1) + craft::u64(1000) + std::string(20, 'a');
    auto r = read_copy(craft::blob(key_past));
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("claims 1000 bytes"), std::string::npos) << r.error().str();
    EXPECT_EQ(r.error().context, "test.bin: byte 40");  // the key length field of the first artifact
    std::string content_past =
        craft::str("inductor") + craft::u64(1) + craft::str(craft::kFx) + craft::u64(UINT64_MAX) + "x";
    EXPECT_NE(read_copy(craft::blob(content_past)).error().message.find("truncated"), std::string::npos);
    std::string count_huge = craft::str("inductor") + craft::u64(UINT64_MAX / 2);
    EXPECT_NE(read_copy(craft::blob(count_huge)).error().message.find("claims"), std::string::npos);
    std::string trailing = craft::group("autotune", {{craft::kTune, "{}"}}) + "xyz";
    auto t = read_copy(craft::blob(trailing));
    ASSERT_FALSE(t.ok());
    EXPECT_NE(t.error().message.find("3 left"), std::string::npos) << t.error().str();
}

TEST(BlobReader, StringsAreStrictBase64OfUtf8) {
    std::string bad_chars = craft::bytes("aW5k!!!!") + craft::u64(0);
    EXPECT_NE(read_copy(craft::blob(bad_chars)).error().message.find("not valid base64"), std::string::npos);
    std::string bad_pad = craft::bytes("aW5kdWN0b3I") + craft::u64(0);  // 11 characters
    EXPECT_NE(read_copy(craft::blob(bad_pad)).error().message.find("not valid base64"), std::string::npos);
    std::string latin1 = craft::str("autotune") + craft::u64(1) + craft::str("\xff\xfe") + craft::bytes("{}");
    EXPECT_NE(read_copy(craft::blob(latin1)).error().message.find("not UTF-8"), std::string::npos);
    std::string long_key = craft::str("pgo") + craft::u64(1) + craft::str(std::string(5000, 'k')) + craft::bytes("");
    EXPECT_NE(read_copy(craft::blob(long_key)).error().message.find("at most 4096"), std::string::npos);
}

TEST(BlobReader, DuplicateGroupsUnknownTypesAndHostileKeysAreFlagged) {
    std::string body =
        craft::group("autotune", {{"zz/" + std::string(64, 'a') + ".best_config", "{\"a\": 1}"}}) +
        craft::group("pgo", {{"x", "p"}}) +
        craft::group("autotune", {{"zz/" + std::string(64, 'b') + ".best_config", "{\"b\": 1}"}}) +
        craft::group("bogus", {{"k", "v"}}) + craft::group("aot_autograd", {{"../../x", "c"}, {"/etc/passwd", "c"}}) +
        craft::group("precompile", {{"../" + std::string(61, '0'), "c"}}) +
        craft::group("inductor", {{"f../../../../../../../../../../../../../../../../../../../..", "c"}}) +
        craft::group("pgo", {{std::string("a\0b", 3), "p"}, {"j/k:0:", "q"}}) + craft::group("inductor", {});
    auto blob = read_copy(craft::blob(body));
    ASSERT_TRUE(blob.ok()) << blob.error().str();
    ASSERT_EQ(blob->groups.size(), 9u);
    EXPECT_TRUE(blob->groups[0].ignored_by_torch);  // autotune[a]: a later autotune group replaces it
    EXPECT_TRUE(blob->groups[1].ignored_by_torch);  // pgo[x]: shadowed by the later pgo group
    EXPECT_FALSE(blob->groups[2].ignored_by_torch);
    EXPECT_TRUE(blob->groups[6].ignored_by_torch);  // inductor: the empty group at the end wins
    EXPECT_EQ(blob->unknown_types(), std::vector<std::string>{"bogus"});
    EXPECT_EQ(blob->invalid_keys(), 5u);  // ../../x, /etc/passwd, ../0…, f../.., "a\0b"
    for (const auto& a : blob->artifacts)
        if (!a.key_problem.empty()) {
            EXPECT_TRUE(a.target.empty()) << a.key;
        }
    EXPECT_EQ(blob->artifacts.back().target, "dynamo/code_state_j_k_0_.pkl");  // torch's sanitized name
    EXPECT_TRUE(blob->artifacts.back().effective());
}

// Issue 42: sniffing whether a file is a blob (every `open_cache` of a file, `show`, `timings`) opened it
// without O_NOATIME; it now reads the head as every input is read, leaving the atime alone.
TEST(BlobReader, SniffingABlobLeavesItsAtimeAlone) {
    test::ScratchDir dir("blob-sniff-atime");
    const std::filesystem::path copy = dir.path() / "blob.bin";
    std::filesystem::copy_file(test::h200_blob(), copy);
    ASSERT_TRUE(test::set_old_atimes(copy));
    ASSERT_TRUE(test::plain_read_moves_atime(copy)) << "this file system does not update atimes on read";
    EXPECT_TRUE(is_blob_file(copy));
    EXPECT_TRUE(test::moved_atimes(copy).empty());
}

}  // namespace
}  // namespace kiln::bundle

// The cache-hit simulator on real key dirs: torch's lookup order, hits without guards, ambiguity.
#include <gtest/gtest.h>

#include <fstream>

#include "inductor/guard_lookup.hpp"
#include "test_support.hpp"

namespace {

using namespace kiln::inductor;
namespace fs = std::filesystem;

const char* kBounded = "deg4ivyb4kcgy5eslbjybulmyzbjan4oasgg56equm4f3dzcmga";
const char* kUnbounded = "naiolsaiywonfvjqzuuystkn5qe7virsv3d3rgkz7xkb52e6pb5";

fs::path two_key_dir() {
    return kiln::test::two_entries_root() / "fxgraph" / "sb" / "fsbnatbp6m2keoozno6te7auv6dbw22iozfrx4joxfgl6rn734eh";
}

TEST(GuardLookup, TwoEntriesSmallSizeServesBoundedAndSaysBothHold) {
    std::vector<std::int64_t> sizes{1000};
    auto r = lookup_guards(two_key_dir(), sizes);
    ASSERT_TRUE(r.ok()) << r.error().str();
    ASSERT_EQ(r->entries.size(), 2u);
    EXPECT_EQ(r->entries[0].file, kBounded);
    EXPECT_EQ(r->entries[1].file, kUnbounded);
    EXPECT_EQ(*r->entries[0].guards_expr, "2 <= L['t0'] and L['t0'] <= 2147483647");
    EXPECT_TRUE(r->entries[0].pass);
    EXPECT_TRUE(r->entries[1].pass);
    EXPECT_EQ(r->served, std::optional<std::string>(kBounded));
    EXPECT_TRUE(r->ambiguous);
}

TEST(GuardLookup, TwoEntriesHugeSizeServesTheOther) {
    std::vector<std::int64_t> sizes{2147483664};
    auto r = lookup_guards(two_key_dir(), sizes);
    ASSERT_TRUE(r.ok()) << r.error().str();
    EXPECT_FALSE(r->entries[0].pass);
    EXPECT_EQ(*r->entries[0].failing, "L['t0'] <= 2147483647 (L['t0'] = 2147483664)");
    EXPECT_TRUE(r->entries[1].pass);
    EXPECT_EQ(r->served, std::optional<std::string>(kUnbounded));
    EXPECT_FALSE(r->ambiguous);
}

TEST(GuardLookup, NoEntryHolds) {
    std::vector<std::int64_t> sizes{1};
    auto r = lookup_guards(two_key_dir(), sizes);
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r->served.has_value());
    EXPECT_EQ(*r->entries[1].failing, "2 <= L['t0'] (L['t0'] = 1)");
}

TEST(GuardLookup, EntryWithoutGuardsIsAHitAndDotNamesAreSkipped) {
    // fpcye2sb... has guards_expr None (golden.json): a hit for any sizes.
    fs::path src = kiln::test::h100_root() / "fxgraph" / "pc" / "fpcye2sboffhsdw2klzl7dravdgn3qctsmfkisehk733aaz7atbd";
    kiln::test::ScratchDir dir("guard_lookup");
    fs::copy(src, dir.path() / "k");
    std::ofstream(dir.path() / "k" / ".12.34.tmp") << "partial write";
    auto r = lookup_guards(dir.path() / "k", std::vector<std::int64_t>{});
    ASSERT_TRUE(r.ok()) << r.error().str();
    ASSERT_EQ(r->entries.size(), 1u);
    EXPECT_FALSE(r->entries[0].guards_expr.has_value());
    EXPECT_TRUE(r->entries[0].pass);
    EXPECT_EQ(r->served, r->entries[0].file);
}

TEST(GuardLookup, SingleEntryFileAndErrors) {
    auto one = lookup_guards(two_key_dir() / kUnbounded, std::vector<std::int64_t>{5});
    ASSERT_TRUE(one.ok());
    EXPECT_EQ(one->entries.size(), 1u);
    auto few = lookup_guards(two_key_dir(), std::vector<std::int64_t>{});
    ASSERT_FALSE(few.ok());
    EXPECT_EQ(few.error().code, kiln::Errc::not_found);
    EXPECT_NE(few.error().str().find(kBounded), std::string::npos);
    EXPECT_NE(few.error().message.find("missing symbol L['t0']"), std::string::npos);
    auto none = lookup_guards(two_key_dir() / "nope", std::vector<std::int64_t>{5});
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.error().code, kiln::Errc::not_found);
    kiln::test::ScratchDir empty("guard_lookup_empty");
    auto e = lookup_guards(empty.path(), std::vector<std::int64_t>{5});
    ASSERT_FALSE(e.ok());
    EXPECT_NE(e.error().message.find("no cache entries"), std::string::npos);
}

// A corrupt entry is skipped, as torch skips what it cannot load (issue 16): reported, never served.
// Given alone, it is an error naming the file.
TEST(GuardLookup, CorruptEntryIsSkippedAndReported) {
    kiln::test::ScratchDir dir("guard_lookup_corrupt");
    std::ofstream(dir.path() / "aaaa", std::ios::binary) << std::string("\x80\x04\x95garbage", 10);
    auto r = lookup_guards(dir.path(), std::vector<std::int64_t>{5});
    ASSERT_TRUE(r.ok()) << r.error().str();
    ASSERT_EQ(r->entries.size(), 1u);
    ASSERT_TRUE(r->entries[0].error.has_value());
    EXPECT_FALSE(r->entries[0].pass);
    EXPECT_FALSE(r->served.has_value());
    auto alone = lookup_guards(dir.path() / "aaaa", std::vector<std::int64_t>{5});
    ASSERT_FALSE(alone.ok());
    EXPECT_NE(alone.error().str().find("aaaa"), std::string::npos);
}

}  // namespace

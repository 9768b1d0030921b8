// Entry references: the one syntax of `kiln-cli show/guards/diff` and the GUI's Diff view, and
// the loaders behind it (local paths here; redis:// through a stand-in fetcher).
#include <gtest/gtest.h>

#include <fstream>

#include "frontend/entry_ref.hpp"
#include "frontend/exit_code.hpp"
#include "inductor/beneath_root.hpp"
#include "inductor/guard_lookup.hpp"
#include "test_support.hpp"

namespace {

using kiln::frontend::EntryRef;
namespace fs = std::filesystem;

const fs::path kKeyDir = "fxgraph/sb/fsbnatbp6m2keoozno6te7auv6dbw22iozfrx4joxfgl6rn734eh";

fs::path first_entry(const fs::path& key_dir) {
    for (const auto& e : fs::directory_iterator(key_dir))
        if (e.is_regular_file() && e.path().filename().string()[0] != '.') return e.path();
    return {};
}

std::string changed_log() { return (kiln::test::fixture_dir() / "h100/trace/changed").string(); }

TEST(EntryRef, ParsesEachForm) {
    auto remote = kiln::frontend::parse_entry_ref("redis://cache:6379/0/fabc");
    ASSERT_TRUE(remote);
    EXPECT_EQ(remote->kind, EntryRef::Kind::remote);
    auto event = kiln::frontend::parse_entry_ref(changed_log() + "#0");
    ASSERT_TRUE(event);
    EXPECT_EQ(event->kind, EntryRef::Kind::trace_event);
    EXPECT_EQ(event->path, changed_log());
    EXPECT_EQ(event->selector, "0");
    auto path = kiln::frontend::parse_entry_ref("/nowhere/a#b");  // no LOG: a path with a '#'
    ASSERT_TRUE(path);
    EXPECT_EQ(path->kind, EntryRef::Kind::path);
    auto empty = kiln::frontend::parse_entry_ref("");
    ASSERT_FALSE(empty);
    EXPECT_EQ(kiln::frontend::exit_code(empty.error()), 2);
}

TEST(EntryRef, LoadsEntriesKeyDirsAndEvents) {
    const fs::path key_dir = kiln::test::two_entries_root() / kKeyDir;
    const fs::path file = first_entry(key_dir);
    auto named = kiln::frontend::load_entry(*kiln::frontend::parse_entry_ref(file.string()));
    ASSERT_TRUE(named) << named.error().str();
    EXPECT_EQ(named->label, file.string());
    auto lookup = kiln::frontend::lookup_entry_guards(*kiln::frontend::parse_entry_ref(key_dir.string()),
                                                      std::vector<std::int64_t>{5});
    ASSERT_TRUE(lookup) << lookup.error().str();
    EXPECT_FALSE(lookup->entries.empty());
    auto side = kiln::frontend::load_key_side(*kiln::frontend::parse_entry_ref(changed_log() + "#0"));
    ASSERT_TRUE(side) << side.error().str();
    EXPECT_FALSE(side->components.empty());
    auto missing = kiln::frontend::load_entry(*kiln::frontend::parse_entry_ref("/nonexistent/entry"));
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code, kiln::Errc::not_found);
    EXPECT_EQ(kiln::frontend::exit_code(missing.error()), 2);
}

TEST(EntryRef, RemoteEntriesGoThroughTheFetcher) {
    const fs::path file = first_entry(kiln::test::two_entries_root() / kKeyDir);
    auto ref = *kiln::frontend::parse_entry_ref("redis://cache:6379/0/fkey");
    auto refused = kiln::frontend::load_entry(ref);  // a build without Redis support
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, kiln::Errc::unsupported);
    kiln::frontend::RemoteFetch fetch = [&](std::string_view url) -> kiln::Result<kiln::frontend::FetchedEntry> {
        return kiln::frontend::FetchedEntry{kiln::test::read_file(file), std::string(url) + " (origin)"};
    };
    auto named = kiln::frontend::load_entry(ref, fetch);
    ASSERT_TRUE(named) << named.error().str();
    EXPECT_EQ(named->label, "redis://cache:6379/0/fkey (origin)");
    auto lookup = kiln::frontend::lookup_entry_guards(ref, std::vector<std::int64_t>{5}, fetch);
    ASSERT_TRUE(lookup) << lookup.error().str();
    ASSERT_EQ(lookup->entries.size(), 1u);
    EXPECT_EQ(lookup->entries[0].file, "redis://cache:6379/0/fkey (origin)");
}

TEST(ExitCode, HackingsRule) {
    using kiln::Errc;
    for (Errc c : {Errc::invalid_argument, Errc::not_found, Errc::unsupported})
        EXPECT_EQ(kiln::frontend::exit_code(kiln::make_error(c, "x")), 2);
    for (Errc c : {Errc::generic, Errc::io, Errc::parse, Errc::limit, Errc::timeout, Errc::cancelled, Errc::busy,
                   Errc::external, Errc::unavailable})
        EXPECT_EQ(kiln::frontend::exit_code(kiln::make_error(c, "x")), 1);
    EXPECT_EQ(kiln::frontend::exit_code(kiln::frontend::as_bad_input(kiln::make_error(Errc::parse, "x"))), 2);
}

}  // namespace

// Issue 41.5: the key prefix `ls` prints (13 characters) names its key dir; a prefix that names
// several keys is refused naming them, one that names none says where it looked.
TEST(EntryRef, AKeyPrefixNamesTheOneKeyDirItStarts) {
    kiln::test::ScratchDir dir("entry-ref-prefix");
    const fs::path root = dir.path() / "inductor";
    fs::create_directories(root / "fxgraph/ab/fabcdefghijklmnop");
    fs::create_directories(root / "fxgraph/ab/fabcdefghijklmxyz");
    fs::create_directories(root / "aotautograd/aqrstuvwxyz234567");
    auto ref = kiln::frontend::parse_entry_ref("fabcdefghijklmn");
    ASSERT_TRUE(ref);
    EXPECT_TRUE(kiln::frontend::is_key_prefix(*ref));
    EXPECT_FALSE(kiln::frontend::is_key_prefix(*kiln::frontend::parse_entry_ref("fab/c")));
    EXPECT_FALSE(kiln::frontend::is_key_prefix(*kiln::frontend::parse_entry_ref("fab")));
    auto cache = kiln::frontend::open_cache(root);
    ASSERT_TRUE(cache) << cache.error().str();
    const kiln::inductor::OpenedRoot opened = cache->opened();
    auto one = kiln::frontend::find_key_dir(opened, "fabcdefghijklmn");
    ASSERT_TRUE(one) << one.error().str();
    EXPECT_EQ(*one, "fxgraph/ab/fabcdefghijklmnop");
    auto aot = kiln::frontend::find_key_dir(opened, "aqrstuvwxyz23");
    ASSERT_TRUE(aot) << aot.error().str();
    EXPECT_EQ(*aot, "aotautograd/aqrstuvwxyz234567");
    auto both = kiln::frontend::find_key_dir(opened, "fabcdefghijklm");
    ASSERT_FALSE(both);
    EXPECT_EQ(kiln::frontend::exit_code(both.error()), 2);
    EXPECT_NE(both.error().message.find("fabcdefghijklmnop"), std::string::npos) << both.error().str();
    EXPECT_NE(both.error().message.find("fabcdefghijklmxyz"), std::string::npos) << both.error().str();
    auto none = kiln::frontend::find_key_dir(opened, "fzzzzzzz");
    ASSERT_FALSE(none);
    EXPECT_EQ(none.error().code, kiln::Errc::not_found);
}

// Issue 44: a key prefix is looked up beneath the root open_cache opened, and its entries read
// through it: the root renamed away after the open and a decoy put at its path with a key of the
// same prefix, the lookup still finds the opened root's key dir and its entry decodes.
TEST(EntryRef, AKeyPrefixIsLookedUpAndReadBeneathTheOpenedRootNotItsPath) {
    kiln::test::ScratchDir dir("entry-ref-decoy");
    const fs::path root = dir.path() / "root", moved = dir.path() / "moved";
    fs::copy(kiln::test::two_entries_root(), root, fs::copy_options::recursive);
    const std::string key = kKeyDir.filename().string();
    auto cache = kiln::frontend::open_cache(root);
    ASSERT_TRUE(cache) << cache.error().str();
    fs::rename(root, moved);
    // The decoy: another key dir of the same prefix (the lookup would be ambiguous there) and, at the
    // real key's place, a file that is no graph entry.
    fs::create_directories(root / kKeyDir.parent_path() / (key.substr(0, 13) + "decoy"));
    fs::create_directories(root / kKeyDir);
    std::ofstream(root / kKeyDir / "entry") << "not the cache that was opened";
    const kiln::inductor::OpenedRoot opened = cache->opened();
    auto found = kiln::frontend::find_key_dir(opened, key.substr(0, 13));
    ASSERT_TRUE(found) << found.error().str();
    EXPECT_EQ(*found, kKeyDir.string());
    auto entries = kiln::inductor::key_dir_entries(opened, *found);
    ASSERT_TRUE(entries) << entries.error().str();
    ASSERT_FALSE(entries->empty());
    for (const auto& rel : *entries) {
        EXPECT_TRUE(fs::is_regular_file(moved / rel)) << rel;
        auto entry = kiln::frontend::load_entry(opened, rel);
        ASSERT_TRUE(entry) << entry.error().str();
        EXPECT_EQ(entry->label, kiln::inductor::path_beneath(opened, rel));
        EXPECT_FALSE(entry->entry.field_names().empty());
    }
}

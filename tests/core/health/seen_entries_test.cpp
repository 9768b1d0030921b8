// The GUI's check takes each graph entry's findings from its one read of the entries (SeenEntries, filled
// by for_each_graph_batch's EntryVisit): the report equals the check that reads every entry itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>

#include "health/check.hpp"
#include "health/seen_entries.hpp"
#include "inductor/graph_entry.hpp"
#include "inductor/graph_list.hpp"
#include "inductor/scanner.hpp"
#include "opened_dir.hpp"
#include "test_support.hpp"
#include "util/json_out.hpp"

namespace fs = std::filesystem;

namespace kiln::health {
namespace {

// The H100 fixture with one FX entry truncated (it decodes nowhere: the check reads it itself) and one
// bundled Triton kernel dir gone (a reference the shared read keeps for the check to resolve).
fs::path damaged_copy(const test::ScratchDir& dir) {
    const fs::path root = dir.path() / "cache";
    fs::copy(test::h100_root(), root, fs::copy_options::recursive);
    std::vector<fs::path> entries, kernel_dirs;
    for (const auto& e : fs::recursive_directory_iterator(root)) {
        const std::string p = e.path().string();
        if (e.is_regular_file() && p.find("/fxgraph/") != std::string::npos) entries.push_back(e.path());
        if (e.is_directory() && e.path().parent_path().parent_path().filename() == "triton")
            kernel_dirs.push_back(e.path());
    }
    std::sort(entries.begin(), entries.end());
    std::sort(kernel_dirs.begin(), kernel_dirs.end());
    EXPECT_FALSE(entries.empty());
    EXPECT_FALSE(kernel_dirs.empty());
    if (!entries.empty()) fs::resize_file(entries.front(), 100);
    if (!kernel_dirs.empty()) fs::remove_all(kernel_dirs.front());
    return root;
}

// What the window's `graphs` job does: one read of the entries, each decoded one handed over.
void read_entries(const inductor::ScanResult& scan, SeenEntries& seen, std::size_t* rows = nullptr) {
    seen.know(scan);
    const Status read = inductor::for_each_graph_batch(
        scan, 7,
        [&](std::vector<inductor::GraphRow>& batch) {
            if (rows) *rows += batch.size();
        },
        nullptr,
        [&](std::size_t, const inductor::GraphRow& row, const inductor::GraphEntry& e) {
            seen.add(row.path, row.kind == "aotautograd", e);
        });
    seen.close();
    EXPECT_TRUE(read.ok()) << read.error().str();
}

TEST(SeenEntries, TheCheckFromTheSharedReadEqualsItsOwn) {
    test::ScratchDir dir{"health-seen-entries"};
    const fs::path root = damaged_copy(dir);
    auto scan = inductor::scan_cache(root);
    ASSERT_TRUE(scan.ok()) << scan.error().str();
    SeenEntries seen;
    std::size_t rows = 0;
    read_entries(*scan, seen, &rows);
    EXPECT_EQ(rows, 25u);
    EXPECT_EQ(seen.size(), 24u);  // the truncated entry did not decode

    auto own = check_scan(*scan);
    CheckOptions shared_options;
    shared_options.seen = &seen;
    auto shared = check_scan(*scan, shared_options);
    auto streamed = check_cache(test::open_dir(root));  // kiln-cli check
    ASSERT_TRUE(own.ok() && shared.ok() && streamed.ok());
    EXPECT_EQ(seen.size(), 0u);  // the check holds them now, not both
    EXPECT_GT(own->graph_entries, 0u);
    EXPECT_GT(own->problems.size(), 1u);
    ASSERT_FALSE(own->unused.empty());
    EXPECT_EQ(dump_json(to_json(*shared)), dump_json(to_json(*own)));
    EXPECT_EQ(dump_json(to_json(*streamed)), dump_json(to_json(*own)));

    // What it saw is what the check takes: an entry file gone since the read still gives its findings
    // (its own read would lose the entry's unused candidates).
    SeenEntries again;
    read_entries(*scan, again);
    fs::remove(root / own->unused.front().path);
    shared_options.seen = &again;
    auto after = check_scan(*scan, shared_options);
    auto reread = check_scan(*scan);
    ASSERT_TRUE(after.ok() && reread.ok());
    EXPECT_EQ(dump_json(to_json(*after)), dump_json(to_json(*own)));
    EXPECT_NE(dump_json(to_json(*reread)), dump_json(to_json(*own)));
}

// The GUI's read starts before its scan ends (the walk hands fxgraph/ and aotautograd/ over first):
// entries added before know() keep every reference until it comes, and the check equals its own.
TEST(SeenEntries, EntriesReadBesideTheWalkGiveTheSameCheck) {
    test::ScratchDir dir{"health-seen-early"};
    const fs::path root = damaged_copy(dir);
    SeenEntries seen;
    std::size_t rows = 0;
    inductor::ScanOptions opt;
    opt.on_graph_dirs = [&](std::span<const inductor::Artifact> artifacts) {
        const auto files = inductor::graph_entry_files(artifacts);
        const auto opened = test::open_dir(root);
        const Status read = inductor::for_each_graph_batch(
            opened, files, 5, [&](std::vector<inductor::GraphRow>& batch) { rows += batch.size(); }, nullptr,
            [&](std::size_t, const inductor::GraphRow& row, const inductor::GraphEntry& e) {
                seen.add(row.path, row.kind == "aotautograd", e);
            },
            1);
        EXPECT_TRUE(read.ok()) << read.error().str();
    };
    auto scan = inductor::scan_cache(root, opt);
    ASSERT_TRUE(scan.ok()) << scan.error().str();
    EXPECT_EQ(rows, 25u);
    EXPECT_EQ(seen.size(), 24u);
    seen.know(*scan);
    seen.close();
    auto own = check_scan(*scan);
    CheckOptions shared_options;
    shared_options.seen = &seen;
    auto shared = check_scan(*scan, shared_options);
    ASSERT_TRUE(own.ok() && shared.ok());
    EXPECT_EQ(seen.size(), 0u);
    EXPECT_GT(own->problems.size(), 1u);  // the kernel dir gone among them
    EXPECT_EQ(dump_json(to_json(*shared)), dump_json(to_json(*own)));
}

TEST(SeenEntries, ACancelledCheckStopsWaitingForTheRead) {
    auto scan = inductor::scan_cache(test::h100_root());
    ASSERT_TRUE(scan.ok()) << scan.error().str();
    SeenEntries seen;  // never closed: the read has not ended
    std::atomic<bool> cancel{true};
    EXPECT_FALSE(seen.wait(&cancel));
    CheckOptions o;
    o.seen = &seen;
    o.cancel = &cancel;
    auto r = check_scan(*scan, o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, Errc::cancelled);
}

}  // namespace
}  // namespace kiln::health

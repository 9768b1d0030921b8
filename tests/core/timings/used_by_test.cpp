// "Used by graph ...": the choices each fxgraph entry's output code launches, read a batch of entries at a time.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "inductor/beneath_root.hpp"
#include "inductor/graph_entry.hpp"
#include "opened_dir.hpp"
#include "pickle/skim.hpp"
#include "test_support.hpp"
#include "timings/collect.hpp"
#include "timings/graph_kernels.hpp"
#include "timings/used_by.hpp"
#include "trace/graph_names.hpp"

namespace fs = std::filesystem;
using namespace kiln::timings;

namespace {

// Every mark as "op/choice <- key: kernel".
std::multiset<std::string> marks_of(const TimingSet& set) {
    std::multiset<std::string> out;
    for (const auto& op : set.ops)
        for (const auto& c : op.choices)
            for (const auto& u : c.used_by) out.insert(op.op + "/" + c.name + " <- " + u.key + ": " + u.kernel);
    return out;
}

TimingSet h100_set() {
    auto set = collect_timings({kiln::test::h100_root()});
    EXPECT_TRUE(set.ok()) << set.error().str();
    return set.ok() ? std::move(*set) : TimingSet{};
}

}  // namespace

TEST(UsedBy, MarksTheChoicesTheCachedGraphsLaunch) {
    TimingSet set = h100_set();
    auto marks = mark_used_by(kiln::test::open_dir(kiln::test::h100_root()), set);
    ASSERT_TRUE(marks.ok()) << marks.error().str();
    const auto all = marks_of(set);
    ASSERT_GT(*marks, 0);
    EXPECT_EQ(all.size(), static_cast<std::size_t>(*marks));
    for (const auto& op : set.ops)
        for (const auto& c : op.choices)
            for (const auto& u : c.used_by) {
                // The key names an fxgraph key dir of the root, and the row is named as `ls` names it.
                EXPECT_TRUE(fs::is_directory(kiln::test::h100_root() / "fxgraph" / u.key.substr(1, 2) / u.key))
                    << u.key;
                EXPECT_FALSE(u.name.empty()) << u.key;
                EXPECT_FALSE(u.kernel.empty()) << u.key;
            }
    // Marking again adds nothing: each (graph, kernel) is marked once per choice.
    auto again = mark_used_by(kiln::test::open_dir(kiln::test::h100_root()), set);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, 0);
    EXPECT_EQ(marks_of(set), all);
}

TEST(UsedBy, ReadsAtMostMaxEntriesAndStopsThere) {
    TimingSet whole = h100_set();
    ASSERT_TRUE(mark_used_by(kiln::test::open_dir(kiln::test::h100_root()), whole).ok());
    std::set<std::string> keys;
    for (const auto& op : whole.ops)
        for (const auto& c : op.choices)
            for (const auto& u : c.used_by) keys.insert(u.key);
    ASSERT_GE(keys.size(), 1u);

    TimingSet none = h100_set();
    auto zero = mark_used_by(kiln::test::open_dir(kiln::test::h100_root()), none, 0);
    ASSERT_TRUE(zero.ok()) << zero.error().str();  // the bound reached is no error
    EXPECT_EQ(*zero, 0);
    EXPECT_TRUE(marks_of(none).empty());

    TimingSet one = h100_set();
    auto first = mark_used_by(kiln::test::open_dir(kiln::test::h100_root()), one, 1);
    ASSERT_TRUE(first.ok()) << first.error().str();
    std::set<std::string> one_keys;
    for (const auto& op : one.ops)
        for (const auto& c : op.choices)
            for (const auto& u : c.used_by) one_keys.insert(u.key);
    EXPECT_LE(one_keys.size(), 1u);
    for (const auto& m : marks_of(one)) EXPECT_EQ(marks_of(whole).count(m), 1u) << m;
}

TEST(UsedBy, ARootWithoutGraphsMarksNothing) {
    TimingSet set = h100_set();
    kiln::test::ScratchDir root("used_by_empty");
    auto none = mark_used_by(kiln::test::open_dir(root.path()), set);  // a folder of logs
    ASSERT_TRUE(none.ok()) << none.error().str();
    EXPECT_EQ(*none, 0);
    fs::create_directories(root.path() / "fxgraph" / "ab");  // a cache with no entry yet
    auto empty = mark_used_by(kiln::test::open_dir(root.path()), set);
    ASSERT_TRUE(empty.ok()) << empty.error().str();
    EXPECT_EQ(*empty, 0);
    EXPECT_TRUE(marks_of(set).empty());
}

// Each entry read once (its kernels joined beside its row) marks what the two reads did: `ls`'s rows,
// then every FX entry that decoded skimmed and decoded again for graph_kernels.
TEST(UsedBy, OneReadOfEachEntryMarksWhatTwoReadsDid) {
    const auto dir = kiln::test::open_dir(kiln::test::h100_root());
    const kiln::inductor::OpenedRoot root = dir;
    TimingSet twice = h100_set();
    auto list = kiln::trace::list_named_graphs(root, std::nullopt);
    ASSERT_TRUE(list.ok()) << list.error().str();
    int expected = 0;
    for (const auto& row : list->rows) {
        if (row.kind != "fxgraph" || !row.error.empty()) continue;
        auto file = kiln::inductor::open_beneath(root, row.path);
        ASSERT_TRUE(file.ok()) << row.path;
        auto buffer = kiln::pickle::skim_opened_file(*file, kiln::inductor::path_beneath(root, row.path));
        ASSERT_TRUE(buffer.ok()) << row.path;
        auto entry = kiln::inductor::decode_graph_entry(std::move(*buffer));
        ASSERT_TRUE(entry.ok()) << row.path;
        auto kernels = graph_kernels(root, *entry, &twice);
        if (!kernels.ok()) continue;
        for (const auto& k : kernels->kernels) {
            if (!k.autotune) continue;
            Choice& c = twice.ops[k.autotune->op_index].choices[k.autotune->choice_index];
            GraphUse use{row.key, row.label(), k.ref.name};
            if (std::any_of(c.used_by.begin(), c.used_by.end(),
                            [&](const GraphUse& u) { return u.key == use.key && u.kernel == use.kernel; }))
                continue;
            c.used_by.push_back(std::move(use));
            ++expected;
        }
    }
    ASSERT_GT(expected, 0);

    TimingSet once = h100_set();
    auto marks = mark_used_by(root, once);
    ASSERT_TRUE(marks.ok()) << marks.error().str();
    EXPECT_EQ(*marks, expected);
    ASSERT_EQ(once.ops.size(), twice.ops.size());
    for (std::size_t o = 0; o < once.ops.size(); ++o) {
        ASSERT_EQ(once.ops[o].choices.size(), twice.ops[o].choices.size());
        for (std::size_t c = 0; c < once.ops[o].choices.size(); ++c) {
            const auto& a = once.ops[o].choices[c].used_by;
            const auto& b = twice.ops[o].choices[c].used_by;
            ASSERT_EQ(a.size(), b.size()) << once.ops[o].op << " " << once.ops[o].choices[c].name;
            for (std::size_t u = 0; u < a.size(); ++u) {  // in the same order, named the same
                EXPECT_EQ(a[u].key, b[u].key);
                EXPECT_EQ(a[u].name, b[u].name);
                EXPECT_EQ(a[u].kernel, b[u].kernel);
            }
        }
    }
}

// "Used by graph ...": the choices each fxgraph entry's output code launches, read a batch of entries at a time.
#include <gtest/gtest.h>

#include <set>

#include "opened_dir.hpp"
#include "test_support.hpp"
#include "timings/collect.hpp"
#include "timings/used_by.hpp"

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

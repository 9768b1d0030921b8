// Issue 41, item 3: `timeline` and `startup` agree on a trace's compile time. On the ranks fixture (a
// forward whose backward AOTAutograd compiled lazily, at its first call) the timeline said "2 compiles
// in 72.0 s" and startup 258.4 s: the timeline put the backward's cache events under the forward and
// left out its 186 s. Both now count the forward and the lazy backward as separate compiles, each its
// own span (the model running between them in neither), and their totals are equal on every fixture.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "startup/startup_report.hpp"
#include "test_support.hpp"
#include "trace/compile_timeline.hpp"

namespace kiln::startup {
namespace {

namespace fs = std::filesystem;

// Every fixture trace, the ranks' too.
std::vector<fs::path> totals_fixture_traces() {
    std::vector<fs::path> out = kiln::test::fixture_traces();
    for (auto& t : kiln::test::fixture_rank_traces()) out.push_back(std::move(t));
    return out;
}

TEST(StartupTotals, EqualTheTimelinesOnEveryFixtureTrace) {
    for (const auto& dir : totals_fixture_traces()) {
        auto report = analyze_startup({dir}, StartupOptions{std::nullopt, false});
        ASSERT_TRUE(report.ok()) << dir << ": " << report.error().str();
        auto timeline = trace::read_compile_timeline(dir);
        ASSERT_TRUE(timeline.ok()) << dir << ": " << timeline.error().str();
        ASSERT_EQ(report->processes.size(), 1u) << dir;
        ASSERT_EQ(timeline->processes.size(), 1u) << dir;
        const ProcessStartup& s = report->processes[0];
        const trace::TimelineProcess& t = timeline->processes[0];
        // The same compiles, in the same order, of the same kind and id, each of the same seconds
        // (torch's metrics are whole microseconds, the spans fractions of one).
        ASSERT_EQ(s.compiles.size(), t.compiles.size()) << dir;
        for (std::size_t i = 0; i < s.compiles.size(); ++i) {
            EXPECT_EQ(s.compiles[i].kind, t.compiles[i].kind) << dir << " #" << i;
            EXPECT_EQ(s.compiles[i].compile_id, t.compiles[i].compile_id) << dir << " #" << i;
            EXPECT_EQ(s.compiles[i].function, t.compiles[i].function) << dir << " #" << i;
            ASSERT_TRUE(t.compiles[i].compile_s.has_value()) << dir << " #" << i;
            EXPECT_NEAR(s.compiles[i].seconds, *t.compiles[i].compile_s, 1e-5) << dir << " #" << i;
        }
        EXPECT_NEAR(s.compile_seconds, t.compile_s(), 1e-4) << dir;
    }
}

// The ranks fixture's rank 0: forward 71.3 s (20:19:17.20-20:20:28.54), the model ran 8.6 s, then the
// lazy backward compiled for 186.4 s (20:20:37.17-20:23:43.59). Neither compile holds those 8.6 s, and
// the backward's FX miss (compiled in 186.1 s) is the backward's event, not the forward's.
TEST(StartupTotals, LazyBackwardIsItsOwnCompileWithoutTheGapBeforeIt) {
    const fs::path dir = kiln::test::fixture_dir() / "ranks/rank0/trace";
    auto report = analyze_startup({dir}, StartupOptions{std::nullopt, false});
    ASSERT_TRUE(report.ok()) << report.error().str();
    auto timeline = trace::read_compile_timeline(dir);
    ASSERT_TRUE(timeline.ok()) << timeline.error().str();
    const auto& s = report->processes.at(0).compiles;
    const auto& t = timeline->processes.at(0).compiles;
    ASSERT_EQ(t.size(), 3u);
    EXPECT_EQ(t[1].kind, "backward");
    EXPECT_EQ(t[1].compile_id, "0/0");
    EXPECT_EQ(t[1].function, "forward");
    EXPECT_NEAR(*t[0].compile_s, 71.340958, 1e-9);
    EXPECT_NEAR(*t[1].compile_s, 186.425367, 1e-9);  // bwd_compilation_metrics, the span to the microsecond
    EXPECT_NEAR(s.at(1).seconds, 186.425367, 1e-5);
    EXPECT_NEAR(timeline->processes[0].compile_s(), 71.340958 + 186.425367 + *t[2].compile_s, 1e-9);
    EXPECT_NEAR(report->processes[0].compile_seconds, timeline->processes[0].compile_s(), 1e-4);
    // Each FX miss where it ran: the forward's compiled in 68.3 s, the backward's in 186.1 s.
    ASSERT_EQ(t[0].count("fx_graph", "miss"), 1u);
    ASSERT_EQ(t[1].count("fx_graph", "miss"), 1u);
    for (const auto& e : t[1].events)
        if (e.cache == "fx_graph") {
            ASSERT_TRUE(e.time_taken_ns.has_value());
            EXPECT_GT(*e.time_taken_ns, 186'000'000'000);
        }
}

}  // namespace
}  // namespace kiln::startup

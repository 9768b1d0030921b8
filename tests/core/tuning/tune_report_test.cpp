// The JSON of a tuning report: what `kiln-cli autotune --json` prints is what the GUI reads back.
#include <gtest/gtest.h>

#include <limits>

#include "tuning/tune_report.hpp"

using namespace kiln::tuning;
using namespace kiln::worker;

TEST(TuneReportJson, RoundTripsWhatTheGuiReads) {
    TuneReport r;
    r.op = "mm";
    r.best = "mm-ca";
    r.device = "cpu";
    ChoiceReport a;
    a.key = "mm-ca";
    a.id = "mm_0";
    a.ms = 0.25;
    a.params = {{"BLOCK", 32}};
    a.stats = summarize({0.25, 0.3});
    ChoiceReport b;
    b.key = "mm-cb";
    b.id = "mm_1";
    b.ms = std::numeric_limits<double>::infinity();
    b.status = ChoiceStatus::compile_error;
    b.reason = "no";
    r.choices = {a, b};
    auto back = tune_report_from_json(nlohmann::json::parse(to_json(r).dump()));
    ASSERT_TRUE(back) << back.error().str();
    EXPECT_EQ(back->best, "mm-ca");
    ASSERT_EQ(back->choices.size(), 2u);
    EXPECT_EQ(back->choices[0].params.at("BLOCK"), 32);
    EXPECT_DOUBLE_EQ(back->choices[0].stats.median, a.stats.median);
    EXPECT_EQ(back->choices[0].stats.count, 2);
    EXPECT_FALSE(std::isfinite(back->choices[1].ms));
    EXPECT_EQ(back->choices[1].reason, "no");
    EXPECT_FALSE(tune_report_from_json(nlohmann::json::parse("[1]")));
}

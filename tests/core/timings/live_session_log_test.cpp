// Following a session log as kiln-cli autotune appends to it: nothing before it exists, a read when
// it grows, nothing while it stays the same size, and the torn last line of a live log skipped.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "test_support.hpp"
#include "timings/live_session_log.hpp"

namespace fs = std::filesystem;
using namespace kiln::timings;

namespace {
const std::string kStart =
    "{\"time\": \"t\", \"event\": \"session_start\", \"op\": \"kiln_add\", "
    "\"inputs_key\": \"[('cpu', 'torch.float32', 1024, 1, 0)]\", \"precision\": \"highest\", \"devices\": \"cpu\", "
    "\"choices\": 2}\n";
const std::string kFirst =
    "{\"event\": \"measurement\", \"device\": \"cpu\", \"choice\": \"kiln_add-c1\", \"params\": {\"BLOCK\": 64}, "
    "\"ms\": 0.5, \"status\": \"ok\", \"reason\": \"\"}\n";
const std::string kSecondTorn = "{\"event\": \"measurement\", \"device\": \"cp";
const std::string kSecondRest = "u\", \"choice\": \"kiln_add-c2\", \"ms\": 0.25, \"status\": \"ok\"}\n";

void append(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::app) << text; }
}  // namespace

TEST(LiveSessionLog, ReadsOnlyWhenTheLogHasGrown) {
    kiln::test::ScratchDir dir("live_session_log");
    const fs::path log = dir.path() / "session.jsonl";
    auto none = read_session_log_if_changed(log, std::nullopt);
    ASSERT_TRUE(none.ok()) << none.error().str();
    EXPECT_FALSE(none->has_value());  // not created yet: no error, nothing to show

    append(log, kStart + kFirst + kSecondTorn);
    auto first = read_session_log_if_changed(log, std::nullopt);
    ASSERT_TRUE(first.ok() && first->has_value());
    EXPECT_EQ((*first)->size, fs::file_size(log));
    EXPECT_EQ((*first)->timings.planned_choices, 2);
    EXPECT_EQ((*first)->timings.measured, 1);  // the torn second measurement is not one yet

    auto same = read_session_log_if_changed(log, (*first)->size);
    ASSERT_TRUE(same.ok());
    EXPECT_FALSE(same->has_value());

    append(log, kSecondRest);
    auto grown = read_session_log_if_changed(log, (*first)->size);
    ASSERT_TRUE(grown.ok() && grown->has_value());
    EXPECT_EQ((*grown)->timings.measured, 2);
    ASSERT_EQ((*grown)->timings.ops.size(), 1u);
    EXPECT_EQ((*grown)->timings.ops[0].choices.size(), 2u);
}

TEST(LiveSessionLog, AnUnreadableLogIsAnError) {
    kiln::test::ScratchDir dir("live_session_log_dir");
    // A directory where the log should be: it exists, but it is no log.
    fs::create_directories(dir.path() / "session.jsonl");
    auto r = read_session_log_if_changed(dir.path() / "session.jsonl", std::nullopt);
    EXPECT_FALSE(r.ok());
}

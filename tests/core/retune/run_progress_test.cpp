// What the Re-tune dialog follows while a run goes: the run's own session logs, counted by core on a
// worker thread (issue 44: this was listed and parsed on the UI thread every 250 ms).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "decoy_root.hpp"
#include "opened_dir.hpp"
#include "retune/run_progress.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace kiln::retune;

namespace {
void write(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
}
}  // namespace

TEST(RunProgress, CountsMeasurementsPerDeviceAndSkipsATornLine) {
    RunProgress p;
    add_session_log_progress(
        "{\"event\":\"session_start\",\"op\":\"mm\",\"choices\":3}\n"
        "{\"event\":\"measurement\",\"device\":\"cuda:0\",\"choice\":\"mm-c1\",\"status\":\"ok\",\"ms\":0.1}\n"
        "{\"event\":\"measurement\",\"device\":\"cuda:1\",\"choice\":\"triton_mm-c2\",\"status\":\"wrong\"}\n",
        p);
    add_session_log_progress(
        "{\"event\":\"session_start\",\"op\":\"bmm\",\"choices\":2}\n"
        "{\"event\":\"measurement\",\"device\":\"cuda:0\",\"choice\":\"bmm-c3\",\"status\":\"ok\",\"ms\":0.2}\n"
        "{\"event\":\"measur",  // a torn last line of a live log
        p);
    EXPECT_EQ(p.planned, 5);
    EXPECT_EQ(p.measured, 3);
    EXPECT_EQ(p.failed, 1);
    EXPECT_EQ(p.per_device["cuda:0"], 2);
    EXPECT_EQ(p.per_device["cuda:1"], 1);
}

TEST(RunProgress, WrongTypedFieldsCostTheirLineOnly) {
    RunProgress p;
    add_session_log_progress(
        "{\"event\":\"session_start\",\"choices\":\"many\"}\n"
        "{\"event\":\"session_start\",\"choices\":-4}\n"
        "{\"event\":\"session_start\",\"choices\":123456789012345678901234}\n"
        "[1,2]\n"
        "{\"event\":7}\n"
        "{\"event\":\"measurement\",\"device\":5,\"status\":null}\n"
        "{\"event\":\"session_start\",\"choices\":2}\n",
        p);
    EXPECT_EQ(p.planned, 2);
    EXPECT_EQ(p.measured, 1);
    EXPECT_EQ(p.failed, 1);  // a status that is not "ok"
}

TEST(RunProgress, ReadsOnlyThisRunsLogsAndNeverBlocksOnAFifo) {
    kiln::test::ScratchDir dir("run_progress");
    const fs::path logs = dir.path() / "kiln" / "autotune";
    const kiln::test::OpenedDir opened = kiln::test::open_dir(dir.path());
    EXPECT_EQ(read_run_progress(opened, 4242)->measured, 0);  // no folder yet: nothing measured
    write(logs / "retune-mm-0-20261128T010203Z-4242.jsonl",
          "{\"event\":\"session_start\",\"choices\":2}\n{\"event\":\"measurement\",\"device\":\"cuda:0\","
          "\"status\":\"ok\"}\n");
    write(logs / "retune-bmm-1-20261128T010203Z-4242.jsonl",
          "{\"event\":\"session_start\",\"choices\":1}\n{\"event\":\"measurement\",\"device\":\"cuda:1\","
          "\"status\":\"ok\"}\n");
    write(logs / "retune-mm-0-20261128T010203Z-999.jsonl",  // another run's
          "{\"event\":\"session_start\",\"choices\":7}\n");
    write(logs / "session-mm-4242.jsonl", "{\"event\":\"session_start\",\"choices\":9}\n");  // not a re-tune's
    ASSERT_EQ(::mkfifo((logs / "retune-x-2-20261128T010203Z-4242.jsonl").c_str(), 0600), 0);
    auto p = read_run_progress(opened, 4242);
    ASSERT_TRUE(p.ok()) << p.error().str();
    EXPECT_EQ(p->logs.size(), 3u);  // the FIFO is listed by name and skipped when read
    EXPECT_EQ(p->planned, 3);
    EXPECT_EQ(p->measured, 2);
    EXPECT_EQ(p->per_device["cuda:0"], 1);
    EXPECT_EQ(p->per_device["cuda:1"], 1);
}

// Issue 44: the GUI follows the run beneath the root the window opened. The root renamed away after the
// open and a decoy put at its path with logs of the same process: the progress is the opened root's,
// and a finished run's report is saved there, none at the decoy.
TEST(RunProgress, FollowsAndSavesBeneathTheOpenedRootNotItsPath) {
    kiln::test::ScratchDir dir("run_progress_decoy");
    const kiln::test::DecoyedRoot d = kiln::test::open_h100_root_then_decoy(dir);
    ASSERT_TRUE(d.opened.fd.valid());
    const std::string name = "retune-mm-0-20261128T010203Z-4242.jsonl";
    write(d.moved / "kiln" / "autotune" / name,
          "{\"event\":\"session_start\",\"choices\":2}\n{\"event\":\"measurement\",\"device\":\"cuda:0\","
          "\"status\":\"ok\"}\n");
    write(d.root / "kiln" / "autotune" / name,
          "{\"event\":\"session_start\",\"choices\":9}\n{\"event\":\"measurement\",\"device\":\"cuda:5\","
          "\"status\":\"wrong\"}\n{\"event\":\"measurement\",\"device\":\"cuda:5\",\"status\":\"ok\"}\n");
    auto p = read_run_progress(d.opened, 4242);
    ASSERT_TRUE(p.ok()) << p.error().str();
    EXPECT_EQ(p->planned, 2);
    EXPECT_EQ(p->measured, 1);
    EXPECT_EQ(p->failed, 0);
    EXPECT_EQ(p->per_device.count("cuda:5"), 0u) << "the decoy's log was read";
    ASSERT_EQ(p->logs.size(), 1u);
    EXPECT_EQ(p->logs[0], d.root / "kiln" / "autotune" / name);  // named as the root was opened

    auto saved = save_run_report(d.opened, "{\"ops\": []}");
    ASSERT_TRUE(saved.ok()) << saved.error().str();
    EXPECT_EQ(saved->parent_path(), d.root / "kiln" / "retune");
    EXPECT_FALSE(fs::exists(d.root / "kiln" / "retune"));
    const fs::path kept = d.moved / "kiln" / "retune" / saved->filename();
    ASSERT_TRUE(fs::is_regular_file(kept));
    EXPECT_EQ(kiln::test::read_file(kept), "{\"ops\": []}");
}

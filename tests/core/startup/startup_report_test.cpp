// Issue 42: `startup` on hostile input. A FIFO or /dev/zero named as the log is refused at once (the
// log's first time was read through std::ifstream: a blocked open, a 1 GB line), reading a log leaves
// its atime alone, and impossible times (spans backwards, timestamps of 1e308, metrics of -5 s) are
// dropped with a warning per item, so the report never holds a negative, infinite or null number.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "atime_check.hpp"
#include "startup/startup_report.hpp"
#include "test_support.hpp"

namespace kiln::startup {
namespace {

namespace fs = std::filesystem;
using kiln::test::ScratchDir;

std::string hostile_event(const std::string& name, const char* ph, const std::string& ts) {
    return "V1126 01:16:44.838000 1031 torch/_dynamo/utils.py:2126] {\"chromium_event\": {}, \"frame_id\": 0, "
           "\"frame_compile_id\": 0, \"attempt\": 0, \"has_payload\": \"x\"}\n\t{\"name\": \"" +
           name + "\", \"ts\": " + ts + ", \"args\": {\"compile_id\": \"0/0\"}, \"ph\": \"" + ph +
           "\", \"cat\": \"dynamo_timed\", \"tid\": 0, \"pid\": 0}\n";
}

std::string hostile_metrics(const std::string& seconds) {
    return "V1126 01:16:45.733000 1031 torch/_dynamo/utils.py:1796] {\"compilation_metrics\": {\"compile_id\": "
           "\"0/0\", \"co_name\": \"f\", \"co_filename\": \"/x/model.py\", \"co_firstlineno\": 7, "
           "\"entire_frame_compile_time_s\": " +
           seconds + "}, \"frame_id\": 0, \"frame_compile_id\": 0, \"attempt\": 0}\n";
}

// The inputs in one log: spans backwards, timestamps of +-1e308, metrics of -5 s.
std::string hostile_log() {
    return hostile_event("entire_frame_compile", "B", "1000") + hostile_event("backend_compile", "B", "-1e308") +
           hostile_event("backend_compile", "E", "1e308") + hostile_event("compile_file", "B", "5000000") +
           hostile_event("compile_file", "E", "2000000") + hostile_event("entire_frame_compile", "E", "3000000") +
           hostile_metrics("-5") + hostile_event("entire_frame_compile", "B", "4000000") +
           hostile_event("GraphLowering.run", "B", "1e308") + hostile_event("entire_frame_compile", "E", "1e308") +
           hostile_event("entire_frame_compile", "E", "3000000") + hostile_metrics("1e308");
}

// Every number of the report's JSON is finite and not negative (a null is what nlohmann prints for inf).
void expect_sane_numbers(const nlohmann::ordered_json& j, const std::string& where) {
    if (j.is_null()) ADD_FAILURE() << where << " is null";
    if (j.is_number()) {
        const double v = j.get<double>();
        EXPECT_TRUE(std::isfinite(v) && v >= 0) << where << " = " << v;
    }
    if (j.is_object())
        for (auto it = j.begin(); it != j.end(); ++it) expect_sane_numbers(it.value(), where + "." + it.key());
    if (j.is_array())
        for (std::size_t i = 0; i < j.size(); ++i) expect_sane_numbers(j[i], where + "[" + std::to_string(i) + "]");
}

TEST(StartupReport, ImpossibleTimesAreDroppedWithAWarningEach) {
    ScratchDir dir("startup_report_hostile");
    const fs::path log = dir.path() / "dedicated_log_torch_trace_hostile.log";
    std::ofstream(log, std::ios::binary) << hostile_log();
    auto r = analyze_startup({log}, StartupOptions{std::nullopt, false});
    ASSERT_TRUE(r.ok()) << r.error().str();
    ASSERT_EQ(r->processes.size(), 1u);
    const ProcessStartup& p = r->processes.front();
    ASSERT_EQ(p.compiles.size(), 2u);
    EXPECT_NEAR(p.compiles[0].seconds, 2.999, 1e-9);  // its span: the -5 s metric dropped
    EXPECT_EQ(p.compiles[1].seconds, 0.0);            // ended before it began, its 1e308 s metric dropped
    EXPECT_EQ(p.headline().find("spent -"), std::string::npos) << p.headline();
    expect_sane_numbers(to_json(*r), "report");
    bool metric = false, backwards = false, timestamp = false;
    for (const auto& w : r->warnings) {
        metric |= w.find("entire_frame_compile_time_s of -5 s") != std::string::npos;
        backwards |= w.find("compile_file ends") != std::string::npos;
        timestamp |= w.find("at timestamp 1e+308 us") != std::string::npos;
    }
    EXPECT_TRUE(metric && backwards && timestamp) << ::testing::PrintToString(r->warnings);
}

// A FIFO named as the log blocked in std::ifstream's open; each read runs in a child under a 20 s alarm,
// so a hang fails the test.
TEST(StartupReport, AFifoNamedAsTheLogIsRefusedAtOnce) {
    ScratchDir dir("startup_report_fifo");
    const fs::path fifo = dir.path() / "dedicated_log_torch_trace_fifo.log";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_EXIT(
        {
            ::alarm(20);
            auto r = analyze_startup({fifo}, StartupOptions{std::nullopt, false});
            if (r.ok()) std::_Exit(2);
            std::_Exit(r.error().code == Errc::invalid_argument && r.error().message.find("FIFO") != std::string::npos
                           ? 0
                           : 3);
        },
        ::testing::ExitedWithCode(0), "");
}

// /proc/self/io's rchar: the bytes this process has read so far.
long long bytes_read_so_far() {
    std::ifstream io("/proc/self/io");
    std::string key;
    long long value = 0;
    while (io >> key >> value)
        if (key == "rchar:") return value;
    return -1;
}

// /dev/zero was read for a line (1 GB) before the log reader refused it: now nothing is read from it.
TEST(StartupReport, DevZeroNamedAsTheLogIsRefusedWithoutReadingIt) {
    const long long before = bytes_read_so_far();
    ASSERT_GE(before, 0) << "no /proc/self/io";
    auto r = analyze_startup({"/dev/zero"}, StartupOptions{std::nullopt, false});
    const long long read = bytes_read_so_far() - before;
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, Errc::invalid_argument) << r.error().str();
    EXPECT_NE(r.error().message.find("character device"), std::string::npos) << r.error().str();
    EXPECT_LT(read, 1 << 20) << "bytes read";
}

TEST(StartupReport, ReadingALogLeavesItsAtimeAlone) {
    ScratchDir dir("startup_report_atime");
    const fs::path warm = fs::directory_iterator(kiln::test::fixture_dir() / "h100/trace/warm")->path();
    const fs::path logs = dir.path() / "warm";
    fs::create_directories(logs);
    fs::copy(warm, logs / warm.filename());
    ASSERT_TRUE(kiln::test::set_old_atimes(logs));
    ASSERT_TRUE(kiln::test::plain_read_moves_atime(logs / warm.filename()))
        << "this file system does not update atimes on read";
    auto r = analyze_startup({logs}, StartupOptions{std::nullopt, false});
    ASSERT_TRUE(r.ok()) << r.error().str();
    ASSERT_EQ(r->processes.size(), 1u);
    auto moved = kiln::test::moved_atimes(logs);
    EXPECT_TRUE(moved.empty()) << "startup changed the atime of " << moved.begin()->first;
}

}  // namespace
}  // namespace kiln::startup

// Issue 42: `startup` on hostile input. A FIFO or /dev/zero named as the log is refused at once (the
// log's first time was read through std::ifstream: a blocked open, a 1 GB line), and reading a log
// leaves its atime alone.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

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

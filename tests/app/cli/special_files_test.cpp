// Issue 16.12: a FIFO (or any file that is not a regular file) given to a command, or found where a
// cache file should be, is a clear error at once: Kiln never opens one for reading, so it never
// waits for a writer that does not come. Each command runs under `timeout`: a hang is killed and
// fails the test.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace fs = std::filesystem;
using kiln::test::run_command;

namespace {

class CliSpecialFiles : public ::testing::Test {
protected:
    kiln::test::ScratchDir dir{"cli-fifo"};
    fs::path fifo = dir.path() / "pipe";
    void SetUp() override { ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0); }

    // Runs kiln-cli with ARGS under a 20 s kill timer; expects a usage or work error naming the FIFO.
    void expect_clear_error(const std::vector<std::string>& args) {
        std::vector<std::string> argv{"timeout", "-s", "KILL", "20", kiln::test::cli_path()};
        argv.insert(argv.end(), args.begin(), args.end());
        auto r = run_command(argv);
        std::string what = args[0] + (args.size() > 1 ? " " + args[1] : "");
        EXPECT_TRUE(r.exit_code == 1 || r.exit_code == 2) << what << ": exit " << r.exit_code << " (137: hung)\n"
                                                          << r.err;
        EXPECT_NE(r.err.find("FIFO"), std::string::npos) << what << ": " << r.err;
        EXPECT_NE(r.err.find(fifo.string()), std::string::npos) << what << ": " << r.err;
    }
};

}  // namespace

TEST_F(CliSpecialFiles, EveryCommandRefusesAFifoAtOnce) {
    const std::string f = fifo.string();
    const std::string root = kiln::test::h100_root().string();
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"show", f},
             {"dis", f},
             {"misses", f},
             {"timings", f},
             {"diff", f, f},
             {"guards", f, "--sizes", "8"},
             {"stats", f},
             {"compile", f},
             {"rebench", f},
             {"bundle", "ls", f},
             {"env", "--from", f},
             {"portable", root, "--target", f},
             {"autotune", f},
             {"startup", f},  // issue 42, item 3: it hung in std::ifstream's open
         })
        expect_clear_error(args);
}

// /proc/self/io's rchar: the bytes read so far by this process and the children it has reaped (the
// kernel adds a reaped child's I/O to its parent's).
long long bytes_read_with_children() {
    std::ifstream io("/proc/self/io");
    std::string key;
    long long value = 0;
    while (io >> key >> value)
        if (key == "rchar:") return value;
    return -1;
}

// Issue 42, item 3: `startup /dev/zero` read a 1 GB first line (8 GB without a memory limit) before the
// log reader refused it, as `timeline` and `misses` refuse it at once. Now nothing is read from it: the
// bytes kiln-cli read, counted by the kernel, stay far below that (a kill at 20 s fails on the exit status).
TEST_F(CliSpecialFiles, StartupRefusesDevZeroWithoutReadingIt) {
    const long long before = bytes_read_with_children();
    ASSERT_GE(before, 0) << "no /proc/self/io";
    auto r = run_command({"timeout", "-s", "KILL", "20", kiln::test::cli_path(), "startup", "/dev/zero"});
    const long long read = bytes_read_with_children() - before;
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("character device"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("/dev/zero"), std::string::npos) << r.err;
    EXPECT_LT(read, 64ll << 20) << "bytes read by kiln-cli startup /dev/zero";
}

// Issue 42, item 2: a FIFO in place of a kernel dir's `.ptx` (or `.source`) hung `retune --list` in open.
// The FIFO counts as no file: each kernel still has its cubin, so the listing is whole.
TEST_F(CliSpecialFiles, RetuneListDoesNotBlockOnAFifoInAKernelDir) {
    const fs::path root = dir.path() / "root";
    fs::copy(kiln::test::h100_root(), root, fs::copy_options::recursive);
    int fifos = 0;
    for (const auto& key : fs::directory_iterator(root / "triton" / "0")) {
        const fs::path file = key.path() / (fifos % 2 ? "triton_mm.source" : "triton_mm.ptx");
        fs::remove(file);
        ASSERT_EQ(::mkfifo(file.c_str(), 0600), 0) << file;
        if (++fifos == 4) break;
    }
    auto r = run_command({"timeout", "-s", "KILL", "20", kiln::test::cli_path(), "retune", root.string(), "--list",
                          "--arch", "90", "--json"});
    ASSERT_EQ(r.exit_code, 0) << "(137: hung)\n" << r.err;
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_TRUE(j.is_object()) << r.out.substr(0, 2000);
    int runnable = 0;
    for (const auto& op : j["ops"])
        for (const auto& c : op["choices"]) runnable += c["runnable"].get<bool>() ? 1 : 0;
    EXPECT_EQ(runnable, 41) << r.out.substr(0, 2000);  // as without the FIFOs
}

// A FIFO where the timing cache file belongs (cache/<hash>): `timings` of the root and `env --from`
// it do not block on it.
TEST_F(CliSpecialFiles, AFifoInsideACacheRootDoesNotBlock) {
    fs::path root = dir.path() / "root";
    fs::create_directories(root / "cache");
    fs::copy(kiln::test::h100_root() / "fxgraph", root / "fxgraph", fs::copy_options::recursive);
    ASSERT_EQ(::mkfifo((root / "cache" / std::string(64, 'a')).c_str(), 0600), 0);
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"timings", root.string()}, {"env", "--from", root.string()}}) {
        std::vector<std::string> argv{"timeout", "-s", "KILL", "20", kiln::test::cli_path()};
        argv.insert(argv.end(), args.begin(), args.end());
        auto r = run_command(argv);
        EXPECT_NE(r.exit_code, 137) << args[0] << " hung on the FIFO\n" << r.err;
        EXPECT_LT(r.exit_code, 128) << args[0] << ": " << r.err;
    }
}

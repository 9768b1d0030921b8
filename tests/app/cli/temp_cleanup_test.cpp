// Commands on a Mega-Cache blob unpack it into $TMPDIR/kiln-blob-XXXXXX; a SIGTERM, SIGINT or SIGHUP
// mid-run left that folder behind (125-937 MB per interrupted run). Each signal now removes it (the
// handler of util/temp_cleanup) and still ends the process the way the signal does.
#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "blob_craft.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;

namespace kiln::test {
namespace {

// A blob of many small autotune results: unpacking it (a file and an fsync each) takes seconds.
std::string many_file_blob(int n) {
    craft::Artifacts arts;
    for (int i = 0; i < n; ++i) {
        char hex[65];
        std::snprintf(hex, sizeof hex, "%064x", i);
        arts.emplace_back("ab/" + std::string(hex) + ".best_config", "{\"XBLOCK\": 8}");
    }
    return craft::blob(craft::group("autotune", arts));
}

// `kiln-cli stats BLOB` with TMPDIR set, the signals at their defaults (as from a terminal).
pid_t start_stats(const fs::path& blob, const fs::path& tmpdir) {
    pid_t pid = ::fork();
    if (pid != 0) return pid;
    for (int sig : {SIGTERM, SIGINT, SIGHUP}) ::signal(sig, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::setenv("TMPDIR", tmpdir.c_str(), 1);
    int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::dup2(null, 2);
    const std::string cli = cli_path();
    ::execl(cli.c_str(), cli.c_str(), "stats", blob.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
}

// Whether a kiln-blob-* folder in `tmpdir` has files unpacked into it (it is registered by then).
bool unpacking(const fs::path& tmpdir) {
    std::error_code ec;
    for (const auto& d : fs::directory_iterator(tmpdir, ec))
        if (d.path().filename().string().rfind("kiln-blob-", 0) == 0 && fs::exists(d.path() / "inductor" / "ab", ec))
            return true;
    return false;
}

TEST(CliTempCleanup, EachSignalRemovesTheUnpackedBlob) {
    ScratchDir dir("cli-temp-cleanup");
    const fs::path blob = dir.path() / "many.bin";
    craft::write(blob, many_file_blob(20000));
    for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
        const fs::path tmpdir = dir.path() / ("tmp-" + std::to_string(sig));
        fs::create_directories(tmpdir);
        pid_t pid = start_stats(blob, tmpdir);
        ASSERT_GT(pid, 0);
        bool seen = false;
        for (int i = 0; i < 60000 && !seen; ++i) {  // bounded: the unpack starts within moments
            seen = unpacking(tmpdir);
            if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        EXPECT_TRUE(seen) << "signal " << sig << ": the blob was never being unpacked";
        ASSERT_EQ(::kill(pid, sig), 0);
        int status = 0;
        ASSERT_EQ(::waitpid(pid, &status, 0), pid);
        EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << "signal " << sig << ": status " << status;
        std::vector<std::string> left;
        for (const auto& e : fs::directory_iterator(tmpdir)) left.push_back(e.path().filename().string());
        EXPECT_TRUE(left.empty()) << "signal " << sig << " left " << left.size() << " entries, first "
                                  << (left.empty() ? "" : left.front());
    }
}

}  // namespace
}  // namespace kiln::test

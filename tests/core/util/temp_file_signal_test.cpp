// Every temporary file is registered for removal on signals (issue 42 #11: `bundle pack` and `bundle
// unpack` ended by SIGTERM left a 13.9 MB .tmp in the output folder and an 8 MB one in a key dir).
// Deterministic: the writer is stopped (SIGSTOP) while its temporary provably exists and before it is
// renamed, then sent the signal.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "test_support.hpp"
#include "util/atomic_file.hpp"

namespace kiln {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> temporaries(const fs::path& dir) {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const std::string n = e.path().filename().string();
        if (n.size() > 4 && n.compare(n.size() - 4, 4, ".tmp") == 0) out.push_back(n);
    }
    return out;
}

// A child that replaces `dir`/big with 64 MB again and again. Its signal dispositions are this test
// process's (Kiln's handlers when an earlier test installed them: they are installed once per process).
pid_t start_writer(const fs::path& dir) {
    pid_t pid = ::fork();
    if (pid != 0) return pid;
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    const std::string content(64u << 20, 'x');
    for (;;)
        if (!write_atomic(dir / "big", content).ok()) ::_exit(3);
}

// Kills and reaps the child if a check failed before it was reaped.
struct ChildGuard {
    pid_t pid;
    ~ChildGuard() {
        if (pid > 0 && ::kill(pid, SIGKILL) == 0) ::waitpid(pid, nullptr, 0);
    }
};

TEST(TempFileCleanup, EachSignalRemovesTheTemporaryOfAWriteInProgress) {
    test::ScratchDir d("temp-file-signal");
    for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
        const fs::path dir = d.path() / ("out-" + std::to_string(sig));
        fs::create_directories(dir);
        pid_t pid = start_writer(dir);
        ASSERT_GT(pid, 0);
        ChildGuard guard{pid};
        bool caught = false;
        for (int i = 0; i < 200000 && !caught; ++i) {  // bounded: a temporary exists most of the time
            if (temporaries(dir).empty()) {
                std::this_thread::sleep_for(std::chrono::microseconds(200));
                continue;
            }
            ASSERT_EQ(::kill(pid, SIGSTOP), 0);
            int st = 0;
            ASSERT_EQ(::waitpid(pid, &st, WUNTRACED), pid);
            ASSERT_TRUE(WIFSTOPPED(st));
            caught = !temporaries(dir).empty();  // still there with the writer stopped: mid-write
            if (!caught) ::kill(pid, SIGCONT);
        }
        ASSERT_TRUE(caught) << "signal " << sig << ": never saw the temporary";
        ASSERT_EQ(::kill(pid, sig), 0);
        ASSERT_EQ(::kill(pid, SIGCONT), 0);
        int status = 0;
        ASSERT_EQ(::waitpid(pid, &status, 0), pid);
        guard.pid = -1;
        EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << "signal " << sig << ": status " << status;
        const auto left = temporaries(dir);
        EXPECT_TRUE(left.empty()) << "signal " << sig << " left " << left.size() << " temporaries, first "
                                  << (left.empty() ? "" : left.front());
    }
}

}  // namespace
}  // namespace kiln

// Commands on a Mega-Cache blob unpack it into $TMPDIR/kiln-blob-XXXXXX; a SIGTERM, SIGINT or SIGHUP
// mid-run left that folder behind (125-937 MB per interrupted run). Each signal now removes it (the
// handler of util/temp_cleanup) and still ends the process the way the signal does. The same for the
// temporary files of `bundle pack` and `bundle unpack` (issue 42 #11: a 13.9 MB .tmp left in the
// output folder, an 8 MB one in a key dir).
#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "blob_craft.hpp"
#include "bundle_fixtures.hpp"
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

// Every `.tmp` file under `dir`.
std::vector<fs::path> temporaries_under(const fs::path& dir) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        const std::string n = it->path().filename().string();
        if (n.size() > 4 && n.compare(n.size() - 4, 4, ".tmp") == 0) out.push_back(it->path());
    }
    return out;
}

pid_t start_cli(const std::vector<std::string>& args) {
    pid_t pid = ::fork();
    if (pid != 0) return pid;
    for (int sig : {SIGTERM, SIGINT, SIGHUP}) ::signal(sig, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::dup2(null, 2);
    const std::string cli = cli_path();
    std::vector<char*> argv{const_cast<char*>(cli.c_str())};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(cli.c_str(), argv.data());
    ::_exit(127);
}

// Runs `args` until one run is caught with a temporary under `watch` (stopped with SIGSTOP while
// the temporary provably exists, so mid-write), then ends that run with SIGTERM. Returns the
// temporaries left behind; `caught` says whether a run was caught at all.
std::vector<fs::path> sigterm_mid_write(const std::vector<std::string>& args, const fs::path& watch, bool& caught,
                                        const std::function<void()>& reset) {
    caught = false;
    for (int attempt = 0; attempt < 40 && !caught; ++attempt) {
        reset();
        pid_t pid = start_cli(args);
        if (pid <= 0) return {};
        int status = 0;
        for (;;) {
            if (::waitpid(pid, &status, WNOHANG) == pid) break;  // done before it was caught: again
            if (temporaries_under(watch).empty()) continue;
            ::kill(pid, SIGSTOP);
            ::waitpid(pid, &status, WUNTRACED);
            if (temporaries_under(watch).empty()) {
                ::kill(pid, SIGCONT);
                continue;
            }
            caught = true;
            ::kill(pid, SIGTERM);
            ::kill(pid, SIGCONT);
            ::waitpid(pid, &status, 0);
            EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "status " << status;
            break;
        }
    }
    return temporaries_under(watch);
}

TEST(CliTempCleanup, SigtermDuringBundlePackLeavesNoTemporary) {
    ScratchDir dir("cli-temp-pack");
    const fs::path out = dir.path() / "out";
    bool caught = false;
    auto left = sigterm_mid_write({"bundle", "pack", h100_root().string(), "--out", (out / "h100.bin").string()}, out,
                                  caught, [&] {
                                      fs::remove_all(out);
                                      fs::create_directories(out);
                                  });
    EXPECT_TRUE(caught) << "no run of bundle pack was caught writing its blob";
    EXPECT_TRUE(left.empty()) << left.size() << " temporaries left, first " << (left.empty() ? "" : left[0].string());
}

TEST(CliTempCleanup, SigtermDuringBundleUnpackLeavesNoTemporary) {
    ScratchDir dir("cli-temp-unpack");
    const fs::path into = dir.path() / "root";
    bool caught = false;
    auto left =
        sigterm_mid_write({"bundle", "unpack", h200_blob().string(), "--into", into.string()}, into, caught, [&] {
            fs::remove_all(into);
            fs::create_directories(into);
        });
    EXPECT_TRUE(caught) << "no run of bundle unpack was caught writing a file";
    EXPECT_TRUE(left.empty()) << left.size() << " temporaries left, first " << (left.empty() ? "" : left[0].string());
}

}  // namespace
}  // namespace kiln::test

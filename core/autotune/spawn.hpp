#pragma once
// Starting child processes for the tuner: fork + execve with the environment built before the fork
// (only async-signal-safe calls in the child), PR_SET_PDEATHSIG so the kernel kills the child when
// the thread that started it dies, and a check that the parent did not die before that was set.
#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "util/result.hpp"

namespace kiln::autotune {

struct SpawnOptions {
    std::vector<std::string> argv;
    std::map<std::string, std::optional<std::string>> env;  // set (value) or remove (nullopt)
    std::vector<int> keep_fds;  // stay open across exec (O_CLOEXEC cleared in the child)
    int stdin_fd = -1;          // -1: /dev/null
    int stdout_fd = -1;         // -1: inherit
    int stderr_fd = -1;         // -1: inherit
};

Result<pid_t> spawn_process(const SpawnOptions& options);

// "exited with status 3", "killed by signal 11 (SIGSEGV)".
std::string describe_wait_status(int status);

struct ProcessOutput {
    int exit_code = -1;
    int wait_status = 0;
    bool timed_out = false;
    std::string out, err;
};
// Runs to completion (or SIGKILL at `timeout`), capturing stdout and stderr.
Result<ProcessOutput> run_process(SpawnOptions options, std::chrono::milliseconds timeout);

}  // namespace kiln::autotune

#pragma once
// The one way Kiln starts child processes (compilers, kiln-worker, python, nvcc): fork + execve
// with argv (no shell) and the environment built before the fork (only async-signal-safe calls in
// the child), PR_SET_PDEATHSIG so the kernel kills the child when the thread that started it dies
// (and, with kill_group, everything the child started: a compiler driver's cc1plus),
// and a failed exec reported as an Error instead of a child that exits 127.
#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "util/result.hpp"

namespace kiln {

struct ProcessOptions {
    std::vector<std::string> argv;                          // argv[0] without '/' is searched in PATH
    std::map<std::string, std::optional<std::string>> env;  // set (value) or remove (nullopt)
    std::vector<int> keep_fds;                              // stay open across exec (O_CLOEXEC cleared in the child)
    int stdin_fd = -1;                                      // -1: /dev/null
    int stdout_fd = -1;                                     // -1: inherit
    int stderr_fd = -1;                                     // -1: inherit
    // Start it through a keeper process that leads a new process group and kills the whole group
    // (the program and everything it started) when the starting thread dies; the pid returned is
    // the keeper's, which exits as the program did. run_process always sets it.
    bool kill_group = false;
};

// Starts the process. Errors: Errc::not_found (no such program), Errc::io (fork or exec failed).
Result<pid_t> spawn_process(const ProcessOptions& options);

struct RunLimits {
    std::optional<std::chrono::milliseconds> timeout;  // SIGKILL after this long; none: wait
    bool merge_output = false;                         // stderr into `out`, interleaved (subprocess's STDOUT redirect)
};

struct ProcessResult {
    int exit_status = -1;  // exit code, or 128 + signal when killed (shell convention)
    int signal = 0;        // the signal that killed it, 0 if it exited
    int wait_status = 0;   // as waitpid reported it (describe_wait_status)
    bool timed_out = false;
    std::string out;  // stdout (with stderr when merged)
    std::string err;  // stderr unless merged
};

// Runs to completion, capturing the output. Errors only when the process cannot be started; a
// non-zero exit, a signal or a timeout is a ProcessResult.
Result<ProcessResult> run_process(ProcessOptions options, const RunLimits& limits = {});

// "exited with status 3", "killed by signal 11 (SIGSEGV)".
std::string describe_wait_status(int status);

// Shell-like rendering for messages: words with spaces or quotes are single-quoted.
std::string render_command(const std::vector<std::string>& argv);

}  // namespace kiln

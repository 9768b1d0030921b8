#pragma once
// Runs a compiler: argv (no shell), stdout and stderr merged like subprocess's STDOUT redirect.
#include <string>
#include <vector>

#include "util/result.hpp"

namespace kiln::codecache {

struct ProcessResult {
    int exit_status = -1;  // exit code, or 128 + signal when killed (shell convention)
    int signal = 0;        // the signal that killed it, 0 if it exited
    std::string output;    // stdout and stderr interleaved
};

// Errors only when the process cannot be started; a non-zero exit is a ProcessResult.
Result<ProcessResult> run_process(const std::vector<std::string>& argv);

// Shell-like rendering for messages: words with spaces or quotes are single-quoted.
std::string render_command(const std::vector<std::string>& argv);

}  // namespace kiln::codecache

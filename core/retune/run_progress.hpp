#pragma once
// How far a running `kiln-cli retune` has got, from its session logs: one per op, written line by
// line under <root>/kiln/autotune/retune-<op>-<i>-<stamp>-<pid>.jsonl (run.cpp). What the GUI's
// Re-tune dialog follows while the run goes, read on a worker thread.
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "inductor/opened_root.hpp"
#include "util/result.hpp"

namespace kiln::retune {

struct RunProgress {
    int planned = 0;                        // choices of the ops started so far (session_start's "choices")
    int measured = 0;                       // measurement lines
    int failed = 0;                         // measurements whose status is not ok
    std::map<std::string, int> per_device;  // "cuda:0" -> measurements there
    std::vector<std::filesystem::path> logs;
};

// Adds one log's text as written so far: a torn last line, or a line that is not a JSON object
// with the expected field types, is skipped.
void add_session_log_progress(std::string_view text, RunProgress& into);

// The progress of the run of process `pid` under the opened `root` (the GUI's: the window opened it),
// listed and read through its descriptor (issue 44: a root renamed after the open is still the one
// followed): its session logs in name order (`logs`: as path_beneath names them), each read the one
// way (util/regular_file: a regular file, no atime, at most 64 MiB). No folder or no log yet: no
// progress, not an error.
Result<RunProgress> read_run_progress(const inductor::OpenedRoot& root, long pid);

// A finished run's `--json` report kept beside its session logs, as <root>/kiln/retune/run-<stamp>.json
// beneath the opened root (written whole or not at all: util/atomic_file), for the hand-back to read;
// its path as path_beneath names it.
Result<std::filesystem::path> save_run_report(const inductor::OpenedRoot& root, std::string_view json);

}  // namespace kiln::retune

#pragma once
// Finds and reads every timing source under the paths a user names: a file of any supported
// kind, or a directory (an Inductor cache root, or a folder holding logs) searched for all of them.
#include <atomic>
#include <filesystem>
#include <optional>
#include <variant>
#include <vector>

#include "inductor/opened_root.hpp"
#include "inductor/scanner.hpp"
#include "timings/timing_model.hpp"
#include "util/result.hpp"

namespace kiln::timings {

// Folders of an Inductor root that hold no timings but thousands of files (triton/, fxgraph/, ...):
// walks skip them.
bool holds_no_timings(const std::filesystem::path& dir);

// What a file is, judged from its path and (for logs and JSON) its first bytes.
std::optional<SourceKind> classify_timing_file(const std::filesystem::path& path);

// Reads one file of a known kind into `set` (appends its Source and ops).
Status read_timing_file(const std::filesystem::path& path, SourceKind kind, TimingSet& set);

// Files named explicitly must parse (else the error); files found in a directory scan that fail
// to parse become warnings so one torn file does not hide the rest.
Result<TimingSet> collect_timings(const std::vector<std::filesystem::path>& paths);
// A file by its path, or a directory opened once (frontend::open_cache: a cache root, or a folder of
// logs), walked and read through its descriptor: a path swapped after the open never changes what is read.
using TimingPlace = std::variant<std::filesystem::path, inductor::OpenedRoot>;
Result<TimingSet> collect_timings_from(const std::vector<TimingPlace>& places);
// The same set as collect_timings_from({scan.opened_root()}) from a kept scan of that root (the GUI's): its
// files are the walk's, so the root is not walked again; read through the scan's descriptor. (The scan
// never enters the quarantine, <root>/.kiln-quarantine/: timings quarantined there are not read.)
// Errc::cancelled when `cancel` is raised.
Result<TimingSet> collect_timings_from(const inductor::ScanResult& scan, const std::atomic<bool>* cancel = nullptr);

}  // namespace kiln::timings

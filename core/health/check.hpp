#pragma once
// `kiln-cli check`: one scan of a cache root, then every file checked for what a torch.compile run
// needs of it (each ProblemKind in health_report.hpp). Graph entries are decoded, output code is
// parsed and its kernels looked up, Triton kernel dirs are compared with their group files, ELF
// binaries' headers with their sizes; stale entries are judged by core/portability.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "health/health_report.hpp"
#include "inductor/scanner.hpp"
#include "portability/fingerprint.hpp"
#include "util/result.hpp"

namespace kiln::health {

class SeenEntries;

struct CheckOptions {
    // Stale entries: those that can never hit on this target (portability::assess_root: a miss). Empty:
    // those whose torch or Triton version differs from the newest entry's in the cache.
    std::optional<portability::Fingerprint> target;
    // With no `target`: stale against default_target(), looked up while the walk runs (starting the
    // CUDA driver costs a quarter of a second on a GPU machine).
    bool default_target = false;
    std::int64_t now_ns = 0;                           // 0: the current time
    std::int64_t temp_age_ns = 3600LL * 1000000000LL;  // temporaries older than this are stale
    unsigned threads = 0;                              // 0: the CPUs this process may use
    const std::atomic<bool>* cancel = nullptr;
    // check_scan only: the graph entries as a read made anyway saw them (the GUI's `graphs` job). Their
    // files are checked last, once it is closed (SeenEntries::wait), from what it saw (taken out of it);
    // an entry it did not see is read here. The report is the same as without it.
    SeenEntries* seen = nullptr;
};

// Every read goes through the opened root's descriptor, never its path, so a command that checks more
// than once (check --quarantine) checks the same directory each time even if the path is a symlink
// swapped meanwhile. Errors: a root that cannot be read (io), cancelled.
Result<HealthReport> check_cache(const inductor::OpenedRoot& root, const CheckOptions& options = {});
// The same checks over a scan already made (the GUI's browser scan; kept artifacts needed), read
// through the directory the scan walked (ScanResult::root_fd).
Result<HealthReport> check_scan(const inductor::ScanResult& scan, const CheckOptions& options = {});

// The checks of the files of `groups` only (indices into `scan.groups`), read now; what the rest of the
// cache holds is taken from `scan` (kept, of the same root) and a reference it does not know is looked
// up on disk. What quarantine re-verifies once it holds a group's lock: a verdict taken while a compile
// held that lock (a .so half written) must not be acted on after the compile finished. Stale entries
// are not judged.
Result<HealthReport> check_groups(const inductor::ScanResult& scan, const std::vector<inductor::GroupId>& groups,
                                  const CheckOptions& options = {});

// What stale is judged against unless the user names a target: this machine when the CUDA driver
// shows a GPU (a laptop without one browsing a server's cache must not call every entry stale), else
// nothing (entries whose torch/Triton differs from the newest in the cache).
std::optional<portability::Fingerprint> default_target();

// The groups (key dirs, relative) of the entries that are stale against `target` (default_target()
// when empty): what `kiln-cli evict --stale` removes.
Result<std::vector<std::string>> stale_groups(const inductor::OpenedRoot& root,
                                              const std::optional<portability::Fingerprint>& target);

// The number of problems (stale entries not counted): what the GUI's Overview shows.
Result<std::size_t> count_problems(const inductor::OpenedRoot& root);
Result<std::size_t> count_problems(const inductor::ScanResult& scan, const std::atomic<bool>* cancel = nullptr);

}  // namespace kiln::health

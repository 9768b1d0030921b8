#pragma once
// `kiln-cli bundle unpack`: the files torch.compiler.load_cache_artifacts(blob) writes, without
// Python: same paths, same bytes (torch 2.11). Everything goes through the root's descriptor
// (openat/mkdirat with O_NOFOLLOW at every component, atomic rename per file), keys are checked
// before they become paths, and an existing file with other bytes is never replaced without `force`.
#include <cstdint>
#include <string>
#include <vector>

#include "bundle/blob.hpp"
#include "util/result.hpp"

namespace kiln::bundle {

struct UnpackOptions {
    bool dry_run = false;
    bool force = false;           // replace existing files whose bytes differ
    bool ignore_unknown = false;  // unpack the known types of a blob torch 2.11 would reject as a whole
    // `root` is a new, empty, private folder that is removed after use (materialize_blob): nothing is
    // there to compare with, and each file is created at its name with no temporary, rename or fsync
    // (util's write_new_at). A user's cache (`bundle unpack`) keeps atomic, fsynced writes.
    bool scratch_root = false;
};

enum class UnpackAction : std::uint8_t {
    write,     // the file does not exist: created
    same,      // an identical file is there already: left alone
    replace,   // a file with other bytes is there and `force` was given: replaced
    conflict,  // a file with other bytes (or something that is no file) is there: nothing was written
};
std::string_view unpack_action_name(UnpackAction a);

struct UnpackStep {
    std::string target;  // relative to the root
    std::string type, key;
    std::uint64_t bytes = 0;
    UnpackAction action = UnpackAction::write;
    std::string why;         // for conflicts
    bool lock_file = false;  // the empty .lock torch's FileLock leaves beside a PGO profile
};

struct UnpackReport {
    std::string root;
    bool dry_run = false;
    bool refused = false;             // conflicts without force: nothing was written
    std::vector<UnpackStep> steps;    // in torch's load order
    std::vector<std::string> notes;   // artifacts torch would skip (shadowed groups, superseded keys, unknown types)
    std::uint64_t files_written = 0;  // write + replace (in a dry run: would be)
    std::uint64_t bytes_written = 0;
    std::size_t conflicts() const;
};

// Errors: keys that fail check_key (nothing is written: torch would write outside the root), unknown
// types without ignore_unknown (torch writes nothing for such a blob), a root that cannot be made
// or opened, an I/O failure part-way (the report up to then is lost; files already renamed stay).
Result<UnpackReport> unpack_blob(const Blob& blob, const std::string& root, const UnpackOptions& options);

}  // namespace kiln::bundle

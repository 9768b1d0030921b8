#pragma once
// The one route from "the cache the user named" to an opened cache, for every kiln-cli command and the
// GUI: a path (or none: Inductor's default root) that is a cache root directory or a Mega-Cache blob,
// the blob unpacked into a private temporary root, the root directory held open. Each way it can fail
// has one error text (what, where, how to fix), the same for every front end.
#include <filesystem>
#include <optional>
#include <vector>

#include "bundle/temp_root.hpp"
#include "inductor/scanner.hpp"
#include "util/result.hpp"

namespace kiln::frontend {

// The root as the commands read it: `root` (a directory; a blob's temporary root), `label` (what
// reports name: the path given), `root_fd` (`root`, opened once), `is_blob()`.
using OpenedCache = bundle::RootOrBlob;

enum class CacheAccess {
    read,   // a directory or a blob
    write,  // the command changes the cache in place: a directory only (a blob is refused)
};

// `path` empty: the default root for `kind` (inductor::default_inductor_root / default_triton_root).
// Errors, the same text for every command:
//   no such path                    Errc::not_found
//   a file that is not a blob, a FIFO, a device ...  Errc::invalid_argument
//   cannot be read (permissions)    Errc::io
//   a blob that does not decode     Errc::parse
//   a blob with CacheAccess::write  Errc::unsupported
Result<OpenedCache> open_cache(const std::optional<std::filesystem::path>& path, CacheAccess access = CacheAccess::read,
                               inductor::RootKind kind = inductor::RootKind::inductor);

// A root a parent process opened and handed down as descriptor `fd` (the GUI's re-tune child:
// `kiln-cli retune ROOT --root-fd N`): read beneath `fd`, never opened again by a path, so a root
// renamed or swapped since the parent opened it is still the one read; `named` (ROOT) is what reports
// name. Takes `fd` (closed on exec from here on: the workers get their own --root-fd).
// Errc::invalid_argument when `fd` is no open directory.
Result<OpenedCache> adopt_opened_root(const std::filesystem::path& named, int fd);

// Each of `paths` opened for reading, in order; those that do not open are left out (what a command
// reads beside the cache it was given: the roots its timing caches name).
std::vector<OpenedCache> open_each(const std::vector<std::filesystem::path>& paths);
// What core functions take of each (valid while `caches` lives unchanged).
std::vector<inductor::OpenedRoot> opened_roots(const std::vector<OpenedCache>& caches);

// An error about a file of `cache` named as the user knows it: a blob's temporary root becomes the
// blob (a file in it "<blob>[<path in the root>]"); anything else is returned as it is.
Error in_given_terms(const OpenedCache& cache, Error error);
// A path of `cache` as the user knows it: a file in a blob's temporary root is "<blob>[<path in the root>]".
std::string in_given_terms(const OpenedCache& cache, const std::string& path);

// The root open_cache opens when given no path.
std::filesystem::path default_cache_root(inductor::RootKind kind = inductor::RootKind::inductor);

}  // namespace kiln::frontend

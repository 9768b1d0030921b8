#pragma once
// Where caches live, resolved the way torch and Triton resolve them, and what a root looks like.
#include <filesystem>
#include <optional>
#include <string>

#include "inductor/opened_root.hpp"
#include "inductor/scanner.hpp"
#include "util/result.hpp"
#include "util/unique_fd.hpp"

namespace kiln::inductor {

// getpass.getuser(): $LOGNAME, $USER, $LNAME, $USERNAME, then the password database; characters
// torch replaces in the directory name (\ / : * ? " < > |) become '_'.
std::string cache_user_name();
// tempfile.gettempdir() restricted to what matters on Linux: $TMPDIR, $TEMP, $TMP, else /tmp.
std::filesystem::path temp_dir();

// $TORCHINDUCTOR_CACHE_DIR, else <tmpdir>/torchinductor_<user>. Not checked for existence.
std::filesystem::path default_inductor_root();
// $TRITON_CACHE_DIR, else $HOME/.triton/cache (Triton's own default).
std::filesystem::path default_triton_root();

// The root directory's descriptor (O_RDONLY | O_DIRECTORY), opened the one way every reader and
// writer opens it, with one error text per failure whoever asks. `from_fd` >= 0: the same directory
// again through that descriptor (openat "."), with an offset of its own.
Result<UniqueFd> open_root_dir(const std::filesystem::path& root, int from_fd = -1);
// Those texts (frontend::open_cache says the same of any path it is given): no such path
// (Errc::not_found; `defaulted`: the default root, which torch makes on its first compile), cannot be
// read (Errc::io, errno `err`), neither a directory nor a blob (Errc::invalid_argument, stat's mode).
Error no_root_error(const std::filesystem::path& root, bool defaulted = false, RootKind kind = RootKind::inductor);
Error unreadable_root_error(const std::filesystem::path& root, int err);
Error not_a_root_error(const std::filesystem::path& root, unsigned mode);

// Looks at the root's top level only (cheap, no walk): an Inductor cache has fxgraph/, aotautograd/,
// locks/, triton/<n>/, cache/ or <xx>/c<51>.* entries; a Triton cache has only <HASH>/ dirs.
// Empty when it looks like neither (a home directory, a source tree ...).
std::optional<RootKind> detect_root_kind(const std::filesystem::path& root);
// The same through the opened root's descriptor (the scan and evict look at what they walk).
std::optional<RootKind> detect_root_kind(const OpenedRoot& root);

}  // namespace kiln::inductor

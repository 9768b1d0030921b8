#pragma once
// Where caches live, resolved the way torch and Triton resolve them, and what a root looks like.
#include <filesystem>
#include <optional>
#include <string>

#include "inductor/scanner.hpp"
#include "util/result.hpp"

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

// The root a command works on: `explicit_root` when given, else the default for `kind`.
// Error (Errc::not_found, hint how to point Kiln elsewhere) when it does not exist or is no directory.
Result<std::filesystem::path> resolve_root(const std::optional<std::string>& explicit_root,
                                           RootKind kind = RootKind::inductor);

// Looks at the root's top level only (cheap, no walk): an Inductor cache has fxgraph/, aotautograd/,
// locks/, triton/<n>/, cache/ or <xx>/c<51>.* entries; a Triton cache has only <HASH>/ dirs.
// Empty when it looks like neither (a home directory, a source tree ...).
std::optional<RootKind> detect_root_kind(const std::filesystem::path& root);

}  // namespace kiln::inductor

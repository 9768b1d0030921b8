#include "inductor/roots.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "inductor/classify.hpp"
#include "util/regular_file.hpp"
#include "util/temp_cleanup.hpp"

namespace fs = std::filesystem;

namespace kiln::inductor {

namespace {
const char* env(const char* name) {
    const char* v = std::getenv(name);
    return v && *v ? v : nullptr;
}
}  // namespace

std::string cache_user_name() {
    std::string user;
    for (const char* var : {"LOGNAME", "USER", "LNAME", "USERNAME"}) {
        if (const char* v = env(var)) {
            user = v;
            break;
        }
    }
    if (user.empty()) {
        if (const struct passwd* pw = ::getpwuid(::getuid())) user = pw->pw_name;
        else user = std::to_string(::getuid());
    }
    for (char& c : user)
        if (std::string_view("\\/:*?\"<>|").find(c) != std::string_view::npos) c = '_';
    return user;
}

fs::path temp_dir() { return temp_directory(); }

fs::path default_inductor_root() {
    if (const char* v = env("TORCHINDUCTOR_CACHE_DIR")) return v;
    return temp_dir() / ("torchinductor_" + cache_user_name());
}

fs::path default_triton_root() {
    if (const char* v = env("TRITON_CACHE_DIR")) return v;
    const char* home = env("HOME");
    if (!home) {
        if (const struct passwd* pw = ::getpwuid(::getuid())) home = pw->pw_dir;
    }
    return fs::path(home ? home : "/") / ".triton" / "cache";
}

namespace {
constexpr const char* kWhatToPass =
    "pass a cache root (the directory holding fxgraph/, as TORCHINDUCTOR_CACHE_DIR names it) or a Mega-Cache blob "
    "(torch.compiler.save_cache_artifacts)";

// After a failed stat or open of `root` with errno `err`.
Error root_error(const fs::path& root, int err, bool defaulted, RootKind kind) {
    if (err == ENOENT) return no_root_error(root, defaulted, kind);
    struct stat st;
    if (err == ENOTDIR) {
        // A file where the root should be, or a file on the way to it.
        if (::stat(root.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) return not_a_root_error(root, st.st_mode);
        return no_root_error(root, defaulted, kind);
    }
    return unreadable_root_error(root, err);
}
}  // namespace

Error no_root_error(const fs::path& root, bool defaulted, RootKind kind) {
    if (kind == RootKind::triton)
        return make_error(Errc::not_found, "no Triton cache here (no such file or directory)", root.string(),
                          "pass the Triton cache root or set TRITON_CACHE_DIR");
    if (defaulted)
        return make_error(
            Errc::not_found,
            "no cache at Inductor's default root (no such directory; torch makes it on its first compile)",
            root.string(), std::string(kWhatToPass) + ", or set TORCHINDUCTOR_CACHE_DIR");
    return make_error(Errc::not_found, "no cache here (no such file or directory)", root.string(), kWhatToPass);
}

Error unreadable_root_error(const fs::path& root, int err) {
    return make_error(Errc::io, std::string("cannot read the cache: ") + std::strerror(err), root.string(),
                      "check its permissions: Kiln reads it as the user running it");
}

Error not_a_root_error(const fs::path& root, unsigned mode) {
    return make_error(Errc::invalid_argument,
                      "not a cache: " + std::string(file_type_name(mode)) +
                          ", neither a cache root (a directory) nor a Mega-Cache blob",
                      root.string(), kWhatToPass);
}

Result<UniqueFd> open_root_dir(const fs::path& root, int from_fd) {
    UniqueFd fd(from_fd >= 0 ? ::openat(from_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                             : ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd.valid()) return root_error(root, errno, false, RootKind::inductor);
    return fd;
}

namespace {
// A directory stream of `at`'s entry `name` ("." for `at` itself); null when it cannot be opened.
DIR* open_dir_at(int at, const char* name) {
    const int fd = ::openat(at, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return nullptr;
    DIR* dir = ::fdopendir(fd);
    if (!dir) ::close(fd);
    return dir;
}

std::optional<RootKind> detect_kind_at(int root_fd) {
    DIR* dir = open_dir_at(root_fd, ".");
    if (!dir) return std::nullopt;
    bool inductor = false, all_triton = true, any = false;
    while (struct dirent* e = ::readdir(dir)) {
        std::string_view name = e->d_name;
        if (name == "." || name == "..") continue;
        any = true;
        if (!is_triton_hash(name)) all_triton = false;
        if (name == "fxgraph" || name == "aotautograd" || name == "locks" || name == "triton") {
            inductor = true;
        } else if (name == "cache" || name.size() == 2) {
            // Weaker names: look one level down for a file that only Inductor names so.
            if (DIR* d = open_dir_at(root_fd, e->d_name)) {
                while (struct dirent* f = ::readdir(d)) {
                    std::string_view fn = f->d_name;
                    if ((name == "cache" && is_hex64(fn)) ||
                        (name.size() == 2 && fn.size() > 53 && is_code_key(fn.substr(0, 52)) && fn[52] == '.')) {
                        inductor = true;
                        break;
                    }
                }
                ::closedir(d);
            }
        }
        if (inductor) break;
    }
    ::closedir(dir);
    if (inductor) return RootKind::inductor;
    if (any && all_triton) return RootKind::triton;
    return std::nullopt;
}
}  // namespace

std::optional<RootKind> detect_root_kind(const OpenedRoot& root) { return detect_kind_at(root.fd); }

std::optional<RootKind> detect_root_kind(const fs::path& root) {
    UniqueFd fd(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd.valid()) return std::nullopt;
    return detect_kind_at(fd.get());
}

}  // namespace kiln::inductor

#include "inductor/roots.hpp"

#include <dirent.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
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

Result<fs::path> resolve_root(const std::optional<std::string>& explicit_root, RootKind kind) {
    fs::path root = explicit_root && !explicit_root->empty()
                        ? fs::path(*explicit_root)
                        : (kind == RootKind::triton ? default_triton_root() : default_inductor_root());
    struct stat st;
    if (::stat(root.c_str(), &st) != 0) {
        int err = errno;
        std::string hint =
            kind == RootKind::triton
                ? "pass the Triton cache root or set TRITON_CACHE_DIR"
                : "pass the cache root or set TORCHINDUCTOR_CACHE_DIR (torch writes it on the first compile)";
        if (err == ENOENT) return make_error(Errc::not_found, "no cache directory here", root.string(), hint);
        return io_error("cannot open the cache root", root.string(), err);
    }
    if (!S_ISDIR(st.st_mode))
        return make_error(Errc::invalid_argument,
                          "the cache root is not a directory but " + std::string(file_type_name(st.st_mode)),
                          root.string());
    return root;
}

std::optional<RootKind> detect_root_kind(const fs::path& root) {
    DIR* dir = ::opendir(root.c_str());
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
            std::string sub = root.string() + "/" + std::string(name);
            if (DIR* d = ::opendir(sub.c_str())) {
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

}  // namespace kiln::inductor

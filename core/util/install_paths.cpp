#include "util/install_paths.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <system_error>

namespace fs = std::filesystem;

namespace kiln {

fs::path executable_dir() {
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return {};
    return exe.parent_path();
}

std::vector<fs::path> worker_candidates() {
    std::vector<fs::path> out;
    if (const char* env = std::getenv("KILN_WORKER"); env && *env) out.emplace_back(env);
    fs::path dir = executable_dir();
    if (!dir.empty()) {
        out.push_back(dir / "kiln-worker");
        out.push_back((dir / ".." / "libexec" / "kiln" / "kiln-worker").lexically_normal());
    }
    return out;
}

Result<fs::path> find_worker_executable() {
    std::string tried;
    for (const fs::path& p : worker_candidates()) {
        struct stat st;
        if (::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0) return p;
        tried += (tried.empty() ? "" : ", ") + p.string();
    }
    return make_error(Errc::not_found, "kiln-worker not found", tried.empty() ? "(no candidates)" : tried,
                      "reinstall Kiln, or set KILN_WORKER to the kiln-worker executable");
}

}  // namespace kiln

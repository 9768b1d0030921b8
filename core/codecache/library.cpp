#include "codecache/library.hpp"

#include "codecache/artifact_check.hpp"

#include <dlfcn.h>

namespace kiln::codecache {
namespace {
// dlerror() is per thread but its text is only valid until the next dl* call on that thread.
std::string last_dl_error() {
    const char* e = dlerror();
    return e ? e : "unknown dlopen error";
}
}  // namespace

Result<std::shared_ptr<Library>> Library::open(const std::filesystem::path& path) {
    // dlopen maps a truncated library's segments past the end of the file and dies of SIGBUS while
    // relocating, so check the ELF headers against the file size first.
    if (auto problem = artifact_problem(path, "so"); !problem.empty())
        return make_error(
            Errc::io, "cannot load library: " + problem, path.string(),
            problem == "missing" ? std::string() : "the library is corrupt; rebuild it (kiln-cli compile --force)");
    dlerror();
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        std::string err = last_dl_error();
        std::string hint;
        if (err.find("failed to map segment from shared object") != std::string::npos)
            hint =
                "the most common reason is a cache directory on a file system mounted noexec (Docker mounts "
                "/tmp noexec by default); remount it with exec, or use another --cache-dir";
        else if (err.find("file too short") != std::string::npos || err.find("invalid ELF header") != std::string::npos)
            hint = "the library is corrupt (e.g. truncated); rebuild it (kiln-cli compile --force)";
        return make_error(Errc::io, "cannot load library: " + err, path.string(), std::move(hint));
    }
    return std::shared_ptr<Library>(new Library(path, handle));
}

Library::~Library() {
    if (handle_) dlclose(handle_);
}

Result<void*> Library::raw_symbol(const std::string& name) const {
    dlerror();
    void* p = dlsym(handle_, name.c_str());
    if (!p) {
        return make_error(Errc::not_found, "symbol '" + name + "' not found: " + last_dl_error(), path_.string(),
                          "C++ names are mangled: declare the function extern \"C\"");
    }
    return p;
}

}  // namespace kiln::codecache

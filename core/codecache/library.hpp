#pragma once
// RAII over dlopen/dlsym/dlclose (Inductor's DLLWrapper): errors name the library and the symbol,
// and a "failed to map segment" error carries the seed's hint about a noexec temporary directory.
// Caveat: after a forced rebuild of a library this process already loaded, dlopen of the same path
// returns the old handle (glibc matches by name); load the new one in a fresh process.
#include <filesystem>
#include <memory>
#include <string>

#include "util/result.hpp"

namespace kiln::codecache {

class Library {
public:
    // RTLD_NOW | RTLD_LOCAL: unresolved symbols fail here, not at the first call.
    static Result<std::shared_ptr<Library>> open(const std::filesystem::path& path);
    ~Library();
    Library(const Library&) = delete;
    Library& operator=(const Library&) = delete;

    const std::filesystem::path& path() const { return path_; }
    Result<void*> raw_symbol(const std::string& name) const;

    // symbol<int(int)>("add_one") -> Result<int (*)(int)>; symbol<float>("x") -> Result<float*>.
    template <class T>
    Result<T*> symbol(const std::string& name) const {
        auto p = raw_symbol(name);
        if (!p.ok()) return std::move(p.error());
        return reinterpret_cast<T*>(p.value());
    }

private:
    Library(std::filesystem::path path, void* handle) : path_(std::move(path)), handle_(handle) {}
    std::filesystem::path path_;
    void* handle_ = nullptr;
};

}  // namespace kiln::codecache

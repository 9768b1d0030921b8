#pragma once
// A remote graph entry copied to a private temporary key dir, `<tmp>/<key>/<entry>`, so commands
// that take a path (guards, diff, show) read it like a local entry with a one-line change. The
// directory is removed when the LocalCopy dies.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "remote/entry_source.hpp"

namespace kiln::remote {

class LocalCopy {
public:
    // `url`: redis://[user:password@]host:port[/db]/KEY (see entry_source.hpp for KEY's forms).
    static Result<LocalCopy> fetch(std::string_view url, RedisLimits timeouts = {});
    LocalCopy(LocalCopy&&) noexcept;
    LocalCopy& operator=(LocalCopy&&) = delete;
    ~LocalCopy();

    const std::filesystem::path& entry() const { return entry_; }  // the entry file
    std::filesystem::path key_dir() const { return entry_.parent_path(); }
    const std::string& origin() const { return origin_; }          // redis://host:port/db/<redis key>

private:
    LocalCopy(std::filesystem::path dir, std::filesystem::path entry, std::string origin);
    std::filesystem::path dir_;
    std::filesystem::path entry_;
    std::string origin_;
};

// The one-line hook for commands: when `spec` is a redis:// URL, fetches it into `keep` and points
// `spec` at the local copy's entry file; other specs are left alone.
Status localize(std::string& spec, std::optional<LocalCopy>& keep, RedisLimits timeouts = {});

}  // namespace kiln::remote

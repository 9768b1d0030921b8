#include "remote/local_copy.hpp"

#include <stdlib.h>

#include <fstream>

#include "remote/remote_key.hpp"

namespace fs = std::filesystem;

namespace kiln::remote {

LocalCopy::LocalCopy(fs::path dir, fs::path entry, std::string origin)
    : dir_(std::move(dir)), entry_(std::move(entry)), origin_(std::move(origin)) {}

LocalCopy::LocalCopy(LocalCopy&& o) noexcept : dir_(std::move(o.dir_)), entry_(std::move(o.entry_)), origin_(std::move(o.origin_)) {
    o.dir_.clear();
}

LocalCopy::~LocalCopy() {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
}

Result<LocalCopy> LocalCopy::fetch(std::string_view url, RedisLimits timeouts) {
    KILN_TRY(auto bytes, load_entry_any(url, timeouts));
    // The key dir is named after Inductor's key, the file after the server, so paths printed by
    // the commands still say where the entry came from.
    std::string redis_key = bytes.origin.substr(bytes.origin.rfind('/') + 1);
    auto parsed = parse_remote_key(redis_key);
    std::string key = parsed ? parsed->key : "remote-entry";
    for (char& c : key) if (c == '/') c = '_';
    std::string tmpl = (fs::temp_directory_path() / "kiln-remote-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) return io_error("mkdtemp", tmpl, errno);
    fs::path dir(tmpl);
    std::error_code ec;
    fs::create_directories(dir / key, ec);
    if (ec) return io_error("create directory", (dir / key).string(), ec.value());
    fs::path entry = dir / key / "remote";
    LocalCopy copy(dir, entry, bytes.origin);
    std::ofstream out(entry, std::ios::binary | std::ios::trunc);
    out.write(bytes.bytes.data(), static_cast<std::streamsize>(bytes.bytes.size()));
    if (!out) return io_error("write", entry.string(), errno);
    return copy;
}

Status localize(std::string& spec, std::optional<LocalCopy>& keep, RedisLimits timeouts) {
    if (!is_redis_url(spec)) return ok_status();
    KILN_TRY(auto copy, LocalCopy::fetch(spec, timeouts));
    spec = copy.entry().string();
    keep.emplace(std::move(copy));
    return ok_status();
}

}  // namespace kiln::remote

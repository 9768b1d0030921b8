#include "timings/text_file.hpp"

#include <cerrno>
#include <fstream>
#include <sstream>

namespace kiln::timings {

Result<std::string> read_text_file(const std::filesystem::path& path, std::uintmax_t max_bytes) {
    std::error_code ec;
    auto size = std::filesystem::file_size(path, ec);
    if (ec) return io_error("stat", path.string(), ec.value());
    if (size > max_bytes)
        return make_error(Errc::limit,
                          "file is " + std::to_string(size) + " bytes, over the limit of " + std::to_string(max_bytes),
                          path.string());
    std::ifstream in(path, std::ios::binary);
    if (!in) return io_error("open", path.string(), errno ? errno : EIO);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace kiln::timings

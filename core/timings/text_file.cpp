#include "timings/text_file.hpp"

#include "util/regular_file.hpp"

namespace kiln::timings {

// Regular files only (a FIFO named on the command line or left in a cache must not block).
Result<std::string> read_text_file(const std::filesystem::path& path, std::uintmax_t max_bytes) {
    return read_regular_file(path, max_bytes);
}

}  // namespace kiln::timings

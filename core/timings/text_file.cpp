#include "timings/text_file.hpp"

#include "util/regular_file.hpp"

namespace kiln::timings {

// Through util's regular-file read: O_NOATIME where permitted, and a FIFO never blocks.
Result<std::string> read_text_file(const std::filesystem::path& path, std::uintmax_t max_bytes) {
    return read_regular_file(path, max_bytes);
}

}  // namespace kiln::timings

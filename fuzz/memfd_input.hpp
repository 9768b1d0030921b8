#pragma once
// A fuzz input as a real regular file, for readers that open a path as they open a log: one memfd
// per process, rewritten for each input, read back through /proc/self/fd/N.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace kiln::fuzz {

inline const std::string& memfd_input(const char* name, const std::uint8_t* data, std::size_t size) {
    static int fd = ::memfd_create(name, MFD_CLOEXEC);
    static const std::string path = "/proc/self/fd/" + std::to_string(fd);
    if (fd < 0 || ::ftruncate(fd, 0) != 0) std::abort();
    for (std::size_t off = 0; off < size;) {
        ssize_t n = ::pwrite(fd, data + off, size - off, static_cast<off_t>(off));
        if (n <= 0) std::abort();
        off += static_cast<std::size_t>(n);
    }
    return path;
}

}  // namespace kiln::fuzz

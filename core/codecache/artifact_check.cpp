#include "codecache/artifact_check.hpp"

#include "util/regular_file.hpp"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

namespace kiln::codecache {
namespace {

std::string elf_problem(const unsigned char* h, std::size_t n, std::uint64_t size) {
    if (n < EI_NIDENT || std::memcmp(h, ELFMAG, SELFMAG) != 0) return "not an ELF file";
    std::uint64_t end = 0;
    if (h[EI_CLASS] == ELFCLASS64) {
        if (n < sizeof(Elf64_Ehdr)) return "truncated ELF header";
        Elf64_Ehdr e;
        std::memcpy(&e, h, sizeof e);
        end = e.e_shoff + std::uint64_t(e.e_shnum) * e.e_shentsize;
        end = std::max<std::uint64_t>(end, e.e_phoff + std::uint64_t(e.e_phnum) * e.e_phentsize);
    } else if (h[EI_CLASS] == ELFCLASS32) {
        if (n < sizeof(Elf32_Ehdr)) return "truncated ELF header";
        Elf32_Ehdr e;
        std::memcpy(&e, h, sizeof e);
        end = e.e_shoff + std::uint64_t(e.e_shnum) * e.e_shentsize;
    } else {
        return "unknown ELF class";
    }
    if (end > size)
        return "truncated ELF: headers need " + std::to_string(end) + " bytes, file has " + std::to_string(size);
    return {};
}

}  // namespace

std::string artifact_problem(const std::filesystem::path& path, const std::string& ext) {
    auto file = open_regular_file(path);  // O_NOATIME: checking a cache is no use of it
    if (!file) return file.error().code == Errc::invalid_argument ? "not a regular file" : "missing";
    return artifact_problem(*file, ext);
}

std::string artifact_problem(const OpenedFile& file, const std::string& ext) {
    unsigned char head[sizeof(Elf64_Ehdr)];
    ssize_t n = 0;
    while ((n = ::pread(file.fd.get(), head, sizeof head, 0)) < 0 && errno == EINTR) {}
    if (file.size == 0 || n <= 0) return "empty";
    std::uint64_t size = file.size;
    if (ext == "so" || ext == "o" || ext == "exe" || ext == "cubin")
        return elf_problem(head, static_cast<std::size_t>(n), size);
    if (ext == "fatbin" && n >= 16) {
        std::uint32_t magic;
        std::uint16_t header_size;
        std::uint64_t fat_size;
        std::memcpy(&magic, head, 4);
        std::memcpy(&header_size, head + 6, 2);
        std::memcpy(&fat_size, head + 8, 8);
        if (magic == 0xBA55ED50u && header_size + fat_size > size) return "truncated fatbin";
    }
    return {};
}

}  // namespace kiln::codecache

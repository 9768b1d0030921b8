#pragma once
// Cheap validity checks of a compiled artifact before it counts as a cache hit: a truncated ELF file
// (.so/.o/exe/.cubin) lost its section header table, which sits at the end; a fatbin's header
// gives its size. This catches the half-written library Inductor can leave behind.
#include <filesystem>
#include <string>

namespace kiln {
struct OpenedFile;  // util/regular_file.hpp
}

namespace kiln::codecache {

// Empty when usable; otherwise why not ("missing", "truncated ELF: ...").
// Opened as util/regular_file opens (O_NOATIME, no FIFO).
std::string artifact_problem(const std::filesystem::path& path, const std::string& ext);
// The same for a file already open (its size when opened).
std::string artifact_problem(const OpenedFile& file, const std::string& ext);

}  // namespace kiln::codecache

#pragma once
// A cache root opened by path the way frontend::open_cache opens a directory (inductor::open_root_dir),
// for the tests of modules below frontend: core functions take the opened root, never a path.
#include <filesystem>

#include "inductor/opened_root.hpp"
#include "inductor/roots.hpp"
#include "util/unique_fd.hpp"

namespace kiln::test {

struct OpenedDir {
    std::filesystem::path path;
    UniqueFd fd;  // -1 when the path could not be opened (what the core function then says)
    operator inductor::OpenedRoot() const { return {path, fd.get()}; }  // NOLINT: used as the root it is
};

inline OpenedDir open_dir(const std::filesystem::path& path) {
    auto fd = inductor::open_root_dir(path);
    return {path, fd ? std::move(*fd) : UniqueFd()};
}

}  // namespace kiln::test

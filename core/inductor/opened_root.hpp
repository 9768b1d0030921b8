#pragma once
// A cache root as core functions take it: opened once, by frontend::open_cache (the one route from
// what the user named to a root), and passed down. Everything a function reads or changes beneath the
// root goes through `fd` (openat and friends), so a root path swapped meanwhile (a symlink, a rename)
// never sends a command to another directory, and no function resolves or opens the root again.
#include <filesystem>

namespace kiln::inductor {

struct OpenedRoot {
    std::filesystem::path path;  // the directory as opened (a blob's temporary root): what reports name
    int fd = -1;                 // `path`, O_DIRECTORY; owned by the caller (frontend::OpenedCache), never closed here
};

}  // namespace kiln::inductor

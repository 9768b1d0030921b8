#pragma once
// Atomic file replacement (Inductor's write_atomic, plus fsync): create a new temporary file
// `.<pid>.<random>.tmp` in the target's directory (O_EXCL: never one planted there, such as a hard
// link to a file elsewhere), fsync it, rename it over the target. A reader sees the old content or
// the new, never a partial file; a crash leaves only a hidden temporary (the scanner classifies it
// as `temp`). Every file Kiln writes into a cache goes through here.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "util/result.hpp"

namespace kiln {

// Whether the temporary is fsynced before its rename. `durable`: every file a user keeps (a power loss
// must not leave the name pointing at empty data). `scratch`: a private tree that is thrown away after
// use (a blob unpacked for reading): nothing of it must survive a crash, and an fsync per file is all
// its cost (200,000 small files: minutes instead of seconds).
enum class Durability : std::uint8_t { durable, scratch };

Status write_atomic(const std::filesystem::path& path, std::string_view content, bool make_dirs = true);
// The same in the open directory `dir_fd` (file `name`, no '/'): for writers that reached the
// directory without following symlinks (bundle unpack). `context` names the target in errors. With
// `replace` false an existing `name` is left alone and the call fails (Errc::busy).
Status write_atomic_at(int dir_fd, const std::string& name, std::string_view content, const std::string& context,
                       bool replace = true, Durability durability = Durability::durable);

// fsync an existing file (e.g. a compiler's output before it is renamed into place).
Status fsync_file(const std::filesystem::path& path);

// Unique per process and thread: ".<pid>.<tid>".
std::string temp_suffix();

}  // namespace kiln

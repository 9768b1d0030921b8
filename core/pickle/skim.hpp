#pragma once
// A pickle file read without its large bytes payloads. Graph entries are MBs because they carry the
// bundled Triton binaries (BINBYTES of cubin, ptx, llir...) while everything else sits in a few
// hundred KB; what checks an entry (kiln-cli check) needs its structure, its strings and the sizes
// of those payloads, never their bytes. skim_file walks the opcode stream with small reads, copies
// every opcode except the payloads of BINBYTES / BINBYTES8 / BYTEARRAY8 of at least `min_elided`
// bytes (written with a length of 0, the true length kept aside), and seeks past them.
//
// Decoding the result (pickle::decode) succeeds or fails exactly where decoding the whole file would,
// with the same message and the same byte offsets: bytes payloads are never validated, and a payload
// that runs past the end of the file is copied as it is. Elided values are Kind::bytes / bytearray
// with empty text(), byte_size() their true length and elided() true.
#include <cstdint>
#include <filesystem>
#include <memory>

#include "pickle/buffer.hpp"
#include "util/result.hpp"

namespace kiln::pickle {

struct SkimStats {
    std::uint64_t file_bytes = 0;  // st_size
    std::uint64_t read_bytes = 0;  // what was read
};

// Errors as load_file's: not a regular file, unreadable, shrank while read.
Result<std::shared_ptr<const Buffer>> skim_file(const std::filesystem::path& path, std::uint64_t min_elided = 4096,
                                                SkimStats* stats = nullptr);
// The same from a file already open (util/regular_file: opened beneath a root's descriptor); `origin`
// names it in errors.
Result<std::shared_ptr<const Buffer>> skim_opened_file(const OpenedFile& file, const std::string& origin,
                                                       std::uint64_t min_elided = 4096, SkimStats* stats = nullptr);

}  // namespace kiln::pickle

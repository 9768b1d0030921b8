#pragma once
// The debug lines of a graph entry without decoding the whole entry. An FX entry's
// `_fx_graph_cache_debug_lines` sit in its first ~100 KB (before the output code and the bundled
// Triton binaries, which make entries MBs large); an AOT entry keeps its inner graphs' lines in
// `compiled_fw` / `compiled_bw`.`fx_graph_cache_info`. A forward-only walk over the pickle's
// opcodes reads just that prefix and copies just those strings. Anything the walk does not expect
// (another layout, an opcode it does not know, a truncated file) falls back to the full decoder.
#include <fcntl.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace kiln::portability {

enum class EntryKind : std::uint8_t { fx_graph, aot_autograd };

struct EntryLines {
    // FX: one list (empty when the entry records none); AOT: the forward's lines, then the
    // backward's when it has one. Views into `storage` (copies of EntryLines share it).
    std::vector<std::vector<std::string_view>> lists;
    std::uint64_t bytes_read = 0;  // how much of the file was read
    bool decoded = false;          // true when the full decoder was needed
    std::shared_ptr<const void> storage;
};

// With `scratch`, the bytes are read into it (reused across calls: no allocation per entry) and the
// lines view it until its next use; without, EntryLines owns them (`storage`).
// A relative `path` is relative to `dirfd`.
Result<EntryLines> read_entry_lines(const std::filesystem::path& path, EntryKind kind, std::string* scratch = nullptr,
                                    int dirfd = AT_FDCWD);

enum class WalkResult : std::uint8_t { done, need_more, unsupported };
// The walk over `bytes` (a prefix of the pickle when `complete` is false); the lines are views
// into `bytes`. Exposed for tests.
WalkResult walk_entry_lines(std::string_view bytes, bool complete, EntryKind kind,
                            std::vector<std::vector<std::string_view>>& lists, std::string& why);

}  // namespace kiln::portability

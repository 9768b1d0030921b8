#pragma once
// The safe unpickler: decodes protocols 0-5 into an inert value tree (value.hpp) without
// importing, resolving or calling anything. Every failure is an Error with code `parse`
// (malformed input) or `limit` (a configured limit was exceeded); its context reads
// "<origin>: byte <offset>, opcode <NAME>" and its message says why.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "pickle/buffer.hpp"
#include "pickle/value.hpp"
#include "util/result.hpp"

namespace kiln::pickle {

struct Limits {
    std::size_t max_depth = 1000;        // nesting of containers/calls being built (MARK stack + live frames)
    std::size_t max_nodes = 50'000'000;  // value nodes in one document
    std::size_t max_memo = 10'000'000;   // memo entries
    std::size_t max_stack = 10'000'000;  // values on the unpickler stack
};

// Decodes the pickle held by `buffer` (views into it stay valid while the Document lives).
Result<std::shared_ptr<const Document>> decode(std::shared_ptr<const Buffer> buffer, const Limits& limits = {});
// Convenience: copies `bytes` into an owned buffer first.
Result<std::shared_ptr<const Document>> decode_bytes(std::string_view bytes, std::string origin = "<memory>",
                                                     const Limits& limits = {});
// Maps the file and decodes it.
Result<std::shared_ptr<const Document>> decode_file(const std::filesystem::path& path, const Limits& limits = {});

}  // namespace kiln::pickle

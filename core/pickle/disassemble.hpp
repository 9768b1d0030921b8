#pragma once
// An opcode listing like Python's `pickletools.dis`, for `kiln-cli dis` and the GUI's Raw tab.
// It reads the stream opcode by opcode without building values, so it also lists the valid
// prefix of a truncated or hostile pickle (the error then says where reading stopped).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace kiln::pickle {

struct DisassembledOp {
    std::uint64_t offset = 0;  // byte offset of the opcode
    std::uint8_t code = 0;     // the opcode byte
    const char* name = "";     // pickletools name, e.g. "SHORT_BINUNICODE"
    std::string arg;           // the argument as pickletools prints it (repr of str/bytes shortened), or empty
    std::uint32_t length = 1;  // bytes the opcode and its argument take
    int depth = 0;             // MARK nesting at this opcode (for indentation)
};

struct DisassembleOptions {
    std::size_t max_arg_chars = 200;  // longer str/bytes arguments are shortened with "..."
};

// Lists every opcode up to and including STOP. On malformed input returns the error.
Result<std::vector<DisassembledOp>> disassemble(std::string_view bytes, const DisassembleOptions& options = {});

// Lists what can be read; `error` receives why reading stopped early (empty Error when it did not).
std::vector<DisassembledOp> disassemble_prefix(std::string_view bytes, Error* error,
                                               const DisassembleOptions& options = {});

// "   12: \x8c SHORT_BINUNICODE 'torch'" -- one line of the listing.
std::string format_op(const DisassembledOp& op);

// The opcode's pickletools name, or nullptr for a byte that is not an opcode.

}  // namespace kiln::pickle

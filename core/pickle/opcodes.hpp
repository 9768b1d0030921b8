#pragma once
// The pickle opcodes of protocols 0-5 as `pickletools` documents them, and how each one's
// argument is laid out in the stream. Shared by the decoder and the disassembler.
#include <cstdint>
#include <string_view>

namespace kiln::pickle {

enum class ArgKind : std::uint8_t {
    none,
    uint1, uint2, int4, uint4, uint8,      // little-endian fixed width
    float8,                                // big-endian IEEE double
    long1, long4,                          // length (1 / 4 bytes) + two's-complement bytes
    decimalnl_short, decimalnl_long, floatnl,  // text up to '\n'
    stringnl, stringnl_noescape, stringnl_noescape_pair, unicodestringnl,
    string1, string4, bytes1, bytes4, bytes8, bytearray8,
    unicodestring1, unicodestring4, unicodestring8,
};

namespace op {
enum : std::uint8_t {
    MARK = '(', STOP = '.', POP = '0', POP_MARK = '1', DUP = '2', FLOAT = 'F', INT = 'I',
    BININT = 'J', BININT1 = 'K', LONG = 'L', BININT2 = 'M', NONE = 'N', PERSID = 'P',
    BINPERSID = 'Q', REDUCE = 'R', STRING = 'S', BINSTRING = 'T', SHORT_BINSTRING = 'U',
    UNICODE = 'V', BINUNICODE = 'X', APPEND = 'a', BUILD = 'b', GLOBAL = 'c', DICT = 'd',
    EMPTY_DICT = '}', APPENDS = 'e', GET = 'g', BINGET = 'h', INST = 'i', LONG_BINGET = 'j',
    LIST = 'l', EMPTY_LIST = ']', OBJ = 'o', PUT = 'p', BINPUT = 'q', LONG_BINPUT = 'r',
    SETITEM = 's', TUPLE = 't', EMPTY_TUPLE = ')', SETITEMS = 'u', BINFLOAT = 'G',
    PROTO = 0x80, NEWOBJ = 0x81, EXT1 = 0x82, EXT2 = 0x83, EXT4 = 0x84, TUPLE1 = 0x85,
    TUPLE2 = 0x86, TUPLE3 = 0x87, NEWTRUE = 0x88, NEWFALSE = 0x89, LONG1 = 0x8a, LONG4 = 0x8b,
    BINBYTES = 'B', SHORT_BINBYTES = 'C',
    SHORT_BINUNICODE = 0x8c, BINUNICODE8 = 0x8d, BINBYTES8 = 0x8e, EMPTY_SET = 0x8f,
    ADDITEMS = 0x90, FROZENSET = 0x91, NEWOBJ_EX = 0x92, STACK_GLOBAL = 0x93, MEMOIZE = 0x94,
    FRAME = 0x95, BYTEARRAY8 = 0x96, NEXT_BUFFER = 0x97, READONLY_BUFFER = 0x98,
};
}  // namespace op

struct OpInfo {
    const char* name = nullptr;  // null: not an opcode
    ArgKind arg = ArgKind::none;
    std::uint8_t proto = 0;      // the protocol that introduced it
};

// Table lookup; `.name == nullptr` for bytes that are not opcodes.
const OpInfo& op_info(std::uint8_t code);

// One opcode's argument, read from the stream but not interpreted beyond its layout.
struct RawArg {
    std::uint64_t u = 0;     // fixed-width integers (int4 sign-extended into `i`)
    std::int64_t i = 0;
    double f = 0.0;          // float8
    std::string_view data;   // counted data, or the text before '\n'
    std::string_view data2;  // stringnl_noescape_pair: the second line
};

// Reads the argument of kind `kind` at `pos` in `in`, advancing `pos`. On failure returns
// a static message (why) and leaves `pos` unspecified.
const char* read_arg(std::string_view in, std::size_t& pos, ArgKind kind, RawArg& out);

}  // namespace kiln::pickle

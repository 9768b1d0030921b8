#pragma once
// The pickle opcodes of protocols 0-5 as `pickletools` documents them, and how each one's
// argument is laid out in the stream. Shared by the decoder and the disassembler.
#include <array>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace kiln::pickle {

enum class ArgKind : std::uint8_t {
    none,
    uint1,
    uint2,
    int4,
    uint4,
    uint8,   // little-endian fixed width
    float8,  // big-endian IEEE double
    long1,
    long4,  // length (1 / 4 bytes) + two's-complement bytes
    decimalnl_short,
    decimalnl_long,
    floatnl,  // text up to '\n'
    stringnl,
    stringnl_noescape,
    stringnl_noescape_pair,
    unicodestringnl,
    string1,
    string4,
    bytes1,
    bytes4,
    bytes8,
    bytearray8,
    unicodestring1,
    unicodestring4,
    unicodestring8,
};

namespace op {
enum : std::uint8_t {
    MARK = '(',
    STOP = '.',
    POP = '0',
    POP_MARK = '1',
    DUP = '2',
    FLOAT = 'F',
    INT = 'I',
    BININT = 'J',
    BININT1 = 'K',
    LONG = 'L',
    BININT2 = 'M',
    NONE = 'N',
    PERSID = 'P',
    BINPERSID = 'Q',
    REDUCE = 'R',
    STRING = 'S',
    BINSTRING = 'T',
    SHORT_BINSTRING = 'U',
    UNICODE = 'V',
    BINUNICODE = 'X',
    APPEND = 'a',
    BUILD = 'b',
    GLOBAL = 'c',
    DICT = 'd',
    EMPTY_DICT = '}',
    APPENDS = 'e',
    GET = 'g',
    BINGET = 'h',
    INST = 'i',
    LONG_BINGET = 'j',
    LIST = 'l',
    EMPTY_LIST = ']',
    OBJ = 'o',
    PUT = 'p',
    BINPUT = 'q',
    LONG_BINPUT = 'r',
    SETITEM = 's',
    TUPLE = 't',
    EMPTY_TUPLE = ')',
    SETITEMS = 'u',
    BINFLOAT = 'G',
    PROTO = 0x80,
    NEWOBJ = 0x81,
    EXT1 = 0x82,
    EXT2 = 0x83,
    EXT4 = 0x84,
    TUPLE1 = 0x85,
    TUPLE2 = 0x86,
    TUPLE3 = 0x87,
    NEWTRUE = 0x88,
    NEWFALSE = 0x89,
    LONG1 = 0x8a,
    LONG4 = 0x8b,
    BINBYTES = 'B',
    SHORT_BINBYTES = 'C',
    SHORT_BINUNICODE = 0x8c,
    BINUNICODE8 = 0x8d,
    BINBYTES8 = 0x8e,
    EMPTY_SET = 0x8f,
    ADDITEMS = 0x90,
    FROZENSET = 0x91,
    NEWOBJ_EX = 0x92,
    STACK_GLOBAL = 0x93,
    MEMOIZE = 0x94,
    FRAME = 0x95,
    BYTEARRAY8 = 0x96,
    NEXT_BUFFER = 0x97,
    READONLY_BUFFER = 0x98,
};
}  // namespace op

struct OpInfo {
    const char* name = nullptr;  // null: not an opcode
    ArgKind arg = ArgKind::none;
    std::uint8_t proto = 0;  // the protocol that introduced it
};

// One opcode's argument, read from the stream but not interpreted beyond its layout.
struct RawArg {
    std::uint64_t u = 0;  // fixed-width integers (int4 sign-extended into `i`)
    std::int64_t i = 0;
    double f = 0.0;          // float8
    std::string_view data;   // counted data, or the text before '\n'
    std::string_view data2;  // stringnl_noescape_pair: the second line
};

// Inline below: the decoder's loop calls both once per opcode.
namespace detail {
struct OpTable {
    std::array<OpInfo, 256> ops{};
    constexpr void add(std::uint8_t c, const char* n, ArgKind a, std::uint8_t p) { ops[c] = OpInfo{n, a, p}; }
    constexpr OpTable() {
        using A = ArgKind;
        add(op::INT, "INT", A::decimalnl_short, 0);
        add(op::BININT, "BININT", A::int4, 1);
        add(op::BININT1, "BININT1", A::uint1, 1);
        add(op::BININT2, "BININT2", A::uint2, 1);
        add(op::LONG, "LONG", A::decimalnl_long, 0);
        add(op::LONG1, "LONG1", A::long1, 2);
        add(op::LONG4, "LONG4", A::long4, 2);
        add(op::STRING, "STRING", A::stringnl, 0);
        add(op::BINSTRING, "BINSTRING", A::string4, 1);
        add(op::SHORT_BINSTRING, "SHORT_BINSTRING", A::string1, 1);
        add(op::BINBYTES, "BINBYTES", A::bytes4, 3);
        add(op::SHORT_BINBYTES, "SHORT_BINBYTES", A::bytes1, 3);
        add(op::BINBYTES8, "BINBYTES8", A::bytes8, 4);
        add(op::BYTEARRAY8, "BYTEARRAY8", A::bytearray8, 5);
        add(op::NEXT_BUFFER, "NEXT_BUFFER", A::none, 5);
        add(op::READONLY_BUFFER, "READONLY_BUFFER", A::none, 5);
        add(op::NONE, "NONE", A::none, 0);
        add(op::NEWTRUE, "NEWTRUE", A::none, 2);
        add(op::NEWFALSE, "NEWFALSE", A::none, 2);
        add(op::UNICODE, "UNICODE", A::unicodestringnl, 0);
        add(op::SHORT_BINUNICODE, "SHORT_BINUNICODE", A::unicodestring1, 4);
        add(op::BINUNICODE, "BINUNICODE", A::unicodestring4, 1);
        add(op::BINUNICODE8, "BINUNICODE8", A::unicodestring8, 4);
        add(op::FLOAT, "FLOAT", A::floatnl, 0);
        add(op::BINFLOAT, "BINFLOAT", A::float8, 1);
        add(op::EMPTY_LIST, "EMPTY_LIST", A::none, 1);
        add(op::APPEND, "APPEND", A::none, 0);
        add(op::APPENDS, "APPENDS", A::none, 1);
        add(op::LIST, "LIST", A::none, 0);
        add(op::EMPTY_TUPLE, "EMPTY_TUPLE", A::none, 1);
        add(op::TUPLE, "TUPLE", A::none, 0);
        add(op::TUPLE1, "TUPLE1", A::none, 2);
        add(op::TUPLE2, "TUPLE2", A::none, 2);
        add(op::TUPLE3, "TUPLE3", A::none, 2);
        add(op::EMPTY_DICT, "EMPTY_DICT", A::none, 1);
        add(op::DICT, "DICT", A::none, 0);
        add(op::SETITEM, "SETITEM", A::none, 0);
        add(op::SETITEMS, "SETITEMS", A::none, 1);
        add(op::EMPTY_SET, "EMPTY_SET", A::none, 4);
        add(op::ADDITEMS, "ADDITEMS", A::none, 4);
        add(op::FROZENSET, "FROZENSET", A::none, 4);
        add(op::POP, "POP", A::none, 0);
        add(op::DUP, "DUP", A::none, 0);
        add(op::MARK, "MARK", A::none, 0);
        add(op::POP_MARK, "POP_MARK", A::none, 1);
        add(op::GET, "GET", A::decimalnl_short, 0);
        add(op::BINGET, "BINGET", A::uint1, 1);
        add(op::LONG_BINGET, "LONG_BINGET", A::uint4, 1);
        add(op::PUT, "PUT", A::decimalnl_short, 0);
        add(op::BINPUT, "BINPUT", A::uint1, 1);
        add(op::LONG_BINPUT, "LONG_BINPUT", A::uint4, 1);
        add(op::MEMOIZE, "MEMOIZE", A::none, 4);
        add(op::EXT1, "EXT1", A::uint1, 2);
        add(op::EXT2, "EXT2", A::uint2, 2);
        add(op::EXT4, "EXT4", A::int4, 2);
        add(op::GLOBAL, "GLOBAL", A::stringnl_noescape_pair, 0);
        add(op::STACK_GLOBAL, "STACK_GLOBAL", A::none, 4);
        add(op::REDUCE, "REDUCE", A::none, 0);
        add(op::BUILD, "BUILD", A::none, 0);
        add(op::INST, "INST", A::stringnl_noescape_pair, 0);
        add(op::OBJ, "OBJ", A::none, 1);
        add(op::NEWOBJ, "NEWOBJ", A::none, 2);
        add(op::NEWOBJ_EX, "NEWOBJ_EX", A::none, 4);
        add(op::PROTO, "PROTO", A::uint1, 2);
        add(op::STOP, "STOP", A::none, 0);
        add(op::FRAME, "FRAME", A::uint8, 4);
        add(op::PERSID, "PERSID", A::stringnl_noescape, 0);
        add(op::BINPERSID, "BINPERSID", A::none, 1);
    }
};
inline constexpr OpTable kOpTable;

inline std::uint64_t le(const char* p, int n) {
    std::uint64_t v = 0;
    for (int k = n - 1; k >= 0; --k) v = (v << 8) | static_cast<unsigned char>(p[k]);
    return v;
}

// Text up to (not including) the next '\n'; the newline is consumed.
inline const char* read_line(std::string_view in, std::size_t& pos, std::string_view& out) {
    auto nl = in.find('\n', pos);
    if (nl == std::string_view::npos) return "no newline before the end of the data";
    out = in.substr(pos, nl - pos);
    pos = nl + 1;
    return nullptr;
}

// `n` bytes of counted data; the count is checked against what is left before anything is used.
inline const char* read_counted(std::string_view in, std::size_t& pos, std::uint64_t n, std::string_view& out) {
    if (n > in.size() - pos) return "declared length exceeds the bytes left";
    out = in.substr(pos, static_cast<std::size_t>(n));
    pos += static_cast<std::size_t>(n);
    return nullptr;
}

}  // namespace detail

// Table lookup; `.name == nullptr` for bytes that are not opcodes.
inline const OpInfo& op_info(std::uint8_t code) { return detail::kOpTable.ops[code]; }

// Reads the argument of kind `kind` at `pos` in `in`, advancing `pos`. On failure returns
// a static message (why) and leaves `pos` unspecified.
inline const char* read_arg(std::string_view in, std::size_t& pos, ArgKind kind, RawArg& out) {
    auto fixed = [&](int n) -> const char* {
        if (in.size() - pos < static_cast<std::size_t>(n)) return "argument runs past the end of the data";
        out.u = detail::le(in.data() + pos, n);
        pos += n;
        return nullptr;
    };
    const char* why = nullptr;
    switch (kind) {
        case ArgKind::none: return nullptr;
        case ArgKind::uint1: return fixed(1);
        case ArgKind::uint2: return fixed(2);
        case ArgKind::uint4: return fixed(4);
        case ArgKind::uint8: return fixed(8);
        case ArgKind::int4:
            if ((why = fixed(4))) return why;
            out.i = static_cast<std::int32_t>(static_cast<std::uint32_t>(out.u));
            return nullptr;
        case ArgKind::float8: {
            if (in.size() - pos < 8) return "argument runs past the end of the data";
            std::uint64_t bits = 0;
            for (int k = 0; k < 8; ++k) bits = (bits << 8) | static_cast<unsigned char>(in[pos + k]);
            std::memcpy(&out.f, &bits, 8);
            pos += 8;
            return nullptr;
        }
        case ArgKind::long1:
        case ArgKind::string1:
        case ArgKind::bytes1:
        case ArgKind::unicodestring1:
            if ((why = fixed(1))) return why;
            return detail::read_counted(in, pos, out.u, out.data);
        case ArgKind::long4:
        case ArgKind::string4:
            if ((why = fixed(4))) return why;
            out.i = static_cast<std::int32_t>(static_cast<std::uint32_t>(out.u));
            if (out.i < 0) return "negative byte count";
            return detail::read_counted(in, pos, out.u, out.data);
        case ArgKind::bytes4:
        case ArgKind::unicodestring4:
            if ((why = fixed(4))) return why;
            return detail::read_counted(in, pos, out.u, out.data);
        case ArgKind::bytes8:
        case ArgKind::bytearray8:
        case ArgKind::unicodestring8:
            if ((why = fixed(8))) return why;
            return detail::read_counted(in, pos, out.u, out.data);
        case ArgKind::decimalnl_short:
        case ArgKind::decimalnl_long:
        case ArgKind::floatnl:
        case ArgKind::stringnl:
        case ArgKind::stringnl_noescape:
        case ArgKind::unicodestringnl: return detail::read_line(in, pos, out.data);
        case ArgKind::stringnl_noescape_pair:
            if ((why = detail::read_line(in, pos, out.data))) return why;
            return detail::read_line(in, pos, out.data2);
    }
    return "unknown argument kind";
}

}  // namespace kiln::pickle

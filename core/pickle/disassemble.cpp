#include "pickle/disassemble.hpp"

#include <algorithm>
#include <cstdio>

#include "pickle/bigint.hpp"
#include "pickle/opcodes.hpp"
#include "pickle/value.hpp"

namespace kiln::pickle {
namespace {

// Python-repr-like quoting of str (prefix "") or bytes (prefix "b"), shortened to `max_chars`.
std::string quote(std::string_view s, const char* prefix, std::size_t max_chars) {
    std::string out = prefix;
    out += '\'';
    std::size_t shown = 0;
    for (unsigned char c : s) {
        // Shorten only between UTF-8 characters.
        if (shown >= max_chars && (c & 0xC0) != 0x80) {
            ++shown;
            out += "...";
            break;
        }
        ++shown;
        if (c == '\'' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c == '\n') out += "\\n";
        else if (c == '\t') out += "\\t";
        else if (c == '\r') out += "\\r";
        else if (c < 0x20 || c == 0x7f || (*prefix == 'b' && c >= 0x80)) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        } else out += static_cast<char>(c);  // UTF-8 text passes through
    }
    out += '\'';
    if (shown > max_chars) out += " (" + std::to_string(s.size()) + " bytes)";
    return out;
}

std::string format_arg(std::uint8_t code, ArgKind kind, const RawArg& a, std::uint64_t memo_next,
                       const DisassembleOptions& o) {
    switch (kind) {
        case ArgKind::none: return code == op::MEMOIZE ? "(as " + std::to_string(memo_next) + ")" : "";
        case ArgKind::int4: return std::to_string(a.i);
        case ArgKind::uint1:
        case ArgKind::uint2:
        case ArgKind::uint4:
        case ArgKind::uint8: return std::to_string(a.u);
        case ArgKind::float8: {
            char buf[40];
            std::snprintf(buf, sizeof buf, "%.17g", a.f);
            return buf;
        }
        case ArgKind::long1:
        case ArgKind::long4: {
            std::string_view le = minimal_le(a.data);
            Int v;
            if (!le_to_int64(le, v.small)) v.big_le = le;
            return v.to_decimal();
        }
        case ArgKind::decimalnl_short:
        case ArgKind::decimalnl_long:
        case ArgKind::floatnl: return std::string(a.data);
        case ArgKind::stringnl:
        case ArgKind::stringnl_noescape: return std::string(a.data.substr(0, o.max_arg_chars));
        case ArgKind::stringnl_noescape_pair:
            return std::string(a.data.substr(0, o.max_arg_chars)) + " " +
                   std::string(a.data2.substr(0, o.max_arg_chars));
        case ArgKind::string1:
        case ArgKind::string4:
        case ArgKind::bytes1:
        case ArgKind::bytes4:
        case ArgKind::bytes8:
        case ArgKind::bytearray8: return quote(a.data, "b", o.max_arg_chars);
        case ArgKind::unicodestring1:
        case ArgKind::unicodestring4:
        case ArgKind::unicodestring8:
        case ArgKind::unicodestringnl: return quote(a.data, "", o.max_arg_chars);
    }
    return {};
}

}  // namespace

std::vector<DisassembledOp> disassemble_prefix(std::string_view in, Error* error, const DisassembleOptions& options) {
    std::vector<DisassembledOp> ops;
    std::size_t pos = 0;
    int depth = 0;
    std::uint64_t memo_next = 0;
    if (error) *error = Error{};
    auto stop = [&](std::size_t at, const char* name, const char* why) {
        if (!error) return;
        std::string ctx = "byte " + std::to_string(at);
        if (name) ctx += std::string(", opcode ") + name;
        *error = make_error(Errc::parse, why, std::move(ctx));
    };
    while (true) {
        if (pos >= in.size()) {
            stop(pos, nullptr, "the data ended before STOP");
            return ops;
        }
        std::size_t at = pos;
        auto code = static_cast<std::uint8_t>(in[pos++]);
        const OpInfo& info = op_info(code);
        if (!info.name) {
            stop(at, nullptr, "not a pickle opcode");
            return ops;
        }
        RawArg a;
        if (const char* why = read_arg(in, pos, info.arg, a)) {
            stop(at, info.name, why);
            return ops;
        }
        // MARK-consuming opcodes dedent before they print, as pickletools does.
        switch (code) {
            case op::TUPLE:
            case op::LIST:
            case op::DICT:
            case op::APPENDS:
            case op::SETITEMS:
            case op::ADDITEMS:
            case op::FROZENSET:
            case op::POP_MARK:
            case op::INST:
            case op::OBJ:
                if (depth > 0) --depth;
                break;
            default: break;
        }
        DisassembledOp o;
        o.offset = at;
        o.code = code;
        o.name = info.name;
        o.arg = format_arg(code, info.arg, a, memo_next, options);
        o.length = static_cast<std::uint32_t>(pos - at);
        o.depth = depth;
        ops.push_back(std::move(o));
        if (code == op::MARK) ++depth;
        if (code == op::MEMOIZE) ++memo_next;
        if (code == op::STOP) return ops;
    }
}

Result<std::vector<DisassembledOp>> disassemble(std::string_view bytes, const DisassembleOptions& options) {
    Error err;
    auto ops = disassemble_prefix(bytes, &err, options);
    if (!err.message.empty()) return err;
    return ops;
}

std::string format_op(const DisassembledOp& op) {
    char head[32];
    std::snprintf(head, sizeof head, "%5llu: ", static_cast<unsigned long long>(op.offset));
    std::string code;
    if (op.code >= 0x20 && op.code < 0x7f) code = std::string(1, static_cast<char>(op.code));
    else {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02x", op.code);
        code = buf;
    }
    code.resize(std::max<std::size_t>(code.size(), 4), ' ');
    // Indent by MARK depth like pickletools, but only so far: a small hostile file can nest MARKs
    // thousands deep, and unbounded indentation turned 20 KB into 800 MB of output.
    constexpr int kMaxIndentLevels = 16;
    std::string indent(static_cast<std::size_t>(std::min(op.depth, kMaxIndentLevels)) * 4, ' ');
    if (op.depth > kMaxIndentLevels) indent += "[depth " + std::to_string(op.depth) + "] ";
    std::string line = head + code + " " + indent + op.name;
    if (!op.arg.empty()) {
        std::size_t n = std::string_view(op.name).size();
        line += std::string(n < 10 ? 10 - n : 0, ' ') + " " + op.arg;
    }
    return line;
}

}  // namespace kiln::pickle

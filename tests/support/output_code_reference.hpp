#pragma once
// Output code parsed the plain way, as core/inductor/output_code.cpp did before it searched with memmem,
// kept a definition at a time and counted launches in one pass (issue 44): the oracle the fast parse
// must agree with, field for field (tests/core/inductor/output_code_test.cpp, fuzz/output_code_fuzzer.cpp).
// Written out on its own so that a wrong fast path cannot agree with itself.
#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "hash/sha256.hpp"
#include "inductor/output_code.hpp"
#include "pickle/text.hpp"
#include "util/path_component.hpp"

namespace kiln::test::output_code_reference {

using inductor::KernelKind;
using inductor::KernelRef;
using inductor::OutputCode;

using pickle::append_utf8;

inline constexpr std::string_view kTriton = "= async_compile.triton(";
inline constexpr std::string_view kCpp = "= async_compile.cpp_pybinding(";
inline constexpr std::string_view kKernelPath = "# kernel path: ";
inline constexpr std::string_view kExtern = "extern_kernels.";

inline bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

inline std::string_view python_strip(std::string_view s) {
    constexpr std::string_view ws = " \t\n\r\v\f";
    auto b = s.find_first_not_of(ws);
    if (b == std::string_view::npos) return {};
    return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

// The identifier ending right before `end` (after skipping spaces).
inline std::string_view ident_before(std::string_view text, std::size_t end) {
    while (end > 0 && text[end - 1] == ' ') --end;
    std::size_t b = end;
    while (b > 0 && ident_char(text[b - 1])) --b;
    return text.substr(b, end - b);
}

// Where the ''' closing a literal whose body starts at `from` is; escapes are skipped unless raw.
inline std::size_t literal_end(std::string_view text, std::size_t from, bool raw) {
    for (std::size_t i = from; i + 2 < text.size(); ++i) {
        if (!raw && text[i] == '\\') {
            ++i;
            continue;
        }
        if (text.compare(i, 3, "'''") == 0) return i;
    }
    return std::string_view::npos;
}

// "<xx>/<file>" of an absolute path: the part that exists under any cache root.
// "<xx>/<key>.py" of a `# kernel path:` comment, or "" when those two are not plain names (the comment
// is the module's text: "../x" must not lead a reader out of the root).
inline std::string last_two_components(std::string_view path) {
    auto last = path.rfind('/');
    if (last == std::string_view::npos || last == 0) return {};
    auto prev = path.rfind('/', last - 1);
    const std::size_t from = prev == std::string_view::npos ? 0 : prev + 1;
    if (!is_plain_file_name(path.substr(from, last - from)) || !is_plain_file_name(path.substr(last + 1))) return {};
    return std::string(path.substr(from));
}

struct Range {
    std::size_t begin, end;
};

inline bool inside(const std::vector<Range>& ranges, std::size_t pos) {
    for (const auto& r : ranges)
        if (pos >= r.begin && pos < r.end) return true;
    return false;
}

// Occurrences of `needle` outside the literals, with an identifier boundary before it.
inline std::uint32_t count_calls(std::string_view text, std::string_view needle, const std::vector<Range>& literals) {
    std::uint32_t n = 0;
    for (auto p = text.find(needle); p != std::string_view::npos; p = text.find(needle, p + 1)) {
        if (p > 0 && (ident_char(text[p - 1]) || text[p - 1] == '.')) continue;
        if (!inside(literals, p)) ++n;
    }
    return n;
}

inline Result<std::string> decode_python_escapes(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if (c != '\\') {
            out += c;
            continue;
        }
        if (++i >= s.size()) return make_error(Errc::parse, "a string literal ends in a backslash");
        char e = s[i];
        auto hex = [&](std::size_t digits) -> Result<std::uint32_t> {
            std::uint32_t v = 0;
            for (std::size_t k = 1; k <= digits; ++k) {
                if (i + k >= s.size() || !std::isxdigit(static_cast<unsigned char>(s[i + k])))
                    return make_error(Errc::parse, "bad hex digit in an escape");
                char h = static_cast<char>(std::tolower(static_cast<unsigned char>(s[i + k])));
                v = v * 16 + static_cast<std::uint32_t>(h <= '9' ? h - '0' : h - 'a' + 10);
            }
            i += digits;
            return v;
        };
        switch (e) {
            case '\n': break;  // line continuation
            case '\\': out += '\\'; break;
            case '\'': out += '\''; break;
            case '"': out += '"'; break;
            case 'a': out += '\a'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            case 'v': out += '\v'; break;
            case 'x': {
                KILN_TRY(auto v, hex(2));
                append_utf8(out, v);  // a str literal: \xhh is the code point U+00hh
                break;
            }
            case 'u':
            case 'U': {
                KILN_TRY(auto v, hex(e == 'u' ? 4 : 8));
                if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
                    return make_error(Errc::parse, "an escape names no Unicode character");
                append_utf8(out, v);
                break;
            }
            case 'N': return make_error(Errc::parse, "\\N{...} escapes are not supported");
            default:
                if (e >= '0' && e <= '7') {
                    std::uint32_t v = static_cast<std::uint32_t>(e - '0');
                    for (int k = 0; k < 2 && i + 1 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '7'; ++k)
                        v = v * 8 + static_cast<std::uint32_t>(s[++i] - '0');
                    append_utf8(out, v);
                } else {
                    out += '\\';  // Python keeps unknown escapes as they are
                    out += e;
                }
        }
    }
    return out;
}

inline Result<OutputCode> parse_output_code(std::string_view text) {
    OutputCode out;
    if (text.starts_with("# AOT ID: ")) {
        auto eol = text.find('\n');
        out.aot_id = std::string(python_strip(text.substr(10, eol == std::string_view::npos ? eol : eol - 10)));
    }
    std::vector<Range> literals;
    std::size_t pos = 0;
    std::size_t last_def_end = 0;
    for (;;) {
        std::size_t t = text.find(kTriton, pos), c = text.find(kCpp, pos);
        std::size_t at = std::min(t, c);
        if (at == std::string_view::npos) break;
        bool triton = at == t;
        KernelRef k;
        k.kind = triton ? KernelKind::triton : KernelKind::cpp;
        k.name = std::string(ident_before(text, at));
        std::size_t open = text.find(triton ? "'''" : "r'''", at);
        if (k.name.empty() || open == std::string_view::npos)
            return make_error(Errc::parse, "a kernel definition without its source literal",
                              "byte " + std::to_string(at));
        std::size_t body = open + (triton ? 3 : 4);
        std::size_t close = literal_end(text, body, !triton);
        if (close == std::string_view::npos)
            return make_error(Errc::parse, "kernel " + k.name + ": its source literal never ends",
                              "byte " + std::to_string(body));
        literals.push_back({body, close});
        if (triton) {
            KILN_TRY(std::string src, decode_python_escapes(text.substr(body, close - body)));
            k.module_key = hash::code_hash(python_strip(src));
            // The `# kernel path:` comment written just above this definition, if any.
            std::size_t kp = text.rfind(kKernelPath, at);
            if (kp != std::string_view::npos && kp >= last_def_end) {
                std::size_t eol = text.find('\n', kp);
                k.kernel_path = last_two_components(python_strip(text.substr(
                    kp + kKernelPath.size(), eol == std::string_view::npos ? eol : eol - kp - kKernelPath.size())));
            }
        } else {
            k.source_sha256 = hash::sha256_hex(python_strip(text.substr(body, close - body)));
        }
        out.kernels.push_back(std::move(k));
        pos = last_def_end = close + 3;
    }
    for (auto& k : out.kernels)
        k.launches = count_calls(text, k.kind == KernelKind::triton ? k.name + ".run(" : k.name + "(", literals);
    // Extern calls, in order of first use.
    std::unordered_map<std::string, std::size_t> externs;
    for (auto p = text.find(kExtern); p != std::string_view::npos; p = text.find(kExtern, p + 1)) {
        if (inside(literals, p) || (p > 0 && ident_char(text[p - 1]))) continue;
        std::size_t b = p + kExtern.size(), e = b;
        while (e < text.size() && ident_char(text[e])) ++e;
        if (e == b || e >= text.size() || text[e] != '(') continue;
        std::string name(text.substr(b, e - b));
        auto [it, added] = externs.try_emplace(name, out.kernels.size());
        if (added) {
            KernelRef k;
            k.name = name;
            k.kind = KernelKind::extern_aten;
            out.kernels.push_back(std::move(k));
        }
        ++out.kernels[it->second].launches;
    }
    return out;
}

}  // namespace kiln::test::output_code_reference

#include "inductor/output_code.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "hash/sha256.hpp"
#include "pickle/text.hpp"
#include "util/path_component.hpp"

namespace kiln::inductor {

namespace {

using pickle::append_utf8;

constexpr std::string_view kTriton = "= async_compile.triton(";
constexpr std::string_view kCpp = "= async_compile.cpp_pybinding(";
constexpr std::string_view kKernelPath = "# kernel path: ";
constexpr std::string_view kExtern = "extern_kernels.";

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string_view python_strip(std::string_view s) {
    constexpr std::string_view ws = " \t\n\r\v\f";
    auto b = s.find_first_not_of(ws);
    if (b == std::string_view::npos) return {};
    return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

// The identifier ending right before `end` (after skipping spaces).
std::string_view ident_before(std::string_view text, std::size_t end) {
    while (end > 0 && text[end - 1] == ' ') --end;
    std::size_t b = end;
    while (b > 0 && ident_char(text[b - 1])) --b;
    return text.substr(b, end - b);
}

// Where `needle` first occurs in `text` from `from` on. glibc's memmem skips ahead by pairs of bytes;
// string_view::find stops at every byte equal to the needle's first ('=', 't', 'e' are everywhere in
// Python), which made this parse most of a million-file cache's check (issue 44).
std::size_t find_in(std::string_view text, std::string_view needle, std::size_t from) {
    if (from > text.size()) return std::string_view::npos;
    const void* p = ::memmem(text.data() + from, text.size() - from, needle.data(), needle.size());
    return p ? static_cast<std::size_t>(static_cast<const char*>(p) - text.data()) : std::string_view::npos;
}

// Where the ''' closing a literal whose body starts at `from` is; escapes are skipped unless raw.
std::size_t literal_end(std::string_view text, std::size_t from, bool raw) {
    for (std::size_t i = from;;) {
        const std::size_t quotes = find_in(text, "'''", i);
        if (raw) return quotes;
        const std::size_t escape = text.find('\\', i);
        if (escape == std::string_view::npos || escape > quotes) return quotes;
        i = escape + 2;  // the escaped character is never the start of the closing quotes
    }
}

// "<xx>/<file>" of an absolute path: the part that exists under any cache root.
// "<xx>/<key>.py" of a `# kernel path:` comment, or "" when those two are not plain names (the comment
// is the module's text: "../x" must not lead a reader out of the root).
std::string last_two_components(std::string_view path) {
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

// `ranges` are the literals in text order (each search starts after the last one ends).
bool inside(const std::vector<Range>& ranges, std::size_t pos) {
    auto it =
        std::upper_bound(ranges.begin(), ranges.end(), pos, [](std::size_t p, const Range& r) { return p < r.begin; });
    return it != ranges.begin() && pos < std::prev(it)->end;
}

// Occurrences of `needle` outside the literals, with an identifier boundary before it.
std::uint32_t count_calls(std::string_view text, std::string_view needle, const std::vector<Range>& literals) {
    std::uint32_t n = 0;
    for (auto p = find_in(text, needle, 0); p != std::string_view::npos; p = find_in(text, needle, p + 1)) {
        if (p > 0 && (ident_char(text[p - 1]) || text[p - 1] == '.')) continue;
        if (!inside(literals, p)) ++n;
    }
    return n;
}

// Each Triton kernel's `name.run(` launches, in one pass over the `.run(` in the text: the identifier
// right before it must be the whole name (no identifier character or '.' before it), as count_calls
// counts it, without a pass over the text per kernel.
void count_triton_launches(std::string_view text, std::vector<KernelRef>& kernels, const std::vector<Range>& literals) {
    std::unordered_map<std::string_view, std::vector<std::size_t>> by_name;
    for (std::size_t i = 0; i < kernels.size(); ++i)
        if (kernels[i].kind == KernelKind::triton) by_name[kernels[i].name].push_back(i);
    if (by_name.empty()) return;
    constexpr std::string_view kRun = ".run(";
    for (auto p = find_in(text, kRun, 0); p != std::string_view::npos; p = find_in(text, kRun, p + 1)) {
        std::size_t b = p;
        while (b > 0 && ident_char(text[b - 1])) --b;
        if (b == p || (b > 0 && text[b - 1] == '.')) continue;
        auto it = by_name.find(text.substr(b, p - b));
        if (it == by_name.end() || inside(literals, b)) continue;
        for (std::size_t k : it->second) ++kernels[k].launches;
    }
}

}  // namespace

std::string_view kernel_kind_name(KernelKind k) {
    switch (k) {
        case KernelKind::triton: return "triton";
        case KernelKind::cpp: return "cpp";
        case KernelKind::extern_aten: return "extern";
    }
    return "?";
}

std::string_view KernelRef::triton_category() const {
    if (kind != KernelKind::triton || name.size() < 11 || !name.starts_with("triton_") || name[10] != '_') return {};
    std::string_view c = std::string_view(name).substr(7, 3);
    if (c == "poi") return "pointwise";
    if (c == "red") return "reduction";
    if (c == "per") return "persistent_reduction";
    if (c == "tem") return "template";
    if (c == "for") return "foreach";
    if (c == "spl") return "split_scan";
    return {};
}

std::string KernelRef::module_rel_path() const {
    if (module_key.size() < 3) return {};
    return module_key.substr(1, 2) + "/" + module_key + ".py";
}

Result<std::string> decode_python_escapes(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        const std::size_t escape = s.find('\\', i);  // the text up to the next escape as it is
        out.append(s.substr(i, escape == std::string_view::npos ? escape : escape - i));
        if (escape == std::string_view::npos) break;
        i = escape;
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

std::optional<std::string> cpp_main_source_sha256(std::string_view text) {
    auto cut = text.find("// Python bindings to call kernel():");
    if (cut == std::string_view::npos) return std::nullopt;
    return hash::sha256_hex(python_strip(text.substr(0, cut)));
}

Result<OutputCode> parse_output_code(std::string_view text) {
    OutputCode out;
    if (text.starts_with("# AOT ID: ")) {
        auto eol = text.find('\n');
        out.aot_id = std::string(python_strip(text.substr(10, eol == std::string_view::npos ? eol : eol - 10)));
    }
    std::vector<Range> literals;
    std::size_t pos = 0;
    std::size_t last_def_end = 0;
    // The next definition of each kind, found again only once passed (each search to the end of the text
    // was a pass per kernel).
    std::size_t t = find_in(text, kTriton, 0), c = find_in(text, kCpp, 0);
    for (;;) {
        if (t != std::string_view::npos && t < pos) t = find_in(text, kTriton, pos);
        if (c != std::string_view::npos && c < pos) c = find_in(text, kCpp, pos);
        std::size_t at = std::min(t, c);
        if (at == std::string_view::npos) break;
        bool triton = at == t;
        KernelRef k;
        k.kind = triton ? KernelKind::triton : KernelKind::cpp;
        k.name = std::string(ident_before(text, at));
        std::size_t open = find_in(text, triton ? "'''" : "r'''", at);
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
            // (searched back only to the end of the definition before: a module without the comments
            // made each search a pass back to its start)
            std::size_t kp = text.substr(last_def_end, at - last_def_end + kKernelPath.size()).rfind(kKernelPath);
            if (kp != std::string_view::npos) {
                kp += last_def_end;
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
    count_triton_launches(text, out.kernels, literals);
    for (auto& k : out.kernels)
        if (k.kind == KernelKind::cpp) k.launches = count_calls(text, k.name + "(", literals);
    // Extern calls, in order of first use.
    std::unordered_map<std::string, std::size_t> externs;
    for (auto p = find_in(text, kExtern, 0); p != std::string_view::npos; p = find_in(text, kExtern, p + 1)) {
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

}  // namespace kiln::inductor

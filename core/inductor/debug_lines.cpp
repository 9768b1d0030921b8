#include "inductor/debug_lines.hpp"

#include <array>

namespace kiln::inductor {

namespace {

constexpr std::size_t kHashLen = 51;  // sha256_hash(): base32 of SHA-256, 51 characters

// Lower-case base32 characters, as a table: starts_component runs once per line of every key read.
constexpr std::array<bool, 256> kBase32Lower = [] {
    std::array<bool, 256> t{};
    for (int c = 'a'; c <= 'z'; ++c) t[static_cast<std::size_t>(c)] = true;
    for (int c = '2'; c <= '7'; ++c) t[static_cast<std::size_t>(c)] = true;
    return t;
}();
bool is_base32_lower(char c) { return kBase32Lower[static_cast<unsigned char>(c)]; }

Error bad_item(std::size_t index) {
    return make_error(Errc::parse, "debug line without a component name and ': ' after it",
                      "debug line " + std::to_string(index), "expected '[hash] name: value'");
}

Result<KeyComponent> split_component(std::string_view item, std::size_t index) {
    auto v = split_component_view(item);
    if (!v) return bad_item(index);
    return KeyComponent{std::string(v->hash), std::string(v->name), std::string(v->value)};
}

}  // namespace

// The name ends at the first ": " (names never contain one), or the line is "name:" with an empty
// value (a multi-line value then starts on the next line).
std::optional<KeyComponentView> split_component_view(std::string_view item) {
    if (!starts_component(item)) return std::nullopt;
    KeyComponentView c;
    c.hash = item.substr(1, kHashLen);
    std::string_view rest = item.substr(kHashLen + 3);
    std::size_t colon = rest.find(": ");
    // A newline only matters before the colon (the name's end): a long value is not searched for one.
    std::size_t nl = rest.substr(0, colon).find('\n');
    if (colon == std::string_view::npos || nl != std::string_view::npos) {
        std::string_view head = rest.substr(0, nl);
        if (head.empty() || head.back() != ':' || head.size() == 1) return std::nullopt;
        c.name = head.substr(0, head.size() - 1);
        if (nl != std::string_view::npos) c.value = rest.substr(nl + 1);
        return c;
    }
    c.name = rest.substr(0, colon);
    c.value = rest.substr(colon + 2);
    if (c.name.empty()) return std::nullopt;
    return c;
}

bool starts_component(std::string_view line) {
    if (line.size() < kHashLen + 3 || line[0] != '[' || line[kHashLen + 1] != ']' || line[kHashLen + 2] != ' ')
        return false;
    bool ok = true;  // no branch per character: nearly every line is a component
    for (std::size_t i = 1; i <= kHashLen; ++i) ok &= is_base32_lower(line[i]);
    return ok;
}

Result<std::vector<KeyComponent>> parse_debug_lines(const std::vector<std::string>& lines) {
    // Group continuation items with the component they belong to, then split each group.
    std::vector<std::pair<std::string, std::size_t>> items;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (starts_component(lines[i])) {
            items.emplace_back(lines[i], i);
        } else if (!items.empty()) {
            items.back().first += '\n';
            items.back().first += lines[i];
        } else {
            return make_error(Errc::parse, "debug lines do not start with '[<hash>] <name>: '", "debug line 0",
                              "is this an `_fx_graph_cache_debug_lines` list?");
        }
    }
    std::vector<KeyComponent> out;
    out.reserve(items.size());
    for (auto& [text, index] : items) {
        KILN_TRY(KeyComponent c, split_component(text, index));
        out.push_back(std::move(c));
    }
    return out;
}

Result<std::vector<KeyComponent>> parse_debug_lines_named(const std::vector<std::string>& lines,
                                                          std::string_view prefix) {
    return parse_debug_lines_named(std::vector<std::string_view>(lines.begin(), lines.end()), prefix);
}

Result<std::vector<KeyComponent>> parse_debug_lines_named(const std::vector<std::string_view>& lines,
                                                          std::string_view prefix) {
    std::vector<KeyComponent> out;
    if (!lines.empty() && !starts_component(lines[0]))
        return make_error(Errc::parse, "debug lines do not start with '[<hash>] <name>: '", "debug line 0",
                          "is this an `_fx_graph_cache_debug_lines` list?");
    for (std::size_t i = 0, end = 0; i < lines.size(); i = end) {
        end = i + 1;
        while (end < lines.size() && !starts_component(lines[end])) ++end;
        // The name is in the first item: a continuation never changes it, nor whether it splits.
        const auto head = split_component_view(lines[i]);
        if (!head) return bad_item(i);
        if (head->name.substr(0, prefix.size()) != prefix) continue;
        if (end == i + 1) {
            out.push_back(KeyComponent{std::string(head->hash), std::string(head->name), std::string(head->value)});
            continue;
        }
        std::string text(lines[i]);
        for (std::size_t k = i + 1; k < end; ++k) {
            text += '\n';
            text += lines[k];
        }
        KILN_TRY(KeyComponent c, split_component(text, i));
        out.push_back(std::move(c));
    }
    return out;
}

Result<std::vector<KeyComponent>> parse_debug_text(std::string_view text) {
    std::vector<std::string> lines;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        std::size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos) nl = text.size();
        lines.emplace_back(text.substr(pos, nl - pos));
        pos = nl + 1;
    }
    if (!lines.empty() && lines.back().empty()) lines.pop_back();  // the text's final newline
    return parse_debug_lines(lines);
}

ComponentText component_value_text(std::string_view value) {
    ComponentText out;
    out.text.reserve(value.size());
    static constexpr char kHex[] = "0123456789abcdef";
    for (std::size_t i = 0; i < value.size(); ++i) {
        const auto c = static_cast<unsigned char>(value[i]);
        if (value.compare(i, 3, "\xEF\xBF\xBD") == 0) {  // U+FFFD REPLACEMENT CHARACTER
            out.text += "\\ufffd";
            out.binary = true;
            i += 2;
        } else if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
            out.text += "\\x";
            out.text += kHex[c >> 4];
            out.text += kHex[c & 15];
            out.binary = true;
        } else {
            out.text += static_cast<char>(c);
        }
    }
    return out;
}

}  // namespace kiln::inductor

#include "inductor/debug_lines.hpp"

namespace kiln::inductor {

namespace {

constexpr std::size_t kHashLen = 51;  // sha256_hash(): base32 of SHA-256, 51 characters

bool is_base32_lower(char c) { return (c >= 'a' && c <= 'z') || (c >= '2' && c <= '7'); }

// Splits "[hash] name: value"; the name ends at the first ": " (names never contain one), or the
// line is "name:" with an empty value.
Result<KeyComponent> split_component(std::string_view item, std::size_t index) {
    KeyComponent c;
    c.hash = std::string(item.substr(1, kHashLen));
    std::string_view rest = item.substr(kHashLen + 3);
    std::size_t colon = rest.find(": ");
    std::size_t nl = rest.find('\n');
    if (colon == std::string_view::npos || (nl != std::string_view::npos && nl < colon)) {
        std::string_view head = rest.substr(0, nl);
        if (!head.empty() && head.back() == ':') {
            c.name = std::string(head.substr(0, head.size() - 1));
            if (nl != std::string_view::npos) c.value = std::string(rest.substr(nl + 1));
            return c;
        }
        return make_error(Errc::parse, "debug line without ': ' after the component name",
                          "debug line " + std::to_string(index), "expected '[hash] name: value'");
    }
    c.name = std::string(rest.substr(0, colon));
    c.value = std::string(rest.substr(colon + 2));
    if (c.name.empty())
        return make_error(Errc::parse, "debug line with an empty component name",
                          "debug line " + std::to_string(index));
    return c;
}

}  // namespace

bool starts_component(std::string_view line) {
    if (line.size() < kHashLen + 3 || line[0] != '[' || line[kHashLen + 1] != ']' || line[kHashLen + 2] != ' ')
        return false;
    for (std::size_t i = 1; i <= kHashLen; ++i)
        if (!is_base32_lower(line[i])) return false;
    return true;
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

}  // namespace kiln::inductor

#include "util/text_scan.hpp"

#include <charconv>

namespace kiln::scan {

std::string_view balanced_braces(std::string_view text, std::size_t open) {
    if (open >= text.size() || text[open] != '{') return {};
    std::size_t depth = 0;
    char quote = 0;
    for (std::size_t i = open; i < text.size(); ++i) {
        const char c = text[i];
        if (quote) {
            if (c == '\\') ++i;
            else if (c == quote) quote = 0;
        } else if (c == '\'' || c == '"') {
            quote = c;
        } else if (c == '{') {
            ++depth;
        } else if (c == '}' && --depth == 0) {
            return text.substr(open, i - open + 1);
        }
    }
    return {};
}

std::optional<std::string_view> quoted_after(std::string_view text, std::string_view marker) {
    for (std::size_t at = text.find(marker); at != std::string_view::npos; at = text.find(marker, at + 1)) {
        const std::size_t open = skip_spaces(text, at + marker.size());
        if (!has_at(text, open, "'")) continue;
        const std::size_t close = text.find('\'', open + 1);
        if (close == std::string_view::npos) return std::nullopt;  // no later occurrence can close either
        if (close > open + 1) return text.substr(open + 1, close - open - 1);
    }
    return std::nullopt;
}

std::optional<std::int64_t> decimal_value(std::string_view digits) {
    std::int64_t v = 0;
    if (digits.empty()) return std::nullopt;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec != std::errc() || end != digits.data() + digits.size() || v < 0) return std::nullopt;
    return v;
}

}  // namespace kiln::scan

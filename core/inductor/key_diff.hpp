#pragma once
// Why two FX graph cache keys differ: the components of both keys aligned by name (§6). Two keys
// differ exactly where some component hash differs. Value types only, for the CLI and the GUI.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "inductor/debug_lines.hpp"

namespace kiln::inductor {

struct ChangedComponent {
    std::string component;  // name, e.g. "inductor_config[max_fusion_size]"
    std::string a;          // value in A
    std::string b;          // value in B
};

struct ComponentDiff {
    std::vector<ChangedComponent> changed;  // in A's order
    std::vector<std::string> only_a;
    std::vector<std::string> only_b;
    std::size_t same = 0;

    std::size_t distance() const { return changed.size() + only_a.size() + only_b.size(); }
};

// Components are matched by name; a name that repeats is matched by occurrence. Equal hashes are
// "same" even when the printed values differ (the hash is what the key is made of).
ComponentDiff diff_components(const std::vector<KeyComponent>& a, const std::vector<KeyComponent>& b);
// {"changed": [{"component", "a", "b"}], "only_a", "only_b", "same"}, and "unknown_to_kiln":
// [those that torch 2.11 does not write: a newer torch's] when there are any (kiln-cli diff --json).
nlohmann::ordered_json to_json(const ComponentDiff& diff);

enum class LineOp : char { same = ' ', removed = '-', added = '+' };
struct DiffLine {
    LineOp op = LineOp::same;
    std::string text;
};
// A line diff (longest common subsequence), for the `gm` component's graph code.
std::vector<DiffLine> line_diff(std::string_view a, std::string_view b);
// Unified-style text: only changed lines with `context` lines around them, "@@" between hunks.
std::string format_line_diff(const std::vector<DiffLine>& lines, std::size_t context = 3);

}  // namespace kiln::inductor

#include "inductor/key_diff.hpp"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

#include "inductor/newer_torch.hpp"

namespace kiln::inductor {

namespace {

// "name" plus "#<k>" for the k-th repeat, so repeated names align by occurrence.
std::vector<std::string> occurrence_keys(const std::vector<KeyComponent>& cs) {
    std::unordered_map<std::string, int> seen;
    std::vector<std::string> keys;
    keys.reserve(cs.size());
    for (const auto& c : cs) {
        int k = seen[c.name]++;
        keys.push_back(k == 0 ? c.name : c.name + "#" + std::to_string(k));
    }
    return keys;
}

std::vector<std::string_view> split_lines(std::string_view s) {
    std::vector<std::string_view> out;
    std::size_t pos = 0;
    while (pos <= s.size()) {
        std::size_t nl = s.find('\n', pos);
        if (nl == std::string_view::npos) nl = s.size();
        out.push_back(s.substr(pos, nl - pos));
        pos = nl + 1;
    }
    return out;
}

}  // namespace

ComponentDiff diff_components(const std::vector<KeyComponent>& a, const std::vector<KeyComponent>& b) {
    ComponentDiff d;
    auto ka = occurrence_keys(a);
    auto kb = occurrence_keys(b);
    std::unordered_map<std::string, std::size_t> index_b;
    for (std::size_t i = 0; i < kb.size(); ++i) index_b.emplace(kb[i], i);
    std::vector<bool> matched_b(b.size(), false);
    for (std::size_t i = 0; i < a.size(); ++i) {
        auto it = index_b.find(ka[i]);
        if (it == index_b.end()) {
            d.only_a.push_back(a[i].name);
            continue;
        }
        const KeyComponent& cb = b[it->second];
        matched_b[it->second] = true;
        if (a[i].hash == cb.hash) {
            ++d.same;
        } else {
            d.changed.push_back({a[i].name, a[i].value, cb.value});
        }
    }
    for (std::size_t j = 0; j < b.size(); ++j)
        if (!matched_b[j]) d.only_b.push_back(b[j].name);
    return d;
}

std::vector<DiffLine> line_diff(std::string_view a, std::string_view b) {
    auto la = split_lines(a);
    auto lb = split_lines(b);
    // Trim the common head and tail so the quadratic table covers only the changed middle.
    std::size_t head = 0;
    while (head < la.size() && head < lb.size() && la[head] == lb[head]) ++head;
    std::size_t tail = 0;
    while (tail < la.size() - head && tail < lb.size() - head && la[la.size() - 1 - tail] == lb[lb.size() - 1 - tail])
        ++tail;
    std::size_t n = la.size() - head - tail, m = lb.size() - head - tail;
    std::vector<DiffLine> out;
    for (std::size_t i = 0; i < head; ++i) out.push_back({LineOp::same, std::string(la[i])});
    if (n * m > 25'000'000) {
        // Too large for the table: show the middle as replaced wholesale.
        for (std::size_t i = 0; i < n; ++i) out.push_back({LineOp::removed, std::string(la[head + i])});
        for (std::size_t j = 0; j < m; ++j) out.push_back({LineOp::added, std::string(lb[head + j])});
    } else {
        std::vector<std::uint32_t> lcs((n + 1) * (m + 1), 0);
        auto at = [&](std::size_t i, std::size_t j) -> std::uint32_t& { return lcs[i * (m + 1) + j]; };
        for (std::size_t i = n; i-- > 0;)
            for (std::size_t j = m; j-- > 0;)
                at(i, j) = la[head + i] == lb[head + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
        std::size_t i = 0, j = 0;
        while (i < n || j < m) {
            if (i < n && j < m && la[head + i] == lb[head + j]) {
                out.push_back({LineOp::same, std::string(la[head + i])});
                ++i, ++j;
            } else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) {
                out.push_back({LineOp::removed, std::string(la[head + i++])});
            } else {
                out.push_back({LineOp::added, std::string(lb[head + j++])});
            }
        }
    }
    for (std::size_t k = la.size() - tail; k < la.size(); ++k) out.push_back({LineOp::same, std::string(la[k])});
    return out;
}

std::string format_line_diff(const std::vector<DiffLine>& lines, std::size_t context) {
    std::vector<bool> keep(lines.size(), false);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (lines[i].op == LineOp::same) continue;
        std::size_t lo = i >= context ? i - context : 0;
        std::size_t hi = std::min(lines.size(), i + context + 1);
        for (std::size_t k = lo; k < hi; ++k) keep[k] = true;
    }
    std::string out;
    bool gap = false;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (!keep[i]) {
            gap = true;
            continue;
        }
        if (gap && !out.empty()) out += "@@\n";
        gap = false;
        out += static_cast<char>(lines[i].op);
        out += lines[i].text;
        out += '\n';
    }
    return out;
}

nlohmann::ordered_json to_json(const ComponentDiff& d) {
    nlohmann::ordered_json j;
    j["changed"] = nlohmann::ordered_json::array();
    for (const auto& c : d.changed) j["changed"].push_back({{"component", c.component}, {"a", c.a}, {"b", c.b}});
    j["only_a"] = d.only_a;
    j["only_b"] = d.only_b;
    j["same"] = d.same;
    // Components torch 2.11 does not write (a newer torch's key), of those that differ.
    nlohmann::ordered_json unknown = nlohmann::ordered_json::array();
    for (const auto* names : {&d.only_a, &d.only_b})
        for (const auto& n : *names)
            if (!known_key_component(n)) unknown.push_back(n);
    for (const auto& c : d.changed)
        if (!known_key_component(c.component)) unknown.push_back(c.component);
    if (!unknown.empty()) j["unknown_to_kiln"] = std::move(unknown);
    return j;
}

}  // namespace kiln::inductor

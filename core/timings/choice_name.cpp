#include "timings/choice_name.hpp"

#include <array>
#include <string_view>

#include "timings/join_sources.hpp"

namespace kiln::timings {
namespace {

// 64 -> "64", 'tl.float32' -> "tl.float32".
std::string value_text(const nlohmann::ordered_json& v) {
    if (v.is_string()) return v.get<std::string>();
    return v.dump();
}

std::string plural(const nlohmann::ordered_json& v, const char* one, const char* many) {
    std::string n = value_text(v);
    return n + " " + (n == "1" ? one : many);
}

}  // namespace

bool is_table_name(const std::string& name) {
    return !name.empty() && name != "cublas" && name.find_first_of("-:#/ ") == std::string::npos;
}

std::string config_summary(const nlohmann::ordered_json& params) {
    if (!params.is_object() || params.empty()) return {};
    std::string out;
    auto add = [&out](const std::string& part) { out += (out.empty() ? "" : ", ") + part; };
    if (params.contains("BLOCK_M") && params.contains("BLOCK_N") && params.contains("BLOCK_K")) {
        add("BLOCK " + value_text(params["BLOCK_M"]) + "\u00d7" + value_text(params["BLOCK_N"]) + "\u00d7" +
            value_text(params["BLOCK_K"]));
    } else {
        static constexpr std::array<std::string_view, 9> blocks = {
            "BLOCK_M", "BLOCK_N", "BLOCK_K", "XBLOCK", "YBLOCK", "ZBLOCK", "R0_BLOCK", "R1_BLOCK", "RBLOCK"};
        for (auto b : blocks)
            if (auto it = params.find(std::string(b)); it != params.end()) add(std::string(b) + " " + value_text(*it));
    }
    if (auto it = params.find("num_stages"); it != params.end()) add(plural(*it, "stage", "stages"));
    if (auto it = params.find("num_warps"); it != params.end()) add(plural(*it, "warp", "warps"));
    return out;
}

ChoiceName choice_name(const Choice& c) {
    ChoiceName n;
    if (is_table_name(c.name)) n.short_name = c.name;
    for (const auto& a : c.aliases)
        if (n.short_name.empty() && is_table_name(a)) n.short_name = a;
    const ChoiceKind kind = choice_kind(c.name);
    if (n.short_name.empty()) n.short_name = kind.family.empty() ? c.name : kind.family;
    n.hash = kind.module_key;
    for (const auto& a : c.aliases)
        if (n.hash.empty()) n.hash = choice_kind(a).module_key;
    n.config = config_summary(c.params);
    n.display = n.config.empty() ? n.short_name : n.short_name + " (" + n.config + ")";
    // A template whose config is unknown (a timing cache read without its root's modules): only its
    // module tells it apart, as a prefix of the timing cache's name.
    if (n.config.empty() && kind.is_template && !n.hash.empty() && n.short_name == kind.family)
        n.display = n.short_name + "-" + n.hash.substr(0, 8) + "\u2026";
    return n;
}

std::string choice_display_name(const Choice& c) { return choice_name(c).display; }

}  // namespace kiln::timings

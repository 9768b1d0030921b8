#include "ranks/rank_effects.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace kiln::ranks {
namespace {

using Json = nlohmann::ordered_json;

bool in(std::string_view key, std::initializer_list<std::string_view> set) {
    return std::find(set.begin(), set.end(), key) != set.end();
}

// Tile and launch keys that move the same sums onto other threads.
bool template_speed_key(std::string_view k) {
    return in(k, {"BLOCK_M", "BLOCK_N", "GROUP_M", "num_stages", "num_warps", "num_ctas", "EVEN_K", "NUM_SMS",
                  "num_consumer_groups", "num_buffers_warp_spec"});
}
// Keys that change how (or in which type) K is summed.
bool template_numerics_key(std::string_view k) {
    return in(
        k, {"BLOCK_K", "SPLIT_K", "K_SPLIT", "k_split", "ACC_TYPE", "ALLOW_TF32", "USE_FAST_ACCUM", "FP8_FAST_ACCUM"});
}

std::string value_text(const Json& j, const std::string& key) {
    if (!j.is_object() || !j.contains(key)) return "(none)";
    const Json& v = j[key];
    if (v.is_string()) return v.get<std::string>();
    if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
    return v.dump();
}

std::string key_change(const Json& a, const Json& b, const std::string& key) {
    return key + " " + value_text(a, key) + " vs " + value_text(b, key);
}

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
    return s;
}

bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Replaces the digits after each `prefix` by N; with `word`, only where the prefix starts a word
// and the digits end one (`stream0`, not `upstream0x`).
std::string replace_index_after(std::string text, std::string_view prefix, bool word) {
    std::size_t at = 0;
    while ((at = text.find(prefix, at)) != std::string::npos) {
        const std::size_t d = at + prefix.size();
        std::size_t e = d;
        while (e < text.size() && std::isdigit(static_cast<unsigned char>(text[e]))) ++e;
        const bool whole = (at == 0 || !is_ident(text[at - 1])) && (e == text.size() || !is_ident(text[e]));
        if (e > d && (!word || whole)) text.replace(d, e - d, "N");
        at = d;
    }
    return text;
}

}  // namespace

const char* effect_name(Effect e) {
    switch (e) {
        case Effect::none: return "none";
        case Effect::speed: return "speed";
        case Effect::maybe_numerics: return "maybe_numerics";
        case Effect::numerics: return "numerics";
    }
    return "none";
}

const char* effect_text(Effect e) {
    switch (e) {
        case Effect::none: return "device index only";
        case Effect::speed: return "speed only";
        case Effect::maybe_numerics: return "may change numerics";
        case Effect::numerics: return "changes numerics";
    }
    return "";
}

Effect worse(Effect a, Effect b) { return static_cast<int>(a) >= static_cast<int>(b) ? a : b; }

std::vector<std::string> differing_keys(const Json& a, const Json& b) {
    std::vector<std::string> out;
    if (a.is_object())
        for (auto it = a.begin(); it != a.end(); ++it)
            if (!b.is_object() || !b.contains(it.key()) || b[it.key()] != it.value()) out.push_back(it.key());
    if (b.is_object())
        for (auto it = b.begin(); it != b.end(); ++it)
            if (!a.is_object() || !a.contains(it.key())) out.push_back(it.key());
    return out;
}

Verdict choice_effect(const ChoiceConfig& a, const ChoiceConfig& b) {
    if (a.family != b.family) {
        const bool ta = a.family.rfind("triton_", 0) == 0, tb = b.family.rfind("triton_", 0) == 0;
        std::string kind = ta == tb ? ""
                                    : " (" + std::string(ta ? "Triton" : "cuBLAS/aten") + " vs " +
                                          std::string(tb ? "Triton" : "cuBLAS/aten") + ")";
        return {Effect::numerics, "another algorithm: " + a.family + " vs " + b.family + kind};
    }
    if (!a.known || !b.known) return {Effect::maybe_numerics, "a config is unknown (no AUTOTUNE table or module)"};
    auto keys = differing_keys(a.params, b.params);
    if (keys.empty()) return {Effect::none, "the same choice"};
    std::vector<std::string> numerics, unknown, speed;
    for (const auto& k : keys)
        (template_numerics_key(k) ? numerics
         : template_speed_key(k)  ? speed
                                  : unknown)
            .push_back(key_change(a.params, b.params, k));
    if (!numerics.empty())
        return {Effect::numerics, join(numerics) + ": K is summed in other steps (another accumulation order)"};
    if (!unknown.empty()) return {Effect::maybe_numerics, join(unknown) + ": a parameter Kiln cannot judge"};
    return {Effect::speed, join(speed) + " only: the same K steps, the same sums"};
}

Verdict choices_effect(const std::vector<ChoiceConfig>& configs) {
    Verdict worst;
    for (size_t i = 0; i < configs.size(); ++i)
        for (size_t j = i + 1; j < configs.size(); ++j) {
            Verdict v = choice_effect(configs[i], configs[j]);
            if (worst.why.empty() || static_cast<int>(v.effect) > static_cast<int>(worst.effect)) worst = v;
        }
    return worst;
}

Verdict kernel_config_effect(const Json& a, const Json& b) {
    auto keys = differing_keys(a, b);
    if (keys.empty()) return {Effect::none, "the same config"};
    auto has = [&](const std::string& k) {
        return (a.is_object() && a.contains(k)) || (b.is_object() && b.contains(k));
    };
    const bool reduction = has("R0_BLOCK") || has("R1_BLOCK") || has("RBLOCK");
    const bool tiled_pointwise = has("YBLOCK") && !reduction;
    std::vector<std::string> rblock, other, stages;
    for (const auto& k : keys) {
        std::string c = key_change(a, b, k);
        if (k.size() > 1 && k[0] == 'R' && k.find("BLOCK") != std::string::npos) rblock.push_back(c);
        else if (k == "num_stages") stages.push_back(c);
        else other.push_back(c);
    }
    if (!rblock.empty()) return {Effect::numerics, join(rblock) + ": the reduction is summed in other blocks"};
    if (other.empty()) return {Effect::speed, join(stages) + " only"};
    if (tiled_pointwise) return {Effect::speed, join(other) + ": a pointwise tile (no reduction)"};
    return {Effect::maybe_numerics,
            join(other) + (reduction ? ": the same reduction blocks, but its summation tree follows the threads"
                                     : ": speed only for a pointwise kernel; a persistent reduction's summation "
                                       "tree follows XBLOCK and num_warps")};
}

std::string normalize_device_index(std::string_view in) {
    std::string text;
    text.reserve(in.size());
    // `# kernel path: /tmp/.../rank0/inductor/ab/cab….py`: a path hashing the device index.
    std::size_t start = 0;
    while (start < in.size()) {
        std::size_t end = in.find('\n', start);
        std::string_view line = in.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
        std::size_t lead = line.find_first_not_of(' ');
        if (lead != std::string_view::npos && line.substr(lead).rfind("# kernel path:", 0) == 0)
            text.append(line.substr(0, lead)).append("# kernel path: …");
        else text.append(line);
        if (end == std::string_view::npos) break;
        text += '\n';
        start = end + 1;
    }
    text = replace_index_after(std::move(text), "cuda:", false);
    text = replace_index_after(std::move(text), "index=", true);
    text = replace_index_after(std::move(text), "set_device(", false);
    text = replace_index_after(std::move(text), "_DeviceGuard(", false);
    text = replace_index_after(std::move(text), "get_raw_stream(", false);
    text = replace_index_after(std::move(text), "stream", true);
    return text;
}

}  // namespace kiln::ranks

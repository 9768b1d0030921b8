#pragma once
// Whether a difference between ranks changes what they compute or only how fast.
//
// A GEMM tile's BLOCK_K sets the steps in which every output element sums over K; split-K, the
// accumulator type, TF32 and fast accumulation change the sums too, and another family (cuBLAS `mm`
// against Triton `triton_mm`, a persistent or TMA template) is another algorithm: all change the
// floats' accumulation order, so ranks that run them diverge numerically. BLOCK_M / BLOCK_N /
// GROUP_M, stages and warps only move the same sums onto other threads (speed). For a per-kernel
// `.best_config`, another reduction block (R0_BLOCK) splits the reduction differently (numerics),
// stages are speed, and XBLOCK / num_warps are speed for a pointwise kernel but may reshape a
// reduction's summation tree. A pure device-index difference (`cuda:0` against `cuda:1`) is neither.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace kiln::ranks {

enum class Effect : std::uint8_t { none, speed, maybe_numerics, numerics };
// "none", "speed", "maybe_numerics", "numerics" (the JSON spelling)
const char* effect_name(Effect e);
// "device index only", "speed only", "may change numerics", "changes numerics"
const char* effect_text(Effect e);
Effect worse(Effect a, Effect b);

struct Verdict {
    Effect effect = Effect::none;
    std::string why;
};

// Two autotune choices, each a family ("triton_mm", "mm") and its config (empty for an extern kernel;
// `known` false for a template whose config no source gave).
struct ChoiceConfig {
    std::string family;
    nlohmann::ordered_json params = nlohmann::ordered_json::object();
    bool known = true;
};
Verdict choice_effect(const ChoiceConfig& a, const ChoiceConfig& b);
// The worst over every pair of `configs` (the ranks' winners).
Verdict choices_effect(const std::vector<ChoiceConfig>& configs);

// Two `.best_config` configs (XBLOCK, R0_BLOCK, num_warps, num_stages, ...).
Verdict kernel_config_effect(const nlohmann::ordered_json& a, const nlohmann::ordered_json& b);

// The keys whose values differ (or that only one side has), in a's order then b's.
std::vector<std::string> differing_keys(const nlohmann::ordered_json& a, const nlohmann::ordered_json& b);

// Code or key text with every device index replaced by N (`cuda:N`, `index=N`, `set_device(N)`,
// `_DeviceGuard(N)`, `get_raw_stream(N)`, `streamN`) and `# kernel path:` comments (a module path,
// which hashes the device index and names the rank's cache dir) reduced to the tag.
std::string normalize_device_index(std::string_view text);

}  // namespace kiln::ranks

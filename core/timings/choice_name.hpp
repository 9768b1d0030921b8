#pragma once
// One name per autotune choice wherever Kiln shows it (`kiln-cli timings`, `show --kernels`, the
// Autotune tab, Compare devices): torch's short name as its AUTOTUNE table prints it
// (`triton_mm_18`; the template family `triton_mm` where no table was read, the extern kernel `mm`),
// then the config that tells the op's choices apart: `triton_mm_18 (BLOCK 64×128×64, 4 stages,
// 8 warps)`. The module hash (`triton_mm-cq3rzx…`, the timing cache's name) stays a detail.
#include <nlohmann/json.hpp>

#include <string>

#include "timings/timing_model.hpp"

namespace kiln::timings {

struct ChoiceName {
    std::string short_name;  // "triton_mm_18", "triton_mm", "mm"
    std::string config;      // "BLOCK 64×128×64, 4 stages, 8 warps"; "" without tile parameters
    std::string hash;        // the module key ("cq3rzx…") where a name carries one
    std::string display;     // short_name, then " (config)" when there is one
};

// From the choice's name and its aliases (join_sources) and parameters.
ChoiceName choice_name(const Choice& c);
// choice_name(c).display.
std::string choice_display_name(const Choice& c);
// "BLOCK 64×128×64, 4 stages, 8 warps" (mm templates), "XBLOCK 1024, R0_BLOCK 4, 8 warps" (other
// kernels): the tile sizes, stages and warps that set choices of one op apart; "" for none.
std::string config_summary(const nlohmann::ordered_json& params);
// The name torch's AUTOTUNE table gives a choice (`triton_mm_18`, `mm`): no module key, no
// failure prefix, not Kiln's mm-log `triton#4`.
bool is_table_name(const std::string& name);

}  // namespace kiln::timings

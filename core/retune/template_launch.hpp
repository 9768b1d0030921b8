#pragma once
// How a Triton template choice is launched for a problem, as select_algorithm's benchmark does
// it: the kernel's arguments (the inputs key's tensors in order, then the output; scalar sizes
// from the body's `M = ks0` lines; constexprs and triton_meta's constants removed) and the grid of
// its template (mm family: cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N) programs, times the batch on y for
// bmm; persistent variants: min(NUM_SMS, tiles)).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "retune/problem.hpp"
#include "retune/template_module.hpp"
#include "util/result.hpp"
#include "worker/triton_launch.hpp"

namespace kiln::retune {

struct TemplateGrid {
    std::array<std::int64_t, 3> grid{1, 1, 1};
    std::string rule;
};

// `stem`: the choice key's stem ("triton_mm", "triton_bmm", ...). Error (unsupported) for a
// template whose grid Kiln does not know or a config without BLOCK_M / BLOCK_N.
Result<TemplateGrid> template_grid(const std::string& stem, const Problem& p, const nlohmann::ordered_json& config);

// The launch arguments. Error (unsupported) naming the argument Kiln cannot bind.
Result<std::vector<worker::KernelArg>> bind_arguments(const TemplateModule& m, const Problem& p);

}  // namespace kiln::retune

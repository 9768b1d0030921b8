#pragma once
// A tuning problem from a user, as JSON: the op, its input and output tensors, a kernel template
// (C++ or CUDA source; each parameter becomes a #define), the parameter grid and restrictions over
// it, the reference choice and tolerance, devices, and the search strategy. See
// resources/examples/*.json.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "codecache/code_cache.hpp"
#include "guards/expr.hpp"
#include "util/result.hpp"
#include "worker/protocol.hpp"
#include "worker/tensor.hpp"

namespace kiln::tuning {

// Parameter (and constant) values by name.
using Bindings = std::map<std::string, std::int64_t>;

struct SearchStrategy {
    enum Kind { exhaustive, random } kind = exhaustive;
    int budget = 0;      // random: evaluations (0 = all)
    double seconds = 0;  // random: stop starting new evaluations after this many seconds (0 = none)
    std::uint64_t seed = 0;
};

// "exhaustive" or "random" (the spec's strategy.kind, `kiln-cli autotune --strategy`); nullopt else.
std::optional<SearchStrategy::Kind> strategy_kind_from_name(std::string_view name);

struct TuningSpec {
    std::filesystem::path path;
    std::string op;
    codecache::Lang lang = codecache::Lang::Cpp;
    std::string kernel_name;
    std::vector<worker::TensorMeta> inputs;
    worker::TensorMeta output;
    std::vector<std::int64_t> extra_args;
    std::string template_source;
    std::vector<std::string> flags;
    std::vector<std::pair<std::string, std::vector<std::int64_t>>> params;  // in spec order
    Bindings constants;                      // usable in restrictions only (kernels take sizes as arguments)
    std::vector<guards::Expr> restrictions;  // Dialect::restriction, over params and constants
    Bindings reference;                      // the reference choice's parameters
    worker::Tolerance tolerance;
    std::string devices;  // "" (defaults), "cpu", "0,1"
    SearchStrategy strategy;
    std::string precision = "highest";
    worker::TimingOptions timing;
    std::uint64_t seed = 1234;
};

Result<TuningSpec> parse_spec(const nlohmann::json& j, const std::filesystem::path& base_dir);
Result<TuningSpec> load_spec(const std::filesystem::path& path);

struct Candidate {
    Bindings params;
    std::string name;    // "BLOCK_M=32, BLOCK_N=64"
    std::string source;  // template with the #defines in front
    bool is_reference = false;
};

std::string render_source(const TuningSpec& spec, const Bindings& params);
std::string params_label(const TuningSpec& spec, const Bindings& params);

// The grid filtered by the restrictions, sampled by the strategy; the reference comes first.
Result<std::vector<Candidate>> enumerate_choices(const TuningSpec& spec);

}  // namespace kiln::tuning

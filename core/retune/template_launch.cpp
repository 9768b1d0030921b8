#include "retune/template_launch.hpp"

#include <algorithm>
#include <charconv>
#include <limits>

namespace kiln::retune {

namespace {

// a >= 0, b > 0; no a + b - 1 to overflow when a is near 2^63.
std::int64_t cdiv(std::int64_t a, std::int64_t b) { return a / b + (a % b != 0); }

// CUDA's grid limits: x up to 2^31 - 1, y and z up to 65535, none empty.
constexpr std::int64_t kMaxGridX = 2147483647, kMaxGridYZ = 65535;

std::int64_t int_of(const nlohmann::ordered_json& config, const char* key) {
    auto it = config.find(key);
    return it != config.end() && it->is_number_integer() ? it->get<std::int64_t>() : 0;
}

// The problem value a kernel-body name stands for: sizes M N K B, and the mm templates' strides.
std::optional<std::int64_t> body_value(const std::string& name, const Problem& p) {
    if (auto v = size_named(p, name); v >= 0) return v;
    const auto& A = p.inputs[static_cast<std::size_t>(p.a_index)].strides;
    const auto& B = p.inputs[static_cast<std::size_t>(p.b_index)].strides;
    std::size_t r = A.size() - 2;
    if (name == "stride_am") return A[r];
    if (name == "stride_ak") return A[r + 1];
    if (name == "stride_bk") return B[r];
    if (name == "stride_bn") return B[r + 1];
    if (name == "stride_aq" && r == 1) return A[0];
    if (name == "stride_bq" && r == 1) return B[0];
    return std::nullopt;
}

}  // namespace

Result<TemplateGrid> template_grid(const std::string& stem, const Problem& p, const nlohmann::ordered_json& config) {
    bool mm_family = stem.rfind("triton_mm", 0) == 0 || stem.rfind("triton_bmm", 0) == 0 ||
                     stem.rfind("triton_addmm", 0) == 0 || stem.rfind("triton_baddbmm", 0) == 0;
    if (!mm_family) return make_error(Errc::unsupported, "template '" + stem + "' has a grid rule Kiln does not know");
    std::int64_t bm = int_of(config, "BLOCK_M"), bn = int_of(config, "BLOCK_N");
    if (bm <= 0 || bn <= 0)
        return make_error(Errc::unsupported, "template config has no BLOCK_M/BLOCK_N: grid unknown");
    if (p.M < 0 || p.N < 0 || p.B < 0)
        return make_error(Errc::invalid_argument, "the problem has a negative size: grid unknown");
    std::int64_t tiles = 0;
    if (__builtin_mul_overflow(cdiv(p.M, bm), cdiv(p.N, bn), &tiles))
        return make_error(Errc::invalid_argument, "cdiv(M,BLOCK_M)*cdiv(N,BLOCK_N) overflows 64 bits: grid unknown");
    bool batched = p.family == OpFamily::bmm || p.family == OpFamily::baddbmm;
    TemplateGrid g;
    if (std::int64_t sms = int_of(config, "NUM_SMS"); sms > 0) {
        g.grid = {std::min(sms, tiles), 1, 1};
        g.rule = "min(NUM_SMS, cdiv(M,BLOCK_M)*cdiv(N,BLOCK_N)), 1, 1";
        if (batched) return make_error(Errc::unsupported, "a persistent batched template: grid unknown");
    } else {
        g.grid = {tiles, batched ? p.B : 1, 1};
        g.rule = batched ? "cdiv(M,BLOCK_M)*cdiv(N,BLOCK_N), B, 1" : "cdiv(M,BLOCK_M)*cdiv(N,BLOCK_N), 1, 1";
    }
    if (g.grid[0] < 1 || g.grid[0] > kMaxGridX || g.grid[1] < 1 || g.grid[1] > kMaxGridYZ)
        return make_error(Errc::unsupported, "grid (" + std::to_string(g.grid[0]) + ", " + std::to_string(g.grid[1]) +
                                                 ", 1) is outside CUDA's limits (x 1 to 2^31-1, y 1 to 65535)");
    return g;
}

Result<std::vector<worker::KernelArg>> bind_arguments(const TemplateModule& m, const Problem& p) {
    std::vector<worker::KernelArg> args;
    std::size_t pointers = 0;
    for (const auto& [name, type] : m.signature) {
        if (type == "constexpr" || std::find(m.constants.begin(), m.constants.end(), name) != m.constants.end())
            continue;  // Triton passes constexprs at compile time, not as kernel parameters
        worker::KernelArg a{name, type, "", 0};
        if (type.rfind("tensordesc", 0) == 0)
            return make_error(Errc::unsupported, "argument " + name + " is a TMA tensor descriptor (" + type +
                                                     "), which Kiln's launcher does not build yet");
        if (!type.empty() && type[0] == '*') {
            if (pointers < p.inputs.size()) a.binds = "input:" + std::to_string(pointers);
            else if (pointers == p.inputs.size()) a.binds = "output";
            else
                return make_error(Errc::unsupported, "pointer argument " + name + " is beyond the inputs (" +
                                                         std::to_string(p.inputs.size()) +
                                                         ") and the output: a workspace or second output");
            ++pointers;
        } else if (type == "i32" || type == "i64" || type == "u32" || type == "u64") {
            // The body says which size it is: `M = ks0`, or a stride `stride_am = ks2`.
            std::optional<std::int64_t> value;
            for (const auto& [lhs, rhs] : m.assignments)
                if (rhs == name)
                    if (auto v = body_value(lhs, p)) {
                        value = v;
                        a.binds = lhs;
                        break;
                    }
            if (!value)
                return make_error(Errc::unsupported, "scalar argument " + name + " (" + type +
                                                         ") is not a size Kiln can read from the kernel body");
            // A size that does not fit the parameter would be cut silently by the launch.
            const bool fits32 = type == "i32"   ? *value <= std::numeric_limits<std::int32_t>::max()
                                : type == "u32" ? *value <= std::numeric_limits<std::uint32_t>::max()
                                                : true;
            if (*value < 0 || !fits32)
                return make_error(Errc::unsupported, "scalar argument " + name + " (" + type + ") would be " +
                                                         std::to_string(*value) + ", which it cannot hold");
            a.value = *value;
        } else {
            return make_error(Errc::unsupported, "argument " + name + " has type " + type + ", not supported");
        }
        args.push_back(std::move(a));
    }
    if (pointers != p.inputs.size() + 1)
        return make_error(Errc::unsupported, "the kernel takes " + std::to_string(pointers) + " pointers; the op has " +
                                                 std::to_string(p.inputs.size()) + " inputs and one output");
    return args;
}

}  // namespace kiln::retune

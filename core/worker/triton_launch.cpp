#include "worker/triton_launch.hpp"

#include <cstring>

namespace kiln::worker {

std::string launch_unsupported(const TritonBinary& b) {
    if (b.has_tensor_descriptors)
        return "uses TMA tensor descriptors (tensordesc_meta), which Kiln's launcher does not build yet";
    if (b.num_ctas != 1 || b.cluster_dims != std::array<int, 3>{1, 1, 1})
        return "needs a thread-block cluster launch (num_ctas " + std::to_string(b.num_ctas) +
               "), which Kiln's launcher does not do yet";
    if (b.cooperative) return "needs a cooperative launch, which Kiln's launcher does not do yet";
    if (b.pdl) return "needs programmatic dependent launch, which Kiln's launcher does not do yet";
    if (b.profile_scratch_size > 0) return "is instrumented (profile scratch), which Kiln's launcher does not allocate";
    if (b.num_warps <= 0 || b.num_warps > 32) return "num_warps " + std::to_string(b.num_warps) + " out of range";
    return {};
}

std::uint64_t scratch_bytes(const std::array<std::int64_t, 3>& grid, int num_ctas, std::int64_t size) {
    if (size <= 0) return 0;
    return static_cast<std::uint64_t>(grid[0] * grid[1] * grid[2]) * static_cast<std::uint64_t>(num_ctas) *
           static_cast<std::uint64_t>(size);
}

Result<PackedParams> pack_params(const std::vector<KernelArg>& args, const std::vector<std::uint64_t>& inputs,
                                 std::uint64_t output, std::uint64_t global_scratch, std::uint64_t profile_scratch) {
    PackedParams p;
    p.storage.reserve(args.size() + 2);
    for (const auto& a : args) {
        std::uint64_t slot = 0;
        if (!a.type.empty() && a.type[0] == '*') {
            if (a.binds == "output") {
                slot = output;
            } else if (a.binds.rfind("input:", 0) == 0) {
                std::size_t i = std::stoul(a.binds.substr(6));
                if (i >= inputs.size())
                    return make_error(Errc::invalid_argument, "argument " + a.name + " binds input " +
                                                                  std::to_string(i) + " of " +
                                                                  std::to_string(inputs.size()));
                slot = inputs[i];
            } else {
                return make_error(Errc::invalid_argument, "pointer argument " + a.name + " is bound to nothing");
            }
        } else if (a.type == "i32" || a.type == "u32" || a.type == "i1") {
            auto v = static_cast<std::int32_t>(a.value);
            std::memcpy(&slot, &v, sizeof v);
        } else if (a.type == "i64" || a.type == "u64") {
            std::memcpy(&slot, &a.value, sizeof a.value);
        } else if (a.type == "fp32") {
            float v = static_cast<float>(a.value);
            std::memcpy(&slot, &v, sizeof v);
        } else {
            return make_error(Errc::unsupported, "argument " + a.name + " has type " + a.type + ", not supported");
        }
        p.storage.push_back(slot);
    }
    p.storage.push_back(global_scratch);
    p.storage.push_back(profile_scratch);
    for (auto& s : p.storage) p.pointers.push_back(&s);
    return p;
}

nlohmann::json to_json(const KernelArg& a) {
    return {{"name", a.name}, {"type", a.type}, {"binds", a.binds}, {"value", a.value}};
}

KernelArg kernel_arg_from_json(const nlohmann::json& j) {
    return {j.value("name", ""), j.value("type", ""), j.value("binds", ""), j.value("value", std::int64_t{0})};
}

nlohmann::json to_json(const TritonBinary& b) {
    return {{"cubin", b.cubin},
            {"ptx", b.ptx},
            {"function", b.function},
            {"arch", b.arch},
            {"num_warps", b.num_warps},
            {"num_ctas", b.num_ctas},
            {"shared", b.shared},
            {"global_scratch_size", b.global_scratch_size},
            {"global_scratch_align", b.global_scratch_align},
            {"profile_scratch_size", b.profile_scratch_size},
            {"profile_scratch_align", b.profile_scratch_align},
            {"cluster_dims", b.cluster_dims},
            {"cooperative", b.cooperative},
            {"pdl", b.pdl},
            {"tensor_descriptors", b.has_tensor_descriptors}};
}

TritonBinary triton_binary_from_json(const nlohmann::json& j) {
    TritonBinary b;
    b.cubin = j.value("cubin", "");
    b.ptx = j.value("ptx", "");
    b.function = j.value("function", "");
    b.arch = j.value("arch", 0);
    b.num_warps = j.value("num_warps", 0);
    b.num_ctas = j.value("num_ctas", 1);
    b.shared = j.value("shared", 0);
    b.global_scratch_size = j.value("global_scratch_size", std::int64_t{0});
    b.global_scratch_align = j.value("global_scratch_align", std::int64_t{1});
    b.profile_scratch_size = j.value("profile_scratch_size", std::int64_t{0});
    b.profile_scratch_align = j.value("profile_scratch_align", std::int64_t{1});
    if (auto it = j.find("cluster_dims"); it != j.end() && it->is_array() && it->size() == 3)
        b.cluster_dims = {(*it)[0].get<int>(), (*it)[1].get<int>(), (*it)[2].get<int>()};
    b.cooperative = j.value("cooperative", false);
    b.pdl = j.value("pdl", false);
    b.has_tensor_descriptors = j.value("tensor_descriptors", false);
    return b;
}

nlohmann::json to_json(const TritonLaunch& l) {
    nlohmann::json args = nlohmann::json::array();
    for (const auto& a : l.args) args.push_back(to_json(a));
    return {{"binary", to_json(l.binary)}, {"grid", l.grid}, {"args", std::move(args)}};
}

TritonLaunch triton_launch_from_json(const nlohmann::json& j) {
    TritonLaunch l;
    if (auto it = j.find("binary"); it != j.end()) l.binary = triton_binary_from_json(*it);
    if (auto it = j.find("grid"); it != j.end() && it->is_array() && it->size() == 3)
        l.grid = {(*it)[0].get<std::int64_t>(), (*it)[1].get<std::int64_t>(), (*it)[2].get<std::int64_t>()};
    for (const auto& a : j.value("args", nlohmann::json::array())) l.args.push_back(kernel_arg_from_json(a));
    return l;
}

}  // namespace kiln::worker

#include "retune/kernel_metadata.hpp"

#include <limits>

#include "util/json_get.hpp"

namespace kiln::retune {

Result<worker::TritonBinary> binary_from_metadata(const nlohmann::json& j, const std::string& stem,
                                                  const std::string& origin) {
    namespace jg = json_get;
    const jg::JsonAt top{origin, ""};
    constexpr std::int64_t kInt = std::numeric_limits<int>::max();
    constexpr std::int64_t kBig = std::numeric_limits<std::int64_t>::max();
    worker::TritonBinary b;
    KILN_TRY(b.function, jg::string_field_or(j, "name", top, stem));
    KILN_TRY(const nlohmann::json* target, jg::field(j, "target", top));
    if (target && target->is_object()) {
        KILN_TRY(auto arch, jg::field(*target, "arch", top.key("target")));
        // Triton writes an int for CUDA ("arch": 90) and a string for HIP ("gfx942"): only an int is an sm.
        if (arch && arch->is_number()) {
            KILN_TRY(auto a, jg::integer(*arch, top.key("target").key("arch"), 0, kInt));
            b.arch = static_cast<int>(a);
        }
    }
    KILN_TRY(auto warps, jg::integer_field_or(j, "num_warps", top, 0, 0, kInt));
    KILN_TRY(auto ctas, jg::integer_field_or(j, "num_ctas", top, 1, 0, kInt));
    KILN_TRY(auto shared, jg::integer_field_or(j, "shared", top, 0, 0, kInt));
    b.num_warps = static_cast<int>(warps);
    b.num_ctas = static_cast<int>(ctas);
    b.shared = static_cast<int>(shared);
    KILN_TRY(b.global_scratch_size, jg::integer_field_or(j, "global_scratch_size", top, 0, 0, kBig));
    KILN_TRY(b.global_scratch_align, jg::integer_field_or(j, "global_scratch_align", top, 1, 0, kBig));
    KILN_TRY(b.profile_scratch_size, jg::integer_field_or(j, "profile_scratch_size", top, 0, 0, kBig));
    KILN_TRY(b.profile_scratch_align, jg::integer_field_or(j, "profile_scratch_align", top, 1, 0, kBig));
    KILN_TRY(const nlohmann::json* cluster, jg::field(j, "cluster_dims", top));
    if (cluster && cluster->is_array() && cluster->size() == 3)
        for (std::size_t i = 0; i < 3; ++i) {
            KILN_TRY(auto d, jg::integer((*cluster)[i], top.key("cluster_dims").index(i), 0, kInt));
            b.cluster_dims[i] = static_cast<int>(d);
        }
    KILN_TRY(b.cooperative, jg::boolean_field_or(j, "launch_cooperative_grid", top, false));
    KILN_TRY(b.pdl, jg::boolean_field_or(j, "launch_pdl", top, false));
    KILN_TRY(const nlohmann::json* desc, jg::field(j, "tensordesc_meta", top));
    b.has_tensor_descriptors = desc && desc->is_array() && !desc->empty();
    return b;
}

}  // namespace kiln::retune

// Output code: the modules and libraries the wrapper loads when a graph entry hits. A Triton kernel's
// module is `<xx>/<code_hash>.py`; a C++ kernel's library is the `.main.so` beside the `.main.cpp`
// whose kernel part is the same text (core/inductor/output_code.hpp).
#include "health/check_context.hpp"
#include "inductor/output_code.hpp"
#include "util/regular_file.hpp"

namespace kiln::health::detail {

using inductor::Artifact;

namespace {
constexpr std::uint64_t kMaxModuleBytes = 256ull << 20;  // output code of a huge graph is MBs, not GBs
}

std::string main_cpp_sha(const Artifact& a) {
    auto text = read_regular_file(a.path, kMaxModuleBytes);
    if (!text) return {};
    return inductor::cpp_main_source_sha256(*text).value_or(std::string());
}

void check_output_code(const CheckContext& ctx, const Artifact& a,
                       const std::unordered_map<std::string, std::string>& main_cpp, std::vector<Problem>& out) {
    auto text = read_regular_file(a.path, kMaxModuleBytes);
    if (!text) return;  // gone or unreadable since the scan
    auto code = inductor::parse_output_code(*text);
    if (!code) return;  // not text Inductor wrote: torch rewrites the module from the entry's source
    for (const auto& k : code->kernels) {
        if (k.kind == inductor::KernelKind::triton) {
            std::string module = k.module_rel_path();
            if (!k.module_key.empty() && !ctx.rel_paths.count(module))
                out.push_back(ctx.problem(ProblemKind::kernel_module_missing, a,
                                          "Triton kernel " + k.name + ": " + module + " is missing"));
        } else if (k.kind == inductor::KernelKind::cpp && !k.source_sha256.empty()) {
            auto it = main_cpp.find(k.source_sha256);
            if (it == main_cpp.end()) continue;  // never built here (another compile command): nothing lost
            if (!ctx.rel_paths.count(it->second + ".main.so"))
                out.push_back(ctx.problem(ProblemKind::cpp_library_missing, a,
                                          "C++ kernel " + k.name + ": " + it->second + ".main.so is missing"));
        }
    }
}

}  // namespace kiln::health::detail

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

std::string main_cpp_sha(const Artifact& a, const ReadBeneath& files) {
    FoundList ignored;  // an unreadable source only hides which library it built
    auto file = files.open(a, ignored);
    if (!file) return {};
    auto text = read_opened_file(*file, std::string(a.rel_path()), kMaxModuleBytes);
    if (!text) return {};
    return inductor::cpp_main_source_sha256(*text).value_or(std::string());
}

OutputFindings check_output_code(const Artifact& a, const ReadBeneath& files, FoundList& unreadable) {
    OutputFindings out;
    out.owner = found(ProblemKind::cpp_library_missing, a, {});
    auto file = files.open(a, unreadable);
    if (!file) return out;  // unreadable (reported) or gone since the scan
    auto text = read_opened_file(*file, std::string(a.rel_path()), kMaxModuleBytes);
    if (!text) return out;
    auto code = inductor::parse_output_code(*text);
    if (!code) return out;  // not text Inductor wrote: torch rewrites the module from the entry's source
    for (const auto& k : code->kernels) {
        if (k.kind == inductor::KernelKind::triton) {
            if (k.module_key.empty()) continue;
            out.modules.push_back({k.module_rel_path(), k.name, ProblemKind::kernel_module_missing});
        } else if (k.kind == inductor::KernelKind::cpp && !k.source_sha256.empty()) {
            out.cpp.emplace_back(k.source_sha256, k.name);
        }
    }
    return out;
}

}  // namespace kiln::health::detail

// libFuzzer target: any byte string as an Inductor Triton kernel module and as a saved stderr log,
// through the readers Kiln has for them: timings' kernel module info (`timings`, the GUI's Autotune
// view), retune's template module (`retune --list`) and the stderr AUTOTUNE tables (`timings`). Their
// scanning is hand-written (no std::regex, whose recursion overflowed the stack on 50 KB of spaces,
// issue 42): a crash, a sanitizer report, a timeout, an over-allocation or a result that is not made
// of the input is a finding. The same bytes as an output-code module (the wrapper a graph entry's
// cache_key names): the parse that the check, evict and `ls` use must give what the plain parse of
// tests/support/output_code_reference.hpp gives (issue 44 made it search with memmem and count launches
// in one pass), error for error and kernel for kernel.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "inductor/output_code.hpp"
#include "output_code_reference.hpp"
#include "retune/template_module.hpp"
#include "timings/kernel_files.hpp"
#include "timings/stderr_autotune.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    if (auto info = kiln::timings::parse_kernel_module_info(text, "fuzz.py"); info.ok()) {
        if (info->heuristic.empty() || text.find(info->heuristic) == std::string::npos) std::abort();
        if (!info->kernel_name.empty() && text.find(info->kernel_name) == std::string::npos) std::abort();
    }
    if (auto m = kiln::retune::parse_template_module(text, "fuzz.py"); m.ok()) {
        if (m->kernel.empty() || text.find(m->kernel) == std::string::npos || m->signature.empty()) std::abort();
    }
    for (const auto& op : kiln::timings::parse_stderr_autotune(text, "fuzz.log")) {
        if (op.op.empty() || text.find("AUTOTUNE " + op.op + "(") == std::string::npos) std::abort();
        for (const auto& c : op.choices)
            if (c.name.empty()) std::abort();
    }
    auto fast = kiln::inductor::parse_output_code(text);
    auto plain = kiln::test::output_code_reference::parse_output_code(text);
    if (fast.ok() != plain.ok()) std::abort();
    if (!fast.ok() && fast.error().str() != plain.error().str()) std::abort();
    if (fast.ok()) {
        if (fast->aot_id != plain->aot_id || fast->kernels.size() != plain->kernels.size()) std::abort();
        for (std::size_t i = 0; i < fast->kernels.size(); ++i) {
            const auto &f = fast->kernels[i], &r = plain->kernels[i];
            if (f.name != r.name || f.kind != r.kind || f.module_key != r.module_key ||
                f.kernel_path != r.kernel_path || f.source_sha256 != r.source_sha256 || f.launches != r.launches)
                std::abort();
        }
    }
    return 0;
}

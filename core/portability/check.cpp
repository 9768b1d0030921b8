#include "portability/check.hpp"

#include "inductor/roots.hpp"
#include "portability/sources.hpp"

namespace kiln::portability {

Result<Fingerprint> load_target(const TargetSpec& target) {
    if (target.this_machine) return this_machine_fingerprint(target.python);
    return load_fingerprint(target.path);
}

Result<PortableReport> assess_opened(const bundle::RootOrBlob& root, const Fingerprint& target,
                                     const PortableOptions& options) {
    KILN_TRY(std::filesystem::path resolved, inductor::resolve_root(root.root.string()));
    KILN_TRY(PortableReport report, assess_root(resolved, target, options));
    if (root.is_blob()) report.root = root.label;
    return report;
}

}  // namespace kiln::portability

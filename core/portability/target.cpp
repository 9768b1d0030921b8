#include "portability/target.hpp"

#include "portability/sources.hpp"

namespace kiln::portability {

TargetSpec target_spec(const std::string& text, std::optional<std::string> python) {
    TargetSpec t;
    t.this_machine = text == "local";
    if (!t.this_machine) t.path = text;
    t.python = std::move(python);
    return t;
}

Result<Fingerprint> load_target(const TargetSpec& target) {
    if (target.this_machine) return this_machine_fingerprint(target.python);
    return load_fingerprint(target.path);
}

Result<PortableReport> assess_opened(const bundle::RootOrBlob& root, const Fingerprint& target,
                                     const PortableOptions& options) {
    KILN_TRY(PortableReport report, assess_root(root.opened(), target, options));
    if (root.is_blob()) report.root = root.label;
    return report;
}

}  // namespace kiln::portability

// libFuzzer target: any byte string as a saved re-tune (`kiln-cli retune ROOT --json`, read back by
// `kiln-cli handback --from`): py_loads with its nesting bound, run_from_json (every field through
// util/json_get: a wrong type marks that device, op or choice unreadable), complete_ops (what would be
// handed to torch) and --shard's slices. Every time handed on must be finite and >= 0, what reads must
// write (to_json) and read again to the same JSON. A crash, a sanitizer report (an uncaught
// nlohmann::type_error included), a timeout or a broken invariant is a finding.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "handback/measured_op.hpp"
#include "handback/retune_run.hpp"
#include "util/python_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    auto j = kiln::py_loads(text, "fuzz");
    if (!j.ok()) return 0;
    auto run = kiln::handback::run_from_json(*j, "fuzz");
    if (!run.ok()) return 0;
    kiln::handback::fill_recorded_versions(*run, {});  // no root: the run alone
    auto sel = kiln::handback::complete_ops(*run, std::nullopt);
    for (const auto& op : sel.ops) {
        if (op.choices.empty()) std::abort();
        for (const auto& c : op.choices)
            if (!std::isfinite(c.ms) || c.ms < 0) std::abort();  // a time torch would read wrong
        (void)op.system_hash();
    }
    (void)kiln::handback::complete_ops(*run, kiln::handback::SoftwareVersions{"t", "c", "fuzz"}, 0);
    (void)kiln::handback::shard_run(*run, {1, 3});
    const auto written = kiln::handback::to_json(*run);
    auto again = kiln::handback::run_from_json(written, "fuzz round trip");
    if (!again.ok()) std::abort();
    (void)kiln::py_dumps(kiln::handback::to_json(*again));
    return 0;
}

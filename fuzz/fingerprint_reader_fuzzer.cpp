// libFuzzer target: any byte string as a fingerprint file (`kiln-cli env --json`, read back by
// `env --from`, `portable --target` and `check --target`): the JSON parse with its nesting bound, then
// fingerprint_from_json, and the round trip: what loads must write (to_json) and load again to the same
// fingerprint. A crash, a sanitizer report, a timeout, an over-allocation or a round trip that changes
// the fingerprint is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "portability/fingerprint.hpp"
#include "util/python_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    if (!kiln::check_json_depth(text, "fuzz").ok()) return 0;
    auto j = nlohmann::ordered_json::parse(text, nullptr, false);
    if (j.is_discarded()) return 0;
    auto fp = kiln::portability::fingerprint_from_json(j, "fuzz");
    if (!fp.ok()) return 0;
    const nlohmann::ordered_json written = kiln::portability::to_json(*fp);
    auto again = kiln::portability::fingerprint_from_json(written, "fuzz round trip");
    if (!again.ok() || kiln::portability::to_json(*again) != written) std::abort();  // lost or changed data
    (void)fp->label();
    return 0;
}

#pragma once
// Would a cached key be computed again on the target? Component by component: by component hash
// where both sides have one (a different hash means different pickle bytes, so a different key,
// whatever the reason), else by printed value (never for lossy values such as torch_version's
// bytes). A component the target does not know makes the verdict `unknown`, naming it, never a
// guessed hit; a known difference makes it `miss` even when others are unknown.
#include <string>
#include <string_view>
#include <vector>

#include "inductor/debug_lines.hpp"
#include "portability/fingerprint.hpp"

namespace kiln::portability {

enum class Verdict : std::uint8_t { hit, miss, unknown };
std::string_view verdict_name(Verdict v);

struct Difference {
    std::string component;
    std::string cached;
    std::string target;
    Scope scope = Scope::machine;
};

struct Assessment {
    Verdict verdict = Verdict::hit;
    std::vector<Difference> differs;
    std::vector<UnknownComponent> unknown;

    void differ(std::string component, std::string cached, std::string target, Scope scope);
    void not_known(std::string component, std::string why);
    // The verdict from what was recorded: any difference -> miss, else any unknown -> unknown, else hit.
    void finish();
};

// Compares the named components of `cached` with the target's. `optional` names are compared
// only when the cached side has them (graph-dependent: default_cuda_device_index, input devices).
void compare_components(const Fingerprint& cached, const Fingerprint& target, const std::vector<std::string>& names,
                        const std::vector<std::string>& optional, Assessment& out);

// A graph entry's (or trace event's) key environment against the target: every environment-bound
// component, plus the inductor_config values the target's environment sets (looked up in `config`).
Assessment assess_key(const Fingerprint& cached, const std::vector<inductor::KeyComponentView>& config,
                      const Fingerprint& target);

}  // namespace kiln::portability

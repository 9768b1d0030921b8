#pragma once
// Device comparison: the same op (operation + input sizes + precision) timed on several devices
// (timing files or cache roots from different machines). Choices are matched by what they are,
// not by name: a Triton choice's module key hashes its source, which embeds the device's
// properties, so the same config has a different name on each GPU.
#include <optional>
#include <string>
#include <vector>

#include "timings/timing_model.hpp"

namespace kiln::timings {

struct DeviceTimings {
    std::string label;  // device name, or the path when the files name none
    TimingSet set;
};

struct ComparedChoice {
    std::string identity;                            // "triton_mm(BLOCK_M=64, ..., num_warps=4)" or "mm"
    std::string label;                               // choice_display_name, the same on every device
    std::vector<std::optional<double>> ms;           // per device, in DeviceTimings order
    std::vector<std::string> names;                  // each device's own name for it ("" if absent)
    std::vector<std::optional<double>> spread_ms{};  // per device: the measurement's noise, where known
};

// Whether winners that differ differ by more than the measurements' noise: on each device that
// measured both its own winner and another device's winner with their spreads, the other winner is
// within noise when it is slower by at most the two spreads together.
enum class NoiseVerdict { same_winner, within_noise, beyond_noise, noise_unknown };
const char* noise_verdict_name(NoiseVerdict v);

struct ComparedOp {
    std::string op, inputs, precision;
    std::vector<std::string> best;               // per device: identity of the winner ("" if absent)
    std::vector<std::optional<double>> best_ms;  // per device
    std::vector<std::optional<double>> speedup;  // per device: best_ms[0] / best_ms[i] (> 1: faster than the first)
    bool winner_differs = false;                 // devices that have the op disagree on the winner
    NoiseVerdict noise = NoiseVerdict::same_winner;
    std::string noise_note;               // the largest gap between winners on one device, and its noise
    std::vector<ComparedChoice> choices;  // sorted by the first device's time
};

struct Comparison {
    std::vector<std::string> devices;
    std::vector<ComparedOp> ops;  // ops present on at least two devices
};

// What a choice is, independent of its module hash: the name without the "-<key>" or "_<n>"
// suffix, plus its parameters when it has any. A Triton choice whose parameters are unknown (a
// source without its cache root) is its whole name: only the same module is the same choice.
std::string choice_identity(const Choice& c);

Comparison compare_devices(const std::vector<DeviceTimings>& devices);

// The label of device d's winner ("triton_mm (BLOCK 64×32×128, 5 stages, 4 warps)"); "" if none.
std::string winner_label(const ComparedOp& op, std::size_t d);

// Gives a choice without parameters those of a choice of the same name in another set (a Redis or
// re-tune source names the same benchmark modules as the cache root whose files give them), so that
// both are one identity.
void share_params_by_name(std::vector<DeviceTimings>& devices);

// Splits one TimingSet by op.device into per-device sets (ops without a device are dropped).
std::vector<DeviceTimings> split_by_device(const TimingSet& set);

}  // namespace kiln::timings

#pragma once
// The devices of one read TimingSet, as Compare devices shows them: one per op.device, each viewing
// the set's ops that ran on it (indices, no copies), and what compare_devices takes of them.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "timings/compare.hpp"

namespace kiln::ui {

// One device: the ops of a shared set that ran on it. The comparison copies them only while it is
// computed (two devices or more); a set read for one view alone is shared the same way.
struct TimingDevice {
    std::string label;
    std::shared_ptr<const timings::TimingSet> set;
    std::vector<std::uint32_t> ops;  // indices into set->ops
};

// One device per op.device; ops naming no device go to the only device, or (no device at all) stand
// for one labelled `unnamedLabel`; beside several devices they are left out.
std::vector<TimingDevice> devicesOf(std::shared_ptr<const timings::TimingSet> set, const std::string& unnamedLabel);
// The devices' own sets as compare_devices takes them (copies of their ops).
std::vector<timings::DeviceTimings> deviceTimingsOf(const std::vector<TimingDevice>& devices);

}  // namespace kiln::ui

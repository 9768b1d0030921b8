#include "ui/tuning/timing_devices.hpp"

#include <algorithm>

namespace kiln::ui {

std::vector<TimingDevice> devicesOf(std::shared_ptr<const timings::TimingSet> set, const std::string& unnamedLabel) {
    std::vector<TimingDevice> out;
    std::vector<std::uint32_t> unnamed;
    for (std::uint32_t i = 0; i < set->ops.size(); ++i) {
        const std::string& device = set->ops[i].device;
        if (device.empty()) {
            unnamed.push_back(i);
            continue;
        }
        auto it = std::find_if(out.begin(), out.end(), [&](const TimingDevice& d) { return d.label == device; });
        if (it == out.end()) it = out.insert(out.end(), TimingDevice{device, set, {}});
        it->ops.push_back(i);
    }
    // Files that name no device (mm logs, stderr tables, per-kernel files) belong to the source's one
    // device, or stand for the machine themselves (labelled by path); beside several devices they are
    // ambiguous and left out.
    if (out.size() == 1) out.front().ops.insert(out.front().ops.end(), unnamed.begin(), unnamed.end());
    else if (out.empty() && !unnamed.empty()) out.push_back({unnamedLabel, set, std::move(unnamed)});
    return out;
}

std::vector<timings::DeviceTimings> deviceTimingsOf(const std::vector<TimingDevice>& devices) {
    std::vector<timings::DeviceTimings> out;
    out.reserve(devices.size());
    for (const auto& d : devices) {
        timings::DeviceTimings t{d.label, {}};
        t.set.ops.reserve(d.ops.size());
        for (auto i : d.ops) t.set.ops.push_back(d.set->ops[i]);
        out.push_back(std::move(t));
    }
    return out;
}

}  // namespace kiln::ui

#include "worker/devices.hpp"

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "cuda/driver.hpp"

namespace kiln::worker {

Result<std::vector<Device>> parse_devices(const std::string& list) {
    std::vector<Device> out;
    std::stringstream ss(list);
    std::string item;
    while (std::getline(ss, item, ',')) {
        while (!item.empty() && item.front() == ' ') item.erase(0, 1);
        while (!item.empty() && item.back() == ' ') item.pop_back();
        if (item.empty()) continue;
        if (item == "cpu") {
            out.push_back({});
            continue;
        }
        if (item.rfind("cuda:", 0) == 0) item = item.substr(5);
        try {
            size_t used = 0;
            int id = std::stoi(item, &used);
            if (used != item.size() || id < 0) throw std::invalid_argument(item);
            out.push_back({id});
        } catch (const std::exception&) {
            return make_error(Errc::invalid_argument, "bad device '" + item + "'", list, "use a list like 0,1 or cpu");
        }
    }
    if (out.empty()) return make_error(Errc::invalid_argument, "no devices given", list, "use a list like 0,1 or cpu");
    return out;
}

std::vector<Device> default_devices() {
    if (const char* vis = std::getenv("CUDA_VISIBLE_DEVICES"); vis && *vis) {
        auto parsed = parse_devices(vis);
        if (parsed.ok()) return *parsed;
    }
    if (auto n = cuda::device_count(); n.ok() && *n > 0) {
        std::vector<Device> out;
        for (int i = 0; i < *n; ++i) out.push_back({i});
        return out;
    }
    return {Device{}};
}

std::optional<int> driver_gpu_count(const std::string& dir) {
    if (const char* vis = std::getenv("CUDA_VISIBLE_DEVICES"); vis) return std::nullopt;
    std::error_code ec;
    int n = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec))
        if (e.is_directory(ec)) ++n;
    if (ec || n == 0) return std::nullopt;
    return n;
}

std::string devices_label(const std::vector<Device>& devices) {
    std::string s;
    for (const auto& d : devices) s += (s.empty() ? "" : ",") + d.label();
    return s;
}

}  // namespace kiln::worker

#include "cuda/nvcc.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "cuda/driver.hpp"
#include "util/process.hpp"

namespace kiln::cuda {

static bool is_executable(const std::filesystem::path& p) {
    return !p.empty() && ::access(p.c_str(), X_OK) == 0 && std::filesystem::is_regular_file(p);
}

std::string find_nvcc(const std::string& configured) {
    if (is_executable(configured)) return configured;
    if (const char* c = std::getenv("CUDACXX"); c && is_executable(c)) return c;
    if (const char* h = std::getenv("CUDA_HOME"); h && is_executable(std::filesystem::path(h) / "bin/nvcc"))
        return (std::filesystem::path(h) / "bin/nvcc").string();
    if (is_executable("/usr/local/cuda/bin/nvcc")) return "/usr/local/cuda/bin/nvcc";
    if (const char* path = std::getenv("PATH")) {
        std::stringstream ss(path);
        std::string dir;
        while (std::getline(ss, dir, ':'))
            if (is_executable(std::filesystem::path(dir) / "nvcc"))
                return (std::filesystem::path(dir) / "nvcc").string();
    }
    return {};
}

std::string nvcc_version(const std::string& nvcc) {
    if (nvcc.empty()) return {};
    auto r = run_process({.argv = {nvcc, "--version"}}, {.timeout = std::chrono::seconds(60)});
    if (!r.ok() || r->exit_status != 0) return {};
    std::istringstream lines(r->out);
    std::string line, found;
    while (std::getline(lines, line))
        if (auto pos = line.find("release "); pos != std::string::npos) found = line.substr(pos);
    while (!found.empty() && (found.back() == '\n' || found.back() == '\r')) found.pop_back();
    return found;
}

std::string cuda_version_summary() {
    std::string s;
    DriverInfo d = driver_info();
    if (d.loaded) {
        s += "driver " + std::to_string(d.driver_version / 1000) + "." + std::to_string((d.driver_version % 1000) / 10);
        s += d.error.empty()
                 ? " (" + std::to_string(d.device_count) + " device" + (d.device_count == 1 ? "" : "s") + ")"
                 : " (" + d.error + ")";
    } else {
        s += d.error;
    }
    std::string nvcc = find_nvcc();
    s += " | toolkit ";
    if (nvcc.empty()) {
        s += "not found";
    } else {
        std::string v = nvcc_version(nvcc);
        s += (v.empty() ? "unknown version" : v) + " (" + nvcc + ")";
    }
    return s;
}

}  // namespace kiln::cuda

#include "tuning/session_devices.hpp"

#include "cuda/driver.hpp"
#include "cuda/nvcc.hpp"

namespace fs = std::filesystem;

namespace kiln::tuning {
namespace {

// "13.0" from nvcc's "release 13.0, V13.0.88": the toolkit version, like torch.version.cuda.
std::string cuda_toolkit_version() {
    std::string v = cuda::nvcc_version(cuda::find_nvcc());
    if (v.rfind("release ", 0) == 0) v = v.substr(8);
    return v.substr(0, v.find(','));
}

}  // namespace

Result<std::vector<worker::Device>> session_devices(const TuningSpec& spec, std::vector<worker::Device> devices) {
    if (devices.empty() && !spec.devices.empty()) {
        KILN_TRY(devices, worker::parse_devices(spec.devices));
    }
    if (devices.empty())
        devices = spec.lang == codecache::Lang::Cpp ? std::vector<worker::Device>{worker::Device{}}
                                                    : worker::default_devices();
    for (const auto& d : devices) {
        if (spec.lang == codecache::Lang::Cpp && !d.is_cpu())
            return make_error(Errc::invalid_argument, "C++ kernels run on the CPU, not " + d.label(),
                              spec.path.string(), "use --devices cpu");
        if (spec.lang == codecache::Lang::Cuda && d.is_cpu())
            return make_error(Errc::invalid_argument, "CUDA kernels need a GPU device, not the CPU", spec.path.string(),
                              "use --devices 0 (or 0,1,...) on a machine with NVIDIA GPUs");
    }
    return devices;
}

Result<inductor::SystemInfo> session_system(const TuningSpec& spec, const std::vector<worker::Device>& devices,
                                            const fs::path& root) {
    if (spec.lang == codecache::Lang::Cpp) return inductor::cpu_system();
    std::string name;
    for (const auto& d : devices) {
        KILN_TRY(auto facts, cuda::device_facts(*d.cuda));
        if (!name.empty() && facts.name != name)
            return make_error(Errc::invalid_argument, "devices of different models (" + name + ", " + facts.name + ")",
                              {}, "timings are kept per GPU model: tune each model in its own session");
        name = facts.name;
    }
    return inductor::cuda_system(root, name, cuda_toolkit_version());
}

}  // namespace kiln::tuning

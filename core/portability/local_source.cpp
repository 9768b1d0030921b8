// This machine without Python: what the CUDA driver, the toolkit and the environment tell.
#include <cstdlib>

#include "cuda/driver.hpp"
#include "cuda/nvcc.hpp"
#include "portability/key_env.hpp"
#include "portability/py_value.hpp"
#include "portability/sources.hpp"

namespace kiln::portability {

namespace {

constexpr const char* kNeedsPython = "needs torch: run `kiln-cli env --python PY` with the Python of the torch install";

void fact(Fingerprint& fp, std::string_view name, std::string value, const std::string& source) {
    fp.set({std::string(name), std::move(value), "", scope_of(name), false, false, false, false, source});
}

void from_driver(Fingerprint& fp) {
    cuda::DriverInfo d = cuda::driver_info();
    if (d.loaded)
        fact(fp, names::cuda_driver,
             std::to_string(d.driver_version / 1000) + "." + std::to_string((d.driver_version % 1000) / 10), "driver");
    std::vector<cuda::DeviceFacts> devices;
    for (int i = 0; d.loaded && d.error.empty() && i < d.device_count && i < 256; ++i)
        if (auto f = cuda::device_facts(i)) devices.push_back(std::move(*f));
    if (devices.empty()) {
        std::string why = d.loaded ? (d.error.empty() ? "the CUDA driver sees no device" : d.error) : d.error;
        fp.mark_unknown(std::string(names::device),
                        why +
                            " (a CPU-only torch keys no system_info[device]; with ROCm it is the gcnArchName: "
                            "run `kiln-cli env --python` to know)");
        fp.mark_unknown(std::string(names::compute_capability), why);
        return;
    }
    std::string list;
    for (std::size_t i = 0; i < devices.size(); ++i)
        list += (i ? "; " : "") + std::to_string(i) + ": " + devices[i].name;
    fact(fp, names::devices, list, "driver");
    // get_system() names the current device: cuda:0 of this process (after CUDA_VISIBLE_DEVICES).
    const cuda::DeviceFacts& dev0 = devices[0];
    fp.set({std::string(names::device), py_str(PyValue::dict({{"name", PyValue::str(dev0.name)}})), "", Scope::machine,
            true, false, false, false, "driver (device 0)"});
    fact(fp, names::compute_capability, std::to_string(dev0.cc_major * 10 + dev0.cc_minor), "driver (device 0)");
    fact(fp, names::sm_count, std::to_string(dev0.multiprocessors), "driver (device 0)");
    fact(fp, names::warp_size, std::to_string(dev0.warp_size), "driver (device 0)");
}

}  // namespace

Fingerprint local_fingerprint() {
    Fingerprint fp;
    fp.origin = "this machine (driver and environment, no Python)";
    from_driver(fp);
    std::string nvcc = cuda::find_nvcc();
    if (std::string v = cuda::nvcc_version(nvcc); !v.empty())
        fact(fp, names::cuda_toolkit, v + " (" + nvcc + ")", "nvcc");
    // What the environment decides by itself: torch reads these variables at import.
    const char* cxx = std::getenv("CXX");
    fp.set({std::string(names::cxx), py_str(PyValue::tuple({PyValue::none(), PyValue::str(cxx ? cxx : "g++")})), "",
            Scope::environment, true, false, false, false, cxx ? "environment ($CXX)" : "environment (no $CXX: g++)"});
    const char* tag = std::getenv("TORCH_COMPILE_CACHE_KEY_TAG");
    fp.set({std::string(names::cache_key_tag), tag ? tag : "", "", Scope::environment, true, false, false, false,
            tag ? "environment ($TORCH_COMPILE_CACHE_KEY_TAG)" : "environment (no $TORCH_COMPILE_CACHE_KEY_TAG)"});
    for (auto n : {names::version, names::system_hash, names::torch_version, names::pickle_protocol,
                   names::deterministic, names::matmul})
        fp.mark_unknown(std::string(n), kNeedsPython);
    fp.mark_unknown(std::string(names::torch_key), kNeedsPython);
    return fp;
}

Result<Fingerprint> this_machine_fingerprint(const std::optional<std::string>& python) {
    Fingerprint local = local_fingerprint();
    ProbeOptions o;
    if (python) o.python = *python;
    auto fp = python_fingerprint(o);
    if (!fp) {
        if (python) return std::move(fp.error());
        local.notes.push_back("values from the driver and the environment only: " + fp.error().context + ": " +
                              fp.error().message + " (pass --python PY to use another interpreter)");
        return local;
    }
    for (const auto& c : local.components)  // driver and toolkit facts the probe does not give
        if (!c.in_key && !fp->find(c.name)) fp->set(c);
    check_system_hash(*fp);
    return fp;
}

}  // namespace kiln::portability

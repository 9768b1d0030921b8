// This machine with Python: torch computes the values itself, in a child process (nothing is
// imported into Kiln). The probe builds an object with the environment-bound attributes of
// FxGraphHashDetails, in the same order and from the same expressions, and prints torch's own
// `FxGraphCachePickler.debug_lines()` of it: the component hashes are torch's, not a re-implementation.
#include <set>

#include "portability/key_env.hpp"
#include "portability/sources.hpp"
#include "util/process.hpp"

namespace kiln::portability {

namespace {

using nlohmann::json;

constexpr const char* kProbe = R"PY(
import json, os, pickle, sys
out = {"kiln_probe": 1, "python": sys.version.split()[0], "executable": sys.executable,
       "pickle_protocol": pickle.DEFAULT_PROTOCOL}
def done(code):
    sys.stdout.write(json.dumps(out, default=repr) + "\n")
    sys.stdout.flush()
    sys.exit(code)
try:
    import torch
except Exception as e:
    out["error"] = "cannot import torch: %s: %s" % (type(e).__name__, e)
    done(3)
config_only = "--config-only" in sys.argv
try:
    from torch._inductor.codecache import CacheBase, FxGraphCachePickler, torch_key
    import torch._inductor.config as iconfig
    import torch.compiler.config as cconfig
    import torch.utils.deterministic
    try:
        pickler = FxGraphCachePickler(None)
    except TypeError:
        pickler = FxGraphCachePickler()
    class Details:
        pass
    d = Details()
    if not config_only:
        d.cache_key_tag = cconfig.cache_key_tag
        try:
            if torch.accelerator.is_available():
                d.default_cuda_device_index = torch.accelerator.current_device_index()
        except Exception:
            pass
        d.deterministic_algorithms_settings = (torch.are_deterministic_algorithms_enabled(),
            torch.is_deterministic_algorithms_warn_only_enabled(), torch.utils.deterministic.fill_uninitialized_memory)
        d.cuda_matmul_settings = (torch.backends.cuda.matmul.fp32_precision,
            torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction,
            torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction)
        d.torch_version = torch_key()
        d.system_info = CacheBase.get_system()
    d.inductor_config = iconfig.save_config_portable(ignore_private_configs=False)
    out["debug_lines"] = pickler.debug_lines(d)
except Exception as e:
    out["error"] = "torch could not compute its cache key components: %s: %s" % (type(e).__name__, e)
    done(4)
if config_only:
    done(0)
out["torch"] = torch.__version__
out["torch_cuda"] = torch.version.cuda
out["torch_hip"] = getattr(torch.version, "hip", None)
out["torch_key"] = torch_key().hex()
try:
    import triton
    out["triton"] = triton.__version__
except Exception:
    out["triton"] = None
try:
    from torch.utils._triton import triton_hash_with_backend
    out["backend_hash"] = triton_hash_with_backend()
except Exception:
    pass
if torch.cuda.is_available():
    out["current_device"] = torch.cuda.current_device()
    devs = []
    for i in range(torch.cuda.device_count()):
        p = torch.cuda.get_device_properties(i)
        devs.append({"name": p.name, "major": p.major, "minor": p.minor,
                     "multi_processor_count": p.multi_processor_count, "warp_size": getattr(p, "warp_size", None),
                     "gcnArchName": getattr(p, "gcnArchName", None)})
    out["devices"] = devs
out["environment"] = {k: v for k, v in sorted(os.environ.items())
                      if any(s in k for s in ("TORCH", "INDUCTOR", "TRITON", "DYNAMO"))
                      or k in ("CXX", "CC", "CUDA_VISIBLE_DEVICES", "CUDA_HOME", "RANK", "LOCAL_RANK", "WORLD_SIZE")}
done(0)
)PY";

// Variables torch and Triton read: removed for the baseline run that tells which config they set.
bool torch_variable(const std::string& k) {
    return k.find("TORCH") != std::string::npos || k.find("INDUCTOR") != std::string::npos ||
           k.find("TRITON") != std::string::npos || k.find("DYNAMO") != std::string::npos || k == "CXX" || k == "CC";
}

Result<json> run_probe(const ProbeOptions& o, const std::vector<std::string>& remove, bool config_only) {
    ProcessOptions s;
    s.argv = {o.python, "-c", kProbe};
    if (config_only) s.argv.push_back("--config-only");
    for (const auto& k : remove) s.env[k] = std::nullopt;
    RunLimits limits;
    limits.timeout = o.timeout;
    auto started = run_process(std::move(s), limits);
    if (!started && started.error().code == Errc::not_found)
        return make_error(Errc::not_found, "cannot run " + o.python, o.python,
                          "pass --python with a Python interpreter");
    if (!started) return std::move(started.error());
    ProcessResult& r = *started;
    if (r.timed_out)
        return make_error(Errc::timeout,
                          "the torch probe did not finish in " + std::to_string(o.timeout.count() / 1000) + " s",
                          o.python, "importing torch and hashing its files can be slow on a network file system");
    // The probe's JSON is its last line: anything torch or a site hook prints on import comes before.
    std::string out = r.out;
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    json j = json::parse(out.substr(out.rfind('\n') == std::string::npos ? 0 : out.rfind('\n') + 1), nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        std::string tail = r.err.size() > 600 ? r.err.substr(r.err.size() - 600) : r.err;
        return make_error(Errc::external,
                          "the torch probe failed (exit " + std::to_string(r.exit_status) + "): " + tail, o.python);
    }
    if (j.contains("error")) {
        std::string e = j["error"].is_string() ? j["error"].get<std::string>() : j["error"].dump();
        return make_error(
            r.exit_status == 3 ? Errc::not_found : Errc::external, e, o.python,
            r.exit_status == 3 ? "pass --python with the interpreter of the environment torch is installed in" : "");
    }
    return j;
}

}  // namespace

std::string probe_script() { return kProbe; }

Result<Fingerprint> python_fingerprint(const ProbeOptions& options) {
    KILN_TRY(json probe, run_probe(options, {}, false));
    std::vector<std::string> set_vars;
    if (probe.contains("environment") && probe["environment"].is_object())
        for (const auto& [k, v] : probe["environment"].items())
            if (torch_variable(k)) set_vars.push_back(k);
    json baseline;
    if (!set_vars.empty()) {
        KILN_TRY(baseline, run_probe(options, set_vars, true));
    }
    return fingerprint_from_probe(probe, set_vars.empty() ? nullptr : &baseline, "python " + options.python);
}

}  // namespace kiln::portability

#pragma once
// The environment fingerprint: every part of an Inductor cache key that is bound to the machine, the
// install or the process environment rather than to the program (system_info[device] / [version] /
// [hash], torch_version, the pickle protocol of the key hashes, inductor_config[cpp.cxx] and other
// config set by environment variables, cache_key_tag, device indices, deterministic and matmul
// settings), named as Inductor's debug lines name them, each with its printed value and, when
// known, its component hash; plus facts that decide whether kernels and autotune results apply
// (compute capability, SM count, warp size, torch_key, backend hash, versions).
// A value type with a JSON form (`kiln-cli env --json` writes it, `--target FILE` reads it back).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/result.hpp"

namespace kiln::portability {

// Why a component is what it is: the GPU, the software install, the environment (variables,
// paths), or the program's own process state (set by code; a fresh process has defaults).
enum class Scope : std::uint8_t { machine, install, environment, process };
std::string_view scope_name(Scope s);

namespace names {
inline constexpr std::string_view device = "system_info[device]";
inline constexpr std::string_view version = "system_info[version]";
inline constexpr std::string_view system_hash = "system_info[hash]";
inline constexpr std::string_view torch_version = "torch_version";
inline constexpr std::string_view cache_key_tag = "cache_key_tag";
inline constexpr std::string_view deterministic = "deterministic_algorithms_settings";
inline constexpr std::string_view matmul = "cuda_matmul_settings";
inline constexpr std::string_view default_device_index = "default_cuda_device_index";
inline constexpr std::string_view cxx = "inductor_config[cpp.cxx]";
// Derived, not debug lines: the protocol the key's hashes were pickled with, and the CUDA device
// indices of the graph's example inputs (inside `example_inputs[i]` values).
inline constexpr std::string_view pickle_protocol = "pickle_protocol";
inline constexpr std::string_view input_device = "example_inputs[*].device";
// Facts (not key components).
inline constexpr std::string_view compute_capability = "compute_capability";  // "90"
inline constexpr std::string_view sm_count = "multi_processor_count";
inline constexpr std::string_view warp_size = "warp_size";
inline constexpr std::string_view torch_key = "torch_key";        // 64 hex
inline constexpr std::string_view backend_hash = "backend_hash";  // Inductor's triton_hash_with_backend()
inline constexpr std::string_view torch = "torch";                // "2.11.0+cu130"
inline constexpr std::string_view torch_cuda = "torch.version.cuda";
inline constexpr std::string_view triton = "triton";  // "3.6.0"
inline constexpr std::string_view python = "python";
inline constexpr std::string_view python_abi = "python_abi";  // "cpython-312": Triton's launcher modules
inline constexpr std::string_view devices = "devices";        // "0: NVIDIA H100 80GB HBM3; 1: ..."
inline constexpr std::string_view cuda_driver = "cuda_driver";
inline constexpr std::string_view cuda_toolkit = "cuda_toolkit";
inline constexpr std::string_view env_vars = "environment_variables";
}  // namespace names

struct EnvComponent {
    std::string name;   // debug-line name, a derived name, or a fact (names:: above)
    std::string value;  // as a debug line prints it; for facts plain text
    std::string hash;   // component hash (51 base32 characters); empty when not known
    Scope scope = Scope::machine;
    bool in_key = true;          // part of cache keys (compared with entries) or a fact
    bool absent = false;         // not part of keys in this environment (system_info without CUDA)
    bool lossy = false;          // the printed value loses information (torch_version's bytes)
    bool fresh_default = false;  // process state of a fresh process, not seen in a real compile
    std::string source;          // "python", "driver", "trace <log>:<line>", "entry <path>", ...
};

struct UnknownComponent {
    std::string name;
    std::string why;
};

struct Fingerprint {
    std::string origin;                     // what it was read from
    std::vector<EnvComponent> components;   // key components first, then facts
    std::vector<UnknownComponent> unknown;  // components that could not be determined, and why
    std::vector<std::string> notes;

    const EnvComponent* find(std::string_view name) const;
    const UnknownComponent* find_unknown(std::string_view name) const;
    // Adds or replaces a component (and drops it from `unknown`).
    void set(EnvComponent c);
    // Records `name` as unknown unless it is known.
    void mark_unknown(std::string name, std::string why);
    // The GPU name of system_info[device] ("NVIDIA H200"), or empty.
    std::string device_name() const;
    // A short label for summaries: the device name, else the origin.
    std::string label() const;
};

// {"kiln_fingerprint": 1, "origin", "hash" (system_info[hash] or null), "components": [...],
//  "facts": [...], "unknown": [...], "notes": [...]}
nlohmann::ordered_json to_json(const Fingerprint& fp);
Result<Fingerprint> fingerprint_from_json(const nlohmann::ordered_json& j, const std::string& origin);

// The GPU name inside a system_info[device] value "{'name': 'NVIDIA H200'}", or empty.
std::string device_name_of(std::string_view device_value);

}  // namespace kiln::portability

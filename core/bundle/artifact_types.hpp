#pragma once
// The artifact types of torch's Mega-Cache (`torch.compiler.save_cache_artifacts`), their key shapes
// and where `load_cache_artifacts` writes each one under the cache dir (torch 2.11, ../shared/docs
// inductor-cache-format.md §12 and the research notes it cites). Pure functions of type, key and
// content: the reader, unpack, pack and diff share them.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "pickle/buffer.hpp"
#include "util/result.hpp"

namespace kiln::bundle {

enum class ArtifactType : std::uint8_t {
    inductor,      // FxGraphCache entry (pickled CompiledFxGraph)
    aot_autograd,  // AOTAutogradCache entry
    autotune,      // <xx>/<hex64>.best_config (JSON)
    pgo,           // dynamo PGO profile (pickled code states)
    precompile,    // dynamo precompile entry (torch 2.10+)
    unknown,       // any other type string: torch 2.11 rejects the whole blob
};

// "inductor", "aot_autograd", ... as in the blob; nullopt for any other string.
std::optional<ArtifactType> artifact_type_from_name(std::string_view name);
std::string_view artifact_type_name(ArtifactType t);  // "unknown" for unknown

// What is known of a type string torch 2.11 does not register (newer or older torch), for messages.
std::string_view unknown_type_note(std::string_view name);

// Whether `key` has the shape torch gives keys of this type: inductor f+51 base32, aot_autograd
// a+51 base32, autotune "<2 of [a-z0-9]>/<hex64>.best_config", precompile hex64, pgo any UTF-8
// without NUL whose file name fits. The error says what is wrong; a key that fails must never be
// turned into a path (torch joins them unchecked: "../x" escapes the cache dir).
// Every file name unpack creates for the key (the PGO profile's lock file included) fits kMaxFileName,
// so a dry run that passes this check never meets ENAMETOOLONG half-way through the real unpack.
Status check_key(ArtifactType type, std::string_view key);

// NAME_MAX of Linux file systems: the longest name of one path component, in bytes.
inline constexpr std::size_t kMaxFileName = 255;
// Whether each '/'-separated component of `rel_path` fits kMaxFileName.
bool names_fit(std::string_view rel_path);

// torch's PGO file name for a key: "code_state_<key>.pkl" with each of < > : " / \ | ? * as "_".
std::string pgo_file_name(std::string_view key);

// The file `load_cache_artifacts` writes for one artifact, relative to the cache dir ('/'-separated),
// for a key that passed check_key: fxgraph/<k[1:3]>/<k>/<sha256_hash(content)>,
// aotautograd/<k>/<sha256_hash(content)>, the autotune key itself, dynamo/code_state_….pkl,
// dynamo/<k>/entry. Empty for unknown types (they write nothing).
std::string load_target(ArtifactType type, std::string_view key, std::string_view content);

// The 0-byte lock file torch's FileLock leaves beside a PGO profile (dynamo/<file>.lock).
std::string pgo_lock_target(std::string_view key);

// The Inductor keys an AOTAutograd entry names (its forward and backward graphs), read with the safe
// decoder (nothing is run): an aot_autograd artifact is useless without them.
struct Closure {
    std::optional<std::string> forward, backward;
};
Result<Closure> aot_autograd_graph_keys(std::shared_ptr<const pickle::Buffer> content);

}  // namespace kiln::bundle

#include "bundle/artifact_types.hpp"

#include <array>

#include "hash/sha256.hpp"
#include "inductor/graph_entry.hpp"
#include "util/utf8.hpp"

namespace kiln::bundle {
namespace {

constexpr std::array<std::string_view, 5> kNames = {"inductor", "aot_autograd", "autotune", "pgo", "precompile"};

bool lower_b32(char c) { return (c >= 'a' && c <= 'z') || (c >= '2' && c <= '7'); }
bool lower_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }
bool lower_alnum(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z'); }

bool all_of(std::string_view s, bool (*pred)(char)) {
    for (char c : s)
        if (!pred(c)) return false;
    return true;
}

Status refuse(std::string_view key, std::string what) {
    return make_error(Errc::invalid_argument, std::move(what), printable_name(key),
                      "torch joins keys into paths unchecked; Kiln never writes such a key");
}

// Inductor's sha256_hash shape: a letter and 51 lower-case base32 characters.
Status check_graph_key(std::string_view key, char first, const char* what) {
    if (key.size() == 52 && key[0] == first && all_of(key.substr(1), lower_b32)) return ok_status();
    return refuse(key, std::string("not an ") + what + " key ('" + first + "' and 51 characters a-z, 2-7)");
}

}  // namespace

std::optional<ArtifactType> artifact_type_from_name(std::string_view name) {
    for (std::size_t i = 0; i < kNames.size(); ++i)
        if (kNames[i] == name) return static_cast<ArtifactType>(i);
    return std::nullopt;
}

std::string_view artifact_type_name(ArtifactType t) {
    auto i = static_cast<std::size_t>(t);
    return i < kNames.size() ? kNames[i] : "unknown";
}

std::string_view unknown_type_note(std::string_view name) {
    if (name == "inductor_triton")
        return "Triton launchers of torch newer than 2.11 (kept in memory, no file); torch 2.11 rejects the blob";
    if (name.substr(0, 11) == "precompile_")
        return "a precompile artifact of torch ~2.8 (recorded into PrecompileContext); torch 2.11 rejects the blob";
    return "not a type torch 2.9-2.11 registers; torch rejects the whole blob and loads nothing";
}

Status check_key(ArtifactType type, std::string_view key) {
    switch (type) {
        case ArtifactType::inductor: return check_graph_key(key, 'f', "Inductor (FX graph)");
        case ArtifactType::aot_autograd: return check_graph_key(key, 'a', "AOTAutograd");
        case ArtifactType::autotune:
            if (key.size() == 2 + 1 + 64 + 12 && all_of(key.substr(0, 2), lower_alnum) && key[2] == '/' &&
                all_of(key.substr(3, 64), lower_hex) && key.substr(67) == ".best_config")
                return ok_status();
            return refuse(key, "not an autotune key ('<xx>/<64 hex>.best_config')");
        case ArtifactType::precompile:
            if (key.size() == 64 && all_of(key, lower_hex)) return ok_status();
            return refuse(key, "not a precompile key (64 hex characters)");
        case ArtifactType::pgo:
            if (key.find('\0') != std::string_view::npos)
                return refuse(key, "a PGO key with a NUL byte (no file can be named so)");
            // Both names unpack creates: the profile and FileLock's "<profile>.lock" beside it.
            if (!names_fit(pgo_lock_target(key)))
                return refuse(key,
                              "a PGO key too long for a file name: its lock file code_state_<key>.pkl.lock "
                              "would have " +
                                  std::to_string(pgo_file_name(key).size() + 5) + " bytes (the limit is " +
                                  std::to_string(kMaxFileName) + ")");
            return ok_status();
        case ArtifactType::unknown: break;
    }
    return make_error(Errc::unsupported, "unknown artifact type: no key is written", printable_name(key));
}

bool names_fit(std::string_view rel_path) {
    for (std::size_t start = 0;;) {
        std::size_t slash = rel_path.find('/', start);
        std::size_t end = slash == std::string_view::npos ? rel_path.size() : slash;
        if (end - start > kMaxFileName) return false;
        if (slash == std::string_view::npos) return true;
        start = slash + 1;
    }
}

std::string pgo_file_name(std::string_view key) {
    std::string name = "code_state_";
    for (char c : key) {
        bool special =
            c == '<' || c == '>' || c == ':' || c == '"' || c == '/' || c == '\\' || c == '|' || c == '?' || c == '*';
        name += special ? '_' : c;
    }
    name += ".pkl";
    return name;
}

std::string load_target(ArtifactType type, std::string_view key, std::string_view content) {
    switch (type) {
        case ArtifactType::inductor:
            return "fxgraph/" + std::string(key.substr(1, 2)) + "/" + std::string(key) + "/" +
                   hash::sha256_hash(content);
        case ArtifactType::aot_autograd: return "aotautograd/" + std::string(key) + "/" + hash::sha256_hash(content);
        case ArtifactType::autotune: return std::string(key);
        case ArtifactType::pgo: return "dynamo/" + pgo_file_name(key);
        case ArtifactType::precompile: return "dynamo/" + std::string(key) + "/entry";
        case ArtifactType::unknown: break;
    }
    return {};
}

std::string pgo_lock_target(std::string_view key) { return "dynamo/" + pgo_file_name(key) + ".lock"; }

Result<Closure> aot_autograd_graph_keys(std::shared_ptr<const pickle::Buffer> content) {
    KILN_TRY(auto entry, inductor::decode_graph_entry(std::move(content)));
    Closure c;
    c.forward = entry.forward_fx_key();
    c.backward = entry.backward_fx_key();
    return c;
}

}  // namespace kiln::bundle

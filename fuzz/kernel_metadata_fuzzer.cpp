// libFuzzer target: any byte string as a Triton key dir (`<root>/triton/<dev>/<key>/`) as `retune
// --list` and `retune` read it (core/retune): the bytes before the first NUL are the kernel metadata
// `k.json`, the bytes after it (when there is a NUL) both the `k.ptx` and the `k.source`. The metadata
// goes to binary_from_metadata as read_key_dir parses it (every field through util/json_get: a wrong
// type or an out-of-range number is an error naming the field, issue 42 #7), and read_key_dir reads the
// whole key dir, written into a private folder (the PTX's target and the source's module key are
// scanned from the heads without std::regex). What reads must hold sizes >= 0 and names found in the
// input, and both readers must agree. A crash, a sanitizer report (an uncaught nlohmann::type_error
// included), a timeout or a broken invariant is a finding.
#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "retune/kernel_metadata.hpp"
#include "retune/triton_index.hpp"

namespace fs = std::filesystem;

namespace {

fs::path made_key_dir;

void remove_key_dir() {
    std::error_code ec;
    if (!made_key_dir.empty()) fs::remove_all(made_key_dir, ec);
}

// A broken invariant: the key dir goes first (atexit handlers do not run on abort).
[[noreturn]] void finding() {
    remove_key_dir();
    std::abort();
}

// This process's key dir, made once (with an empty `k.cubin`) and removed at exit.
const fs::path& key_dir() {
    if (made_key_dir.empty()) {
        std::string tmpl = (fs::temp_directory_path() / "kiln-fuzz-key-dir-XXXXXX").string();
        if (!::mkdtemp(tmpl.data())) std::abort();
        made_key_dir = tmpl;
        std::ofstream(made_key_dir / "k.cubin");
        std::atexit(remove_key_dir);
    }
    return made_key_dir;
}

void put_file(const fs::path& p, std::string_view bytes) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) finding();
}

bool sizes_hold(const kiln::worker::TritonBinary& b) {
    if (b.arch < 0 || b.num_warps < 0 || b.num_ctas < 0 || b.shared < 0) return false;
    if (b.global_scratch_size < 0 || b.global_scratch_align < 0 || b.profile_scratch_size < 0 ||
        b.profile_scratch_align < 0)
        return false;
    for (int d : b.cluster_dims)
        if (d < 0) return false;
    return true;
}

bool same_binary(const kiln::worker::TritonBinary& a, const kiln::worker::TritonBinary& b) {
    return a.function == b.function && a.arch == b.arch && a.num_warps == b.num_warps && a.num_ctas == b.num_ctas &&
           a.shared == b.shared && a.global_scratch_size == b.global_scratch_size &&
           a.global_scratch_align == b.global_scratch_align && a.profile_scratch_size == b.profile_scratch_size &&
           a.profile_scratch_align == b.profile_scratch_align && a.cluster_dims == b.cluster_dims &&
           a.cooperative == b.cooperative && a.pdl == b.pdl && a.has_tensor_descriptors == b.has_tensor_descriptors;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const std::size_t nul = input.find('\0');
    const std::string_view meta = input.substr(0, nul);
    const bool has_heads = nul != std::string_view::npos;
    const std::string_view heads = has_heads ? input.substr(nul + 1) : std::string_view();

    // The metadata as read_key_dir parses it, then binary_from_metadata.
    const auto j = nlohmann::json::parse(meta, nullptr, false);
    const bool object = !j.is_discarded() && j.is_object();
    std::optional<kiln::worker::TritonBinary> direct;
    if (object) {
        auto b = kiln::retune::binary_from_metadata(j, "k", "fuzz.json");
        if (b.ok()) {
            if (!sizes_hold(*b)) finding();
            const auto name = j.find("name");  // absent or null: the file's stem
            if ((name == j.end() || name->is_null()) ? b->function != "k"
                                                     : !name->is_string() || b->function != name->get<std::string>())
                finding();
            direct = std::move(*b);
        } else if (b.error().message.empty() || b.error().context != "fuzz.json") {
            finding();  // an error names the file
        }
    }

    // The whole key dir, as the inventory reads it.
    const fs::path& dir = key_dir();
    put_file(dir / "k.json", meta);
    std::error_code ec;
    for (const char* ext : {"k.ptx", "k.source"}) {
        if (has_heads) put_file(dir / ext, heads);
        else fs::remove(dir / ext, ec);
    }
    // Read as the index reads a key dir: beneath a directory held open (here the key dir itself, "").
    static const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd < 0) std::abort();
    auto k = kiln::retune::read_key_dir(kiln::inductor::OpenedRoot{dir, dir_fd}, "");
    if (k.ok() != object) finding();  // only metadata that is no JSON object fails the key dir
    if (!k.ok()) return 0;
    const auto& found = k->binary;
    if (found.unreadable.empty() != direct.has_value()) finding();
    if (direct && !same_binary(found.binary, *direct)) finding();
    if (found.binary.cubin.empty() || found.binary.ptx.empty() == has_heads) finding();
    if (!found.ptx_target.empty() &&
        (found.ptx_target.rfind("sm_", 0) != 0 || heads.find(found.ptx_target) == std::string_view::npos))
        finding();
    if (!k->module_key.empty() && (k->module_key.size() != 52 || k->module_key[0] != 'c' ||
                                   heads.find("/" + k->module_key + ".py\"") == std::string_view::npos))
        finding();
    return 0;
}

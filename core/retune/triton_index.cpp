#include "retune/triton_index.hpp"

#include <fcntl.h>

#include <optional>
#include <regex>

#include "timings/text_file.hpp"
#include "util/regular_file.hpp"

namespace fs = std::filesystem;

namespace kiln::retune {

namespace {

// A key dir's file, as util/regular_file opens it (issue 42, items 2 and 6): a FIFO or device in place
// of a `.ptx` or `.source` never blocks the open, a symlink is not followed, and the read leaves the
// atime alone, so listing never changes what `evict --older-than` picks. Absent or not a regular file:
// nullopt, and the file counts as missing.
std::optional<std::string> key_dir_file_head(const fs::path& p, std::size_t bytes) {
    auto f = open_regular_file_at(AT_FDCWD, p.c_str(), p.string());
    if (!f) return std::nullopt;
    auto head = read_prefix(*f, bytes, p.string());
    if (!head) return std::nullopt;
    return std::move(head).value();
}

// Whether `p` is a regular file, not through a symlink (what the worker will open).
bool is_key_dir_file(const fs::path& p) {
    std::error_code ec;
    return fs::symlink_status(p, ec).type() == fs::file_type::regular;
}

// "sm_90a" from a PTX's ".target sm_90a" line.
std::string ptx_target(const std::string& head) {
    static const std::regex target(R"(\.target\s+(sm_\w+))");
    std::smatch m;
    return std::regex_search(head, m, target) ? m[1].str() : std::string();
}

int target_number(const std::string& t) {  // "sm_90a" -> 90
    int v = 0;
    for (std::size_t i = 3; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); ++i)
        v = v * 10 + (t[i] - '0');
    return v;
}

}  // namespace

Result<KeyDir> read_key_dir(const fs::path& dir) {
    std::error_code ec;
    fs::path meta;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        std::string name = e.path().filename().string();
        if (e.path().extension() == ".json" && name.rfind("__grp__", 0) != 0) meta = e.path();
    }
    if (meta.empty()) return make_error(Errc::not_found, "no kernel metadata JSON", dir.string());
    KILN_TRY(std::string text, timings::read_text_file(meta, 1u << 20));
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        return make_error(Errc::parse, "kernel metadata is not a JSON object", meta.string());
    KeyDir k;
    auto& b = k.binary.binary;
    b.function = j.value("name", meta.stem().string());
    if (auto t = j.find("target"); t != j.end() && t->is_object() && (*t)["arch"].is_number_integer())
        b.arch = (*t)["arch"].get<int>();
    b.num_warps = j.value("num_warps", 0);
    b.num_ctas = j.value("num_ctas", 1);
    b.shared = j.value("shared", 0);
    b.global_scratch_size = j.value("global_scratch_size", std::int64_t{0});
    b.global_scratch_align = j.value("global_scratch_align", std::int64_t{1});
    b.profile_scratch_size = j.value("profile_scratch_size", std::int64_t{0});
    b.profile_scratch_align = j.value("profile_scratch_align", std::int64_t{1});
    if (auto c = j.find("cluster_dims"); c != j.end() && c->is_array() && c->size() == 3)
        b.cluster_dims = {(*c)[0].get<int>(), (*c)[1].get<int>(), (*c)[2].get<int>()};
    b.cooperative = j.value("launch_cooperative_grid", false);
    b.pdl = j.value("launch_pdl", false);
    if (auto t = j.find("tensordesc_meta"); t != j.end() && t->is_array() && !t->empty())
        b.has_tensor_descriptors = true;
    std::string stem = meta.stem().string();
    if (is_key_dir_file(dir / (stem + ".cubin"))) b.cubin = (dir / (stem + ".cubin")).string();
    if (auto head = key_dir_file_head(dir / (stem + ".ptx"), 4096)) {
        b.ptx = (dir / (stem + ".ptx")).string();
        k.binary.ptx_target = ptx_target(*head);
    }
    k.binary.dir = dir.string();
    for (const char* ext : {".source", ".ttir"}) {
        auto read = key_dir_file_head(dir / (stem + ext), 4096);
        if (!read) continue;
        const std::string& head = *read;
        static const std::regex loc(R"(loc\("[^"]*/(c[a-z0-9]{51})\.py")");
        std::smatch m;
        if (std::regex_search(head, m, loc)) {
            k.module_key = m[1];
            break;
        }
    }
    return k;
}

TritonIndex index_triton_cache(const fs::path& root) {
    TritonIndex idx;
    std::error_code ec;
    for (const auto& dev : fs::directory_iterator(root / "triton", ec)) {
        if (!dev.is_directory(ec)) continue;
        std::error_code ec2;
        for (const auto& key : fs::directory_iterator(dev.path(), ec2)) {
            if (!key.is_directory(ec2)) continue;
            auto k = read_key_dir(key.path());
            if (!k.ok()) {
                idx.problems.push_back(k.error().str());
                continue;
            }
            if (!k->module_key.empty()) idx.by_module[k->module_key].push_back(std::move(k->binary));
        }
    }
    return idx;
}

std::optional<IndexedBinary> pick_binary(const std::vector<IndexedBinary>& found, std::optional<int> arch,
                                         std::string& why) {
    if (found.empty()) {
        why = "no compiled kernel in the Triton cache names this module";
        return std::nullopt;
    }
    for (const auto& f : found)
        if (!f.binary.cubin.empty() && (!arch || f.binary.arch == *arch)) return f;
    for (const auto& f : found) {
        if (f.binary.ptx.empty() || f.ptx_target.empty()) continue;
        bool arch_specific = f.ptx_target.back() == 'a' || f.ptx_target.back() == 'f';
        if (arch && !arch_specific && target_number(f.ptx_target) <= *arch) {
            IndexedBinary jit = f;
            jit.binary.cubin = f.binary.ptx;  // the driver JIT-compiles PTX given to cuModuleLoadData
            return jit;
        }
    }
    std::string have;
    for (const auto& f : found) have += (have.empty() ? "" : ", ") + std::string("sm_") + std::to_string(f.binary.arch);
    std::string ptx = found.front().ptx_target.empty() ? "no PTX" : "PTX for " + found.front().ptx_target;
    why = "no cubin for sm_" + std::to_string(arch.value_or(0)) + " (the cache has " + have + ") and " + ptx +
          ", which the driver cannot JIT for it";
    return std::nullopt;
}

}  // namespace kiln::retune

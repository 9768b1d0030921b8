#include "retune/triton_index.hpp"

#include <fstream>

#include "timings/text_file.hpp"
#include "util/text_scan.hpp"

namespace fs = std::filesystem;

namespace kiln::retune {

namespace {

// `\.target\s+(sm_\w+)`: "sm_90a" of the first ".target sm_90a" in `head`, or "".
std::string ptx_target_in(std::string_view head) {
    for (std::size_t at = head.find(".target"); at != std::string_view::npos; at = head.find(".target", at + 1)) {
        const std::size_t sm = scan::skip_spaces(head, at + 7);
        const std::size_t end = scan::skip_word(head, sm + 3);
        if (sm > at + 7 && scan::has_at(head, sm, "sm_") && end > sm + 3) return std::string(head.substr(sm, end - sm));
    }
    return {};
}

// `loc\("[^"]*/(c[a-z0-9]{51})\.py"`: the kernel module key of the first location in a .source or .ttir
// that names a cache module, or "".
std::string module_key_in(std::string_view head) {
    auto key_char = [](char c) { return (c >= 'a' && c <= 'z') || scan::is_digit(c); };
    for (std::size_t at = head.find("loc(\""); at != std::string_view::npos; at = head.find("loc(\"", at + 1)) {
        const std::size_t path = at + 5, quote = head.find('"', path);  // [^"]* ends at the first quote
        if (quote == std::string_view::npos) return {};                 // nor does any later one close
        if (quote < path + 56 || !scan::has_at(head, quote - 56, "/c") || !scan::has_at(head, quote - 3, ".py"))
            continue;
        const std::size_t key = quote - 55;
        if (scan::skip_while(head, key + 1, key_char) == quote - 3) return std::string(head.substr(key, 52));
    }
    return {};
}

std::string head_of(const fs::path& p, std::size_t bytes) {
    std::ifstream in(p, std::ios::binary);
    std::string s(bytes, '\0');
    in.read(s.data(), static_cast<std::streamsize>(bytes));
    s.resize(static_cast<std::size_t>(in.gcount()));
    return s;
}

// "sm_90a" from a PTX's ".target sm_90a" line.
std::string ptx_target(const fs::path& ptx) {
    std::string head = head_of(ptx, 4096);
    return ptx_target_in(head);
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
    if (fs::exists(dir / (stem + ".cubin"), ec)) b.cubin = (dir / (stem + ".cubin")).string();
    if (fs::exists(dir / (stem + ".ptx"), ec)) {
        b.ptx = (dir / (stem + ".ptx")).string();
        k.binary.ptx_target = ptx_target(b.ptx);
    }
    k.binary.dir = dir.string();
    for (const char* ext : {".source", ".ttir"}) {
        fs::path src = dir / (stem + ext);
        if (!fs::exists(src, ec)) continue;
        std::string head = head_of(src, 4096);
        if (std::string key = module_key_in(head); !key.empty()) {
            k.module_key = key;
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

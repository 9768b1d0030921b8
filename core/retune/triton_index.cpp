#include "retune/triton_index.hpp"

#include <algorithm>
#include <optional>
#include <string_view>

#include "inductor/beneath_root.hpp"
#include "retune/kernel_metadata.hpp"
#include "util/regular_file.hpp"
#include "util/text_scan.hpp"

namespace kiln::retune {

namespace {

// `name` in the key dir `dir` ("" the root itself) beneath the root.
std::string key_dir_rel(std::string_view dir, const std::string& name) {
    return dir.empty() ? name : std::string(dir) + "/" + name;
}

// A key dir's file, read beneath the opened root (inductor/beneath_root, util/regular_file's rules;
// issue 42, items 2 and 6): a FIFO or device in place of a `.ptx` or `.source` never blocks the open,
// no symlink is followed, and the read leaves the atime alone, so listing never changes what `evict
// --older-than` picks. Absent or not a regular file: nullopt, and the file counts as missing.
std::optional<std::string> key_dir_file_head(const inductor::OpenedRoot& root, const std::string& rel,
                                             std::size_t bytes) {
    auto f = inductor::open_beneath(root, rel);
    if (!f) return std::nullopt;
    auto head = read_prefix(*f, bytes, inductor::path_beneath(root, rel));
    if (!head) return std::nullopt;
    return std::move(head).value();
}

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

// "sm_90a" from a PTX's ".target sm_90a" line.
std::string ptx_target(const std::string& head) { return ptx_target_in(head); }

int target_number(const std::string& t) {  // "sm_90a" -> 90
    int v = 0;
    for (std::size_t i = 3; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); ++i)
        v = v * 10 + (t[i] - '0');
    return v;
}

}  // namespace

Result<KeyDir> read_key_dir(const inductor::OpenedRoot& root, std::string_view dir) {
    KILN_TRY(auto names, inductor::list_beneath(root, dir));
    std::string meta_name;
    for (const auto& e : names)
        if (e.name.size() > 5 && e.name.ends_with(".json") && !e.name.starts_with("__grp__")) meta_name = e.name;
    const std::string shown = inductor::path_beneath(root, dir);
    if (meta_name.empty()) return make_error(Errc::not_found, "no kernel metadata JSON", shown);
    const std::string meta_rel = key_dir_rel(dir, meta_name), meta = inductor::path_beneath(root, meta_rel);
    KILN_TRY(std::string text, inductor::read_beneath(root, meta_rel, 1u << 20));
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        return make_error(Errc::parse, "kernel metadata is not a JSON object", meta);
    KeyDir k;
    auto& b = k.binary.binary;
    const std::string stem = meta_name.substr(0, meta_name.size() - 5);
    // A field of the wrong type costs this kernel's choices only, which say why (issue 42 #7).
    if (auto read = binary_from_metadata(j, stem, meta); read.ok()) b = std::move(*read);
    else k.binary.unreadable = read.error().str();
    // Whether it is a regular file, not through a symlink (what the worker will open beneath the root).
    if (const std::string cubin = key_dir_rel(dir, stem + ".cubin"); inductor::is_regular_beneath(root, cubin))
        b.cubin = cubin;
    if (const std::string ptx = key_dir_rel(dir, stem + ".ptx"); auto head = key_dir_file_head(root, ptx, 4096)) {
        b.ptx = ptx;
        k.binary.ptx_target = ptx_target(*head);
    }
    k.binary.dir = shown;
    for (const char* ext : {".source", ".ttir"}) {
        auto read = key_dir_file_head(root, key_dir_rel(dir, stem + ext), 4096);
        if (!read) continue;
        if (std::string key = module_key_in(*read); !key.empty()) {
            k.module_key = key;
            break;
        }
    }
    return k;
}

TritonIndex index_triton_cache(const inductor::OpenedRoot& root) {
    TritonIndex idx;
    auto devices = inductor::list_beneath(root, "triton");
    if (!devices) return idx;  // no Triton cache
    for (const auto& dev : *devices) {
        if (!dev.directory) continue;
        const std::string dev_rel = "triton/" + dev.name;
        auto keys = inductor::list_beneath(root, dev_rel);
        if (!keys) continue;
        for (const auto& key : *keys) {
            if (!key.directory) continue;
            auto k = read_key_dir(root, dev_rel + "/" + key.name);
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
    // A kernel whose metadata could not be read is never run; when it is the only one, it says why.
    if (std::all_of(found.begin(), found.end(), [](const IndexedBinary& f) { return !f.unreadable.empty(); })) {
        why = "its kernel metadata cannot be read: " + found.front().unreadable;
        return std::nullopt;
    }
    for (const auto& f : found)
        if (f.unreadable.empty() && !f.binary.cubin.empty() && (!arch || f.binary.arch == *arch)) return f;
    for (const auto& f : found) {
        if (!f.unreadable.empty() || f.binary.ptx.empty() || f.ptx_target.empty()) continue;
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

#include "timings/timing_cache_source.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <map>

#include "inductor/beneath_root.hpp"
#include "inductor/timing_cache_file.hpp"
#include "util/json_get.hpp"
#include "util/python_json.hpp"
#include "util/rel_path.hpp"

#include "timings/kernel_files.hpp"
#include "timings/py_literal.hpp"

namespace fs = std::filesystem;

namespace kiln::timings {

bool looks_like_timing_cache_path(const fs::path& path) {
    std::string name = path.filename().string();
    return path.parent_path().filename() == "cache" && name.size() == 64 &&
           std::all_of(name.begin(), name.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

std::string describe_inputs(const std::vector<TensorKey>& keys, std::vector<std::string>* sizes,
                            std::vector<std::string>* strides) {
    std::string s;
    for (const auto& k : keys) {
        std::string dims, st;
        for (const auto& d : k.sizes) dims += (dims.empty() ? "" : "x") + d;
        for (const auto& d : k.strides) st += (st.empty() ? "" : "x") + d;
        if (sizes) sizes->push_back(dims);
        if (strides) strides->push_back(st);
        if (!s.empty()) s += ", ";
        s += dims + " " + k.dtype;
        // Torch keys an autotuning by layout too: a transposed operand is another op, and says so.
        if (!st.empty() && !row_major(dims, st)) s += " strides " + st;
    }
    return s;
}

// A choice "<name>-c<51 key>" names the kernel module it was generated into. Each module is looked
// up and read once per file (`memo`, by key): a timing cache names the same few modules in every one of
// its ops (150,000 in issue 42 #15).
struct ModuleJoin {
    Shared<std::string> path;
    Params params;  // null: none read
};
// A key's module and its parameters ("" path: none): looked up by path, or beneath an opened root.
using FindModule = std::function<ModuleJoin(const std::string& key)>;

static FindModule modules_by_path(const fs::path& root) {
    if (root.empty()) return {};
    return [root](const std::string& key) {
        ModuleJoin m;
        m.path = kernel_module_for_key(root, key);
        if (!m.path->empty())
            if (auto info = read_kernel_module_info(*m.path); info.ok()) m.params = std::move(info->params);
        return m;
    };
}

// `prefix`: the Inductor root (relative to `root`, "" for itself) whose cache/ holds the file.
static FindModule modules_beneath(const inductor::OpenedRoot& root, const std::string& prefix) {
    return [root, prefix](const std::string& key) {
        ModuleJoin m;
        std::string rel = kernel_module_rel_for_key(root, key, prefix);
        if (rel.empty()) return m;
        m.path = inductor::path_beneath(root, rel);
        if (auto info = read_kernel_module_info(root, rel); info.ok()) m.params = std::move(info->params);
        return m;
    };
}

static void join_module(Choice& c, const FindModule& find, std::map<std::string, ModuleJoin>& memo) {
    auto dash = c.name.rfind('-');
    if (!find || dash == std::string::npos) return;
    const std::string key = c.name.substr(dash + 1);
    auto it = memo.find(key);
    if (it == memo.end()) it = memo.emplace(key, find(key)).first;
    c.module_path = it->second.path;
    if (!it->second.params->is_null()) c.params = it->second.params;
}

static Result<TimingCacheFile> from_json(const nlohmann::ordered_json& j, const std::string& origin,
                                         const FindModule& root) {
    if (!j.is_object()) return make_error(Errc::parse, "not a JSON object", origin);
    TimingCacheFile out;
    if (auto sys = j.find("system"); sys != j.end() && sys->is_object()) {
        // A system block of wrong types costs this file (a warning beside the other sources), not the run.
        const json_get::JsonAt at{origin, "system"};
        KILN_TRY(out.system_hash, json_get::string_field_or(*sys, "hash", at, ""));
        KILN_TRY(auto device, json_get::field(*sys, "device", at));
        if (device && device->is_object()) {
            KILN_TRY(out.device, json_get::string_field_or(*device, "name", at.key("device"), ""));
        }
    }
    auto cache = j.find("cache");
    if (cache == j.end() || !cache->is_object())
        return make_error(Errc::parse, "no \"cache\" object", origin, "expected {\"system\": ..., \"cache\": ...}");
    std::map<std::string, ModuleJoin> modules;
    for (auto op_it = cache->begin(); op_it != cache->end(); ++op_it) {
        if (!op_it->is_object()) continue;  // e.g. "base mm time: ..." floats beside the ops
        for (auto in_it = op_it->begin(); in_it != op_it->end(); ++in_it) {
            if (!in_it->is_object()) continue;
            std::vector<std::string> sizes, strides;
            std::string inputs = in_it.key();
            if (auto keys = parse_inputs_key(in_it.key()); keys.ok()) inputs = describe_inputs(*keys, &sizes, &strides);
            for (auto pr_it = in_it->begin(); pr_it != in_it->end(); ++pr_it) {
                if (!pr_it->is_object()) continue;
                Op op;
                op.op = op_it.key();
                op.inputs = inputs;
                op.sizes = sizes;
                op.strides = strides;
                op.precision = pr_it.key();
                op.device = out.device;
                op.source = origin;
                for (auto c_it = pr_it->begin(); c_it != pr_it->end(); ++c_it) {
                    Choice c;
                    c.name = c_it.key();
                    // Inductor stores inf for choices that failed to benchmark; JSON has no inf.
                    set_choice_time(c, *c_it);
                    join_module(c, root, modules);
                    op.choices.push_back(std::move(c));
                }
                pick_best(op);
                out.ops.push_back(std::move(op));
            }
        }
    }
    return out;
}

static Error torn(Error e) {
    if (!e.hint.empty()) return e;  // the reader knew better (a nesting bound, a FIFO)
    return std::move(e).with_hint("Inductor rewrites this file without a lock; a torn write shows up like this");
}

Result<TimingCacheFile> parse_timing_cache(const std::string& text, const std::string& origin, const fs::path& root) {
    // Inductor writes Python's Infinity for choices that failed; the autotune module reads that dialect.
    auto j = py_loads(text, origin);
    if (!j.ok()) return torn(std::move(j.error()));
    return from_json(*j, origin, modules_by_path(root));
}

Result<TimingCacheFile> read_timing_cache(const inductor::OpenedRoot& root, std::string_view rel,
                                          KernelModuleMemo* memo) {
    // As read_cache_file reads a path: a file gone meanwhile is an empty cache.
    const std::string origin = inductor::path_beneath(root, rel);
    auto text = inductor::read_beneath(root, rel, inductor::kMaxCacheFileBytes);
    auto j = text.ok()                              ? inductor::parse_cache_file(*text, origin)
             : text.error().code == Errc::not_found ? Result<nlohmann::ordered_json>(nlohmann::ordered_json::object())
                                                    : Result<nlohmann::ordered_json>(std::move(text.error()));
    if (!j.ok()) return torn(std::move(j.error()));
    // As by path: the kernel modules of the root above cache/, none for a file elsewhere.
    const std::string_view dir = rel_dir(rel);
    const bool in_cache = dir == "cache" || (dir.size() > 6 && dir.substr(dir.size() - 6) == "/cache");
    // The opened directory is cache/ itself: its modules are in the root above it, outside what was
    // opened, looked up by that root's path as before.
    if (const fs::path cache = fs::path(origin).parent_path(); dir.empty() && cache.filename() == "cache")
        return from_json(*j, origin, modules_by_path(cache.parent_path()));
    if (!in_cache) return from_json(*j, origin, {});
    const std::string prefix(rel_dir(dir));
    FindModule find = modules_beneath(root, prefix);
    if (memo)
        find = [find = std::move(find), memo, prefix](const std::string& key) {
            auto [it, fresh] = memo->by_key.try_emplace(prefix + '\0' + key);
            if (fresh) {
                ModuleJoin m = find(key);
                it->second = {std::move(m.path), std::move(m.params)};
            }
            return ModuleJoin{it->second.path, it->second.params};  // shared, not copied
        };
    return from_json(*j, origin, find);
}

Result<TimingCacheFile> read_timing_cache(const fs::path& path, const fs::path& root) {
    // The autotune engine's reader of the same file (it also writes it).
    auto j = inductor::read_cache_file(path);
    if (!j.ok()) return torn(std::move(j.error()));
    return from_json(*j, path.string(), modules_by_path(root));
}

}  // namespace kiln::timings

#include "handback/timing_cache_write.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "inductor/beneath_root.hpp"
#include "inductor/evict_fs.hpp"
#include "inductor/timing_cache_file.hpp"
#include "util/file_lock.hpp"
#include "util/merged_write.hpp"
#include "util/python_json.hpp"
#include "util/unique_fd.hpp"

namespace fs = std::filesystem;

namespace kiln::handback {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::uint64_t kMaxTimingCacheBytes = 512u << 20;

Error unreadable(const std::string& path, const std::string& what) {
    return make_error(Errc::parse, "torch could not read this timing cache: " + what, path,
                      "nothing was written; move the file aside (torch itself fails on it) and write again");
}

// The node at cache/op/inputs/precision that is there but not an object ("" when the path is free).
std::string blocked(const Json& file, const MeasuredOp& op) {
    const Json* node = &file;
    std::string where;
    const std::string cache = "cache";
    for (const std::string* step : {&cache, &op.op, &op.inputs, &op.precision}) {
        where += (where.empty() ? "" : " / ") + (step->size() > 60 ? step->substr(0, 57) + "..." : *step);
        if (!node->contains(*step)) return "";
        node = &(*node)[*step];
        if (!node->is_object()) return where + " is " + std::string(node->type_name()) + ", not an object";
    }
    return "";
}

// The folder `rel` ("cache", "locks") beneath the opened root, made when missing (as torch makes it),
// never reached through a symlink.
Result<UniqueFd> folder_beneath(const inductor::OpenedRoot& root, const std::string& rel) {
    const std::string path = inductor::path_beneath(root, rel);
    auto dir = inductor::evict_fs::open_dir_beneath(root.fd, rel, path, true);
    if (!dir && dir.error().code == Errc::invalid_argument)
        return make_error(Errc::invalid_argument,
                          "the folder is a symbolic link or not a directory; Kiln writes through neither", path,
                          "replace it with a folder (torch and Kiln create it again)");
    return dir;
}

struct Pending {
    fs::path path;
    std::optional<MergedWrite> target;
    Json file;  // target->text() parsed (or a new file)
    Json seen;  // the last version merged, for a merge that meets a newer one (null until then)
    WrittenFile report;
    std::vector<const MeasuredOp*> ops;
};

// The file's bytes with `p`'s ops merged into `current`: p.file when `current` is the version read
// first, else a newer one another writer (torch) put there meanwhile, checked again and given every
// timing of the versions met before that it lacks (a torch process that read an older version).
Result<std::string> merged_into(Pending& p, const std::optional<std::string>& current) {
    Json file;
    const bool first = &current == &p.target->text();
    if (first) {
        file = std::move(p.file);  // parsed and checked already; asked for once
    } else if (!current) {
        file = Json{{"system", p.ops.front()->system()}, {"cache", Json::object()}};
    } else {
        KILN_CHECK(check_torch_readable(*current, p.path.string()));
        file = *py_loads(*current, p.path.string());
        for (const MeasuredOp* op : p.ops)
            if (std::string b = blocked(file, *op); !b.empty()) return unreadable(p.path.string(), b);
    }
    if (!first) {
        if (p.seen.is_null() && p.target->text()) p.seen = *py_loads(*p.target->text(), p.path.string());
        inductor::add_missing_timings(file, p.seen);
        p.seen = file;
    }
    p.report.created = !current;
    p.report.added = p.report.replaced = 0;
    for (const MeasuredOp* op : p.ops) {
        Json& slot = file["cache"][op->op][op->inputs][op->precision];
        bool had = slot.is_object() && !slot.empty();
        if (!slot.is_object()) slot = Json::object();
        for (const auto& c : op->choices) slot[c.name] = c.ms;
        (had ? p.report.replaced : p.report.added)++;
    }
    return py_dumps(file, {.sort_keys = false, .indent = 4});
}

}  // namespace

Status check_torch_readable(const std::string& text, const std::string& path) {
    if (text.empty()) return unreadable(path, "the file is empty (json.load fails on it)");
    auto j = py_loads(text, path);
    if (!j) return unreadable(path, j.error().message);
    if (!j->is_object()) return unreadable(path, "not a JSON object");
    if (!j->contains("cache")) return unreadable(path, "no \"cache\" key (torch reads local_cache[\"cache\"])");
    if (!(*j)["cache"].is_object()) return unreadable(path, "\"cache\" is not an object");
    return ok_status();
}

Result<WriteReport> write_timing_cache(const inductor::OpenedRoot& root, const std::vector<MeasuredOp>& ops) {
    if (root.fd < 0)
        return make_error(Errc::not_found, "no such cache root (a directory)", root.path.string(),
                          "give the TORCHINDUCTOR_CACHE_DIR that torch compiles with");
    // torch reads these as the choices' times: -1000 or NaN would make a choice win or break its
    // min(), and Infinity would mark a measured choice failed (issue 42 #8); Infinity is written only
    // for a choice that fails as torch fails it (MeasuredChoice::infinite_why). Callers check; this
    // is the last line.
    for (const auto& op : ops)
        for (const auto& c : op.choices)
            if (!(c.infinite() && std::isinf(c.ms) && c.ms > 0) && (!std::isfinite(c.ms) || c.ms < 0))
                return make_error(
                    Errc::invalid_argument,
                    "refusing to write " + py_float_repr(c.ms) + " ms for " + c.name + " of " + op.label(),
                    root.path.string(), "a measured time is finite and not negative; nothing was written");
    // One file per system, in hash order (so that two writers take the locks in the same order).
    std::map<std::string, Pending> files;
    for (const auto& op : ops) {
        std::string hash = op.system_hash();
        auto& p = files[hash];
        if (p.ops.empty()) {
            p.path = inductor::path_beneath(root, "cache/" + hash);
            p.report = {p.path.string(), op.device_name, hash, op.versions.from, 0, 0, false};
        }
        p.ops.push_back(&op);
    }
    std::vector<FileLock> locks;
    for (auto& [hash, p] : files) {
        const std::string lock_name = "autotune-" + hash + ".lock";
        KILN_TRY(UniqueFd lock_dir, folder_beneath(root, "locks"));
        KILN_TRY(auto lock, FileLock::acquire_at(lock_dir.get(), lock_name.c_str(),
                                                 inductor::path_beneath(root, "locks/" + lock_name)));
        locks.push_back(std::move(lock));
        KILN_TRY(UniqueFd cache_dir, folder_beneath(root, "cache"));
        KILN_TRY(p.target, MergedWrite::open_at(std::move(cache_dir), hash, p.path, kMaxTimingCacheBytes));
        const auto& text = p.target->text();
        if (!text) {
            p.file = Json{{"system", p.ops.front()->system()}, {"cache", Json::object()}};
        } else {
            KILN_CHECK(check_torch_readable(*text, p.path.string()));
            p.file = *py_loads(*text, p.path.string());
        }
        for (const MeasuredOp* op : p.ops)
            if (std::string b = blocked(p.file, *op); !b.empty()) return unreadable(p.path.string(), b);
    }
    // Every file reads and takes its ops: now merge and replace each. torch writes the file without
    // a lock (read, add, rename): a version it renames in meanwhile is merged too (util/merged_write).
    WriteReport report;
    for (auto& entry : files) {
        Pending& p = entry.second;  // a plain reference: clang 14 cannot capture a structured binding
        KILN_TRY(int again, p.target->replace(
                                [&p](const std::optional<std::string>& current) { return merged_into(p, current); }));
        p.report.merged_again = again;
        report.files.push_back(p.report);
    }
    return report;
}

}  // namespace kiln::handback

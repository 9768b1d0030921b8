// File-level checks: binaries against their ELF headers, Triton kernel dirs against their group
// files, temporaries and locks left behind.
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>

#include <nlohmann/json.hpp>

#include "codecache/artifact_check.hpp"
#include "health/check_context.hpp"
#include "inductor/evict_fs.hpp"
#include "util/file_lock.hpp"
#include "util/regular_file.hpp"

namespace kiln::health::detail {

using inductor::Artifact;
using inductor::Category;

std::uint64_t HashSet::hash(std::string_view s) { return std::hash<std::string_view>{}(s); }

void HashSet::seal() {
    std::sort(hashes_.begin(), hashes_.end());
    hashes_.erase(std::unique(hashes_.begin(), hashes_.end()), hashes_.end());
    hashes_.shrink_to_fit();
}

bool HashSet::contains(std::string_view s) const { return std::binary_search(hashes_.begin(), hashes_.end(), hash(s)); }

Found found(ProblemKind kind, const Artifact& a, std::string detail) {
    return Found{kind, std::string(a.rel_path()), std::move(detail), a.group};
}

namespace {
template <class List>
std::optional<OpenedFile> open_beneath(int root_fd, const Artifact& a, List& problems) {
    int err = 0;
    std::string rel(a.rel_path());
    auto f = open_regular_file_beneath(root_fd, rel, rel, &err);
    if (f) return std::move(*f);
    if (err == EACCES || err == EPERM)
        problems.push_back(found(ProblemKind::unreadable, a, std::string("cannot open: ") + std::strerror(err)));
    return std::nullopt;
}
}  // namespace

std::optional<OpenedFile> ReadBeneath::open(const Artifact& a, std::vector<Found>& problems) const {
    return open_beneath(root_fd, a, problems);
}
std::optional<OpenedFile> ReadBeneath::open(const Artifact& a, FoundList& problems) const {
    return open_beneath(root_fd, a, problems);
}

Found missing(const Ref& ref, const Found& owner) {
    Found f{ref.kind, owner.path, {}, owner.group};
    switch (ref.kind) {
        case ProblemKind::aot_fx_key_missing:
            f.detail = ref.what + " graph " + ref.target + " is not in fxgraph/";
            break;
        case ProblemKind::triton_kernel_missing:
            f.detail = "Triton kernel " + (ref.what.empty() ? std::string("?") : ref.what) + ": " + ref.target +
                       "/ is missing (bundled in this entry)";
            break;
        default: f.detail = "Triton kernel " + ref.what + ": " + ref.target + " is missing"; break;
    }
    return f;
}

namespace {

std::string_view extension(std::string_view path) {
    auto slash = path.rfind('/');
    auto dot = path.rfind('.');
    if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) return {};
    return path.substr(dot + 1);
}

}  // namespace

bool is_binary_name(std::string_view rel) {
    auto ext = extension(rel);
    return ext == "so" || ext == "o" || ext == "cubin";
}

void check_binary(const Artifact& a, const ReadBeneath& files, FoundList& out) {
    std::string ext(extension(a.rel_path()));
    if (ext != "so" && ext != "o" && ext != "cubin") return;
    auto file = files.open(a, out);
    if (!file) return;  // unreadable (reported), or gone since the scan: nothing left to be wrong
    if (file->size == 0) {
        out.push_back(found(ProblemKind::empty_binary, a, "0 bytes"));
        return;
    }
    // Reads the ELF header only (64 bytes), whatever the file's size.
    std::string why = codecache::artifact_problem(*file, ext);
    if (why.empty()) return;
    out.push_back(found(why == "empty" ? ProblemKind::empty_binary : ProblemKind::truncated_binary, a, why));
}

namespace {

// {"child_paths": {"<name>": "<path>", ...}} exactly as json.dumps writes it, in ASCII without escapes
// (what nlohmann would read the same way); nullopt for anything else.
std::optional<std::vector<std::string>> dumped_children(std::string_view text) {
    constexpr std::string_view head = "{\"child_paths\": {";
    if (text.ends_with('\n')) text.remove_suffix(1);
    if (!text.starts_with(head)) return std::nullopt;
    for (const unsigned char c : text)
        if (c == '\\' || c < 0x20 || c >= 0x80) return std::nullopt;
    std::vector<std::string> names;
    std::size_t i = head.size();
    if (text.substr(i, 2) != "}}") {
        for (;;) {
            if (i >= text.size() || text[i] != '"') return std::nullopt;
            const std::size_t name_end = text.find('"', i + 1);
            if (name_end == std::string_view::npos || text.substr(name_end, 4) != "\": \"") return std::nullopt;
            const std::size_t value_end = text.find('"', name_end + 4);
            if (value_end == std::string_view::npos) return std::nullopt;
            names.emplace_back(text.substr(i + 1, name_end - i - 1));
            i = value_end + 1;
            if (text.substr(i, 2) == ", ") {
                i += 2;
                continue;
            }
            if (text.substr(i, 2) == "}}") break;
            return std::nullopt;
        }
    }
    if (i + 2 != text.size()) return std::nullopt;
    std::sort(names.begin(), names.end());  // as nlohmann's object holds its keys: sorted, each once
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
}

}  // namespace

std::optional<std::vector<std::string>> group_file_children(std::string_view text) {
    if (auto quick = dumped_children(text)) return quick;
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("child_paths") || !j["child_paths"].is_object())
        return std::nullopt;
    std::vector<std::string> names;
    for (const auto& [child, where] : j["child_paths"].items()) names.push_back(child);
    return names;
}

void check_triton_dir(const std::vector<Artifact>& groups, const std::vector<std::string_view>& names,
                      const ReadBeneath& files, FoundList& out) {
    for (const Artifact& a : groups) {
        auto file = files.open(a, out);
        if (!file) continue;  // unreadable (reported) or gone since the scan
        auto text = read_opened_file(*file, std::string(a.rel_path()), 1 << 20);
        if (!text) continue;
        const auto children = group_file_children(*text);
        if (!children) {
            out.push_back(found(ProblemKind::triton_file_missing, a, "the group file is not Triton's JSON"));
            continue;
        }
        // child_paths name files by absolute paths of the machine that wrote them: the name is what counts.
        for (const std::string& child : *children) {
            if (child.find('/') != std::string::npos) continue;
            if (std::find(names.begin(), names.end(), child) == names.end())
                out.push_back(found(ProblemKind::triton_file_missing, a, child + " is missing"));
        }
    }
}

void check_temp(const Artifact& a, std::int64_t now_ns, std::int64_t age_ns, FoundList& out) {
    std::int64_t age = now_ns - a.mtime_ns;
    if (age > age_ns)
        out.push_back(found(ProblemKind::stale_temp, a, "written " + std::to_string(age / 3600000000000LL) + " h ago"));
}

namespace {

// Whether a process holds the lock file now (the same flock torch's FileLock and util/file_lock take),
// or it is younger than `age_ns`: a writer may be about to use it (ccache and git leave such files alone
// as well). Then it is no orphan, whatever its key.
bool in_use(const Artifact& a, const LockAge& age) {
    if (age.now_ns - a.mtime_ns <= age.age_ns) return true;
    std::string_view rel = a.rel_path();
    auto slash = rel.rfind('/');
    auto dir = inductor::evict_fs::open_dir_beneath(age.root_fd, rel.substr(0, slash), rel);
    if (!dir) return true;  // cannot tell: not an orphan
    std::string name(rel.substr(slash + 1));
    auto lock = FileLock::try_lock_existing(dir->get(), name.c_str());
    return !lock || !lock->held();  // held by another, or gone meanwhile
}

}  // namespace

void check_lock(const Artifact& a, const HashSet& keys, const HashSet& paths, const LockAge& age, FoundList& out) {
    std::string_view rel = a.rel_path();
    std::optional<std::string> why;
    if (rel.substr(0, 6) == "locks/") {
        std::string_view key = a.key();
        // Kiln's timing cache lock (tuning/timing_cache) guards cache/<hash>.
        if (key.substr(0, 9) == "autotune-") {
            std::string guarded = "cache/" + std::string(key.substr(9));
            if (!paths.contains(guarded)) why = guarded + " is gone";
        } else if (!key.empty() && !keys.contains(key)) {
            why = "no file of key " + std::string(key) + " is left";
        }
    } else if (rel.substr(0, 7) == "dynamo/" && rel.size() > 9 && rel.substr(rel.size() - 9) == ".pkl.lock") {
        // dynamo/code_state_<...>.pkl.lock guards the PGO profile beside it.
        std::string profile(rel.substr(0, rel.size() - 5));
        if (!paths.contains(profile)) why = profile + " is gone";
    }
    if (why && !in_use(a, age)) out.push_back(found(ProblemKind::orphan_lock, a, *why + "; nobody holds the lock"));
}

}  // namespace kiln::health::detail

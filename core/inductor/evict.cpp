#include "inductor/evict.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>

#include "inductor/evict_fs.hpp"
#include "inductor/roots.hpp"

namespace kiln::inductor {

namespace {

std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

bool eligible(const Group& g, const EvictPolicy& p) {
    if (p.categories.empty()) return g.category != Category::lock;  // locks coordinate processes; keep them
    return std::find(p.categories.begin(), p.categories.end(), g.category) != p.categories.end();
}

// Candidates, least recently used first (ties: path, so runs are reproducible).
std::vector<const Group*> lru_candidates(const ScanResult& scan, const EvictPolicy& p) {
    std::vector<const Group*> out;
    for (const Group& g : scan.groups)
        if (eligible(g, p)) out.push_back(&g);
    std::sort(out.begin(), out.end(), [](const Group* a, const Group* b) {
        return a->last_use_ns != b->last_use_ns ? a->last_use_ns < b->last_use_ns : a->path < b->path;
    });
    return out;
}

// Whether `g` goes, given how big the cache still is.
bool selected(const Group& g, const EvictPolicy& p, std::int64_t now, std::uint64_t remaining) {
    if (p.older_than_ns && g.last_use_ns < now - *p.older_than_ns) return true;
    return p.max_bytes && remaining > *p.max_bytes;
}

// The group's path relative to the root, checked to stay beneath it.
Result<std::string_view> relative_to_root(const ScanResult& scan, const std::string& path) {
    std::string_view p = path;
    if (p.size() <= scan.root.size() + 1 || p.substr(0, scan.root.size()) != scan.root || p[scan.root.size()] != '/')
        return make_error(Errc::invalid_argument, "outside the cache root; refused", path);
    return p.substr(scan.root.size() + 1);
}

std::pair<std::string_view, std::string> split_parent(std::string_view rel) {
    auto slash = rel.rfind('/');
    if (slash == std::string_view::npos) return {{}, std::string(rel)};
    return {rel.substr(0, slash), std::string(rel.substr(slash + 1))};
}

}  // namespace

Result<std::uint64_t> remove_group(const ScanResult& scan, const Group& group) {
    KILN_TRY(std::string_view rel, relative_to_root(scan, group.path));
    int root = ::open(scan.root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root < 0) return io_error("cannot open the cache root", scan.root, errno);
    UniqueFd root_fd(root);
    // Held until the group is gone, so Inductor cannot start using it half-way.
    KILN_TRY(auto lock,
             evict_fs::try_lock_key(root_fd.get(), scan.kind == RootKind::inductor ? group.key : "", group.path));
    (void)lock;
    if (group.kind == GroupKind::key_dir || group.kind == GroupKind::triton_kernel_dir) {
        auto [parent, name] = split_parent(rel);
        KILN_TRY(UniqueFd dir, evict_fs::open_dir_beneath(root_fd.get(), parent, group.path));
        return evict_fs::remove_tree_at(dir.get(), name.c_str(), group.path);
    }
    std::uint64_t freed = 0;
    for (auto index : group.artifacts) {
        const Artifact& a = scan.artifacts[index];
        KILN_TRY(std::string_view file_rel, relative_to_root(scan, a.path));
        auto [parent, name] = split_parent(file_rel);
        KILN_TRY(UniqueFd dir, evict_fs::open_dir_beneath(root_fd.get(), parent, a.path));
        KILN_TRY(std::uint64_t n, evict_fs::remove_file_at(dir.get(), name.c_str(), a.path));
        freed += n;
    }
    return freed;
}

Result<EvictReport> evict_cache(const std::string& root_arg, const EvictPolicy& policy) {
    if (!policy.older_than_ns && !policy.max_bytes)
        return make_error(Errc::invalid_argument, "nothing to evict by", root_arg,
                          "give --older-than AGE or --max-size SIZE");
    KILN_TRY(auto root, resolve_root(root_arg));
    auto kind = detect_root_kind(root);
    if (!kind && !policy.force)
        return make_error(Errc::invalid_argument, "does not look like an Inductor or Triton cache; refusing to delete",
                          root.string(), "check the path; --force evicts anyway");
    ScanOptions options;
    options.kind = kind.value_or(RootKind::inductor);
    KILN_TRY(ScanResult scan, scan_cache(root, options));

    EvictReport report;
    report.root = scan.root;
    report.dry_run = policy.dry_run;
    report.bytes_before = scan.total_bytes();
    std::int64_t now = policy.now_ns ? policy.now_ns : now_ns();
    std::uint64_t remaining = report.bytes_before;
    int root_fd = ::open(scan.root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root_fd < 0) return io_error("cannot open the cache root", scan.root, errno);
    UniqueFd root_guard(root_fd);
    for (const Group* g : lru_candidates(scan, policy)) {
        if (!selected(*g, policy, now, remaining)) continue;
        Result<std::uint64_t> freed = std::uint64_t{g->bytes};
        if (policy.dry_run) {
            auto lock = evict_fs::try_lock_key(root_fd, scan.kind == RootKind::inductor ? g->key : "", g->path);
            if (!lock.ok()) freed = std::move(lock.error());
        } else {
            freed = remove_group(scan, *g);
        }
        if (!freed.ok()) {
            report.skipped.push_back({g->path, freed.error().str()});
            continue;
        }
        report.removed.push_back({g->path, *freed, g->kind, g->category, g->last_use_ns});
        report.freed_bytes += *freed;
        remaining -= std::min(remaining, g->bytes);
    }
    return report;
}

Result<std::int64_t> parse_age_ns(std::string_view text) {
    double value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    std::string_view unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
    if (ec != std::errc() || value < 0 || !std::isfinite(value))
        return make_error(Errc::invalid_argument, "not an age", std::string(text), "e.g. 30d, 12h, 90m, 45s, 2w");
    double seconds = 0;
    if (unit.empty() || unit == "s") seconds = value;
    else if (unit == "m") seconds = value * 60;
    else if (unit == "h") seconds = value * 3600;
    else if (unit == "d") seconds = value * 86400;
    else if (unit == "w") seconds = value * 7 * 86400;
    else
        return make_error(Errc::invalid_argument, "unknown age unit '" + std::string(unit) + "'", std::string(text),
                          "use s, m, h, d or w");
    return static_cast<std::int64_t>(seconds * 1e9);
}

Result<std::uint64_t> parse_size(std::string_view text) {
    double value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    std::string unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
    if (ec != std::errc() || value < 0 || !std::isfinite(value))
        return make_error(Errc::invalid_argument, "not a size", std::string(text), "e.g. 500M, 2G, 1.5GiB, 100000");
    if (!unit.empty() && (unit.back() == 'B' || unit.back() == 'b')) unit.pop_back();
    double factor = 1;
    bool binary = unit.size() == 2 && unit[1] == 'i';
    char prefix = unit.empty() ? 0 : static_cast<char>(unit[0] & ~0x20);  // upper case
    if (unit.size() > (binary ? 2u : 1u)) prefix = '?';
    double base = binary ? 1024.0 : 1000.0;
    switch (prefix) {
        case 0: factor = 1; break;
        case 'K': factor = base; break;
        case 'M': factor = base * base; break;
        case 'G': factor = base * base * base; break;
        case 'T': factor = base * base * base * base; break;
        default:
            return make_error(Errc::invalid_argument, "unknown size unit", std::string(text),
                              "use K, M, G, T (1000) or Ki, Mi, Gi, Ti (1024)");
    }
    return static_cast<std::uint64_t>(value * factor);
}

}  // namespace kiln::inductor

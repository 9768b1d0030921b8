#include "inductor/evict.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "inductor/evict_fs.hpp"
#include "inductor/evict_needs.hpp"
#include "inductor/graph_entry.hpp"
#include "inductor/output_code.hpp"
#include "inductor/roots.hpp"
#include "pickle/decoder.hpp"
#include "pickle/skim.hpp"
#include "util/regular_file.hpp"

namespace kiln::inductor {

namespace {

std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

bool eligible(const Group& g, const EvictPolicy& p) {
    if (p.categories.empty()) return !kept_by_default(g.category);  // locks, PGO profiles: only when named
    return std::find(p.categories.begin(), p.categories.end(), g.category) != p.categories.end();
}

// A cache entry and what it loads on a hit are one unit:
//  - an AOTAutograd entry needs the FX graphs it names (forward, backward): without them it can never
//    hit (torch misses it and compiles both again);
//  - an FX entry needs the Triton kernel dirs it bundles (triton/<device>/<hash>): `check` calls an
//    entry without them broken and quarantines it, and with it the AOT entries naming it;
//  - output code needs the kernel modules it imports (<xx>/<code hash>.py).
// Eviction keeps each unit whole:
//  - a needed group's recency is the newest of its own and of every group needing it (transitively):
//    it is used whenever they are (and atime may not show it: relatime, noatime), so it never goes
//    before them;
//  - removing a needed group removes the groups needing it first (if one of those stays, so does the
//    group), so no entry is ever left pointing at a graph or kernel that is gone.
// This keeps torch hitting on every entry left in the cache; the other choice (evicting an entry drags
// what it needs along) would remove graphs and kernels other entries still use.
// Who needs whom, by group index: at a million files some 200k groups are needed (kernel dirs by
// entries, modules by output code), so flat arrays, not maps of pointers (tens of MB).
struct Units {
    struct Edge {
        std::uint32_t needed, by, seq;
    };
    const Group* base = nullptr;           // scan.groups.data()
    std::vector<Edge> edges;               // while units_of adds them; then `needers` holds them
    std::vector<std::uint32_t> offsets;    // group i's needers: needers[offsets[i] .. offsets[i + 1])
    std::vector<std::uint32_t> needers;    // in the order they were first added
    std::vector<std::int64_t> recency_of;  // the unit's recency: its own, or the newest of those needing it

    std::uint32_t index(const Group* g) const { return static_cast<std::uint32_t>(g - base); }
    std::int64_t recency(const Group& g) const { return recency_of[index(&g)]; }
    void add(const Group* needed, const Group* by) {
        if (needed == by) return;
        edges.push_back({index(needed), index(by), static_cast<std::uint32_t>(edges.size())});
    }
    // Each group's needers once, in the order first added.
    void seal(std::size_t groups) {
        std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) {
            return std::tie(a.needed, a.by, a.seq) < std::tie(b.needed, b.by, b.seq);
        });
        edges.erase(std::unique(edges.begin(), edges.end(),
                                [](const Edge& a, const Edge& b) { return a.needed == b.needed && a.by == b.by; }),
                    edges.end());
        std::sort(edges.begin(), edges.end(),
                  [](const Edge& a, const Edge& b) { return std::tie(a.needed, a.seq) < std::tie(b.needed, b.seq); });
        offsets.assign(groups + 1, 0);
        for (const Edge& e : edges) ++offsets[e.needed + 1];
        for (std::size_t i = 0; i < groups; ++i) offsets[i + 1] += offsets[i];
        needers.reserve(edges.size());
        for (const Edge& e : edges) needers.push_back(e.by);
        std::vector<Edge>().swap(edges);
    }
    bool is_needed(std::uint32_t g) const { return offsets[g + 1] > offsets[g]; }
    template <class F>
    void for_each_needer(std::uint32_t g, F&& f) const {
        for (std::uint32_t k = offsets[g]; k < offsets[g + 1]; ++k) f(needers[k]);
    }
};

// A graph entry read beneath the root (no symlink followed, O_NOATIME); none when it cannot be read
// or decoded (then it needs nothing evict could break further).
std::optional<GraphEntry> read_graph_entry(int root_fd, const Artifact& a) {
    std::string rel(a.rel_path());
    auto file = open_regular_file_beneath(root_fd, rel, rel);
    if (!file) return std::nullopt;
    auto buffer = pickle::skim_opened_file(*file, rel);  // bundled binaries skipped: only names matter here
    if (!buffer) return std::nullopt;
    auto doc = pickle::decode(std::move(*buffer));
    if (!doc) return std::nullopt;
    return GraphEntry(std::move(*doc), rel);
}

// The kernel modules output code imports (their relative paths); none when it cannot be read or parsed.
std::vector<std::string> imported_modules(int root_fd, const Artifact& a) {
    constexpr std::uint64_t kMaxOutputCode = 256ull << 20;  // as check reads it
    std::string rel(a.rel_path());
    auto file = open_regular_file_beneath(root_fd, rel, rel);
    if (!file) return {};
    auto text = read_opened_file(*file, rel, kMaxOutputCode);
    if (!text) return {};
    auto code = parse_output_code(*text);
    if (!code) return {};
    std::vector<std::string> out;
    for (const auto& k : code->kernels)
        if (k.kind == KernelKind::triton && !k.module_key.empty()) out.push_back(k.module_rel_path());
    return out;
}

// The newest use of group `g` and of every group needing it; `seen` (stamped `epoch`) breaks cycles
// (a hostile cache); `memo` (kUnknown: not yet) keeps what is known across calls.
constexpr std::int64_t kUnknown = std::numeric_limits<std::int64_t>::min();
std::int64_t unit_recency(const Units& u, std::uint32_t g, std::vector<std::int64_t>& memo,
                          std::vector<std::uint32_t>& seen, std::uint32_t epoch) {
    if (memo[g] != kUnknown) return memo[g];
    std::int64_t last = u.base[g].last_use_ns;
    if (seen[g] == epoch) return last;
    seen[g] = epoch;
    u.for_each_needer(g, [&](std::uint32_t by) { last = std::max(last, unit_recency(u, by, memo, seen, epoch)); });
    memo[g] = last;
    return last;
}

// An AOT entry's FX keys, from `needs` when it saw the file, else read here.
std::vector<std::string> fx_keys_of_aot(int root_fd, const Artifact& a, const EntryNeeds* needs) {
    if (needs)
        if (auto seen = needs->fx_keys_of_aot(a.rel_path())) return std::move(*seen);
    auto entry = read_graph_entry(root_fd, a);
    return entry ? needed_fx_keys(*entry) : std::vector<std::string>{};
}

// An FX entry's bundled kernel dirs, from `needs` when it saw the file, else read here.
std::vector<std::string> kernel_dirs_of_fx(int root_fd, const Artifact& a, const EntryNeeds* needs) {
    if (needs)
        if (auto seen = needs->kernel_dirs_of_fx(a.rel_path())) return std::move(*seen);
    auto entry = read_graph_entry(root_fd, a);
    return entry ? needed_kernel_dirs(*entry) : std::vector<std::string>{};
}

Units units_of(const ScanResult& scan, int root_fd, const EntryNeeds* needs) {
    Units u;
    u.base = scan.groups.data();
    std::map<std::string_view, const Group*> fx_by_key, kernel_dirs;
    std::unordered_map<std::string_view, const Group*> module_groups;
    for (const Group& g : scan.groups) {
        if (g.kind == GroupKind::key_dir && g.category == Category::fxgraph) fx_by_key[g.key] = &g;
        // Bundled kernels are looked for beneath this root only in an Inductor cache (a Triton root holds no entries).
        if (g.kind == GroupKind::triton_kernel_dir && scan.kind == RootKind::inductor) kernel_dirs[g.rel] = &g;
    }
    for (const Artifact& a : scan.artifacts)
        if (a.category == Category::kernel_module && a.group < scan.groups.size())
            module_groups[a.rel_path()] = &scan.groups[a.group];
    for (const Group& g : scan.groups) {
        for (auto index : g.artifacts) {
            const Artifact& a = scan.artifacts[index];
            if (g.kind == GroupKind::key_dir && g.category == Category::aotautograd &&
                a.category == Category::aotautograd) {
                for (const auto& key : fx_keys_of_aot(root_fd, a, needs))
                    if (auto fx = fx_by_key.find(key); fx != fx_by_key.end()) u.add(fx->second, &g);
            } else if (g.kind == GroupKind::key_dir && g.category == Category::fxgraph &&
                       a.category == Category::fxgraph && !kernel_dirs.empty()) {
                for (const auto& rel : kernel_dirs_of_fx(root_fd, a, needs))
                    if (auto dir = kernel_dirs.find(rel); dir != kernel_dirs.end()) u.add(dir->second, &g);
            } else if (a.category == Category::output_code) {
                for (const auto& module : imported_modules(root_fd, a))
                    if (auto m = module_groups.find(module); m != module_groups.end()) u.add(m->second, &g);
            }
        }
    }
    const std::size_t n = scan.groups.size();
    u.seal(n);
    u.recency_of.resize(n);
    std::vector<std::int64_t> memo(n, kUnknown);
    std::vector<std::uint32_t> seen(n, 0);
    std::uint32_t epoch = 0;
    for (std::uint32_t g = 0; g < n; ++g)
        u.recency_of[g] = u.is_needed(g) ? unit_recency(u, g, memo, seen, ++epoch) : scan.groups[g].last_use_ns;
    return u;
}

// Candidates, least recently used first (ties: path, so runs are reproducible).
std::vector<const Group*> lru_candidates(const ScanResult& scan, const EvictPolicy& p, const Units& units) {
    std::vector<const Group*> out;
    for (const Group& g : scan.groups)
        if (eligible(g, p)) out.push_back(&g);
    std::sort(out.begin(), out.end(), [&units](const Group* a, const Group* b) {
        std::int64_t ra = units.recency(*a), rb = units.recency(*b);
        return ra != rb ? ra < rb : a->rel < b->rel;
    });
    return out;
}

// Whether `g` goes, given how big the cache still is (bytes and files).
bool selected(std::int64_t last_use_ns, const EvictPolicy& p, std::int64_t now, std::uint64_t remaining,
              std::uint64_t remaining_files, bool named) {
    if (named) return true;
    if (p.older_than_ns && last_use_ns < now - *p.older_than_ns) return true;
    if (p.max_files && remaining_files > *p.max_files) return true;
    return p.max_bytes && remaining > *p.max_bytes;
}

// A group's or file's path relative to the root, checked to stay beneath it (one built by hand
// without a root names its whole path).
template <class Item>
Result<std::string_view> relative_to_root(const ScanResult& scan, const Item& item) {
    const std::string_view rel = item.rel_path();
    if (item.root) {
        if (*item.root != scan.root || rel.empty())
            return make_error(Errc::invalid_argument, "outside the cache root; refused", item.path());
        return rel;
    }
    if (rel.size() <= scan.root.size() + 1 || rel.substr(0, scan.root.size()) != scan.root ||
        rel[scan.root.size()] != '/')
        return make_error(Errc::invalid_argument, "outside the cache root; refused", std::string(rel));
    return rel.substr(scan.root.size() + 1);
}

std::pair<std::string_view, std::string> split_parent(std::string_view rel) {
    auto slash = rel.rfind('/');
    if (slash == std::string_view::npos) return {{}, std::string(rel)};
    return {rel.substr(0, slash), std::string(rel.substr(slash + 1))};
}

std::string_view lock_key(const ScanResult& scan, const Group& g) {
    return scan.kind == RootKind::inductor ? std::string_view(g.key) : std::string_view();
}

__extension__ typedef unsigned __int128 u128;

// Decimal "<digits>[.<digits>]<unit>" times the unit's factor, exactly; `max` bounds the result.
struct Scaled {
    u128 value = 0;
    std::string_view unit;
    bool ok = false;
};

Scaled scale_decimal(std::string_view text,
                     const std::function<std::optional<std::uint64_t>(std::string_view)>& factor_of) {
    Scaled out;
    std::size_t i = 0;
    u128 whole = 0;
    constexpr u128 kCap = static_cast<u128>(1) << 100;  // far beyond any limit
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
        whole = whole * 10 + static_cast<unsigned>(text[i++] - '0');
        if (whole > kCap) return out;
    }
    std::size_t int_digits = i;
    u128 frac = 0, frac_scale = 1;
    if (i < text.size() && text[i] == '.') {
        ++i;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
            if (frac_scale < static_cast<u128>(1000000000000000000ULL)) {  // 18 digits: below 1 byte/ns
                frac = frac * 10 + static_cast<unsigned>(text[i] - '0');
                frac_scale *= 10;
            }
            ++i;
            ++int_digits;
        }
    }
    if (int_digits == 0) return out;
    out.unit = text.substr(i);
    auto factor = factor_of(out.unit);
    if (!factor) return out;
    out.value = whole * *factor + frac * *factor / frac_scale;  // whole < 2^100, factor < 2^27 * 10^9
    out.ok = true;
    return out;
}

}  // namespace

GroupRemoval remove_group(int root_fd, const ScanResult& scan, const Group& group) {
    GroupRemoval out;
    auto rel = relative_to_root(scan, group);
    if (!rel.ok()) {
        out.status = std::move(rel.error());
        return out;
    }
    // Held until the group is gone, so Inductor cannot start using it half-way.
    auto lock = evict_fs::try_lock_key(root_fd, lock_key(scan, group), group.path());
    if (!lock.ok()) {
        out.status = std::move(lock.error());
        return out;
    }
    auto collect = [&](evict_fs::Removal r) {
        out.freed += r.freed;
        if (!r.status.ok() && out.status.ok()) out.status = std::move(r.status.error());
    };
    if (group.kind == GroupKind::key_dir || group.kind == GroupKind::triton_kernel_dir) {
        auto [parent, name] = split_parent(*rel);
        auto dir = evict_fs::open_dir_beneath(root_fd, parent, group.path());
        if (!dir.ok()) {
            out.status = std::move(dir.error());
            return out;
        }
        collect(evict_fs::remove_tree_at(dir->get(), name.c_str(), {scan.root_dev, group.ino}, group.path()));
        return out;
    }
    for (auto index : group.artifacts) {
        const Artifact& a = scan.artifacts[index];
        auto file_rel = relative_to_root(scan, a);
        if (!file_rel.ok()) {
            collect({0, std::move(file_rel.error())});
            continue;
        }
        auto [parent, name] = split_parent(*file_rel);
        auto dir = evict_fs::open_dir_beneath(root_fd, parent, a.path());
        if (!dir.ok()) {
            collect({0, std::move(dir.error())});
            continue;
        }
        collect(evict_fs::remove_file_at(dir->get(), name.c_str(), {scan.root_dev, a.ino}, a.path()));
    }
    return out;
}

namespace {

// The plan over one scan and, unless a dry run, the removals through `root_fd` (the directory scanned).
EvictReport plan_and_remove(const ScanResult& scan, int root_fd, const EvictPolicy& policy,
                            const EntryNeeds* needs = nullptr) {
    EvictReport report;
    report.root = scan.root;
    report.atime_kept = can_keep_atime(scan.root);
    report.dry_run = policy.dry_run;
    report.bytes_before = scan.total_bytes();
    std::int64_t now = policy.now_ns ? policy.now_ns : now_ns();
    std::uint64_t remaining = report.bytes_before;
    report.files_before = scan.artifacts.size();
    std::uint64_t remaining_files = report.files_before;
    std::set<std::string_view> named(policy.named_groups.begin(), policy.named_groups.end());
    const Units units = units_of(scan, root_fd, needs);
    // By group index: removed (or tried) already (a needing group goes before what it needs); removed whole.
    std::vector<bool> done(scan.groups.size()), gone(scan.groups.size());
    // Removes one group (or, in a dry run, checks its lock) and records the outcome; true when it is gone.
    auto remove = [&](const Group* g) {
        GroupRemoval removal;
        if (policy.dry_run) {
            removal.freed = g->bytes;
            auto lock = evict_fs::try_lock_key(root_fd, lock_key(scan, *g), g->path());
            if (!lock.ok()) {
                removal.freed = 0;
                removal.status = std::move(lock.error());
            }
        } else {
            removal = remove_group(root_fd, scan, *g);
        }
        report.freed_bytes += removal.freed;
        remaining -= std::min(remaining, removal.freed);
        if (removal.status.ok()) {
            remaining_files -= std::min<std::uint64_t>(remaining_files, g->artifacts.size());
            report.freed_files += g->artifacts.size();
            gone[units.index(g)] = true;
        }
        if (removal.status.ok()) {
            report.removed.push_back({g->path(), removal.freed, g->kind, g->category, units.recency(*g), {}});
            for (auto index : g->artifacts)
                if (scan.artifacts[index].category == Category::best_config)
                    report.removed.back().best_configs.push_back(scan.artifacts[index].path());
        } else if (removal.freed == 0) report.skipped.push_back({g->path(), removal.status.error().str()});
        else report.partial.push_back({g->path(), removal.freed, removal.status.error().str()});
        return removal.status.ok();
    };
    // A group with every group that needs it, those first; true when all of them are gone. If one of
    // them stays, so does `g`. A group tried before (or on the current path: a cycle) is not tried again.
    std::function<bool(const Group*)> remove_unit = [&](const Group* g) {
        if (done[units.index(g)]) return static_cast<bool>(gone[units.index(g)]);
        done[units.index(g)] = true;
        bool dependents_gone = true;
        units.for_each_needer(units.index(g), [&](std::uint32_t by) {
            dependents_gone = remove_unit(&scan.groups[by]) && dependents_gone;
        });
        if (!dependents_gone) {
            report.skipped.push_back({g->path(),
                                      "a cache entry that needs it (its graph or kernels) could not be "
                                      "removed; kept so that entry still hits"});
            return false;
        }
        return remove(g);
    };
    for (const Group* g : lru_candidates(scan, policy, units)) {
        if (done[units.index(g)]) continue;
        auto rel = relative_to_root(scan, *g);
        bool is_named = rel.ok() && named.count(*rel);
        if (!selected(units.recency(*g), policy, now, remaining, remaining_files, is_named)) continue;
        remove_unit(g);
    }
    return report;
}

}  // namespace

Result<EvictReport> evict_cache(const OpenedRoot& root, const EvictPolicy& policy) {
    if (!policy.older_than_ns && !policy.max_bytes && !policy.max_files && policy.named_groups.empty())
        return make_error(Errc::invalid_argument, "nothing to evict by", root.path.string(),
                          "give --older-than AGE, --max-size SIZE, --max-files N or --stale");
    // The one descriptor of the root, opened by the caller (frontend::open_cache): a symlinked root was
    // followed there, once, as the user named it; the scan and every removal go through it.
    auto kind = detect_root_kind(root);
    if (!kind && !policy.force)
        return make_error(Errc::invalid_argument, "does not look like an Inductor or Triton cache; refusing to delete",
                          root.path.string(), "check the path; --force evicts anyway");
    ScanOptions options;
    options.kind = kind.value_or(RootKind::inductor);
    KILN_TRY(ScanResult scan, scan_cache(root, options));
    return plan_and_remove(scan, root.fd, policy);
}

Result<EvictReport> evict_dry_run(const ScanResult& scan, const EvictPolicy& policy_in, const EntryNeeds* needs) {
    if (!policy_in.older_than_ns && !policy_in.max_bytes && !policy_in.max_files && policy_in.named_groups.empty())
        return make_error(Errc::invalid_argument, "nothing to evict by", scan.root,
                          "give --older-than AGE, --max-size SIZE, --max-files N or --stale");
    // Only the lock checks touch the file system: through the directory the scan walked.
    if (scan.root_fd() < 0) return make_error(Errc::invalid_argument, "a scan that holds no root", scan.root);
    EvictPolicy policy = policy_in;
    policy.dry_run = true;
    return plan_and_remove(scan, scan.root_fd(), policy, needs);
}

Result<std::int64_t> parse_age_ns(std::string_view text) {
    auto factor = [](std::string_view unit) -> std::optional<std::uint64_t> {
        constexpr std::uint64_t s = 1000000000ULL;
        if (unit.empty() || unit == "s") return s;
        if (unit == "m") return 60 * s;
        if (unit == "h") return 3600 * s;
        if (unit == "d") return 86400 * s;
        if (unit == "w") return 7 * 86400 * s;
        return std::nullopt;
    };
    Scaled v = scale_decimal(text, factor);
    if (!v.ok) {
        if (!text.empty() && text[0] >= '0' && text[0] <= '9' && !factor(v.unit) && !v.unit.empty())
            return make_error(Errc::invalid_argument, "unknown age unit '" + std::string(v.unit) + "'",
                              std::string(text), "use s, m, h, d or w");
        return make_error(Errc::invalid_argument, "not an age", std::string(text), "e.g. 30d, 12h, 90m, 45s, 2w");
    }
    if (v.value > static_cast<u128>(std::numeric_limits<std::int64_t>::max()))
        return make_error(Errc::invalid_argument, "age out of range (at most about 292 years)", std::string(text));
    return static_cast<std::int64_t>(v.value);
}

Result<std::uint64_t> parse_size(std::string_view text) {
    auto factor = [](std::string_view unit) -> std::optional<std::uint64_t> {
        if (unit.empty()) return 1000000000ULL;  // a bare number is GB, as in ccache
        if (unit == "B" || unit == "b") return 1;
        std::string u(unit);
        if (u.size() > 1 && (u.back() == 'B' || u.back() == 'b')) u.pop_back();
        bool binary = u.size() == 2 && u[1] == 'i';
        if (u.size() != (binary ? 2u : 1u)) return std::nullopt;
        std::uint64_t base = binary ? 1024 : 1000;
        switch (u[0] & ~0x20) {
            case 'K': return base;
            case 'M': return base * base;
            case 'G': return base * base * base;
            case 'T': return base * base * base * base;
            default: return std::nullopt;
        }
    };
    Scaled v = scale_decimal(text, factor);
    if (!v.ok) {
        if (!text.empty() && text[0] >= '0' && text[0] <= '9' && !factor(v.unit))
            return make_error(Errc::invalid_argument, "unknown size unit '" + std::string(v.unit) + "'",
                              std::string(text),
                              "use B, K, M, G, T (1000) or Ki, Mi, Gi, Ti (1024); a bare number is GB");
        return make_error(Errc::invalid_argument, "not a size", std::string(text), "e.g. 500M, 2G, 1.5GiB, 100000B");
    }
    if (v.value > static_cast<u128>(std::numeric_limits<std::uint64_t>::max()))
        return make_error(Errc::invalid_argument, "size out of range (at most 18446744073709551615 bytes)",
                          std::string(text));
    return static_cast<std::uint64_t>(v.value);
}

}  // namespace kiln::inductor

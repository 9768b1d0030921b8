#include "portability/portable.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <map>
#include <memory>
#include <optional>

#include "inductor/newer_torch.hpp"
#include "inductor/roots.hpp"
#include "inductor/scanner.hpp"
#include "portability/cache_files.hpp"
#include "portability/entry_lines.hpp"
#include "portability/seen_keys.hpp"
#include "portability/summary_fold.hpp"
#include "util/cpus.hpp"
#include "util/parallel.hpp"

namespace kiln::portability {

namespace fs = std::filesystem;

std::string_view item_kind_name(ItemKind k) {
    switch (k) {
        case ItemKind::fx_graph: return "fxgraph";
        case ItemKind::aot_autograd: return "aotautograd";
        case ItemKind::timing_cache: return "autotune_local_cache";
        case ItemKind::best_config: return "best_config";
        case ItemKind::triton_kernel: return "triton_kernel";
    }
    return "fxgraph";
}

namespace {

struct Task {
    ItemKind kind;
    std::string rel;  // relative to the root (opened through its descriptor)
    std::string key;
    std::vector<std::string> files;  // Triton kernel dirs: the file names the scan saw
};

// The target with facts derived from its components (Triton's short version from its key).
Fingerprint with_derived(const Fingerprint& target) {
    Fingerprint t = target;
    if (!t.find(names::triton))
        if (const EnvComponent* v = t.find(names::version); v && !v->absent) {
            auto pos = v->value.find("'triton': '");
            if (pos != std::string::npos) {
                std::string key = v->value.substr(pos + 11, v->value.find('\'', pos + 11) - pos - 11);
                if (std::string ver = triton_version_of_key(key); !ver.empty())
                    t.set({std::string(names::triton), ver, "", Scope::install, false, false, false, false, v->source});
            }
        }
    if (!t.find(names::python_abi))
        if (const EnvComponent* py = t.find(names::python))
            if (std::string abi = python_abi_of(py->value); !abi.empty())
                t.set(
                    {std::string(names::python_abi), abi, "", Scope::install, false, false, false, false, py->source});
    return t;
}

// The kernel modules (.py) by the dir they are in: where a .best_config's owner is looked for.
// A kept scan's names are views of its paths (83k modules in a 1M-file cache: no copy each);
// a streamed scan's are copied into `owned`, whose elements never move.
struct ModuleIndex {
    std::map<std::string, std::vector<std::string_view>, std::less<>> by_dir;
    std::deque<std::string> owned;
    bool copy_names = true;

    void add(std::string_view dir, std::string_view name) {
        if (copy_names) name = owned.emplace_back(name);
        auto it = by_dir.find(dir);
        if (it == by_dir.end()) it = by_dir.emplace(std::string(dir), std::vector<std::string_view>{}).first;
        it->second.push_back(name);
    }
};

struct Context {
    const Fingerprint& target;
    const ModuleIndex& modules;
    int root_fd;  // files are opened relative to the root: short path lookups
    // The graph keys have components torch 2.11 does not write: a newer torch's cache, whose
    // .best_config names are built otherwise (from the kernel's source, pytorch#181292).
    bool newer_torch = false;
};

bool keyed_by_newer_torch(const inductor::OpenedRoot& root) {
    inductor::UnknownToKiln signs;
    inductor::read_key_components(signs, root);
    return !signs.components.empty();
}

// Every graph entry is judged here, from its key's facts (read now, or seen by a read made anyway).
PortableItem judge_graph(const Task& t, const KeyFacts& f, const Fingerprint& target) {
    PortableItem item{t.rel, t.kind, t.key, {}, {}};
    if (!f.has_lines) {
        item.assessment.not_known("key components",
                                  t.kind == ItemKind::fx_graph
                                      ? "the entry records no _fx_graph_cache_debug_lines"
                                      : "the entry holds no inner graph's debug lines (fx_graph_cache_info)");
        item.assessment.finish();
        return item;
    }
    std::vector<inductor::KeyComponentView> config;
    config.reserve(f.config.size());
    for (const auto& c : f.config) config.push_back({c.hash, c.name, c.value});
    item.assessment = assess_key(f.env, config, target);
    item.hazards = f.hazards;
    // A component torch 2.11 does not write is a newer torch's: what the target would put there is not
    // known, so a hit cannot be promised (a miss found elsewhere stays a miss).
    for (const auto& name : f.newer)
        item.assessment.not_known(name, "a key component torch " + std::string(inductor::kKnownTorch) +
                                            " does not write: the entry was keyed by a newer torch, "
                                            "whose value for it Kiln cannot compute for the target");
    if (!f.newer.empty()) item.assessment.finish();
    return item;
}

// `scratch`: the worker thread's read buffer; the lines view it and are used before its next read.
Result<PortableItem> assess_graph(const Task& t, const Context& ctx, std::string& scratch) {
    KILN_TRY(EntryLines lines,
             read_entry_lines(t.rel, t.kind == ItemKind::fx_graph ? EntryKind::fx_graph : EntryKind::aot_autograd,
                              &scratch, ctx.root_fd));
    static const std::vector<std::string_view> kNone;
    return judge_graph(t, key_facts(lines.lists.empty() ? kNone : lines.lists[0]), ctx.target);
}

PortableItem assess_timing(const Task& t, const Context& ctx) {
    PortableItem item{t.rel, t.kind, t.key, {}, {}};
    auto sys = read_timing_system(t.rel, t.rel, ctx.root_fd);
    if (!sys) {
        item.assessment.not_known("system", sys.error().str());
    } else {
        Fingerprint cached = sys->as_components("cache");
        compare_components(cached, ctx.target,
                           {std::string(names::device), std::string(names::version), std::string(names::system_hash)},
                           {}, item.assessment);
    }
    item.assessment.finish();
    return item;
}

void check_module(const fs::path& module, int root_fd, const Fingerprint& target, Assessment& a) {
    KernelModuleTarget m = read_kernel_module_target(module, root_fd);
    Fingerprint cached;
    std::vector<std::string> list;
    auto add = [&](std::string_view name, const std::string& value) {
        if (value.empty()) return;
        cached.set({std::string(name), value, "", Scope::machine, false, false, false, false, "kernel module"});
        list.emplace_back(name);
    };
    add(names::compute_capability, m.cc);
    add(names::sm_count, m.multi_processor_count);
    add(names::backend_hash, m.backend_hash);
    compare_components(cached, target, list, {}, a);
}

PortableItem assess_best_config(const Task& t, const Context& ctx) {
    PortableItem item{t.rel, t.kind, t.key, {}, {}};
    Assessment& a = item.assessment;
    const EnvComponent* key = ctx.target.find(names::torch_key);
    const EnvComponent* tag = ctx.target.find(names::cache_key_tag);
    fs::path rel(t.rel);
    std::string dir = rel.parent_path().generic_string();
    std::string stem = rel.stem().string();
    auto mods = ctx.modules.by_dir.find(dir);
    if (ctx.newer_torch) {
        a.not_known(".best_config name", "the cache's graph keys are a torch newer than " +
                                             std::string(inductor::kKnownTorch) +
                                             "'s, which names .best_config files otherwise (from the kernel's "
                                             "source, pytorch#181292): Kiln cannot tell the kernel this one is for");
    } else if (!key) {
        const UnknownComponent* u = ctx.target.find_unknown(names::torch_key);
        std::string why =
            u ? "is unknown: " + u->why
              : "the target does not record (a trace or cache shows only its hash): run `kiln-cli env --python` there";
        a.not_known(std::string(names::torch_key), "the .best_config name is derived from torch_key(), which " + why);
    } else if (!tag) {
        a.not_known(std::string(names::cache_key_tag), "the .best_config name is derived from the cache key tag");
    } else if (mods == ctx.modules.by_dir.end()) {
        a.not_known("kernel module", "no kernel module (.py) beside it to derive the name from");
    } else {
        std::string_view owner;
        for (std::string_view m : mods->second)
            if (best_config_name(m, tag->value, key->value) == stem) owner = m;
        if (owner.empty())
            a.differ("torch_key/cache_key_tag", "file name " + stem.substr(0, 16) + "…",
                     "torch_key " + key->value.substr(0, 12) + "…, tag '" + tag->value +
                         "' name no file here (another torch install)",
                     Scope::install);
        else check_module(fs::path(dir) / owner, ctx.root_fd, ctx.target, a);
    }
    a.finish();
    return item;
}

PortableItem assess_triton(const Task& t, const Context& ctx) {
    PortableItem item{t.rel, t.kind, t.key, {}, {}};
    auto target = read_triton_target(t.rel, t.files, ctx.root_fd);
    if (!target) {
        item.assessment.not_known("target", target.error().str());
        item.assessment.finish();
        return item;
    }
    Fingerprint cached;
    auto add = [&](std::string_view name, const std::string& value, Scope s) {
        if (!value.empty()) cached.set({std::string(name), value, "", s, false, false, false, false, "kernel json"});
    };
    if (!target->python_abi.empty()) {  // Triton's launcher module: only the Python ABI matters
        add(names::python_abi, target->python_abi, Scope::install);
        compare_components(cached, ctx.target, {std::string(names::python_abi)}, {}, item.assessment);
        item.assessment.finish();
        return item;
    }
    add(names::compute_capability, target->arch, Scope::machine);
    add(names::triton, target->triton_version, Scope::install);
    add(names::warp_size, target->warp_size, Scope::machine);
    // Inductor points Triton at <root>/triton/<device index>/: another device index looks elsewhere.
    fs::path rel(t.rel);
    auto part = rel.begin();
    if (part != rel.end() && ++part != rel.end()) add(names::input_device, "cuda:" + part->string(), Scope::process);
    std::vector<std::string> optional = {std::string(names::input_device)};
    if (ctx.target.find(names::warp_size)) optional.push_back(std::string(names::warp_size));
    compare_components(cached, ctx.target, {std::string(names::compute_capability), std::string(names::triton)},
                       optional, item.assessment);
    item.assessment.finish();
    return item;
}

Result<PortableItem> assess_task(const Task& t, const Context& ctx, std::string& scratch) {
    switch (t.kind) {
        case ItemKind::fx_graph:
        case ItemKind::aot_autograd: return assess_graph(t, ctx, scratch);
        case ItemKind::timing_cache: return assess_timing(t, ctx);
        case ItemKind::best_config: return assess_best_config(t, ctx);
        case ItemKind::triton_kernel: return assess_triton(t, ctx);
    }
    return make_error(Errc::invalid_argument, "unknown item kind");
}

// The items of a scan, each file as the walk passes it: `item(kind, rel, key)` for each item,
// `file(name)` for each file of the Triton kernel dir item before it.
struct ItemFinder {
    ModuleIndex& modules;
    std::vector<std::string>& pgo;
    bool triton_dirs = true;  // an Inductor root: its kernel dirs are triton/<device>/<HASH>/
    inductor::GroupId dir_group = inductor::kNoGroup;

    template <class Item, class File>
    void add(const inductor::Artifact& a, Item&& item, File&& file) {
        using inductor::Category;
        std::string_view rel = a.rel_path();
        auto ends = [&](std::string_view suffix) {
            return rel.size() > suffix.size() && rel.substr(rel.size() - suffix.size()) == suffix;
        };
        if (rel.substr(0, 18) == "dynamo/code_state_" && ends(".pkl")) pgo.emplace_back(rel);
        std::optional<ItemKind> kind;
        switch (a.category) {
            case Category::fxgraph: kind = ItemKind::fx_graph; break;
            case Category::aotautograd: kind = ItemKind::aot_autograd; break;
            case Category::autotune_local_cache: kind = ItemKind::timing_cache; break;
            case Category::best_config: kind = ItemKind::best_config; break;
            default: break;
        }
        auto slash = rel.find('/');
        if (ends(".py") && slash != std::string_view::npos && rel.find('/', slash + 1) == std::string_view::npos)
            modules.add(rel.substr(0, slash), rel.substr(slash + 1));
        if (kind) item(*kind, rel, a.key());
        // A kernel dir's files are its direct children, walked one after the other.
        if (a.category == Category::triton_compiled && triton_dirs) {
            auto last = rel.rfind('/');
            if (a.group != dir_group) item(ItemKind::triton_kernel, rel.substr(0, last), a.key());
            dir_group = a.group;
            file(rel.substr(last + 1));
        }
    }
};

// The tasks of a streaming scan (no file list kept).
struct TaskCollector {
    std::vector<Task>& tasks;
    ItemFinder finder;

    TaskCollector(std::vector<Task>& t, ModuleIndex& modules, std::vector<std::string>& pgo)
        : tasks(t), finder{modules, pgo} {}
    void add(const inductor::Artifact& a) {
        finder.add(
            a,
            [&](ItemKind kind, std::string_view rel, std::string_view key) {
                tasks.push_back({kind, std::string(rel), std::string(key), {}});
            },
            [&](std::string_view name) { tasks.back().files.emplace_back(name); });
    }
};

}  // namespace

Fingerprint prepare_target(const Fingerprint& target) { return with_derived(target); }

Result<PortableItem> assess_graph_entry(const std::string& rel, ItemKind kind, const std::string& key,
                                        const Fingerprint& prepared, int root_fd, std::string& scratch) {
    static const ModuleIndex no_modules;
    return assess_graph(Task{kind, rel, key, {}}, Context{prepared, no_modules, root_fd}, scratch);
}

namespace {

// Assesses the collected tasks of one root on worker threads.
Result<PortableReport> assess_tasks(const inductor::OpenedRoot& root, std::vector<Task>& tasks,
                                    const ModuleIndex& modules, PortableReport report, const Fingerprint& target_in,
                                    const PortableOptions& options) {
    const std::string root_path = root.path.string();
    std::sort(tasks.begin(), tasks.end(),
              [](const Task& a, const Task& b) { return a.kind != b.kind ? a.kind < b.kind : a.rel < b.rel; });
    report.root = root_path;
    report.target = target_in;
    Fingerprint target = with_derived(target_in);
    if (root.fd < 0) return make_error(Errc::invalid_argument, "the cache root was not opened", root_path);
    Context ctx{target, modules, root.fd};
    ctx.newer_torch = keyed_by_newer_torch(root);
    std::vector<std::optional<Result<PortableItem>>> results(tasks.size());
    unsigned n = options.threads ? options.threads : usable_cpus();
    n = static_cast<unsigned>(std::min<std::size_t>(n, std::max<std::size_t>(1, tasks.size() / 64)));
    // One scratch buffer per worker thread, reused across its tasks.
    parallel_for(tasks.size(), n, options.cancel, [&](std::size_t i) {
        thread_local std::string scratch;
        results[i] = assess_task(tasks[i], ctx, scratch);
    });
    if (options.cancel && options.cancel->load()) return make_error(Errc::cancelled, "cancelled", root_path);
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        if (!results[i]) continue;
        if (results[i]->ok()) report.items.push_back(std::move(*results[i]).value());
        else report.skipped.push_back(tasks[i].rel + ": " + results[i]->error().str());
    }
    report.summary = summarize(report);
    return report;
}

}  // namespace

Result<PortableReport> assess_root(const inductor::OpenedRoot& root, const Fingerprint& target_in,
                                   const PortableOptions& options) {
    inductor::ScanOptions so;
    so.kind = inductor::RootKind::inductor;
    so.cancel = options.cancel;
    so.sniff_python = false;    // output code or kernel module: the same here (reading 4 KB of every .py is not)
    so.keep_artifacts = false;  // streamed: only the tasks are kept, not a million files
    ModuleIndex modules;
    PortableReport report;
    std::vector<Task> tasks;
    TaskCollector collect{tasks, modules, report.pgo_profiles};
    so.on_artifact = [&collect](const inductor::Artifact& a) { collect.add(a); };
    KILN_TRY(auto scan, inductor::scan_cache(root, so));
    return assess_tasks(scan.opened_root(), tasks, modules, std::move(report), target_in, options);
}

Result<PortableReport> assess_scan(const inductor::ScanResult& scan, const Fingerprint& target_in,
                                   const PortableOptions& options) {
    if (scan.kind != inductor::RootKind::inductor)  // assess_root reads every root by Inductor's rules
        return assess_root(scan.opened_root(), target_in, options);
    ModuleIndex modules;
    PortableReport report;
    std::vector<Task> tasks;
    TaskCollector collect{tasks, modules, report.pgo_profiles};
    for (const auto& a : scan.artifacts) collect.add(a);  // the walk's order, as the streaming scan passes them
    return assess_tasks(scan.opened_root(), tasks, modules, std::move(report), target_in, options);
}

namespace {

// An item of a kept scan by index (summarize_scan): its Task is made only when its chunk is assessed.
struct TaskRef {
    ItemKind kind;
    std::uint32_t artifact;   // the file (a Triton kernel dir: its first file)
    std::uint32_t files = 0;  // Triton kernel dirs: how many files (make_task finds them again)
};

std::string_view ref_rel(const TaskRef& r, const inductor::ScanResult& scan) {
    std::string_view rel = scan.artifacts[r.artifact].rel_path();
    return r.kind == ItemKind::triton_kernel ? rel.substr(0, rel.rfind('/')) : rel;
}

// A kernel dir's files are the Triton files of its group from its first one on, as ItemFinder met
// them: other files may lie between them, another group's Triton file ends the dir.
Task make_task(const TaskRef& r, const inductor::ScanResult& scan) {
    const inductor::Artifact& first = scan.artifacts[r.artifact];
    Task t{r.kind, std::string(ref_rel(r, scan)), std::string(first.key()), {}};
    t.files.reserve(r.files);
    for (std::size_t i = r.artifact; t.files.size() < r.files && i < scan.artifacts.size(); ++i) {
        const inductor::Artifact& a = scan.artifacts[i];
        if (a.category != inductor::Category::triton_compiled) continue;
        if (a.group != first.group) break;
        std::string_view rel = a.rel_path();
        t.files.emplace_back(rel.substr(rel.rfind('/') + 1));
    }
    return t;
}

constexpr std::size_t kSummaryChunk = 1024;  // items assessed at once: their results are all that is kept

}  // namespace

struct ScanSummaryPart {
    Fingerprint target_in;
    Fingerprint target;  // with_derived(target_in)
    bool newer_torch = false;
    SummaryFold fold;
    std::vector<std::string> pgo;
    std::optional<PortableSummary> whole;  // a root that is not Inductor's: assess_root's summary
};

namespace {

bool is_graph_kind(ItemKind k) { return k == ItemKind::fx_graph || k == ItemKind::aot_autograd; }

// Assesses `refs` (sorted as the report is) a chunk at a time and folds them; graph entries that
// `options.seen` holds are judged from their facts, once per distinct environment.
Status fold_refs(const inductor::ScanResult& scan, const std::vector<TaskRef>& refs, const Context& ctx,
                 const PortableOptions& options, SummaryFold& fold) {
    unsigned n = options.threads ? options.threads : usable_cpus();
    n = static_cast<unsigned>(std::min<std::size_t>(n, std::max<std::size_t>(1, refs.size() / 64)));
    // Seen entries are judged once per distinct environment (and kind: the wording of "no lines" differs).
    std::map<std::pair<const KeyFacts*, ItemKind>, PortableItem> judged;
    std::vector<Task> tasks;
    std::vector<std::optional<Result<PortableItem>>> results;
    for (std::size_t begin = 0; begin < refs.size(); begin += kSummaryChunk) {
        const std::size_t chunk = std::min(kSummaryChunk, refs.size() - begin);
        tasks.clear();
        for (std::size_t i = 0; i < chunk; ++i) tasks.push_back(make_task(refs[begin + i], scan));
        results.assign(chunk, std::nullopt);
        if (options.seen)
            for (std::size_t i = 0; i < chunk; ++i) {
                const Task& t = tasks[i];
                if (!is_graph_kind(t.kind)) continue;
                const KeyFacts* f = options.seen->find(t.rel);
                if (!f) continue;
                auto it = judged.find({f, t.kind});
                if (it == judged.end()) it = judged.emplace(std::pair{f, t.kind}, judge_graph(t, *f, ctx.target)).first;
                PortableItem item = it->second;
                item.path = t.rel;
                item.key = t.key;
                results[i] = std::move(item);
            }
        parallel_for(chunk, n, options.cancel, [&](std::size_t i) {
            thread_local std::string scratch;
            if (!results[i]) results[i] = assess_task(tasks[i], ctx, scratch);
        });
        if (options.cancel && options.cancel->load()) return make_error(Errc::cancelled, "cancelled", scan.root);
        for (auto& r : results)
            if (r && r->ok()) fold.add(**r);  // an unreadable item is skipped, as assess_scan skips it
    }
    return {};
}

}  // namespace

Result<std::shared_ptr<ScanSummaryPart>> summarize_scan_files(const inductor::ScanResult& scan,
                                                              const Fingerprint& target_in,
                                                              const PortableOptions& options) {
    auto part = std::make_shared<ScanSummaryPart>();
    part->target_in = target_in;
    if (scan.kind != inductor::RootKind::inductor) {
        KILN_TRY(auto report, assess_root(scan.opened_root(), target_in, options));
        part->whole = std::move(report.summary);
        return part;
    }
    // assess_scan's items by index; the modules beside .best_config files and the PGO profiles as it keeps them.
    std::vector<TaskRef> refs;
    ModuleIndex modules;
    modules.copy_names = false;  // views of the kept scan's paths
    ItemFinder finder{modules, part->pgo};
    for (std::uint32_t i = 0; i < scan.artifacts.size(); ++i)
        finder.add(
            scan.artifacts[i],
            [&](ItemKind kind, std::string_view, std::string_view) {
                refs.push_back({kind, i, 0});
            },
            [&](std::string_view) { ++refs.back().files; });
    std::erase_if(refs, [](const TaskRef& r) { return is_graph_kind(r.kind); });
    std::sort(refs.begin(), refs.end(), [&](const TaskRef& a, const TaskRef& b) {
        return a.kind != b.kind ? a.kind < b.kind : ref_rel(a, scan) < ref_rel(b, scan);
    });
    part->target = with_derived(target_in);
    // Through the directory the scan walked.
    if (scan.root_fd() < 0) return make_error(Errc::invalid_argument, "a scan that holds no root", scan.root);
    Context ctx{part->target, modules, scan.root_fd()};
    part->newer_torch = ctx.newer_torch = keyed_by_newer_torch(scan.opened_root());
    KILN_CHECK(fold_refs(scan, refs, ctx, options, part->fold));
    return part;
}

Result<PortableSummary> summarize_scan_graphs(ScanSummaryPart& part, const inductor::ScanResult& scan,
                                              const PortableOptions& options) {
    if (part.whole) return *part.whole;
    // The graph entries are the fxgraph/ and aotautograd/ files (ItemFinder's kinds by category). Their
    // fold touches only the counts of their kinds and the graph tallies: none of what the files' fold
    // made, so the order of the two parts does not change the summary.
    std::vector<TaskRef> refs;
    for (std::uint32_t i = 0; i < scan.artifacts.size(); ++i) {
        const auto c = scan.artifacts[i].category;
        if (c == inductor::Category::fxgraph) refs.push_back({ItemKind::fx_graph, i, 0});
        else if (c == inductor::Category::aotautograd) refs.push_back({ItemKind::aot_autograd, i, 0});
    }
    std::sort(refs.begin(), refs.end(), [&](const TaskRef& a, const TaskRef& b) {
        return a.kind != b.kind ? a.kind < b.kind : ref_rel(a, scan) < ref_rel(b, scan);
    });
    if (scan.root_fd() < 0) return make_error(Errc::invalid_argument, "a scan that holds no root", scan.root);
    const ModuleIndex no_modules;
    Context ctx{part.target, no_modules, scan.root_fd()};
    ctx.newer_torch = part.newer_torch;
    KILN_CHECK(fold_refs(scan, refs, ctx, options, part.fold));
    return part.fold.finish(part.target_in.label(), part.pgo);
}

Result<PortableSummary> summarize_scan(const inductor::ScanResult& scan, const Fingerprint& target_in,
                                       const PortableOptions& options) {
    KILN_TRY(auto part, summarize_scan_files(scan, target_in, options));
    return summarize_scan_graphs(*part, scan, options);
}

}  // namespace kiln::portability

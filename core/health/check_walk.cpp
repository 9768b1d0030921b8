#include "health/check_walk.hpp"

#include <algorithm>

#include "health/seen_entries.hpp"
#include "portability/portable.hpp"

namespace kiln::health::detail {

using inductor::Artifact;
using inductor::Category;

namespace {

constexpr std::size_t kQueueLimit = 256;  // batches waiting
constexpr int kBatchCost = 64;

std::string_view base_name(std::string_view path) {
    auto slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// Keeps the references `keep` says are not settled yet, in a vector of their size.
template <class Keep>
void keep_unresolved(std::vector<Ref>& refs, Keep keep) {
    std::vector<Ref> left;
    for (auto& r : refs)
        if (keep(r)) left.push_back(std::move(r));
    refs = std::move(left);
}

}  // namespace

bool Known::may_be_named(std::string_view rel) {
    if (rel.ends_with(".main.so")) return true;
    std::string_view top = rel.substr(0, rel.find('/'));
    return top != "triton" && top != "fxgraph" && top != "aotautograd" && top != "locks";
}

void Known::add_file(const Artifact& a) {
    if (may_be_named(a.rel_path())) paths.add(a.rel_path());
    // A kernel dir's files share its key and come one after the other: each run of a key is added once
    // (a million files hold ~230k keys; one a file was 8 MB until seal() sorted the repeats out).
    if (a.category != Category::lock && !a.key().empty()) keys.add_unless_last(a.key());
}

void Known::add_groups(const inductor::ScanResult& scan) {
    for (const auto& g : scan.groups) {
        if (g.category != Category::lock && !g.key.empty()) keys.add(g.key);
        if (g.kind != inductor::GroupKind::triton_kernel_dir || scan.kind != inductor::RootKind::inductor) continue;
        std::string_view rel = g.rel;
        kernel_dirs.add(rel);
        devices.emplace(rel.substr(0, rel.rfind('/')));
    }
}

void Known::seal() {
    paths.seal();
    keys.seal();
    kernel_dirs.seal();
    sealed = true;
}

bool Known::has_kernel_dir(const Ref& r) const {
    return !devices.count(r.target.substr(0, r.target.rfind('/'))) || kernel_dirs.contains(r.target);
}

CheckWalk::CheckWalk(unsigned threads, std::int64_t now_ns, std::int64_t temp_age_ns, Target target, int root_fd,
                     const std::atomic<bool>* cancel)
    : now_ns_(now_ns),
      temp_age_ns_(temp_age_ns),
      target_(std::move(target)),
      root_fd_(root_fd),
      cancel_(cancel),
      queue_(kQueueLimit) {
    locals_.resize(std::max(1u, threads));  // never resized again: each worker holds its own
    for (auto& local : locals_) pool_.emplace_back([this, &local] { work(local); });
}

CheckWalk::~CheckWalk() {
    queue_.close();
    for (auto& t : pool_)
        if (t.joinable()) t.join();
}

void CheckWalk::know_all(const inductor::ScanResult& scan) {
    Known& known = out_.known;
    for (const auto& a : scan.artifacts) known.add_file(a);
    known.add_groups(scan);
    known.seal();
    kept_ = true;
}

Artifact CheckWalk::Task::get() const {
    Artifact a = file;
    if (!path.empty()) a.set_path(file.root, path);
    return a;
}

Artifact CheckWalk::detached(const Artifact& a) {
    if (a.root && root_.empty()) root_ = *a.root;  // one root for the whole walk
    Artifact out = a;
    out.set_path(a.root ? &root_ : nullptr, {});
    return out;
}

CheckWalk::Task CheckWalk::task(Task::Kind kind, const Artifact& a) {
    Task t;
    t.kind = kind;
    t.file = kept_ ? a : detached(a);
    if (!kept_) t.path = std::string(a.rel_path());
    return t;
}

void CheckWalk::add(const Artifact& a) {
    std::string_view rel = a.rel_path();
    if (!kept_) out_.known.add_file(a);
    switch (a.category) {
        case Category::fxgraph:
        case Category::aotautograd: submit(task(Task::entry, a)); break;
        case Category::output_code: submit(task(Task::output, a)); break;
        case Category::temp: check_temp(a, now_ns_, temp_age_ns_, out_.problems); break;
        case Category::lock: out_.locks.emplace_back(a); break;
        case Category::triton_compiled: {
            // A kernel dir's files are its direct children, walked one after the other.
            if (a.group != dir_group_) flush_dir();
            dir_group_ = a.group;
            std::string_view name = base_name(rel);
            dir_.names.append(name).push_back('/');
            if (name.substr(0, 7) == "__grp__" && name.ends_with(".json")) {
                dir_.groups.push_back(kept_ ? a : detached(a));
                if (!kept_) dir_.group_paths.emplace_back(a.rel_path());
            }
            break;
        }
        default: break;
    }
    if (a.category == Category::cpp_source && rel.ends_with(".main.cpp")) submit(task(Task::main_cpp, a));
    // An in-flight temporary (a compiler's ".<key>.<pid>.<tid>.tmp.so") is no binary yet.
    if (a.category != Category::temp && is_binary_name(rel)) submit(task(Task::binary, a));
}

void CheckWalk::flush_dir() {
    if (!dir_.groups.empty()) {
        dir_.kind = Task::triton_dir;
        submit(std::move(dir_));
    }
    dir_ = Task{};
    dir_group_ = inductor::kNoGroup;
}

void CheckWalk::submit(Task&& t) {
    batch_cost_ += t.kind == Task::entry || t.kind == Task::output ? 16 : 1;
    batch_.push_back(std::move(t));
    if (batch_cost_ >= kBatchCost) push_batch();
}

void CheckWalk::push_batch() {
    if (batch_.empty()) return;
    queue_.push(std::move(batch_));
    batch_ = {};
    batch_cost_ = 0;
}

void CheckWalk::work(Local& local) {
    const Target target = target_;  // a copy of its own: shared_future's members do not synchronize
    while (auto batch = queue_.pop()) {
        for (auto& t : *batch)
            if (!cancel_ || !cancel_->load(std::memory_order_relaxed)) run(t, local, target);  // else drain
    }
}

void CheckWalk::run(Task& t, Local& local, const Target& target) {
    const Artifact file = t.get();  // views the kept scan's or t's bytes
    const ReadBeneath files{root_fd_};
    const Known& known = out_.known;  // sealed before the first task when the scan is kept; else unread here
    switch (t.kind) {
        case Task::entry: {
            std::optional<EntryFindings> seen = seen_ ? seen_->take(file) : std::nullopt;
            EntryFindings e = seen ? std::move(*seen) : check_graph_entry(file, files, versions_);
            if (known.sealed) {
                keep_unresolved(e.keys, [&](const Ref& r) { return !known.has_key(r); });
                keep_unresolved(e.kernel_dirs, [&](const Ref& r) { return !known.has_kernel_dir(r); });
            }
            local.entries.push_back(std::move(e));
            if (target.valid())
                if (const auto& prepared = target.get()) stale_check(file, *prepared, local);
            break;
        }
        case Task::output: {
            OutputFindings o = check_output_code(file, files, local.problems);
            if (known.sealed) {
                keep_unresolved(o.modules, [&](const Ref& r) { return !known.has_path(r); });
                if (o.modules.empty() && o.cpp.empty()) break;  // nothing left to resolve: nothing to keep
            }
            local.outputs.push_back(std::move(o));
            break;
        }
        case Task::binary: check_binary(file, files, local.problems); break;
        case Task::main_cpp:
            if (std::string sha = main_cpp_sha(file, files); !sha.empty()) {
                std::string_view rel = file.rel_path();
                local.main_cpp.emplace_back(std::move(sha), std::string(rel.substr(0, rel.size() - 9)));
            }
            break;
        case Task::triton_dir: {
            std::vector<Artifact> groups = t.groups;
            for (std::size_t i = 0; i < t.group_paths.size(); ++i) groups[i].set_path(groups[i].root, t.group_paths[i]);
            std::vector<std::string_view> names;
            for (std::string_view rest = t.names; !rest.empty();) {
                auto end = rest.find('/');
                names.push_back(rest.substr(0, end));
                rest.remove_prefix(end + 1);
            }
            check_triton_dir(groups, names, files, local.problems);
            break;
        }
    }
}

// Against a target: the entry's key components, as `kiln-cli portable` judges them (a miss is stale).
void CheckWalk::stale_check(const Artifact& a, const portability::Fingerprint& target, Local& local) {
    auto kind =
        a.category == Category::aotautograd ? portability::ItemKind::aot_autograd : portability::ItemKind::fx_graph;
    std::string rel(a.rel_path());
    auto item = portability::assess_graph_entry(rel, kind, std::string(a.key()), target, root_fd_, local.scratch);
    if (!item || item->assessment.verdict != portability::Verdict::miss) return;  // unreadable: not judged
    StaleEntry s;
    auto slash = rel.rfind('/');
    s.group = slash == std::string::npos ? rel : rel.substr(0, slash);
    s.path = std::move(rel);
    for (const auto& d : item->assessment.differs) s.differs.push_back({d.component, d.cached, d.target});
    local.stale.push_back(std::move(s));
}

WalkFindings CheckWalk::finish() {
    flush_dir();
    push_batch();
    queue_.close();  // the workers drain what is queued, then stop
    for (auto& t : pool_) t.join();
    pool_.clear();
    // The first non-empty list is taken whole (with one worker, the only one): no second copy of it at the peak.
    auto move_all = [](auto& from, auto& to) {
        if (to.empty()) to.swap(from);
        else to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
    };
    for (auto& l : locals_) {
        move_all(l.problems, out_.problems);
        FoundList().swap(l.problems);  // each worker's list freed as it is merged
        move_all(l.entries, out_.entries);
        move_all(l.outputs, out_.outputs);
        move_all(l.stale, out_.stale);
        for (auto& [sha, rel] : l.main_cpp) out_.main_cpp[sha].push_back(std::move(rel));
    }
    locals_.clear();
    return std::move(out_);
}

}  // namespace kiln::health::detail

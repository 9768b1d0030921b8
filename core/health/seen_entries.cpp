#include "health/seen_entries.hpp"

#include <mutex>
#include <string>
#include <unordered_map>

#include "health/check_context.hpp"
#include "health/check_walk.hpp"
#include "util/gate.hpp"

namespace kiln::health {

using namespace detail;

struct SeenEntries::State {
    // The scan's groups (know()), set once: the references they settle are not kept.
    std::unique_ptr<const Known> known;
    StringPool versions;
    mutable std::mutex mutex;
    Gate closed;
    std::unordered_map<std::string, EntryFindings> seen;  // by relative path; path, group and mtime unset
};

namespace {

void drop_settled(const Known& known, EntryFindings& e) {
    std::erase_if(e.keys, [&](const Ref& r) { return known.has_key(r); });
    std::erase_if(e.kernel_dirs, [&](const Ref& r) { return known.has_kernel_dir(r); });
    e.keys.shrink_to_fit();
    e.kernel_dirs.shrink_to_fit();
}

}  // namespace

SeenEntries::SeenEntries() : state_(std::make_unique<State>()) {}
SeenEntries::~SeenEntries() = default;

void SeenEntries::know(const inductor::ScanResult& scan) {
    auto known = std::make_unique<Known>();
    known->add_groups(scan);
    known->seal();
    const std::lock_guard lock(state_->mutex);
    for (auto& [rel, e] : state_->seen) drop_settled(*known, e);
    state_->known = std::move(known);
}

void SeenEntries::add(std::string_view rel, bool aot, const inductor::GraphEntry& entry) {
    EntryFindings e;
    e.path = std::string(rel);
    check_decoded_entry(entry, aot, e, state_->versions);
    const Known* known = nullptr;
    {
        const std::lock_guard lock(state_->mutex);
        known = state_->known.get();  // never replaced once set
    }
    if (known) drop_settled(*known, e);
    std::string key = std::move(e.path);  // the check's artifact names it again (find)
    const std::lock_guard lock(state_->mutex);
    state_->seen.insert_or_assign(std::move(key), std::move(e));
}

void SeenEntries::close() { state_->closed.open(); }

bool SeenEntries::wait(const std::atomic<bool>* cancel) const { return state_->closed.wait(cancel); }

std::optional<EntryFindings> SeenEntries::take(const inductor::Artifact& a) {
    std::optional<EntryFindings> out;
    {
        const std::lock_guard lock(state_->mutex);
        const auto it = state_->seen.find(std::string(a.rel_path()));
        if (it == state_->seen.end()) return std::nullopt;
        out = std::move(it->second);
        state_->seen.erase(it);
        if (state_->seen.empty()) decltype(state_->seen)().swap(state_->seen);  // its buckets too
    }
    out->path = std::string(a.rel_path());
    out->group = a.group;
    out->mtime_ns = a.mtime_ns;
    for (Found& p : out->problems) p.path = out->path, p.group = a.group;
    return out;
}

std::size_t SeenEntries::size() const {
    const std::lock_guard lock(state_->mutex);
    return state_->seen.size();
}

}  // namespace kiln::health

#pragma once
// What the check finds in each graph entry, taken from a read of the entries made anyway: the GUI reads
// every entry once for its views (inductor::for_each_graph_batch's EntryVisit) and hands each decoded
// entry here, so its health check (CheckOptions::seen) decodes no entry a second time. An entry not seen
// (it did not decode there, or the read was cancelled) is read by the check itself, as `kiln-cli check`
// reads every entry: the findings are the same either way.
#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>
#include <string_view>

#include "inductor/scanner.hpp"

namespace kiln::inductor {
class GraphEntry;
}

namespace kiln::health {

namespace detail {
struct EntryFindings;
}  // namespace detail

class SeenEntries {
public:
    SeenEntries();
    ~SeenEntries();
    SeenEntries(const SeenEntries&) = delete;
    SeenEntries& operator=(const SeenEntries&) = delete;

    // The scan the entries belong to, once, before the entries are taken: a reference its groups settle
    // (an FX key, a Triton kernel dir it holds) is dropped, as the check drops it (a million files'
    // entries name a few hundred thousand kernel dirs: kept, they would be tens of MB). Entries added
    // before it are kept whole until then (the GUI reads them beside the walk); later ones are dropped
    // from as they come. Safe beside add().
    void know(const inductor::ScanResult& scan);
    // One decoded entry file by its path relative to the root (GraphRow::path); `aot`: it lies in
    // aotautograd/ (GraphRow::kind). Safe from several threads at once (the batch's reader threads).
    void add(std::string_view rel, bool aot, const inductor::GraphEntry& entry);
    // No more adds (the read ended, finished or not): wait() returns.
    void close();
    // Until close() or `cancel` is raised; false when cancelled.
    bool wait(const std::atomic<bool>* cancel) const;

    // The findings of the check's entry file `a` as check_graph_entry makes them (less the references
    // know()'s scan settles), moved out: the check holds them from then on, not both (tens of MB at a
    // million files). None when it was not seen (or was taken already).
    std::optional<detail::EntryFindings> take(const inductor::Artifact& a);
    std::size_t size() const;  // entry files seen and not taken

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace kiln::health

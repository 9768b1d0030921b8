#pragma once
// What eviction's units need of each graph entry (evict.hpp: the FX graphs an AOT entry names, the
// Triton kernel dirs an FX entry bundles), taken from a read of the entries made anyway: the GUI reads
// every entry once for its views (for_each_graph_batch's EntryVisit) and hands what it saw here, so the
// Overview's dry run (evict_dry_run) decodes no entry a second time (at a million files, a minute of CPU).
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kiln::inductor {

class GraphEntry;

// What one decoded entry needs, judged as eviction judges it: an AOT entry its forward and backward FX
// keys, an FX entry its bundled kernels' dirs ("triton/<device>/<hash>"); nothing for another type.
std::vector<std::string> needed_fx_keys(const GraphEntry& entry);
std::vector<std::string> needed_kernel_dirs(const GraphEntry& entry);

class EntryNeeds {
public:
    // One entry file as read, by its path relative to the root (GraphRow::path, Artifact::rel_path);
    // safe from several threads at once (an EntryVisit runs on the batch's reader threads).
    void add(std::string_view rel, const GraphEntry& entry);

    // What an entry file needs (FX keys for an AOT entry, "triton/<device>/<hash>" dirs for an FX
    // entry; empty when it is not of that type); none when it was not seen (the dry run reads it then).
    std::optional<std::vector<std::string>> fx_keys_of_aot(std::string_view rel) const;
    std::optional<std::vector<std::string>> kernel_dirs_of_fx(std::string_view rel) const;
    std::size_t size() const;  // entry files seen

private:
    struct Needs {
        std::vector<std::string> fx_keys;      // an AOT entry's forward and backward graphs
        std::vector<std::string> kernel_dirs;  // an FX entry's bundled kernels
    };
    mutable std::mutex mutex_;
    std::unordered_map<std::string, Needs> seen_;
};

}  // namespace kiln::inductor

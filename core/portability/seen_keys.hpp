#pragma once
// What portability needs of each graph entry, its key's environment, taken from a read of the entries
// made anyway: the GUI reads every entry once for its views (inductor::for_each_graph_batch's
// EntryVisit) and hands each decoded entry here, so its Overview's portability summary
// (PortableOptions::seen) reads no entry a second time. An entry not seen (it did not decode there, or
// the read was cancelled) is read by summarize_scan itself: the verdicts are the same either way.
// Why deduplicated: the entries of one cache share a handful of environments (a million-file cache's
// 23k entries, a few), so each distinct one is kept once and judged against the target once.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "inductor/debug_lines.hpp"
#include "portability/fingerprint.hpp"
#include "portability/key_env.hpp"

namespace kiln::inductor {
class GraphEntry;
}

namespace kiln::portability {

// A graph entry's key as portability judges it: key_env of its debug lines (FX: the entry's own; AOT:
// the forward's) and the components torch 2.11 does not write, owned.
struct KeyFacts {
    bool has_lines = false;  // false: the entry records no debug lines (not known)
    Fingerprint env;
    std::vector<inductor::KeyComponent> config;  // every inductor_config[...] component
    std::vector<Hazard> hazards;
    std::vector<std::string> newer;  // names torch 2.11 does not write, each once, first seen first
};

KeyFacts key_facts(const std::vector<std::string_view>& lines);
KeyFacts key_facts(bool has_lines, const std::vector<inductor::KeyComponentView>& components);

class SeenKeys {
public:
    // Distinct environments kept at most: past it an entry is left to summarize_scan's own read (a
    // cache whose every entry differs keeps bounded memory).
    static constexpr std::size_t kMaxDistinct = 256;

    // One decoded entry file by its path relative to the root (GraphRow::path); `aot`: it lies in
    // aotautograd/. Safe from several threads at once (the batch's reader threads).
    void add(std::string_view rel, bool aot, const inductor::GraphEntry& entry);
    // After the read: the facts of the entry at `rel`; null when it was not seen.
    const KeyFacts* find(std::string_view rel) const;
    std::size_t size() const;      // entries seen
    std::size_t distinct() const;  // environments kept

private:
    mutable std::mutex mutex_;
    std::unordered_map<std::string, std::uint32_t> by_rel_;
    std::unordered_map<std::string, std::uint32_t> by_input_;  // key_env_input (and whether lines) -> facts_
    std::deque<KeyFacts> facts_;                               // never moves: find() hands out pointers
};

}  // namespace kiln::portability

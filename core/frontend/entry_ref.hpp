#pragma once
// What the user names as "an entry", one syntax for `kiln-cli show/guards/diff` and the GUI's Diff
// view: a graph entry file, a key dir (fxgraph/<xx>/<key>), a TORCH_TRACE log (LOG#N: its N-th
// fx_graph cache event as `kiln-cli misses` numbers them; LOG#KEY: the first event of a key with
// that prefix), a remote entry redis://host:port[/db]/KEY, or a key prefix as `ls` prints it (looked
// up in a cache root: find_key_dir). Parsing and loading both live here,
// so every front end accepts the same forms and reports the same errors.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/open_cache.hpp"
#include "inductor/debug_lines.hpp"
#include "inductor/graph_entry.hpp"
#include "inductor/guard_lookup.hpp"
#include "util/result.hpp"

namespace kiln::frontend {

struct EntryRef {
    enum class Kind : std::uint8_t {
        path,         // a file (entry or log) or a directory (key dir or trace dir), told apart when loaded
        trace_event,  // LOG#SELECTOR
        remote,       // redis://…/KEY
    };
    Kind kind = Kind::path;
    std::string text;      // as given
    std::string path;      // the file or directory; for trace_event the log
    std::string selector;  // trace_event: an index (N) or a key prefix
};

// Errc::invalid_argument for an empty reference. LOG#N is recognised when LOG exists and the
// whole text does not (a file name may contain '#').
Result<EntryRef> parse_entry_ref(std::string_view text);

// A key as `kiln-cli ls` prints it (its first 13 characters) or longer: a reference that names no
// existing path and is an FX ('f') or AOT ('a') key's start, lower-case base32, at least 4 characters.
bool is_key_prefix(const EntryRef& ref);
// The key dir (fxgraph/<xx>/<key> or aotautograd/<key>) beneath the opened `root` of the one key
// starting with `prefix`, relative to it, listed through its descriptor (issue 44: a root renamed
// after the open is still the one searched). Errc::not_found when none does; Errc::invalid_argument,
// naming them, when several do.
Result<std::string> find_key_dir(const inductor::OpenedRoot& root, std::string_view prefix);

// `text` as parse_entry_ref reads it, a key prefix replaced by its key dir under `root` (a cache root
// or a blob, opened as open_cache does; empty: the default root), which is opened only then: `cache`
// holds it (a blob's temporary root lives as long as it), and what is read of the key dir is read
// beneath `cache->opened()` (`key_dir`), never by `ref.path` again.
struct ResolvedEntryRef {
    EntryRef ref;                      // a key prefix: `path` names its key dir as reports do
    std::optional<OpenedCache> cache;  // set when a key prefix was looked up
    std::string key_dir;               // then: the key dir relative to the opened root
};
Result<ResolvedEntryRef> resolve_entry_ref(std::string_view text, const std::optional<std::filesystem::path>& root);

// A remote entry's bytes. The front ends pass remote::fetch_entry when Kiln is built with Redis
// support; without a fetcher a remote reference is Errc::unsupported.
struct FetchedEntry {
    std::string bytes;   // the entry pickle, as a local file holds it
    std::string origin;  // redis://host:port/db/<redis key> (no password)
};
using RemoteFetch = std::function<Result<FetchedEntry>(std::string_view url)>;

// One graph entry (show): a file or a remote entry. `label` is the path or the remote origin.
struct NamedEntry {
    inductor::GraphEntry entry;
    std::string label;
};
Result<NamedEntry> load_entry(const EntryRef& ref, const RemoteFetch& fetch = {});
// The entry file `rel` beneath an opened root, read through its descriptor (label: path_beneath).
Result<NamedEntry> load_entry(const inductor::OpenedRoot& root, std::string_view rel);

// The components of a cache key (diff): an entry file, a key dir with one entry, a log with one
// fx_graph event (or LOG#N / LOG#KEY), a trace directory, or a remote entry.
struct KeySide {
    std::string label;  // the path, the origin, or "log:line (artifact, key K)"
    std::vector<inductor::KeyComponent> components;
};
Result<KeySide> load_key_side(const EntryRef& ref, const RemoteFetch& fetch = {});

// torch's lookup (guards) over a key dir, one entry file, or a remote entry (named by its origin).
Result<inductor::GuardLookup> lookup_entry_guards(const EntryRef& ref, std::span<const std::int64_t> sizes,
                                                  const RemoteFetch& fetch = {});

}  // namespace kiln::frontend

#include "frontend/entry_ref.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>

#include "inductor/beneath_root.hpp"
#include "pickle/buffer.hpp"
#include "trace/trace_log.hpp"
#include "util/regular_file.hpp"

namespace fs = std::filesystem;

namespace kiln::frontend {
namespace {

using trace::CacheEvent;

bool is_remote(std::string_view text) { return text.starts_with("redis://") || text.starts_with("rediss://"); }

Result<FetchedEntry> fetch_remote(const EntryRef& ref, const RemoteFetch& fetch) {
    if (!fetch)
        return make_error(Errc::unsupported, "remote entries need Redis support, which this build lacks", ref.text,
                          "build Kiln with hiredis (libhiredis-dev)");
    return fetch(ref.text);
}

Result<KeySide> from_entry(const inductor::GraphEntry& entry, std::string label) {
    auto lines = entry.debug_lines();
    if (lines.empty())
        return make_error(Errc::not_found, "the entry has no _fx_graph_cache_debug_lines", label,
                          entry.is_aot_autograd() ? "AOTAutograd entries do not record their key's components"
                                                  : "older torch versions do not store them");
    auto comps = inductor::parse_debug_lines(lines);  // its errors say which line, this says which file
    if (!comps.ok()) return std::move(comps.error()).with_context(label);
    return KeySide{std::move(label), std::move(*comps)};
}

Result<KeySide> from_entry_file(const fs::path& file) {
    KILN_TRY(inductor::GraphEntry entry, inductor::load_graph_entry(file));
    return from_entry(entry, file.string());
}

Result<KeySide> from_event(const CacheEvent& e) {
    if (e.components.empty())
        return make_error(Errc::not_found, "the cache event records no components",
                          e.log + ":" + std::to_string(e.line));
    auto comps = inductor::parse_debug_lines(e.components);
    if (!comps.ok()) return std::move(comps.error()).with_context(e.log + ":" + std::to_string(e.line));
    return KeySide{e.log + ":" + std::to_string(e.line) + " (" + e.artifact + ", key " + e.key + ")",
                   std::move(*comps)};
}

Result<KeySide> from_log(const fs::path& log, const std::string& selector) {
    KILN_TRY(auto events, trace::read_trace_logs(log));
    std::vector<const CacheEvent*> fx;
    for (const auto& e : events)
        if (e.cache == "fx_graph") fx.push_back(&e);
    if (fx.empty()) {
        std::error_code ec;
        const bool dir = fs::is_directory(log, ec);
        return make_error(Errc::invalid_argument,
                          dir ? "no graph entry and no TORCH_TRACE log with fx_graph cache events in this directory"
                              : "no fx_graph cache events in this log",
                          log.string(),
                          "diff takes a graph entry file, a key dir holding one entry, or a TORCH_TRACE log "
                          "(LOG#N, LOG#KEY) written with TORCH_TRACE=<dir>");
    }
    if (selector.empty()) {
        if (fx.size() == 1) return from_event(*fx[0]);
        return make_error(Errc::invalid_argument, std::to_string(fx.size()) + " fx_graph cache events in the log",
                          log.string(), "name one: LOG#N (index from `kiln-cli misses`) or LOG#KEY");
    }
    std::size_t n = 0;
    auto [end, ec] = std::from_chars(selector.data(), selector.data() + selector.size(), n);
    if (ec == std::errc() && end == selector.data() + selector.size()) {
        if (n >= fx.size())
            return make_error(
                Errc::not_found,
                "no fx_graph cache event #" + selector + " (the log has " + std::to_string(fx.size()) + ")",
                log.string());
        return from_event(*fx[n]);
    }
    for (const auto& e : events)
        if (e.key.starts_with(selector)) return from_event(e);
    return make_error(Errc::not_found, "no cache event with a key starting with '" + selector + "'", log.string());
}

bool looks_like_pickle(const fs::path& p) {
    auto f = open_regular_file(p);  // a FIFO is no pickle, and must not block the sniffing
    if (!f.ok()) return false;
    auto head = read_prefix(*f, 1, p.string());
    return head.ok() && !head->empty() && static_cast<unsigned char>((*head)[0]) == 0x80;
}

}  // namespace

Result<EntryRef> parse_entry_ref(std::string_view text) {
    EntryRef ref;
    ref.text = std::string(text);
    if (text.empty())
        return make_error(Errc::invalid_argument, "empty entry reference", {}, "give a path, LOG#N or redis://…/KEY");
    if (is_remote(text)) {
        ref.kind = EntryRef::Kind::remote;
        return ref;
    }
    std::error_code ec;
    if (auto hash = text.rfind('#'); hash != std::string_view::npos && !fs::exists(fs::path(text), ec) &&
                                     fs::exists(fs::path(text.substr(0, hash)), ec)) {
        ref.kind = EntryRef::Kind::trace_event;
        ref.path = std::string(text.substr(0, hash));
        ref.selector = std::string(text.substr(hash + 1));
        return ref;
    }
    ref.path = ref.text;
    return ref;
}

bool is_key_prefix(const EntryRef& ref) {
    const std::string& t = ref.text;
    if (ref.kind != EntryRef::Kind::path || t.size() < 4 || t.size() > 52 || (t[0] != 'f' && t[0] != 'a')) return false;
    for (char c : t)
        if (!((c >= 'a' && c <= 'z') || (c >= '2' && c <= '7'))) return false;
    std::error_code ec;
    return !fs::exists(fs::symlink_status(t, ec));
}

Result<std::string> find_key_dir(const inductor::OpenedRoot& root, std::string_view prefix) {
    // FX key dirs are sharded by the key's 2nd and 3rd characters; AOT key dirs are not.
    std::vector<std::string> parents;
    if (prefix.starts_with('f') && prefix.size() >= 3) {
        parents.push_back("fxgraph/" + std::string(prefix.substr(1, 2)));
    } else if (prefix.starts_with('f')) {
        if (auto shards = inductor::list_beneath(root, "fxgraph"); shards.ok())
            for (const auto& s : *shards)
                if (s.directory) parents.push_back("fxgraph/" + s.name);
    } else {
        parents.push_back("aotautograd");
    }
    std::vector<std::string> found, names;
    for (const auto& parent : parents) {
        auto keys = inductor::list_beneath(root, parent);  // a missing shard holds no key
        if (!keys.ok()) continue;
        for (const auto& k : *keys)
            if (k.directory && k.name.starts_with(prefix)) found.push_back(parent + "/" + k.name);
    }
    std::sort(found.begin(), found.end());
    if (found.size() == 1) return found.front();
    if (found.empty())
        return make_error(Errc::not_found, "no graph entry key starts with '" + std::string(prefix) + "'",
                          root.path.string(), "`kiln-cli ls` lists the keys of this root; --root names another");
    std::string keys;
    for (const auto& f : found) keys += (keys.empty() ? "" : ", ") + f.substr(f.rfind('/') + 1);
    return make_error(Errc::invalid_argument,
                      std::to_string(found.size()) + " keys start with '" + std::string(prefix) + "': " + keys,
                      root.path.string(), "give more of the key");
}

Result<ResolvedEntryRef> resolve_entry_ref(std::string_view text, const std::optional<fs::path>& root) {
    ResolvedEntryRef out;
    KILN_TRY(out.ref, parse_entry_ref(text));
    if (!is_key_prefix(out.ref)) return out;
    KILN_TRY(auto cache, open_cache(root));
    auto dir = find_key_dir(cache.opened(), out.ref.text);
    if (!dir) return in_given_terms(cache, std::move(dir.error()));
    out.ref.path = inductor::path_beneath(cache.opened(), *dir);
    out.key_dir = std::move(*dir);
    out.cache = std::move(cache);
    return out;
}

Result<NamedEntry> load_entry(const EntryRef& ref, const RemoteFetch& fetch) {
    if (ref.kind == EntryRef::Kind::remote) {
        KILN_TRY(auto fetched, fetch_remote(ref, fetch));
        KILN_TRY(auto entry, inductor::decode_graph_entry(pickle::own_bytes(std::move(fetched.bytes), fetched.origin)));
        return NamedEntry{std::move(entry), std::move(fetched.origin)};
    }
    if (ref.kind == EntryRef::Kind::trace_event)
        return make_error(Errc::invalid_argument, "a cache event is not a graph entry", ref.text,
                          "name the entry file");
    KILN_TRY(auto entry, inductor::load_graph_entry(ref.path));
    return NamedEntry{std::move(entry), ref.path};
}

Result<NamedEntry> load_entry(const inductor::OpenedRoot& root, std::string_view rel) {
    std::string label = inductor::path_beneath(root, rel);
    KILN_TRY(OpenedFile file, inductor::open_beneath(root, rel));
    KILN_TRY(auto buffer, pickle::load_opened_file(file, label));
    KILN_TRY(auto entry, inductor::decode_graph_entry(std::move(buffer)));
    return NamedEntry{std::move(entry), std::move(label)};
}

Result<KeySide> load_key_side(const EntryRef& ref, const RemoteFetch& fetch) {
    switch (ref.kind) {
        case EntryRef::Kind::remote: {
            KILN_TRY(auto named, load_entry(ref, fetch));
            return from_entry(named.entry, std::move(named.label));
        }
        case EntryRef::Kind::trace_event: return from_log(ref.path, ref.selector);
        case EntryRef::Kind::path: break;
    }
    std::error_code ec;
    if (fs::is_directory(ref.path, ec)) {
        KILN_TRY(auto files, inductor::key_dir_entries(ref.path));
        if (files.size() == 1) return from_entry_file(files[0]);
        if (!files.empty())
            return make_error(Errc::invalid_argument, "the key dir holds " + std::to_string(files.size()) + " entries",
                              ref.path, "name one entry file");
        return from_log(ref.path, "");  // a directory of TORCH_TRACE logs
    }
    if (!fs::is_regular_file(ref.path, ec)) return wrong_path_error(ref.path, "no such entry, key dir or log");
    if (looks_like_pickle(ref.path)) return from_entry_file(ref.path);
    return from_log(ref.path, "");
}

Result<inductor::GuardLookup> lookup_entry_guards(const EntryRef& ref, std::span<const std::int64_t> sizes,
                                                  const RemoteFetch& fetch) {
    if (ref.kind != EntryRef::Kind::remote) {
        if (ref.kind == EntryRef::Kind::trace_event)
            return make_error(Errc::invalid_argument, "a cache event has no guards", ref.text,
                              "name a key dir or an entry");
        return inductor::lookup_guards(ref.path, sizes);
    }
    KILN_TRY(auto named, load_entry(ref, fetch));
    KILN_TRY(auto check, inductor::check_entry_guards(named.entry, named.label, sizes));
    inductor::GuardLookup out;
    if (check.pass) out.served = check.file;
    out.entries.push_back(std::move(check));
    return out;
}

}  // namespace kiln::frontend

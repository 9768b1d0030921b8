#include "bundle/pack.hpp"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <map>
#include <set>

#include "bundle/blob_writer.hpp"
#include "inductor/evict.hpp"
#include "inductor/roots.hpp"
#include "pickle/buffer.hpp"
#include "util/unique_fd.hpp"

namespace kiln::bundle {
namespace {

bool looks_like_date(std::string_view t) { return t.size() >= 10 && t[4] == '-'; }

// The keys `token` names: exactly, as a PGO profile's original key or file name, or as a unique prefix.
Result<std::set<std::string>> match_select(const std::vector<RootArtifact>& all, const std::string& token) {
    std::set<std::string> exact, prefix;
    for (const auto& a : all) {
        bool hit = a.key == token;
        if (a.type == ArtifactType::autotune) hit |= a.key.substr(3) == token || a.key.substr(3, 64) == token;
        if (a.type == ArtifactType::pgo)
            hit |= pgo_file_name(token) == pgo_file_name(a.key) || token == pgo_file_name(a.key);
        if (hit) exact.insert(a.key);
        else if (token.size() >= kMinKeyPrefix &&
                 (a.key.rfind(token, 0) == 0 || (a.type == ArtifactType::autotune && a.key.find(token) == 3)))
            prefix.insert(a.key);
    }
    if (!exact.empty()) return exact;
    if (prefix.size() == 1) return prefix;
    if (prefix.empty() && token.size() < kMinKeyPrefix)
        return make_error(
            Errc::invalid_argument,
            "no key is \"" + token + "\", and a key prefix needs " + std::to_string(kMinKeyPrefix) + "+ characters",
            token, "give " + std::to_string(kMinKeyPrefix) + " or more characters of the key");
    if (prefix.empty())
        return make_error(Errc::invalid_argument, "no artifact with this key in the cache", token,
                          "`kiln-cli bundle pack ROOT --out X` without --select packs everything; `kiln-cli stats "
                          "ROOT` lists what is there");
    return make_error(
        Errc::invalid_argument,
        "more than one key starts with this (" + *prefix.begin() + ", " + *std::next(prefix.begin()) + ", ...)", token,
        "give more characters");
}

bool wanted_by_default(const RootArtifact& a, const PackOptions& o) {
    if (a.type == ArtifactType::pgo) return o.include_pgo;
    if (a.type == ArtifactType::precompile) return o.include_precompile;
    return true;
}

// Adds every file of the Inductor keys the chosen aot_autograd entries name.
void add_closure(int root_fd, const RootArtifacts& root, std::vector<bool>& chosen,
                 std::map<std::size_t, std::string>& closure_of, std::vector<std::string>& notes) {
    std::set<std::string> present;
    for (const auto& a : root.artifacts)
        if (a.type == ArtifactType::inductor) present.insert(a.key);
    for (std::size_t i = 0; i < root.artifacts.size(); ++i) {
        const RootArtifact& a = root.artifacts[i];
        if (!chosen[i] || a.type != ArtifactType::aot_autograd) continue;
        auto buffer = read_root_artifact(root_fd, a, UINT64_MAX);
        auto keys = buffer.ok() ? aot_autograd_graph_keys(std::move(buffer).value()) : Result<Closure>(buffer.error());
        if (!keys.ok()) {
            notes.push_back(a.rel_path + ": cannot read the graphs it names (" + keys.error().message + ")");
            continue;
        }
        for (const auto& fx : {keys->forward, keys->backward}) {
            if (!fx) continue;
            if (!present.count(*fx)) {
                notes.push_back("aot_autograd " + a.key + " names graph " + *fx +
                                ", which is not in the cache: it will miss after loading");
                continue;
            }
            for (std::size_t j = 0; j < root.artifacts.size(); ++j)
                if (root.artifacts[j].type == ArtifactType::inductor && root.artifacts[j].key == *fx && !chosen[j]) {
                    chosen[j] = true;
                    closure_of[j] = a.key;
                }
        }
    }
}

Result<std::vector<bool>> choose(const RootArtifacts& root, const PackOptions& o, std::vector<std::string>& notes) {
    std::vector<bool> chosen(root.artifacts.size(), false);
    std::set<std::string> selected;
    for (const auto& token : o.select) {
        KILN_TRY(auto keys, match_select(root.artifacts, token));
        selected.insert(keys.begin(), keys.end());
    }
    std::size_t pgo_left = 0;
    for (std::size_t i = 0; i < root.artifacts.size(); ++i) {
        const RootArtifact& a = root.artifacts[i];
        if (!o.select.empty()) chosen[i] = selected.count(a.key) > 0;
        else chosen[i] = wanted_by_default(a, o) && (!o.since_ns || a.mtime_ns >= *o.since_ns);
        pgo_left += a.type == ArtifactType::pgo && !chosen[i];
    }
    if (pgo_left && o.select.empty() && !o.include_pgo)
        notes.push_back(std::to_string(pgo_left) +
                        " PGO profile(s) left out (--include-pgo packs them; they serve only the same job id)");
    return chosen;
}

}  // namespace

Error timings_refusal(const std::string& root) {
    return make_error(Errc::unsupported,
                      "--timings: nothing was packed. torch 2.11's load_cache_artifacts would write the timing "
                      "cache as an autotune artifact keyed cache/<system hash>, byte for byte, but it replaces "
                      "the target's file whole (AutotuneCacheArtifact.populate_cache is a write_atomic, with no "
                      "merge): every timing the target machine has for that GPU and software, newer ones included, "
                      "would be lost",
                      root,
                      "hand timings over merged instead: `kiln-cli retune ROOT --publish redis://…` here and "
                      "`kiln-cli retune --fetch redis://… --write ROOT` there (or copy a re-tune's JSON and "
                      "`--write` it there); pack without --timings");
}

Result<PackResult> pack_root(const inductor::OpenedRoot& opened, const PackOptions& options) {
    if (options.include_timings) return timings_refusal(opened.path.string());
    // One descriptor of the root for the scan and every read (as evict): a file swapped for a symlink
    // after the scan, or a root path swapped for another, is never read.
    const int root_fd = opened.fd;
    KILN_TRY(RootArtifacts root, collect_root_artifacts(opened));
    PackResult out;
    out.root = root.root;
    for (const auto& s : root.skipped) out.notes.push_back("skipped " + s);
    KILN_TRY(std::vector<bool> chosen, choose(root, options, out.notes));
    std::map<std::size_t, std::string> closure_of;
    add_closure(root_fd, root, chosen, closure_of, out.notes);

    std::vector<std::shared_ptr<const pickle::Buffer>> keep;  // the bytes stay alive until the blob is built
    std::vector<OutGroup> groups;
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < root.artifacts.size(); ++i) {
        if (!chosen[i]) continue;
        const RootArtifact& a = root.artifacts[i];
        total += a.size;
        if (total > options.max_bytes)
            return make_error(
                Errc::limit,
                "the selected artifacts exceed the limit of " + std::to_string(options.max_bytes) + " bytes", root.root,
                "select fewer artifacts or raise --max-size");
        KILN_TRY(auto buffer, read_root_artifact(root_fd, a, options.max_bytes));
        if (groups.empty() || groups.back().type != a.type) groups.push_back({a.type, {}});
        groups.back().artifacts.push_back({a.key, buffer->bytes()});
        out.artifacts.push_back(
            {a.type, a.key, a.rel_path, buffer->bytes().size(), closure_of.count(i) ? closure_of[i] : std::string()});
        keep.push_back(std::move(buffer));
    }
    if (out.artifacts.empty())
        return make_error(Errc::not_found, "nothing to pack", root.root,
                          options.since_ns ? "no artifact was modified since then"
                                           : "the cache holds no graph entries, best configs or profiles");
    KILN_TRY(out.blob, build_blob(groups, options.max_bytes));
    return out;
}

Result<std::int64_t> parse_since(std::string_view text, std::int64_t now_ns) {
    if (!looks_like_date(text)) {
        KILN_TRY(std::int64_t age, inductor::parse_age_ns(text));
        return now_ns - age;
    }
    // YYYY-MM-DD, then optionally [T ]HH:MM, :SS and Z: fixed positions, every digit checked.
    std::string_view t = text;
    if (!t.empty() && t.back() == 'Z') t.remove_suffix(1);
    auto num = [&](std::size_t at, std::size_t len) -> int {
        if (at + len > t.size()) return -1;
        int v = 0;
        for (std::size_t i = at; i < at + len; ++i) {
            if (t[i] < '0' || t[i] > '9') return -1;
            v = v * 10 + (t[i] - '0');
        }
        return v;
    };
    struct tm tm {};
    int y = num(0, 4), mo = num(5, 2), d = num(8, 2), h = 0, mi = 0, sec = 0;
    bool ok = t.size() >= 10 && t[7] == '-' && y >= 1970;
    if (ok && t.size() > 10) {
        ok = (t[10] == 'T' || t[10] == ' ') && t.size() >= 16 && t[13] == ':' && (h = num(11, 2)) >= 0 &&
             (mi = num(14, 2)) >= 0;
        if (ok && t.size() > 16) ok = t.size() == 19 && t[16] == ':' && (sec = num(17, 2)) >= 0;
    }
    if (!ok || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
        return make_error(Errc::invalid_argument, "not a date", std::string(text),
                          "YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS][Z] (UTC), or an age such as 2h");
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = sec;
    return static_cast<std::int64_t>(::timegm(&tm)) * 1000000000LL;
}

}  // namespace kiln::bundle

// kiln-cli bundle ls / show / diff: reading blobs (bundle_commands.hpp).
#include <cstdio>
#include <iostream>
#include <map>
#include <set>

#include "bundle/blob.hpp"
#include "bundle/diff.hpp"
#include "bundle/pack.hpp"
#include "bundle_commands.hpp"
#include "command_registry.hpp"
#include "inductor/evict.hpp"
#include "inductor/stats.hpp"
#include "pickle/decoder.hpp"
#include "pickle/json.hpp"
#include "util/json_out.hpp"
#include "util/utf8.hpp"

namespace kiln::cli::bundle_cmd {
namespace {

using namespace kiln::bundle;

std::string hex32(std::uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%08x", v);
    return buf;
}

Result<Blob> open(const BlobArgs& a) {
    ReadOptions o;
    o.verify_checksum = !a.no_verify;
    if (!a.max_size.empty()) {
        KILN_TRY(o.max_bytes, inductor::parse_size(a.max_size));
    }
    return open_blob(a.blob, o);
}

// What torch 2.11 does with the blob, in one phrase.
std::string verdict(const Blob& b) {
    if (!b.checksum_ok()) return "torch refuses it (checksum mismatch) and loads nothing";
    if (!b.unknown_types().empty())
        return "torch 2.11 rejects it (unknown type '" + printable_name(b.unknown_types().front()) +
               "') and loads nothing";
    if (b.invalid_keys())
        return "torch loads it, but " + std::to_string(b.invalid_keys()) + " key(s) would write outside the cache dir";
    return "torch loads it";
}

std::size_t files_written(const Blob& b) {
    std::size_t n = 0;
    for (const auto& a : b.artifacts) n += a.effective() + (a.effective() && a.kind == ArtifactType::pgo);
    return n;
}

std::vector<std::string> problems(const Blob& b) {
    std::vector<std::string> out;
    for (const auto& g : b.groups) {
        if (g.ignored_by_torch)
            out.push_back(
                "group '" + printable_name(g.type) + "' at byte " + std::to_string(g.offset) + " (" +
                std::to_string(g.count) +
                " artifacts) is ignored by torch: a later group has the same type and only the last one loads");
        if (g.kind == ArtifactType::unknown)
            out.push_back("type '" + printable_name(g.type) + "' (group at byte " + std::to_string(g.offset) +
                          "): " + std::string(unknown_type_note(g.type)));
    }
    for (const auto& a : b.artifacts) {
        if (!a.key_problem.empty())
            out.push_back("key '" + printable_name(a.key) + "' (" + printable_name(b.groups[a.group].type) + ", byte " +
                          std::to_string(a.offset) + ") is " + a.key_problem +
                          ": Kiln never writes it; torch would write it where it points");
        if (a.superseded)
            out.push_back("'" + printable_name(a.key) + "' at byte " + std::to_string(a.offset) +
                          " is superseded by a later copy (last wins)");
        if (a.kind == ArtifactType::pgo && a.key.rfind("mast:", 0) == 0)
            out.push_back("PGO key '" + printable_name(a.key) +
                          "' starts with mast: torch renames it to the loading job's key when it has one");
    }
    return out;
}

nlohmann::ordered_json ls_json(const Blob& b) {
    nlohmann::ordered_json j;
    j["blob"] = b.origin();
    j["bytes"] = b.bytes().size();
    j["version"] = b.version;
    j["crc32"] = hex32(b.stored_crc);
    j["crc32_computed"] = hex32(b.computed_crc);
    j["checksum_ok"] = b.checksum_ok();
    j["torch_loads"] = b.checksum_ok() && b.unknown_types().empty();
    j["files_written"] = files_written(b);
    j["groups"] = nlohmann::ordered_json::array();
    for (const auto& g : b.groups)
        j["groups"].push_back(
            {{"type", g.type}, {"offset", g.offset}, {"count", g.count}, {"ignored_by_torch", g.ignored_by_torch}});
    j["artifacts"] = nlohmann::ordered_json::array();
    for (const auto& a : b.artifacts) {
        nlohmann::ordered_json x = {{"type", b.groups[a.group].type},
                                    {"key", a.key},
                                    {"bytes", a.content.size()},
                                    {"offset", a.offset},
                                    {"content_offset", a.content_offset}};
        x["target"] = a.target.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(a.target);
        x["ignored_by_torch"] = a.ignored_by_torch;
        x["superseded"] = a.superseded;
        x["key_problem"] = a.key_problem.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(a.key_problem);
        j["artifacts"].push_back(std::move(x));
    }
    j["problems"] = problems(b);
    return j;
}

void ls_text(const Blob& b) {
    std::printf("%s: a Mega-Cache blob, %s (format %llu, CRC-32 %s %s); %s\n", b.origin().c_str(),
                inductor::format_bytes(b.bytes().size()).c_str(), static_cast<unsigned long long>(b.version),
                hex32(b.stored_crc).c_str(),
                b.checksum_ok() ? "ok" : ("MISMATCH, computed " + hex32(b.computed_crc)).c_str(), verdict(b).c_str());
    std::map<std::string, int> per_type;
    std::vector<std::string> order;
    for (const auto& a : b.artifacts)
        if (per_type[b.groups[a.group].type]++ == 0) order.push_back(b.groups[a.group].type);
    std::string counts;
    for (const auto& t : order)
        counts += (counts.empty() ? "" : ", ") + std::to_string(per_type[t]) + " " + printable_name(t);
    std::printf("%zu artifact(s) in %zu group(s)%s%s; load_cache_artifacts writes %zu file(s)\n\n", b.artifacts.size(),
                b.groups.size(), counts.empty() ? "" : ": ", counts.c_str(), files_written(b));
    std::printf("%-3s %-13s %11s  %s\n", "#", "type", "bytes", "key  ->  file torch writes (under the cache dir)");
    for (std::size_t i = 0; i < b.artifacts.size(); ++i) {
        const BlobArtifact& a = b.artifacts[i];
        std::string where = !a.key_problem.empty() ? "(refused: " + a.key_problem + ")"
                            : a.target.empty()     ? "(unknown type: nothing)"
                                                   : printable_name(a.target);
        if (a.kind == ArtifactType::pgo && a.key_problem.empty())
            where += "  (+ the empty .lock torch's FileLock leaves)";
        if (a.ignored_by_torch) where += "  [ignored by torch: shadowed group]";
        if (a.superseded) where += "  [superseded: a later copy wins]";
        std::printf("%-3zu %-13s %11zu  %s\n%30s-> %s\n", i + 1, printable_name(b.groups[a.group].type).c_str(),
                    a.content.size(), printable_name(a.key).c_str(), "", where.c_str());
    }
    auto p = problems(b);
    if (!p.empty()) std::printf("\nnotes:\n");
    for (const auto& line : p) std::printf("  %s\n", line.c_str());
}

// Artifacts whose key is KEY, or (if none) the one key of which KEY is a prefix of kMinKeyPrefix+ characters.
Result<std::vector<const BlobArtifact*>> find_key(const Blob& b, const std::string& key) {
    std::vector<const BlobArtifact*> exact;
    std::set<std::string> prefixed;
    for (const auto& a : b.artifacts) {
        bool hit = a.key == key || (a.kind == ArtifactType::autotune && a.key.size() > 3 && a.key.substr(3) == key) ||
                   (a.kind == ArtifactType::pgo && pgo_file_name(a.key) == pgo_file_name(key));
        if (hit) exact.push_back(&a);
        else if (key.size() >= kMinKeyPrefix &&
                 (a.key.rfind(key, 0) == 0 || (a.kind == ArtifactType::autotune && a.key.find(key) == 3)))
            prefixed.insert(a.key);
    }
    if (!exact.empty()) return exact;
    if (prefixed.size() == 1) {
        for (const auto& a : b.artifacts)
            if (a.key == *prefixed.begin()) exact.push_back(&a);
        return exact;
    }
    if (prefixed.empty() && key.size() < kMinKeyPrefix)
        return make_error(Errc::invalid_argument,
                          "no key is \"" + printable_name(key) + "\", and a key prefix needs " +
                              std::to_string(kMinKeyPrefix) + "+ characters",
                          printable_name(key),
                          "give " + std::to_string(kMinKeyPrefix) +
                              " or more characters of the key; `kiln-cli bundle ls " + b.origin() + "` lists them");
    if (prefixed.empty())
        return make_error(Errc::not_found, "no artifact with this key in the blob", printable_name(key),
                          "`kiln-cli bundle ls " + b.origin() + "` lists them");
    return make_error(Errc::invalid_argument, "more than one key starts with this", printable_name(key),
                      "give more characters");
}

int show_one(const Blob& b, const BlobArtifact& a, const ShowArgs& args) {
    auto buffer = artifact_buffer(b, a);
    std::string label = buffer->origin() + " (" + std::to_string(a.content.size()) + " bytes at byte " +
                        std::to_string(a.content_offset) +
                        (a.ignored_by_torch ? "; ignored by torch"
                         : a.superseded     ? "; superseded by a later copy"
                                            : "") +
                        ")";
    if (a.kind == ArtifactType::inductor || a.kind == ArtifactType::aot_autograd) {
        auto entry = inductor::decode_graph_entry(buffer);
        if (!entry.ok()) return fail(entry.error());
        return print_entry(label, *entry, args.print);
    }
    if (a.kind == ArtifactType::autotune) {  // JSON text
        if (!args.print.json) std::printf("%s\n", label.c_str());
        std::printf("%.*s\n", static_cast<int>(a.content.size()), a.content.data());
        return 0;
    }
    auto doc = pickle::decode(buffer);  // PGO profiles, precompile entries, unknown types: the object tree
    if (!doc.ok()) return fail(doc.error());
    if (!args.print.json) std::printf("%s\n", label.c_str());
    std::printf("%s\n", dump_json(pickle::to_json((*doc)->root()), args.print.json ? -1 : 2).c_str());
    return 0;
}

}  // namespace

int run_ls(const BlobArgs& args) {
    auto blob = open(args);
    if (!blob.ok()) return fail(blob.error());
    if (args.json) std::cout << dump_json(ls_json(*blob)) << "\n";
    else ls_text(*blob);
    // A blob torch refuses or that holds keys pointing outside the cache is a finding.
    return blob->checksum_ok() && blob->unknown_types().empty() && blob->invalid_keys() == 0 ? 0 : 1;
}

int run_show(const ShowArgs& args) {
    if (args.print.raw && args.print.field.empty())
        return fail(make_error(Errc::invalid_argument, "--raw needs --field NAME"));
    auto blob = open(args.blob);
    if (!blob.ok()) return fail(blob.error());
    auto found = find_key(*blob, args.key);
    if (!found.ok()) return fail(found.error());
    if (args.bytes) {
        const BlobArtifact* last = found->back();  // the copy torch keeps when a key repeats
        std::fwrite(last->content.data(), 1, last->content.size(), stdout);
        return 0;
    }
    int status = 0;
    for (std::size_t i = 0; i < found->size(); ++i) {
        if (i > 0 && !args.print.json) std::printf("\n");
        if (int rc = show_one(*blob, *(*found)[i], args)) status = rc;
    }
    return status;
}

int run_diff(const DiffArgs& args) {
    auto d = diff_bundles(args.a, args.b);
    if (!d.ok()) return fail(d.error());
    if (args.json) {
        nlohmann::ordered_json j = {{"a", d->a_label}, {"b", d->b_label}};
        j["keys"] = nlohmann::ordered_json::array();
        auto entries = [](const std::vector<SideEntry>& v) {
            auto arr = nlohmann::ordered_json::array();
            for (const auto& e : v) arr.push_back({{"hash", e.hash}, {"bytes", e.bytes}});
            return arr;
        };
        for (const auto& k : d->keys)
            j["keys"].push_back({{"type", artifact_type_name(k.type)},
                                 {"key", k.key},
                                 {"status", diff_status_name(k.status)},
                                 {"a", entries(k.a)},
                                 {"b", entries(k.b)}});
        std::cout << dump_json(j) << "\n";
        return 0;
    }
    std::printf("A: %s\nB: %s\n", d->a_label.c_str(), d->b_label.c_str());
    std::printf("%zu key(s) only in A, %zu only in B, %zu with different bytes, %zu identical\n",
                d->count(DiffStatus::only_a), d->count(DiffStatus::only_b), d->count(DiffStatus::differ),
                d->count(DiffStatus::same));
    for (DiffStatus s : {DiffStatus::only_a, DiffStatus::only_b, DiffStatus::differ}) {
        if (!d->count(s)) continue;
        std::printf("\n%s:\n", s == DiffStatus::only_a   ? "only in A"
                               : s == DiffStatus::only_b ? "only in B"
                                                         : "different bytes");
        for (const auto& k : d->keys) {
            if (k.status != s) continue;
            std::printf("  %-13s %s", std::string(artifact_type_name(k.type)).c_str(), printable_name(k.key).c_str());
            if (s == DiffStatus::differ)
                std::printf("  (A: %zu entr%s, B: %zu)", k.a.size(), k.a.size() == 1 ? "y" : "ies", k.b.size());
            std::printf("\n");
        }
    }
    return 0;
}

}  // namespace kiln::cli::bundle_cmd

// kiln-cli bundle unpack / pack: writing caches and blobs (bundle_commands.hpp).
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>

#include "bundle/blob.hpp"
#include "bundle/pack.hpp"
#include "bundle/unpack.hpp"
#include "bundle_commands.hpp"
#include "command_registry.hpp"
#include "frontend/open_cache.hpp"
#include "hash/crc32.hpp"
#include "inductor/evict.hpp"
#include "inductor/stats.hpp"
#include "util/atomic_file.hpp"
#include "util/json_out.hpp"
#include "util/utf8.hpp"

namespace kiln::cli::bundle_cmd {
namespace {

using namespace kiln::bundle;

nlohmann::ordered_json unpack_json(const UnpackReport& r) {
    nlohmann::ordered_json j = {{"root", r.root},
                                {"dry_run", r.dry_run},
                                {"refused", r.refused},
                                {"files_written", r.files_written},
                                {"bytes_written", r.bytes_written}};
    j["steps"] = nlohmann::ordered_json::array();
    for (const auto& s : r.steps) {
        nlohmann::ordered_json x = {{"action", unpack_action_name(s.action)},
                                    {"target", s.target},
                                    {"type", s.type},
                                    {"key", s.key},
                                    {"bytes", s.bytes}};
        if (!s.why.empty()) x["why"] = s.why;
        j["steps"].push_back(std::move(x));
    }
    j["notes"] = r.notes;
    return j;
}

void unpack_text(const UnpackReport& r, const std::string& blob) {
    std::size_t same = 0;
    for (const auto& s : r.steps) same += s.action == UnpackAction::same;
    if (r.refused)
        std::printf(
            "%s: %zu file(s) in %s are in the way (other bytes, or not a file); nothing was written. --force replaces "
            "files.\n",
            r.dry_run ? "Would be refused" : "Refused", r.conflicts(), r.root.c_str());
    else
        std::printf("%s %llu file(s), %s, from %s into %s; %zu already there with the same bytes\n",
                    r.dry_run ? "Would write" : "Wrote", static_cast<unsigned long long>(r.files_written),
                    inductor::format_bytes(r.bytes_written).c_str(), blob.c_str(), r.root.c_str(), same);
    for (const auto& s : r.steps)
        std::printf("  %-8s %11llu  %s%s%s\n", std::string(unpack_action_name(s.action)).c_str(),
                    static_cast<unsigned long long>(s.bytes), printable_name(s.target).c_str(),
                    s.why.empty() ? "" : ": ", s.why.c_str());
    for (const auto& n : r.notes) std::printf("note: %s\n", printable_name(n).c_str());
    if (r.dry_run) std::printf("Dry run: nothing was written.\n");
}

std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

Result<PackOptions> pack_options(const PackArgs& a) {
    PackOptions o;
    o.select = a.select;
    o.include_pgo = a.include_pgo;
    o.include_timings = a.timings;
    o.include_precompile = !a.no_precompile;
    o.max_bytes = kDefaultMaxBlobBytes;
    if (!a.since.empty()) {
        KILN_TRY(o.since_ns, parse_since(a.since, now_ns()));
    }
    if (!a.max_size.empty()) {
        KILN_TRY(o.max_bytes, inductor::parse_size(a.max_size));
    }
    return o;
}

void pack_text(const PackResult& r, const std::string& out) {
    std::map<std::string, int> per_type;
    for (const auto& a : r.artifacts) ++per_type[std::string(artifact_type_name(a.type))];
    std::string counts;
    for (const auto& [t, n] : per_type) counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + t;
    std::printf("Packed %zu artifact(s) (%s) from %s into %s: %s\n", r.artifacts.size(), counts.c_str(), r.root.c_str(),
                out.c_str(), inductor::format_bytes(r.blob.size()).c_str());
    std::size_t closure = 0;
    for (const auto& a : r.artifacts) {
        std::printf("  %-13s %11llu  %s", std::string(artifact_type_name(a.type)).c_str(),
                    static_cast<unsigned long long>(a.bytes), printable_name(a.rel_path).c_str());
        if (!a.closure_of.empty())
            std::printf("  (added: aot_autograd %s needs it)", printable_name(a.closure_of).c_str());
        std::printf("\n");
        closure += !a.closure_of.empty();
    }
    if (closure)
        std::printf("%zu graph entr%s added for closure (the graphs selected AOTAutograd entries name)\n", closure,
                    closure == 1 ? "y" : "ies");
    for (const auto& n : r.notes) std::printf("note: %s\n", printable_name(n).c_str());
}

}  // namespace

int run_unpack(const UnpackArgs& args) {
    ReadOptions o;
    o.verify_checksum = !args.blob.no_verify;
    if (!args.blob.max_size.empty()) {
        auto size = inductor::parse_size(args.blob.max_size);
        if (!size.ok()) return fail(size.error());
        o.max_bytes = *size;
    }
    auto blob = open_blob(args.blob.blob, o);
    if (!blob.ok()) return fail(blob.error());
    UnpackOptions u;
    u.dry_run = args.dry_run;
    u.force = args.force;
    u.ignore_unknown = args.ignore_unknown;
    auto report = unpack_blob(*blob, args.into, u);
    if (!report.ok()) return fail(report.error());
    if (args.blob.json) std::cout << dump_json(unpack_json(*report)) << "\n";
    else unpack_text(*report, args.blob.blob);
    return report->refused ? 1 : 0;
}

int run_pack(const PackArgs& args) {
    auto options = pack_options(args);
    if (!options.ok()) return fail(options.error());
    // A blob packs as the root load_cache_artifacts would make of it (a subset with --select).
    auto cache = frontend::open_cache(std::filesystem::path(args.root));
    if (!cache) return fail(cache.error());
    auto packed = pack_root(cache->opened(), *options);
    if (!packed.ok()) return fail(packed.error());
    if (cache->is_blob()) packed->root = cache->label;
    Status written = write_atomic(args.out, packed->blob);
    if (!written.ok()) return fail(written.error());
    if (args.json) {
        nlohmann::ordered_json j = {{"root", packed->root}, {"out", args.out}, {"bytes", packed->blob.size()}};
        j["artifacts"] = nlohmann::ordered_json::array();
        for (const auto& a : packed->artifacts) {
            nlohmann::ordered_json x = {
                {"type", artifact_type_name(a.type)}, {"key", a.key}, {"path", a.rel_path}, {"bytes", a.bytes}};
            x["closure_of"] = a.closure_of.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(a.closure_of);
            j["artifacts"].push_back(std::move(x));
        }
        j["notes"] = packed->notes;
        std::cout << dump_json(j) << "\n";
    } else {
        pack_text(*packed, args.out);
    }
    return 0;
}

}  // namespace kiln::cli::bundle_cmd

// kiln-cli show FILE...: what an Inductor graph entry (fxgraph/..., aotautograd/...) holds, read
// by the safe decoder (nothing in the file is imported or run). A summary for people, `--json`
// for programs (one object a line), `--field NAME [--raw]` for one field.
#include <cstdio>
#include <iostream>

#include "command_registry.hpp"
#include "inductor/graph_entry.hpp"
#include "pickle/buffer.hpp"
#include "pickle/json.hpp"

namespace kiln::cli {
namespace {

struct ShowArgs {
    std::vector<std::string> files;
    bool json = false;
    std::string field;
    bool raw = false;
};

std::string dump(const nlohmann::ordered_json& j, int indent = -1) {
    return j.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string join(const std::vector<std::string>& parts, const char* sep = ", ") {
    std::string out;
    for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
    return out.empty() ? "-" : out;
}

void row(const char* label, const std::string& value) { std::printf("  %-18s %s\n", label, value.c_str()); }

void print_summary(const std::string& path, const inductor::GraphEntry& e) {
    std::printf("%s\n", path.c_str());
    row("type", e.type());
    if (auto k = e.cache_key()) row("cache_key", *k);
    if (auto k = e.fx_graph_cache_key()) row("fx graph key", *k);
    if (auto k = e.forward_fx_key()) row("forward graph", *k);
    if (auto k = e.backward_fx_key()) row("backward graph", *k);
    if (e.field("guards_expr")) row("guards", e.guards_expr().value_or("(none)"));
    if (auto t = e.time_taken_ns()) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.3f ms", static_cast<double>(*t) / 1e6);
        row("compile time", buf);
    }
    if (e.field("device_types")) {
        std::vector<std::string> idx;
        for (auto i : e.device_idxs()) idx.push_back(std::to_string(i));
        row("devices", join(e.device_types()) + " (indices " + join(idx) + ")");
    }
    if (e.field("mutated_inputs")) row("mutated inputs", join(e.mutated_inputs()));
    if (auto src = e.source_code()) {
        std::size_t lines = 0;
        for (char c : *src) lines += c == '\n';
        row("source code",
            std::to_string(src->size()) + " bytes, " + std::to_string(lines) + " lines (--field source_code --raw)");
    }
    if (e.field("_fx_graph_cache_debug_lines"))
        row("key components", std::to_string(e.debug_lines().size()) + " debug lines");
    auto kernels = e.triton_bundle();
    if (!kernels.empty()) {
        std::uint64_t bytes = 0;
        for (const auto& k : kernels) bytes += k.total_bytes();
        row("triton kernels", std::to_string(kernels.size()) + " bundled, " + std::to_string(bytes) + " bytes");
        for (const auto& k : kernels)
            std::printf("  %-18s %s  %s  device %s  %zu files, %llu bytes\n", "", k.name.c_str(), k.kernel_hash.c_str(),
                        k.device ? std::to_string(*k.device).c_str() : "?", k.files.size(),
                        static_cast<unsigned long long>(k.total_bytes()));
    }
    auto names = e.field_names();
    std::printf("  fields (%zu):\n", names.size());
    for (const auto& n : names) std::printf("    %-36s %s\n", n.c_str(), pickle::short_repr(e.field(n), 90).c_str());
}

// Prints one field; returns the exit status. A field this entry lacks (or has in no text form) is
// a failure of the work on this entry, not bad usage: other entries may well have it.
int print_field(const std::string& path, const inductor::GraphEntry& e, const ShowArgs& a) {
    pickle::Ref v = e.field(a.field);
    if (!v) {
        return fail(
            make_error(Errc::unavailable, "no field '" + a.field + "'", path, "fields: " + join(e.field_names())));
    }
    if (a.raw) {
        if (!(v->is(pickle::Kind::string) || v->is(pickle::Kind::bytes) || v->is(pickle::Kind::bytearray)))
            return fail(make_error(Errc::unavailable,
                                   "field '" + a.field + "' is a " + pickle::kind_name(v->kind()) + ", not text", path,
                                   "drop --raw to print it as JSON"));
        std::fwrite(v->text().data(), 1, v->text().size(), stdout);
        return 0;
    }
    std::printf("%s\n", dump(pickle::to_json(v), a.json ? -1 : 2).c_str());
    return 0;
}

// A local entry file, or (with Redis support) a remote value redis://host:port[/db]/KEY.
Result<inductor::GraphEntry> load_any(const std::string& text) {
    KILN_TRY(auto ref, frontend::parse_entry_ref(text));
    KILN_TRY(auto named, frontend::load_entry(ref, remote_fetch()));
    return std::move(named.entry);
}

int run_show(const ShowArgs& a) {
    if (a.raw && a.field.empty()) return fail(make_error(Errc::invalid_argument, "--raw needs --field NAME"));
    int status = 0;
    for (std::size_t i = 0; i < a.files.size(); ++i) {
        const auto& path = a.files[i];
        auto entry = load_any(path);
        if (!entry.ok()) {
            std::fflush(stdout);
            status = fail(entry.error());
            continue;
        }
        if (!a.field.empty()) {
            if (int rc = print_field(path, *entry, a)) status = rc;
        } else if (a.json) {
            std::printf("%s\n", dump(entry->to_json()).c_str());
        } else {
            if (i > 0) std::printf("\n");
            print_summary(path, *entry);
        }
    }
    return status;
}

Registration reg{
    "show", 40, [](CLI::App& app, Outcome& outcome) {
        auto args = std::make_shared<ShowArgs>();
        auto* cmd = app.add_subcommand(
            "show", "What graph entries hold (fxgraph/..., aotautograd/...), decoded without running them");
        cmd->add_option("FILE", args->files, "Graph entry files, or remote entries redis://host:port[/db]/KEY")
            ->required();
        cmd->add_flag("--json", args->json, R"(One JSON object a file: {"type": "module.Class", "fields": {...}})");
        cmd->add_option("--field", args->field, "Print only this field (JSON; with --raw its text as is)");
        cmd->add_flag("--raw", args->raw, "With --field: print the string or bytes as they are (e.g. source_code)");
        cmd->callback([args, &outcome] { outcome.exit_code = run_show(*args); });
    }};

}  // namespace
}  // namespace kiln::cli

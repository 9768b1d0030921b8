#include "entry_print.hpp"

#include <cstdio>

#include "command_registry.hpp"
#include "inductor/pgo_profile.hpp"
#include "pickle/json.hpp"
#include "util/json_out.hpp"

namespace kiln::cli {
namespace {

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

// Prints one field; returns the exit status.
int print_field(const std::string& path, const inductor::GraphEntry& e, const EntryPrintOptions& a) {
    pickle::Ref v = e.field(a.field);
    if (!v) {
        // A field this entry lacks is a failure of the work on this entry (others may have it).
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
    std::printf("%s\n", dump_json(pickle::to_json(v), a.json ? -1 : 2).c_str());
    return 0;
}

// A Dynamo PGO profile (dynamo/code_state_*.pkl): what automatic-dynamic learned per frame and input.
void print_pgo(const std::string& path, const inductor::PgoProfile& p) {
    std::size_t inputs = 0;
    for (const auto& f : p.frames) inputs += f.inputs.size();
    std::printf("%s\n", path.c_str());
    row("type",
        "Dynamo PGO profile: defaultdict of torch._dynamo.pgo.CodeState (the sizes automatic-dynamic "
        "learned, marked dynamic up front by a later run)");
    row("frames", std::to_string(p.frames.size()) + ", " + std::to_string(inputs) + " inputs, " +
                      std::to_string(p.dynamic_inputs()) + " with a dynamic size");
    for (const auto& f : p.frames) {
        std::printf("\n  %s (%s:%lld, file hash %s)\n", f.name.c_str(), f.filename.c_str(),
                    static_cast<long long>(f.firstlineno), f.file_hash.c_str());
        for (const auto& i : f.inputs)
            std::printf("    %-16s scalar %-8s size %-20s stride %s\n", i.source.c_str(),
                        i.scalar.empty() ? "-" : i.scalar.c_str(), i.size.empty() ? "-" : i.size.c_str(),
                        i.stride.empty() ? "-" : i.stride.c_str());
    }
}

}  // namespace

int print_entry(const std::string& label, const inductor::GraphEntry& entry, const EntryPrintOptions& options) {
    if (options.field.empty()) {
        if (auto pgo = inductor::read_pgo_profile(entry.root())) {
            if (options.json) std::printf("%s\n", dump_json(inductor::to_json(*pgo), -1).c_str());
            else print_pgo(label, *pgo);
            return 0;
        }
    }
    if (!options.field.empty()) return print_field(label, entry, options);
    if (options.json) std::printf("%s\n", dump_json(entry.to_json(), -1).c_str());
    else print_summary(label, entry);
    return 0;
}

}  // namespace kiln::cli

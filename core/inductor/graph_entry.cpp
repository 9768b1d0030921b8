#include "inductor/graph_entry.hpp"

#include <mutex>

#include "pickle/skim.hpp"

#include "pickle/json.hpp"
#include "pickle/text.hpp"

namespace kiln::inductor {

using pickle::Kind;
using pickle::Ref;

namespace {

constexpr std::string_view kFxGraph = "torch._inductor.output_code.CompiledFxGraph";
constexpr std::string_view kAotResult = "torch._functorch._aot_autograd.aot_autograd_result.AOTAutogradResult";
constexpr std::string_view kOrderedSet = "torch.utils._ordered_set.OrderedSet";

std::optional<std::string> as_string(Ref v) {
    if (v && v->kind() == Kind::string) return std::string(v->text());
    return std::nullopt;
}
std::optional<std::int64_t> as_int64(Ref v) {
    if (v && v->kind() == Kind::integer && v->as_int().fits_int64()) return v->as_int().small;
    return std::nullopt;
}

// The elements of a set-like value: list/tuple/set/frozenset, or torch's OrderedSet object
// (REDUCE(OrderedSet, ([items],)) plus any ADDITEMS/APPENDS applied to it).
std::vector<Ref> set_elements(Ref v) {
    std::vector<Ref> out;
    if (!v) return out;
    switch (v->kind()) {
        case Kind::list:
        case Kind::tuple:
        case Kind::set:
        case Kind::frozenset: return v->items();
        case Kind::call: {
            if (v->call_type() != kOrderedSet) return out;
            Ref args = v->args();
            if (args && !args->items().empty()) {
                Ref src = args->items()[0];
                if (src->kind() == Kind::dict) {
                    for (const auto& e : src->entries()) out.push_back(e.first);
                } else {
                    out = src->items();
                }
            }
            out.insert(out.end(), v->items().begin(), v->items().end());
            return out;
        }
        default: return out;
    }
}

std::vector<std::string> strings_of(const std::vector<Ref>& refs) {
    std::vector<std::string> out;
    for (Ref r : refs)
        if (auto s = as_string(r)) out.push_back(std::move(*s));
    return out;
}
std::vector<std::string_view> views_of(const std::vector<Ref>& refs) {
    std::vector<std::string_view> out;
    out.reserve(refs.size());
    for (Ref r : refs)
        if (r && r->kind() == Kind::string) out.push_back(r->text());
    return out;
}
std::vector<std::int64_t> ints_of(const std::vector<Ref>& refs) {
    std::vector<std::int64_t> out;
    for (Ref r : refs)
        if (auto i = as_int64(r)) out.push_back(*i);
    return out;
}

// "triton_mm.cubin" -> "triton_mm"; "__grp__triton_mm.json" -> "triton_mm".
std::string kernel_stem(std::string_view filename) {
    if (filename.substr(0, 7) == "__grp__") filename.remove_prefix(7);
    return std::string(filename.substr(0, filename.find('.')));
}

// compiled_fw / compiled_bw hold `fx_graph_cache_info = (key, debug_lines)`.
std::optional<std::string> fx_key_of(Ref compiled) {
    if (!compiled || compiled->kind() != Kind::call) return std::nullopt;
    Ref info = compiled->get("fx_graph_cache_info");
    if (!info || info->items().empty()) return std::nullopt;
    return as_string(info->items()[0]);
}

Ref fx_lines_ref(Ref compiled) {
    if (!compiled || compiled->kind() != Kind::call) return nullptr;
    Ref info = compiled->get("fx_graph_cache_info");
    if (!info || info->items().size() < 2) return nullptr;
    return info->items()[1];
}
std::vector<std::string> fx_lines_of(Ref compiled) {
    Ref lines = fx_lines_ref(compiled);
    return lines ? strings_of(lines->items()) : std::vector<std::string>{};
}

}  // namespace

std::uint64_t BundledKernel::total_bytes() const {
    std::uint64_t n = 0;
    for (const auto& f : files) n += f.size;
    return n;
}

struct GraphEntry::Split {
    std::once_flag once[2];
    KeyComponents components[2];  // own, forward
};

GraphEntry::GraphEntry(std::shared_ptr<const pickle::Document> doc, std::string origin)
    : doc_(std::move(doc)), origin_(std::move(origin)), split_(std::make_shared<Split>()) {}

const KeyComponents& GraphEntry::key_components(bool forward) const {
    static const KeyComponents none;
    if (!split_) return none;  // a default-made entry
    const int i = forward ? 1 : 0;
    std::call_once(split_->once[i], [&] {
        KeyComponents& out = split_->components[i];
        const std::vector<std::string_view> lines = forward ? forward_debug_line_views() : debug_line_views();
        out.has_lines = !lines.empty();
        out.components.reserve(lines.size());
        for (std::string_view l : lines) {
            if (auto c = split_component_view(l)) out.components.push_back(*c);
            else out.all_split = false;
        }
    });
    return split_->components[i];
}

Ref GraphEntry::root() const { return doc_ ? doc_->root() : nullptr; }

Ref GraphEntry::state() const {
    Ref r = root();
    if (!r || r->kind() != Kind::call) return nullptr;
    Ref s = r->state();
    // Objects with __slots__ pickle their state as (dict, slots).
    if (s && s->kind() == Kind::tuple && !s->items().empty() && s->items()[0]->kind() == Kind::dict) s = s->items()[0];
    return (s && s->kind() == Kind::dict) ? s : nullptr;
}

std::string GraphEntry::type() const {
    Ref r = root();
    if (!r) return {};
    if (r->kind() == Kind::call) return r->call_type();
    return pickle::kind_name(r->kind());
}
bool GraphEntry::is_fx_graph() const { return type() == kFxGraph; }
bool GraphEntry::is_aot_autograd() const { return type() == kAotResult; }

std::vector<std::string> GraphEntry::field_names() const {
    std::vector<std::string> out;
    Ref s = state();
    if (!s) return out;
    for (const auto& [k, v] : s->entries()) {
        (void)v;
        if (k->kind() == Kind::string) out.emplace_back(k->text());
    }
    return out;
}

Ref GraphEntry::field(std::string_view name) const {
    Ref s = state();
    return s ? s->get(name) : nullptr;
}

std::optional<std::string> GraphEntry::cache_key() const { return as_string(field("cache_key")); }
std::optional<std::string_view> GraphEntry::source_code() const {
    Ref v = field("source_code");
    if (v && v->kind() == Kind::string) return v->text();
    return std::nullopt;
}
std::optional<std::string> GraphEntry::guards_expr() const { return as_string(field("guards_expr")); }
std::optional<std::string> GraphEntry::fx_graph_cache_key() const { return as_string(field("_fx_graph_cache_key")); }
std::optional<std::int64_t> GraphEntry::time_taken_ns() const { return as_int64(field("_time_taken_ns")); }
std::optional<std::int64_t> GraphEntry::aot_time_taken_ns() const {
    auto fw = as_int64(field("forward_time_taken_ns")), bw = as_int64(field("backward_time_taken_ns"));
    if (!fw && !bw) return std::nullopt;
    return fw.value_or(0) + bw.value_or(0);
}
std::vector<std::string> GraphEntry::debug_lines() const {
    Ref v = field("_fx_graph_cache_debug_lines");
    return v ? strings_of(v->items()) : std::vector<std::string>{};
}
std::vector<std::string_view> GraphEntry::debug_line_views() const {
    Ref v = field("_fx_graph_cache_debug_lines");
    return v ? views_of(v->items()) : std::vector<std::string_view>{};
}
std::vector<std::string_view> GraphEntry::forward_debug_line_views() const {
    Ref lines = fx_lines_ref(field("compiled_fw"));
    return lines ? views_of(lines->items()) : std::vector<std::string_view>{};
}
std::vector<std::string> GraphEntry::device_types() const { return strings_of(set_elements(field("device_types"))); }
std::vector<std::int64_t> GraphEntry::device_idxs() const { return ints_of(set_elements(field("device_idxs"))); }
std::vector<std::string> GraphEntry::mutated_inputs() const {
    return strings_of(set_elements(field("mutated_inputs")));
}
std::vector<std::int64_t> GraphEntry::mutated_input_idxs() const {
    return ints_of(set_elements(field("mutated_input_idxs")));
}

std::vector<std::string> GraphEntry::constant_names() const {
    std::vector<std::string> out;
    Ref v = field("constants");
    if (!v) return out;
    for (const auto& [k, val] : v->entries()) {
        (void)val;
        if (auto s = as_string(k)) out.push_back(std::move(*s));
    }
    return out;
}

std::vector<std::optional<std::vector<std::string>>> GraphEntry::output_strides() const {
    std::vector<std::optional<std::vector<std::string>>> out;
    Ref v = field("output_strides");
    if (!v) return out;
    for (Ref o : v->items()) {
        if (!o || o->kind() == Kind::none) {
            out.emplace_back(std::nullopt);
            continue;
        }
        std::vector<std::string> strides;
        for (Ref s : o->items()) {
            if (s->kind() == Kind::integer) strides.push_back(s->as_int().to_decimal());
            else if (s->kind() == Kind::string) strides.emplace_back(s->text());
            else strides.push_back(pickle::short_repr(s));
        }
        out.emplace_back(std::move(strides));
    }
    return out;
}

std::vector<std::pair<std::string, std::int64_t>> GraphEntry::counter_deltas() const {
    std::vector<std::pair<std::string, std::int64_t>> out;
    Ref v = field("counter_deltas");
    if (!v) return out;
    // A collections.Counter pickles as REDUCE(Counter, ({name: n},)); a plain dict also works.
    auto take = [&](Ref d) {
        if (!d) return;
        for (const auto& [k, n] : d->entries()) {
            auto name = as_string(k);
            auto count = as_int64(n);
            if (name && count) out.emplace_back(std::move(*name), *count);
        }
    };
    if (v->kind() == Kind::dict) take(v);
    if (v->kind() == Kind::call) {
        if (v->args() && !v->args()->items().empty()) take(v->args()->items()[0]);
        take(v);  // SETITEMS applied to the Counter object
    }
    return out;
}

std::vector<BundledKernel> GraphEntry::triton_bundle() const {
    std::vector<BundledKernel> out;
    Ref bundle = field("_triton_bundle");
    if (!bundle || bundle->kind() != Kind::call) return out;
    Ref kernels = bundle->get("kernel_artifacts");
    if (!kernels) return out;
    for (Ref k : kernels->items()) {
        if (!k || k->kind() != Kind::call) continue;
        BundledKernel bk;
        bk.kernel_hash = as_string(k->get("kernel_hash")).value_or("");
        bk.device = as_int64(k->get("device"));
        if (Ref arts = k->get("artifacts")) {
            for (Ref a : arts->items()) {
                if (!a || a->kind() != Kind::call) continue;
                BundledFile f;
                f.filename = as_string(a->get("filename")).value_or("");
                if (Ref p = a->get("payload"); p && (p->kind() == Kind::bytes || p->kind() == Kind::bytearray))
                    f.size = p->byte_size();
                if (bk.name.empty() && !f.filename.empty()) bk.name = kernel_stem(f.filename);
                bk.files.push_back(std::move(f));
            }
        }
        out.push_back(std::move(bk));
    }
    return out;
}

std::optional<std::string> GraphEntry::forward_fx_key() const { return fx_key_of(field("compiled_fw")); }
std::optional<std::string> GraphEntry::backward_fx_key() const { return fx_key_of(field("compiled_bw")); }
std::vector<std::string> GraphEntry::forward_debug_lines() const { return fx_lines_of(field("compiled_fw")); }
std::vector<std::string> GraphEntry::backward_debug_lines() const { return fx_lines_of(field("compiled_bw")); }

nlohmann::ordered_json GraphEntry::to_json() const {
    nlohmann::ordered_json out;
    out["type"] = pickle::strict_utf8(type());
    auto fields = nlohmann::ordered_json::object();
    if (Ref s = state()) {
        for (const auto& [k, v] : s->entries()) {
            // Keys as the JSON mapping prints dict keys: str as is, others as their repr.
            auto key = pickle::to_json(k);
            fields[key.is_string() ? key.get<std::string>() : pickle::strict_utf8(pickle::short_repr(k))] =
                pickle::to_json(v);
        }
    }
    out["fields"] = std::move(fields);
    return out;
}

Result<GraphEntry> decode_graph_entry(std::shared_ptr<const pickle::Buffer> buffer, const pickle::Limits& limits) {
    if (!buffer) return make_error(Errc::invalid_argument, "no bytes to decode");
    std::string origin = buffer->origin();
    KILN_TRY(auto doc, pickle::decode(std::move(buffer), limits));
    Ref r = doc->root();
    if (!r || r->kind() != Kind::call)
        return make_error(
            Errc::parse,
            std::string("the pickle holds a ") + pickle::kind_name(r ? r->kind() : Kind::none) + ", not an object",
            origin, "is this an Inductor graph entry?");
    return GraphEntry(std::move(doc), std::move(origin));
}

Result<GraphEntry> decode_graph_entry(std::string_view bytes, std::string origin, const pickle::Limits& limits) {
    return decode_graph_entry(pickle::own_bytes(std::string(bytes), std::move(origin)), limits);
}

Result<GraphEntry> load_graph_entry(const std::filesystem::path& path, const pickle::Limits& limits) {
    KILN_TRY(auto buffer, pickle::load_file(path));
    return decode_graph_entry(std::move(buffer), limits);
}

Result<GraphEntry> skim_graph_entry(const std::filesystem::path& path) {
    KILN_TRY(auto buffer, pickle::skim_file(path));
    return decode_graph_entry(std::move(buffer));
}

}  // namespace kiln::inductor

#include "inductor/pgo_profile.hpp"

namespace kiln::inductor {

namespace {

constexpr std::string_view kPgo = "torch._dynamo.pgo.";

std::string text_of(pickle::Ref v, int depth = 0) {
    using pickle::Kind;
    if (!v) return {};
    if (depth > 8) return "...";
    switch (v->kind()) {
        case Kind::none: return "None";
        case Kind::boolean: return v->as_bool() ? "True" : "False";
        case Kind::integer: return v->as_int().to_decimal();
        case Kind::string: return std::string(v->text());
        case Kind::tuple:
        case Kind::list: {
            std::string out = "(";
            for (std::size_t i = 0; i < v->items().size(); ++i)
                out += (i ? ", " : "") + text_of(v->items()[i], depth + 1);
            return out + (v->items().size() == 1 ? ",)" : ")");
        }
        case Kind::call: {
            const std::string type = v->call_type();
            if (type.ends_with(".AutoDynamic")) return "dynamic";
            if (type.ends_with(".AutoUnset")) return "unset";
            if (type.ends_with(".InferStride")) {
                pickle::Ref dim = v->get("dim");
                return dim ? "infer(dim " + text_of(dim, depth + 1) + ")" : "infer";
            }
            return type.empty() ? "?" : type;
        }
        default: return pickle::kind_name(v->kind());
    }
}

std::string string_field(pickle::Ref obj, std::string_view name) {
    pickle::Ref v = obj->get(name);
    return v && v->is(pickle::Kind::string) ? std::string(v->text()) : std::string();
}

}  // namespace

std::size_t PgoProfile::dynamic_inputs() const {
    std::size_t n = 0;
    for (const auto& f : frames)
        for (const auto& i : f.inputs) n += (i.scalar + i.size + i.stride).find("dynamic") != std::string::npos;
    return n;
}

std::optional<PgoProfile> read_pgo_profile(pickle::Ref root) {
    if (!root || !root->is(pickle::Kind::call) || root->call_type() != "collections.defaultdict") return std::nullopt;
    pickle::Ref args = root->args();
    if (!args || args->items().empty() || args->items()[0]->qualified_name() != std::string(kPgo) + "CodeState")
        return std::nullopt;
    PgoProfile out;
    for (const auto& [key, state] : root->entries()) {
        PgoFrame f;
        if (key && key->is(pickle::Kind::call)) {
            f.filename = string_field(key, "filename");
            f.name = string_field(key, "name");
            f.file_hash = string_field(key, "file_hash");
            if (pickle::Ref line = key->get("firstlineno"); line && line->is(pickle::Kind::integer))
                f.firstlineno = line->as_int().small;
        }
        pickle::Ref dyn = state ? state->get("automatic_dynamic") : nullptr;
        if (dyn) {
            for (const auto& [source, entry] : dyn->entries()) {
                PgoInput in;
                in.source = text_of(source);
                if (entry && entry->is(pickle::Kind::call)) {
                    if (pickle::Ref v = entry->get("scalar")) in.scalar = text_of(v);
                    if (pickle::Ref v = entry->get("size")) in.size = text_of(v);
                    if (pickle::Ref v = entry->get("stride")) in.stride = text_of(v);
                }
                f.inputs.push_back(std::move(in));
            }
        }
        out.frames.push_back(std::move(f));
    }
    return out;
}

nlohmann::ordered_json to_json(const PgoProfile& profile) {
    nlohmann::ordered_json frames = nlohmann::ordered_json::array();
    for (const auto& f : profile.frames) {
        nlohmann::ordered_json inputs = nlohmann::ordered_json::array();
        for (const auto& i : f.inputs)
            inputs.push_back({{"source", i.source}, {"scalar", i.scalar}, {"size", i.size}, {"stride", i.stride}});
        frames.push_back({{"filename", f.filename},
                          {"firstlineno", f.firstlineno},
                          {"name", f.name},
                          {"file_hash", f.file_hash},
                          {"inputs", std::move(inputs)}});
    }
    return {{"type", "pgo_profile"}, {"frames", std::move(frames)}};
}

}  // namespace kiln::inductor

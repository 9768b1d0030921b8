#include "pickle/json.hpp"

#include <cmath>
#include <cstring>
#include <unordered_set>

#include "pickle/text.hpp"

namespace kiln::pickle {
namespace {

constexpr std::string_view kOrderedSet = "torch.utils._ordered_set.OrderedSet";

// A decoded str is valid UTF-8 but may hold lone surrogates (ED A0..BF xx), which JSON refuses.
std::string text(std::string_view s) {
    if (!std::memchr(s.data(), 0xED, s.size())) return std::string(s);
    return strict_utf8(s);
}
// Text the decoder did not validate as a str (names, shortened reprs): always sanitised.
std::string any_text(std::string_view s) { return strict_utf8(s); }

class JsonWriter {
public:
    explicit JsonWriter(const JsonOptions& o) : options_(o) {}

    nlohmann::ordered_json write(Ref v, std::size_t depth) {
        using J = nlohmann::ordered_json;
        if (!v) return nullptr;
        if (depth > options_.max_depth) return J{{"$truncated", "depth"}};
        if (++written_ > options_.max_nodes) return J{{"$truncated", "size"}};
        switch (v->kind()) {
            case Kind::none: return nullptr;
            case Kind::boolean: return v->as_bool();
            case Kind::integer: {
                Int i = v->as_int();
                if (i.fits_53_bits()) return i.small;
                return i.to_decimal();
            }
            case Kind::floating: {
                double f = v->as_double();
                if (std::isnan(f)) return "nan";
                if (std::isinf(f)) return f > 0 ? "inf" : "-inf";
                return f;
            }
            case Kind::string: return text(v->text());
            case Kind::bytes:
            case Kind::bytearray: return J{{"$bytes", v->text().size()}};
            case Kind::global: return J{{"$global", any_text(v->qualified_name())}};
            case Kind::buffer: return J{{"$buffer", v->buffer_index()}};
            default: break;
        }
        // Containers: a node already on the path is a cycle.
        if (!on_path_.insert(v).second) return J{{"$ref", "cycle"}};
        J out = container(v, depth);
        on_path_.erase(v);
        return out;
    }

private:
    nlohmann::ordered_json array_of(const std::vector<Ref>& items, std::size_t depth) {
        auto out = nlohmann::ordered_json::array();
        for (Ref x : items) out.push_back(write(x, depth + 1));
        return out;
    }

    static std::string key_text(Ref k) {
        if (k && k->kind() == Kind::string) return text(k->text());
        if (k && k->kind() == Kind::integer) return k->as_int().to_decimal();
        return any_text(short_repr(k, 200));
    }

    nlohmann::ordered_json object_of(const std::vector<Entry>& entries, std::size_t depth, nlohmann::ordered_json out) {
        for (const auto& [k, val] : entries) out[key_text(k)] = write(val, depth + 1);
        return out;
    }

    nlohmann::ordered_json container(Ref v, std::size_t depth) {
        using J = nlohmann::ordered_json;
        switch (v->kind()) {
            case Kind::list:
            case Kind::tuple:
            case Kind::set:
            case Kind::frozenset: return array_of(v->items(), depth);
            case Kind::dict: return object_of(v->entries(), depth, J::object());
            case Kind::persistent: {
                J pid = v->items().empty() ? J(any_text(v->text())) : write(v->items()[0], depth + 1);
                return J{{"$persistent_id", std::move(pid)}};
            }
            default: break;
        }
        // An object (call). torch's OrderedSet is a set to the user: print its elements.
        std::string type = v->call_type();
        if (type == kOrderedSet) {
            Ref args = v->args();
            auto out = J::array();
            if (args && !args->items().empty()) {
                Ref src = args->items()[0];
                if (src->kind() == Kind::dict) {
                    for (const auto& [k, val] : src->entries()) out.push_back(write(k, depth + 1));
                } else {
                    for (Ref x : src->items()) out.push_back(write(x, depth + 1));
                }
            }
            for (Ref x : v->items()) out.push_back(write(x, depth + 1));
            return out;
        }
        J out = J::object();
        out["$type"] = any_text(type.empty() ? short_repr(v->callable(), 200) : type);
        Ref args = v->args();
        Ref state = v->state();
        // Without state the object's content is its constructor arguments (e.g. REDUCE-built values).
        if (!state && args && args->size() > 0) out["$args"] = write(args, depth + 1);
        if (v->kwargs()) out["$kwargs"] = write(v->kwargs(), depth + 1);
        if (state && state->kind() == Kind::dict) out = object_of(state->entries(), depth, std::move(out));
        else if (state && state->kind() == Kind::tuple && state->items().size() == 2 &&
                 state->items()[0]->kind() == Kind::dict) {
            // (dict_state, slots_state), as copyreg writes for objects with __slots__.
            out = object_of(state->items()[0]->entries(), depth, std::move(out));
            if (state->items()[1]->kind() == Kind::dict)
                out = object_of(state->items()[1]->entries(), depth, std::move(out));
        } else if (state) out["$state"] = write(state, depth + 1);
        if (!v->items().empty()) out["$items"] = array_of(v->items(), depth);
        if (!v->entries().empty()) out["$entries"] = object_of(v->entries(), depth, J::object());
        return out;
    }

    const JsonOptions& options_;
    std::unordered_set<Ref> on_path_;
    std::size_t written_ = 0;
};

}  // namespace

nlohmann::ordered_json to_json(Ref v, const JsonOptions& options) {
    JsonWriter w(options);
    return w.write(v, 0);
}

}  // namespace kiln::pickle

#include "timings/mm_log.hpp"

#include <cmath>

#include "util/json_get.hpp"
#include "util/python_json.hpp"

#include "timings/py_literal.hpp"
#include "timings/text_file.hpp"
#include "util/text_scan.hpp"

namespace kiln::timings {

// `^\s*\[\s*\{\s*"(invoke|\([^"]*\))"\s*:`: a list whose first object's first key is "invoke" or a
// parenthesized shape key.
bool looks_like_mm_log(const std::string& head) {
    using namespace scan;
    const std::size_t list = skip_spaces(head, 0);
    const std::size_t object = skip_spaces(head, list + 1);
    const std::size_t key = skip_spaces(head, object + 1);
    if (!has_at(head, list, "[") || !has_at(head, object, "{") || !has_at(head, key, "\"")) return false;
    std::size_t key_end = std::string::npos;  // the key's closing quote
    if (has_at(head, key + 1, "invoke\"")) {
        key_end = key + 7;
    } else if (has_at(head, key + 1, "(")) {
        const std::size_t quote = head.find('"', key + 2);
        if (quote != std::string::npos && quote >= key + 3 && head[quote - 1] == ')') key_end = quote;
    }
    return key_end != std::string::npos && has_at(head, skip_spaces(head, key_end + 1), ":");
}

static Choice mm_choice(const nlohmann::ordered_json& rec, int& triton_index) {
    Choice c;
    std::string type = json_get::string_field_or(rec, "type", {}, "?").value_or("?");  // a wrong type: unnamed
    c.name = type == "triton" ? "triton#" + std::to_string(triton_index++) : type;
    for (auto it = rec.begin(); it != rec.end(); ++it) {
        if (it.key() == "time") {
            set_choice_time(c, *it);
        } else if (it.key() != "type") {
            c.params.edit()[it.key()] = *it;
        }
    }
    return c;
}

Result<MmLog> parse_mm_log(const std::string& text, const std::string& origin) {
    KILN_TRY(auto j, py_loads(text, origin));
    if (!j.is_array())
        return make_error(Errc::parse, "not a JSON list", origin,
                          "TORCHINDUCTOR_MM_LOGGING_FILE output is one JSON list");
    MmLog out;
    for (const auto& rec : j) {
        if (!rec.is_object() || rec.size() != 1) continue;
        auto it = rec.begin();
        if (it.key() == "invoke") {
            if (it->is_string()) out.invokes.push_back(it->get<std::string>());
            continue;
        }
        if (!it->is_array()) continue;
        // torch writes (M, K, N) as the second-to-last input's first two sizes and the last input's last
        // size, and not the op's name: (B, M, N) for bmm. join_sources finds the op it describes.
        std::string shape = trim(it.key());
        auto dims = split_top_level(shape.size() >= 2 ? std::string_view(shape).substr(1, shape.size() - 2) : "", ',');
        Op op;
        op.op = "mm_family";
        op.source = origin;
        op.inputs = shape;
        if (dims.size() == 3) op.mm_log_key = dims;
        int triton_index = 0;
        for (const auto& c : *it)
            if (c.is_object()) op.choices.push_back(mm_choice(c, triton_index));
        pick_best(op);
        out.ops.push_back(std::move(op));
    }
    return out;
}

Result<MmLog> read_mm_log(const std::filesystem::path& path) {
    KILN_TRY(std::string text, read_text_file(path));
    return parse_mm_log(text, path.string());
}

}  // namespace kiln::timings

#include "retune/problem.hpp"

#include <charconv>

#include "timings/py_literal.hpp"

namespace kiln::retune {

namespace {

Result<std::int64_t> integer(const std::string& text, const std::string& key) {
    std::int64_t v = 0;
    auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (r.ec != std::errc() || r.ptr != text.data() + text.size())
        return make_error(Errc::parse, "inputs key has a non-integer size or stride '" + text + "'", key,
                          "symbolic sizes cannot be allocated; re-tune a cache recorded with static shapes");
    return v;
}

}  // namespace

Result<std::vector<worker::TensorMeta>> tensors_from_inputs_key(const std::string& key) {
    KILN_TRY(auto keys, timings::parse_inputs_key(key));
    std::vector<worker::TensorMeta> out;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        const auto& k = keys[i];
        worker::TensorMeta t;
        t.name = "input" + std::to_string(i);
        KILN_TRY(t.dtype, worker::parse_dtype(k.dtype));
        for (const auto& s : k.sizes) {
            KILN_TRY(auto v, integer(s, key));
            t.sizes.push_back(v);
        }
        for (const auto& s : k.strides) {
            KILN_TRY(auto v, integer(s, key));
            t.strides.push_back(v);
        }
        KILN_TRY(t.offset, integer(k.offset, key));
        out.push_back(std::move(t));
    }
    return out;
}

Result<Problem> make_problem(const std::string& op, const std::string& key) {
    Problem p;
    std::size_t want = 0, dims = 0;
    if (op == "mm") p.family = OpFamily::mm, want = 2, dims = 2;
    else if (op == "addmm") p.family = OpFamily::addmm, want = 3, dims = 2;
    else if (op == "bmm") p.family = OpFamily::bmm, want = 2, dims = 3;
    else if (op == "baddbmm") p.family = OpFamily::baddbmm, want = 3, dims = 3;
    else
        return make_error(Errc::unsupported, "op '" + op + "' is not one Kiln re-tunes", key,
                          "supported: mm, addmm, bmm, baddbmm");
    KILN_TRY(p.inputs, tensors_from_inputs_key(key));
    if (p.inputs.size() != want)
        return make_error(
            Errc::invalid_argument,
            op + " takes " + std::to_string(want) + " inputs; the key has " + std::to_string(p.inputs.size()), key);
    for (const auto& t : p.inputs)
        if (t.sizes.size() != dims || t.strides.size() != dims)
            return make_error(Errc::invalid_argument,
                              op + " needs " + std::to_string(dims) + "-D inputs; the key has a " +
                                  std::to_string(t.sizes.size()) + "-D one",
                              key);
    p.bias_index = want == 3 ? 0 : -1;
    p.a_index = want == 3 ? 1 : 0;
    p.b_index = p.a_index + 1;
    const auto& a = p.inputs[static_cast<std::size_t>(p.a_index)].sizes;
    const auto& b = p.inputs[static_cast<std::size_t>(p.b_index)].sizes;
    std::size_t r = dims - 2;  // the row dimension's index
    p.M = a[r];
    p.K = a[r + 1];
    p.N = b[r + 1];
    if (dims == 3) p.B = a[0];
    if (b[r] != p.K || (dims == 3 && b[0] != p.B))
        return make_error(Errc::invalid_argument, op + ": the inputs' shapes do not multiply", key);
    p.output.name = "output";
    p.output.dtype = p.inputs[static_cast<std::size_t>(p.a_index)].dtype;
    p.output.sizes = dims == 3 ? std::vector<std::int64_t>{p.B, p.M, p.N} : std::vector<std::int64_t>{p.M, p.N};
    if (p.bias_index >= 0) {
        const auto& bias = p.inputs[0].sizes;
        if (bias != p.output.sizes)
            return make_error(Errc::invalid_argument, op + ": the bias is not the output's shape (expanded)", key);
    }
    return p;
}

std::int64_t size_named(const Problem& p, const std::string& name) {
    if (name == "M") return p.M;
    if (name == "N") return p.N;
    if (name == "K") return p.K;
    if (name == "B") return p.B;
    return -1;
}

}  // namespace kiln::retune

#include "retune/problem.hpp"

#include <algorithm>
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

Error overflows(const std::string& what, const std::string& key) {
    return make_error(Errc::invalid_argument, what, key,
                      "the inputs key is corrupt or hostile: no tensor of these sizes can exist");
}

// Every size, stride and offset from the key is checked before any arithmetic uses it (issue 42
// #14: sizes of 2^63-1 or -256 overflowed into a negative grid that was still "runnable"): none is
// negative, and the element count, the storage span (offset + 1 + sum((size-1)*stride) elements,
// contiguous strides when none are given) and its bytes all fit in 64 bits. After this, products
// of sizes (M*N, the grid's tiles) cannot overflow.
Status check_tensor_extent(const worker::TensorMeta& t, const std::string& key) {
    const std::string which = t.name + " ";
    for (auto v : t.sizes)
        if (v < 0) return overflows(which + "has a negative size " + std::to_string(v), key);
    for (auto v : t.strides)
        if (v < 0) return overflows(which + "has a negative stride " + std::to_string(v), key);
    if (t.offset < 0) return overflows(which + "has a negative storage offset " + std::to_string(t.offset), key);
    std::int64_t numel = 1, last = t.offset, stride = 1;
    bool empty = false;
    for (std::size_t i = t.sizes.size(); i-- > 0;) {
        const std::int64_t size = t.sizes[i];
        empty = empty || size == 0;
        if (__builtin_mul_overflow(numel, size, &numel))
            return overflows(which + "has more elements than 64 bits count", key);
        const std::int64_t st = t.strides.empty() ? stride : t.strides[i];
        std::int64_t span = 0;
        if (size > 0 && (__builtin_mul_overflow(size - 1, st, &span) || __builtin_add_overflow(last, span, &last)))
            return overflows(which + "spans more elements than 64 bits count", key);
        if (t.strides.empty() && __builtin_mul_overflow(stride, std::max<std::int64_t>(size, 1), &stride))
            return overflows(which + "has strides beyond 64 bits", key);
    }
    std::int64_t bytes = 0;
    if (!empty && (__builtin_add_overflow(last, 1, &last) ||
                   __builtin_mul_overflow(last, static_cast<std::int64_t>(worker::dtype_size(t.dtype)), &bytes)))
        return overflows(which + "spans more bytes than 64 bits count", key);
    return ok_status();
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
        KILN_CHECK(check_tensor_extent(t, key));
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
    KILN_CHECK(check_tensor_extent(p.output, key));
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

#include "worker/tensor.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <sstream>

#include "util/parallel.hpp"

namespace kiln::worker {
namespace {

float half_to_float(std::uint16_t h) {
    std::uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1F, mant = h & 0x3FF, bits;
    if (exp == 0) {
        if (mant == 0) bits = sign;
        else {  // subnormal: normalise
            exp = 127 - 15 + 1;
            while (!(mant & 0x400)) {
                mant <<= 1;
                --exp;
            }
            bits = sign | (exp << 23) | ((mant & 0x3FF) << 13);
        }
    } else if (exp == 31) bits = sign | 0x7F800000u | (mant << 13);
    else bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

std::uint16_t float_to_half(float f) {  // round to nearest even; values here are within range
    std::uint32_t x;
    std::memcpy(&x, &f, 4);
    std::uint32_t sign = (x >> 16) & 0x8000u;
    int exp = static_cast<int>((x >> 23) & 0xFF) - 127 + 15;
    std::uint32_t mant = x & 0x7FFFFF;
    if (exp <= 0) return static_cast<std::uint16_t>(sign);
    if (exp >= 31) return static_cast<std::uint16_t>(sign | 0x7C00);
    std::uint32_t h = sign | (static_cast<std::uint32_t>(exp) << 10) | (mant >> 13);
    std::uint32_t rest = mant & 0x1FFF;
    if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) ++h;
    return static_cast<std::uint16_t>(h);
}

double load(DType d, const std::byte* p) {
    switch (d) {
        case DType::f32: {
            float v;
            std::memcpy(&v, p, 4);
            return v;
        }
        case DType::f64: {
            double v;
            std::memcpy(&v, p, 8);
            return v;
        }
        case DType::f16: {
            std::uint16_t v;
            std::memcpy(&v, p, 2);
            return half_to_float(v);
        }
        case DType::bf16: {
            std::uint16_t v;
            std::memcpy(&v, p, 2);
            std::uint32_t b = std::uint32_t{v} << 16;
            float f;
            std::memcpy(&f, &b, 4);
            return f;
        }
        case DType::i8: return static_cast<double>(static_cast<std::int8_t>(*p));
        case DType::u8: return static_cast<double>(static_cast<std::uint8_t>(*p));
        case DType::i32: {
            std::int32_t v;
            std::memcpy(&v, p, 4);
            return v;
        }
        case DType::i64: {
            std::int64_t v;
            std::memcpy(&v, p, 8);
            return static_cast<double>(v);
        }
    }
    return 0;
}

void store(DType d, std::byte* p, double x) {
    switch (d) {
        case DType::f32: {
            float v = static_cast<float>(x);
            std::memcpy(p, &v, 4);
            return;
        }
        case DType::f64: std::memcpy(p, &x, 8); return;
        case DType::f16: {
            std::uint16_t v = float_to_half(static_cast<float>(x));
            std::memcpy(p, &v, 2);
            return;
        }
        case DType::bf16: {
            float f = static_cast<float>(x);
            std::uint32_t b;
            std::memcpy(&b, &f, 4);
            std::uint16_t v = static_cast<std::uint16_t>(b >> 16);
            std::memcpy(p, &v, 2);
            return;
        }
        case DType::i8: *p = static_cast<std::byte>(static_cast<std::int8_t>(x)); return;
        case DType::u8: *p = static_cast<std::byte>(static_cast<std::uint8_t>(x)); return;
        case DType::i32: {
            std::int32_t v = static_cast<std::int32_t>(x);
            std::memcpy(p, &v, 4);
            return;
        }
        case DType::i64: {
            std::int64_t v = static_cast<std::int64_t>(x);
            std::memcpy(p, &v, 8);
            return;
        }
    }
}

bool is_float(DType d) { return d == DType::f32 || d == DType::f64 || d == DType::f16 || d == DType::bf16; }

}  // namespace

Result<DType> parse_dtype(const std::string& in) {
    std::string s = in.rfind("torch.", 0) == 0 ? in.substr(6) : in;
    if (s == "float32" || s == "float" || s == "f32") return DType::f32;
    if (s == "float64" || s == "double" || s == "f64") return DType::f64;
    if (s == "float16" || s == "half" || s == "f16") return DType::f16;
    if (s == "bfloat16" || s == "bf16") return DType::bf16;
    if (s == "int8" || s == "i8") return DType::i8;
    if (s == "uint8" || s == "u8") return DType::u8;
    if (s == "int32" || s == "int" || s == "i32") return DType::i32;
    if (s == "int64" || s == "long" || s == "i64") return DType::i64;
    return make_error(Errc::invalid_argument, "unknown dtype '" + in + "'", {},
                      "use float32, float64, float16, bfloat16, int8, uint8, int32 or int64");
}

std::string torch_dtype_name(DType d) {
    switch (d) {
        case DType::f32: return "torch.float32";
        case DType::f64: return "torch.float64";
        case DType::f16: return "torch.float16";
        case DType::bf16: return "torch.bfloat16";
        case DType::i8: return "torch.int8";
        case DType::u8: return "torch.uint8";
        case DType::i32: return "torch.int32";
        case DType::i64: return "torch.int64";
    }
    return "?";
}

std::size_t dtype_size(DType d) {
    switch (d) {
        case DType::f64:
        case DType::i64: return 8;
        case DType::f32:
        case DType::i32: return 4;
        case DType::f16:
        case DType::bf16: return 2;
        case DType::i8:
        case DType::u8: return 1;
    }
    return 1;
}

std::vector<std::int64_t> TensorMeta::effective_strides() const {
    if (!strides.empty()) return strides;
    std::vector<std::int64_t> st(sizes.size(), 1);
    for (size_t i = sizes.size(); i-- > 1;) st[i - 1] = st[i] * std::max<std::int64_t>(sizes[i], 1);
    return st;
}

std::size_t TensorMeta::storage_elements() const {
    auto st = effective_strides();
    std::int64_t last = offset;
    for (size_t i = 0; i < sizes.size(); ++i) {
        if (sizes[i] == 0) return 0;
        last += (sizes[i] - 1) * st[i];
    }
    return static_cast<std::size_t>(last + 1);
}

nlohmann::json to_json(const TensorMeta& t) {
    return {{"name", t.name},
            {"dtype", torch_dtype_name(t.dtype)},
            {"sizes", t.sizes},
            {"strides", t.effective_strides()},
            {"offset", t.offset}};
}

Result<TensorMeta> tensor_from_json(const nlohmann::json& j, const std::string& context) {
    if (!j.is_object()) return make_error(Errc::parse, "tensor metadata must be an object", context);
    TensorMeta t;
    try {
        t.name = j.value("name", "");
        KILN_TRY(t.dtype, parse_dtype(j.value("dtype", "float32")));
        t.sizes = j.at("sizes").get<std::vector<std::int64_t>>();
        if (j.contains("strides") && !j["strides"].is_null()) t.strides = j["strides"].get<std::vector<std::int64_t>>();
        t.offset = j.value("offset", std::int64_t{0});
    } catch (const nlohmann::json::exception& e) {
        return make_error(Errc::parse, std::string("bad tensor metadata: ") + e.what(), context);
    }
    if (!t.strides.empty() && t.strides.size() != t.sizes.size())
        return make_error(Errc::invalid_argument, "sizes and strides differ in length", context);
    for (auto s : t.sizes)
        if (s < 0) return make_error(Errc::invalid_argument, "negative size", context);
    return t;
}

std::string inputs_key(const std::string& device_type, const std::vector<TensorMeta>& inputs) {
    std::ostringstream os;
    os << '[';
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (i) os << ", ";
        os << "('" << device_type << "', '" << torch_dtype_name(inputs[i].dtype) << "'";
        for (auto s : inputs[i].sizes) os << ", " << s;
        for (auto s : inputs[i].effective_strides()) os << ", " << s;
        os << ", " << inputs[i].offset << ')';
    }
    os << ']';
    return os.str();
}

std::vector<std::byte> random_storage(const TensorMeta& t, std::uint64_t seed) {
    std::vector<std::byte> out(t.storage_bytes());
    // splitmix64: one 64-bit draw per element, fast enough for 10^8 elements (inputs of large
    // GEMMs) where mt19937 with a distribution took most of a worker's start-up. Element i draws
    // from state base + (i + 1) * golden, so chunks fill in parallel with the same values.
    constexpr std::uint64_t golden = 0x9E3779B97F4A7C15ull;
    const std::uint64_t base = seed * golden + 0x632BE59BD9B4E019ull;
    auto mix = [](std::uint64_t z) {
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    };
    const size_t es = dtype_size(t.dtype);
    const bool fp = is_float(t.dtype);
    const size_t n = t.storage_elements();
    auto fill = [&](size_t begin, size_t end) {
        std::uint64_t state = base + begin * golden;
        if (t.dtype == DType::f32) {  // the common case without the per-element dtype switch
            float* f = reinterpret_cast<float*>(out.data());
            for (size_t i = begin; i < end; ++i) {
                std::uint64_t z = mix(state += golden);
                float mag = 0.1f + 0.9f * static_cast<float>(z >> 40) * (1.0f / 16777216.0f);
                f[i] = (z & 1) ? mag : -mag;
            }
            return;
        }
        for (size_t i = begin; i < end; ++i) {
            std::uint64_t z = mix(state += golden);
            // Never zero: magnitudes in [0.1, 1) with a random sign, or integers 1..9.
            double v = fp ? (0.1 + 0.9 * static_cast<double>(z >> 11) * 0x1.0p-53) * ((z & 1) ? 1 : -1)
                          : static_cast<double>(1 + (z >> 33) % 9);
            store(t.dtype, out.data() + i * es, v);
        }
    };
    constexpr size_t kChunk = 1u << 20;
    const size_t chunks = (n + kChunk - 1) / kChunk;
    if (chunks <= 1) {
        fill(0, n);
        return out;
    }
    parallel_for(chunks, static_cast<unsigned>(std::min<size_t>(chunks, 8)), nullptr,
                 [&](size_t c) { fill(c * kChunk, std::min(n, (c + 1) * kChunk)); });
    return out;
}

std::string compare_storage(const TensorMeta& t, const std::byte* got, const std::byte* want, const Tolerance& tol) {
    // Fast path: contiguous float32, the common case, in one tight loop.
    TensorMeta dense = t;
    dense.strides.clear();
    if (t.dtype == DType::f32 && t.effective_strides() == dense.effective_strides()) {
        std::size_t total = 1;
        for (auto s : t.sizes) total *= static_cast<std::size_t>(s);
        const float* a = reinterpret_cast<const float*>(got) + t.offset;
        const float* b = reinterpret_cast<const float*>(want) + t.offset;
        const float atol = static_cast<float>(tol.atol), rtol = static_cast<float>(tol.rtol);
        bool all_ok = true;
        for (std::size_t i = 0; i < total; ++i) all_ok &= std::abs(a[i] - b[i]) <= atol + rtol * std::abs(b[i]);
        if (all_ok) return {};  // NaN fails the comparison above, so it lands in the slow path's report
    }
    // Contiguous float16/bfloat16 (GEMM outputs): a table or a shift per element, no index arithmetic.
    if ((t.dtype == DType::f16 || t.dtype == DType::bf16) && t.effective_strides() == dense.effective_strides()) {
        static const std::vector<float> halves = [] {
            std::vector<float> v(65536);
            for (std::uint32_t h = 0; h < 65536; ++h) v[h] = half_to_float(static_cast<std::uint16_t>(h));
            return v;
        }();
        std::size_t total = 1;
        for (auto s : t.sizes) total *= static_cast<std::size_t>(s);
        const auto* a = reinterpret_cast<const std::uint16_t*>(got) + t.offset;
        const auto* b = reinterpret_cast<const std::uint16_t*>(want) + t.offset;
        const float atol = static_cast<float>(tol.atol), rtol = static_cast<float>(tol.rtol);
        const bool f16 = t.dtype == DType::f16;
        auto value = [&](std::uint16_t h) {
            if (f16) return halves[h];
            std::uint32_t bits = std::uint32_t{h} << 16;
            float f;
            std::memcpy(&f, &bits, 4);
            return f;
        };
        // Large outputs (GEMMs of 10^7 elements) in chunks on a few threads: this runs once per choice.
        constexpr std::size_t kChunk = 1u << 20;
        std::size_t chunks = (total + kChunk - 1) / kChunk;
        std::vector<char> chunk_ok(chunks, 1);
        parallel_for(chunks, static_cast<unsigned>(std::min<std::size_t>(chunks, 4)), nullptr, [&](std::size_t c) {
            bool ok = true;
            for (std::size_t i = c * kChunk, end = std::min(total, i + kChunk); i < end; ++i) {
                float x = value(a[i]), y = value(b[i]);
                ok &= std::abs(x - y) <= atol + rtol * std::abs(y);
            }
            chunk_ok[c] = ok;
        });
        if (std::all_of(chunk_ok.begin(), chunk_ok.end(), [](char c) { return c != 0; }))
            return {};  // NaN fails the comparison above, so it lands in the slow path's report
    }
    auto st = t.effective_strides();
    const size_t es = dtype_size(t.dtype);
    std::vector<std::int64_t> idx(t.sizes.size(), 0);
    std::size_t total = 1;
    for (auto s : t.sizes) total *= static_cast<std::size_t>(s);
    std::size_t bad = 0;
    std::string first;
    for (std::size_t n = 0; n < total; ++n) {
        std::int64_t off = t.offset;
        for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * st[d];
        double a = load(t.dtype, got + off * es), b = load(t.dtype, want + off * es);
        bool ok = std::isfinite(a) && std::abs(a - b) <= tol.atol + tol.rtol * std::abs(b);
        if (!ok) {
            if (bad++ == 0) {
                std::ostringstream os;
                os << "element " << n << ": got " << a << ", expected " << b;
                first = os.str();
            }
        }
        for (size_t d = idx.size(); d-- > 0;) {
            if (++idx[d] < t.sizes[d]) break;
            idx[d] = 0;
        }
    }
    if (bad == 0) return {};
    return std::to_string(bad) + " of " + std::to_string(total) + " elements differ; first at " + first;
}

}  // namespace kiln::worker

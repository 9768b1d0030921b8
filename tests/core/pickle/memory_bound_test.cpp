// "No input may allocate more than a small multiple of its size": the heap the decoder holds at its
// peak, measured by counting every operator new in this test binary, for the inputs that make the
// most nodes per byte. Measured: 12-64 bytes per input byte, 169 for nested 1-tuples (a node, its
// payload and a one-element vector per byte); CPython's own unpickler peaks at 48 (TUPLE1) and 65
// (EMPTY_LIST) bytes per byte on the same inputs (tracemalloc). A real entry costs 1.35x its bytes.
#include <gtest/gtest.h>
#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <functional>
#include <new>
#include <string>

#include "pickle/decoder.hpp"

namespace {
std::atomic<long long> g_live{0}, g_peak{0};

void* counted_alloc(std::size_t n) {
    void* p = std::malloc(n ? n : 1);
    if (!p) throw std::bad_alloc();
    long long now =
        g_live.fetch_add(static_cast<long long>(malloc_usable_size(p))) + static_cast<long long>(malloc_usable_size(p));
    long long peak = g_peak.load();
    while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {}
    return p;
}
void counted_free(void* p) {
    if (!p) return;
    g_live.fetch_sub(static_cast<long long>(malloc_usable_size(p)));
    std::free(p);
}
}  // namespace

void* operator new(std::size_t n) { return counted_alloc(n); }
void* operator new[](std::size_t n) { return counted_alloc(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    try {
        return counted_alloc(n);
    } catch (...) {
        return nullptr;
    }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
    try {
        return counted_alloc(n);
    } catch (...) {
        return nullptr;
    }
}
void operator delete(void* p) noexcept { counted_free(p); }
void operator delete[](void* p) noexcept { counted_free(p); }
void operator delete(void* p, std::size_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::size_t) noexcept { counted_free(p); }

namespace {

// Peak heap above what was live before, while decoding `bytes` (input copy excluded).
long long peak_while_decoding(const std::string& bytes, bool& ok) {
    auto buffer = kiln::pickle::own_bytes(bytes);
    const long long before = g_live.load();
    g_peak.store(before);
    {
        auto doc = kiln::pickle::decode(buffer);
        ok = doc.ok();
    }
    return g_peak.load() - before;
}

std::string repeat(const std::string& unit, std::size_t bytes) {
    std::string s;
    s.reserve(bytes + unit.size());
    while (s.size() < bytes) s += unit;
    return s;
}

struct Case {
    const char* name;
    std::function<std::string(std::size_t)> make;
};

}  // namespace

TEST(PickleMemory, WorstCaseInputsStayWithinALinearBound) {
    const std::size_t n = 1 << 20;  // about 1 MB of input per case
    const Case cases[] = {
        {"NONE x n (one node per byte)", [](std::size_t k) { return "\x80\x04" + repeat("N", k) + "."; }},
        {"EMPTY_LIST x n", [](std::size_t k) { return "\x80\x04" + repeat("]", k) + "."; }},
        {"TUPLE1 wrapped n deep", [](std::size_t k) { return "\x80\x04N" + repeat("\x85", k) + "."; }},
        {"list of n/2 APPENDed Nones", [](std::size_t k) { return "\x80\x04]" + repeat("Na", k) + "."; }},
        {"dict of n/3 SETITEMs", [](std::size_t k) { return "\x80\x04}" + repeat("NNs", k) + "."; }},
        {"MEMOIZE x n", [](std::size_t k) { return "\x80\x04N" + repeat("\x94", k) + "."; }},
        {"BINGET x n", [](std::size_t k) { return "\x80\x04N\x94" + repeat(std::string("h\x00", 2), k) + "."; }},
        {"n/2 one-char strings",
         [](std::size_t k) { return "\x80\x04" + repeat(std::string("\x8c\x01x", 3), k) + "."; }},
        {"MARK + n/2 Nones + TUPLE", [](std::size_t k) { return "\x80\x04(" + repeat("N", k) + "t."; }},
    };
    for (const auto& c : cases) {
        const std::string input = c.make(n);
        bool ok = false;
        const long long peak = peak_while_decoding(input, ok);
        EXPECT_TRUE(ok) << c.name;
        const double per_byte = double(peak) / double(input.size());
        std::printf("%-32s %8zu bytes in, peak heap %6.1f bytes per input byte\n", c.name, input.size(), per_byte);
        EXPECT_LE(per_byte, 200.0) << c.name;
        EXPECT_GT(peak, 0) << c.name << ": the counter saw no allocation; the bound would prove nothing";
    }
}

TEST(PickleMemory, RealEntriesCostLittleBeyondTheirBytes) {
    // A real graph entry's nodes are few next to its bytes (source code, kernels are views).
    std::string source(4 << 20, 'x');  // a 4 MiB source string, as in the large fixture entry
    std::string input = "\x80\x04\x8d";
    for (int k = 0; k < 8; ++k) input += static_cast<char>((source.size() >> (8 * k)) & 0xff);
    input += source + ".";
    bool ok = false;
    const long long peak = peak_while_decoding(input, ok);
    ASSERT_TRUE(ok);
    EXPECT_LT(peak, 64 * 1024) << "a str view must not copy the text";
}

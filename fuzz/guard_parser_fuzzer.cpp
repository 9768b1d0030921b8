// libFuzzer target: any byte string through the guard engine (core/guards): parsed as a guard
// (torch's grammar) or as a tuning-spec restriction (the first byte picks), then, when it parses,
// evaluated, checked (the failing-conjunct report) and valued with a few sets of sizes derived from
// the input. Every path must return a value or an error: a crash, a sanitizer report (signed
// overflow included: UBSan), a timeout or an over-allocation is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "guards/expr.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    using kiln::guards::Dialect;
    using kiln::guards::Expr;
    const Dialect dialect = data[0] & 1 ? Dialect::restriction : Dialect::guard;
    std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
    auto e = Expr::parse(text, dialect);
    if (!e.ok()) return 0;
    const std::size_t n = e->symbols().size();
    // Sizes torch sees (0, 1, 8, huge, negative), one set per pattern.
    static const std::int64_t patterns[][3] = {
        {0, 1, 8}, {2, 64, 4096}, {INT64_MAX, INT64_MIN, -1}, {1, 1, 1}, {7, -3, 1 << 20}};
    for (const auto& p : patterns) {
        std::vector<std::int64_t> values(n);
        for (std::size_t i = 0; i < n; ++i) values[i] = p[i % 3];
        (void)e->evaluate(values);
        (void)e->check(values);
        (void)e->value(values);
    }
    return 0;
}

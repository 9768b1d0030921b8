// bench_guards --golden FILE... --points N --reps R --sample OUT.json
// Parses each distinct guards_expr of the golden files once, then evaluates all of them over the
// same pseudo-random grid of sizes R times on one thread; prints one JSON line with the timings.
// The grid (and how many points held) goes to OUT.json so the Python baseline checks the same
// inputs and must agree on every count.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "guards/expr.hpp"

namespace {

using Clock = std::chrono::steady_clock;

// Sizes a user would try: small, powers of two, and the 32-bit indexing boundary.
const std::vector<std::int64_t> kValues{0,    1,     2,       3,     4,     7,          8,          16,        17,
                                        63,   64,    65,      100,   127,   128,        1000,       1024,      4096,
                                        8192, 65536, 1 << 20, 46340, 46341, 2147483647, 2147483648, 2147483664};

std::uint64_t lcg(std::uint64_t& s) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return s >> 33;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> goldens;
    std::size_t points = 4096, reps = 7;
    std::string sample_path;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--golden" && i + 1 < argc) goldens.push_back(argv[++i]);
        else if (a == "--points" && i + 1 < argc) points = std::stoul(argv[++i]);
        else if (a == "--reps" && i + 1 < argc) reps = std::stoul(argv[++i]);
        else if (a == "--sample" && i + 1 < argc) sample_path = argv[++i];
        else {
            std::fprintf(stderr, "usage: bench_guards --golden FILE... [--points N] [--reps R] [--sample OUT]\n");
            return 2;
        }
    }
    std::set<std::string> sources;
    for (const auto& g : goldens) {
        std::ifstream in(g);
        std::stringstream ss;
        ss << in.rdbuf();
        auto j = nlohmann::json::parse(ss.str());
        for (const auto& e : j.at("entries"))
            if (e.contains("guards_expr") && e.at("guards_expr").is_string())
                sources.insert(e.at("guards_expr").get<std::string>());
    }
    auto t0 = Clock::now();
    std::vector<kiln::guards::Expr> exprs;
    for (const auto& s : sources) {
        auto e = kiln::guards::Expr::parse(s);
        if (!e) {
            std::fprintf(stderr, "parse failed: %s\n", e.error().str().c_str());
            return 1;
        }
        exprs.push_back(std::move(e).value());
    }
    double parse_ns =
        std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / std::max<std::size_t>(1, exprs.size());

    // One flat grid per expression: points x arity values.
    std::vector<std::vector<std::int64_t>> grids(exprs.size());
    for (std::size_t k = 0; k < exprs.size(); ++k) {
        std::uint64_t seed = 42 + k;  // one stream per expression: a smaller grid is a prefix of a larger one
        std::size_t arity = exprs[k].symbols().size();
        for (std::size_t p = 0; p < points * arity; ++p) grids[k].push_back(kValues[lcg(seed) % kValues.size()]);
    }
    std::vector<std::size_t> held(exprs.size(), 0);
    std::vector<double> per_rep;
    std::size_t errors = 0;
    for (std::size_t r = 0; r < reps; ++r) {
        std::fill(held.begin(), held.end(), 0);
        auto start = Clock::now();
        for (std::size_t k = 0; k < exprs.size(); ++k) {
            std::size_t arity = exprs[k].symbols().size();
            const std::int64_t* g = grids[k].data();
            for (std::size_t p = 0; p < points; ++p) {
                auto v = exprs[k].evaluate(std::span<const std::int64_t>(g + p * arity, arity));
                if (!v) ++errors;
                else held[k] += *v;
            }
        }
        per_rep.push_back(std::chrono::duration<double, std::nano>(Clock::now() - start).count());
    }
    std::sort(per_rep.begin(), per_rep.end());
    double evals = static_cast<double>(points * exprs.size());
    double ns_per_eval = per_rep[per_rep.size() / 2] / evals;

    if (!sample_path.empty()) {
        nlohmann::json s;
        s["exprs"] = nlohmann::json::array();
        for (std::size_t k = 0; k < exprs.size(); ++k)
            s["exprs"].push_back(
                {{"expr", exprs[k].source()}, {"symbols", exprs[k].symbols()}, {"grid", grids[k]}, {"held", held[k]}});
        std::ofstream(sample_path) << s.dump();
    }
    nlohmann::json out{{"expressions", exprs.size()},
                       {"points", points},
                       {"evals_per_rep", evals},
                       {"reps", reps},
                       {"errors", errors},
                       {"parse_ns", parse_ns},
                       {"ns_per_eval", ns_per_eval},
                       {"evals_per_s", 1e9 / ns_per_eval}};
    std::cout << out.dump() << "\n";
    return errors == 0 ? 0 : 1;
}

// The Triton-precompile rule on a warm start (causes.cpp): a hit whose key says the static CUDA launcher
// is on loads its kernels from the FX entry, so no Triton-cache claim; without it, precompiles of 0.1 s
// or more a kernel say the Triton cache lacked them (measured), shorter ones leave it inferred.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "startup/causes.hpp"

namespace kiln::startup {
namespace {

CompileSpans warm_hit(double triton_seconds, int precompiles, bool static_launcher) {
    CompileSpans c;
    c.compile_id = "0/0";
    c.function = "forward";
    c.metrics_seconds = triton_seconds + 0.5;
    c.phases["Triton compile"] = triton_seconds;
    c.phases["cache lookup and load"] = 0.5;
    c.span_counts["async_compile.precompile"] = precompiles;
    trace::CacheEvent hit;
    hit.cache = "fx_graph";
    hit.state = "hit";
    hit.components = {
        "[cev5uo2jlwdhw2uyzcm7vr6cl23azjfw437f5r5lskm7spucos6] inductor_config[use_static_cuda_launcher]: " +
        std::string(static_launcher ? "True" : "False")};
    c.events.push_back(hit);
    return c;
}

std::vector<Claim> claims_of(const CompileSpans& c) {
    std::vector<Claim> claims;
    cost_of(c, std::nullopt, claims);
    return claims;
}

TEST(StartupCauses, AStaticLauncherHitClaimsNoTritonCacheMiss) {
    // The A/B fixture's numbers: 12 precompiles, 0.9 s, with or without the Triton cache.
    EXPECT_TRUE(claims_of(warm_hit(0.9, 12, true)).empty());
    const auto cost = [] {
        std::vector<Claim> claims;
        return cost_of(warm_hit(0.9, 12, true), std::nullopt, claims);
    }();
    EXPECT_NE(cost.phases.front().cause.find("use_static_cuda_launcher"), std::string::npos)
        << cost.phases.front().cause;
}

TEST(StartupCauses, LongPrecompilesWithoutTheStaticLauncherSayTheTritonCacheLackedThem) {
    const auto claims = claims_of(warm_hit(3.0, 10, false));  // 0.3 s a kernel
    ASSERT_EQ(claims.size(), 1u);
    EXPECT_EQ(claims[0].remedy, "the Triton cache kept");
    EXPECT_FALSE(claims[0].inferred);
    EXPECT_DOUBLE_EQ(claims[0].seconds, 3.0);
}

TEST(StartupCauses, ShortPrecompilesWithoutTheStaticLauncherLeaveTheMissInferred) {
    const auto claims = claims_of(warm_hit(0.5, 10, false));  // 50 ms a kernel: loads
    ASSERT_EQ(claims.size(), 1u);
    EXPECT_TRUE(claims[0].inferred);
    EXPECT_NE(claims[0].basis.find("below the"), std::string::npos) << claims[0].basis;
}

}  // namespace
}  // namespace kiln::startup

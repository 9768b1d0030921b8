// Key environments of real entries against real targets: what differs, what is unknown, never a guessed hit.
#include <gtest/gtest.h>

#include <memory>

#include "inductor/graph_entry.hpp"
#include "portability/key_env.hpp"
#include "portability/sources.hpp"
#include "portability/verdict.hpp"
#include "test_support.hpp"

namespace {

using namespace kiln::portability;

// The component, or an empty one (and a failure) when the fingerprint lacks it.
EnvComponent component_of(const Fingerprint& fp, std::string_view name) {
    const EnvComponent* c = fp.find(name);
    EXPECT_NE(c, nullptr) << "no component " << name << " in " << fp.origin;
    return c ? *c : EnvComponent{};
}
namespace fs = std::filesystem;

// The entry's key environment; its config views lines kept alive here for the test's duration.
KeyEnv env_of(const fs::path& entry) {
    static std::vector<std::unique_ptr<std::vector<kiln::inductor::KeyComponent>>> keep;
    auto e = kiln::inductor::load_graph_entry(entry);
    EXPECT_TRUE(e.ok());
    auto c = kiln::inductor::parse_debug_lines(e->debug_lines());
    EXPECT_TRUE(c.ok());
    keep.push_back(std::make_unique<std::vector<kiln::inductor::KeyComponent>>(c.value_or({})));
    return key_env(*keep.back(), "entry");
}

fs::path first_entry(const std::string& key) {
    fs::path dir = kiln::test::h100_root() / "fxgraph" / key.substr(1, 2) / key;
    return fs::directory_iterator(dir)->path();
}

Fingerprint trace_fp(const char* which) {
    auto fp = fingerprint_from_trace(kiln::test::fixture_dir() / "h100h200" / which);
    EXPECT_TRUE(fp.ok()) << fp.error().str();
    return fp.value_or({});
}

const std::string kMm = "fej3ypleo5ccxyjnzfv46rsawa3nerozpyvrcvtakojqw2j5kwww";   // max-autotune mm, cuda:0 inputs
const std::string kCpu = "ftim4jyspjjd3ig7ob7qahxylk4sp7j6pqee2dndefw5iuhp63lw";  // the CPU graph

TEST(KeyEnv, EnvironmentComponentsOfAnEntry) {
    KeyEnv k = env_of(first_entry(kMm));
    EXPECT_EQ(k.env.device_name(), "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(component_of(k.env, names::pickle_protocol).value, "4");
    EXPECT_EQ(component_of(k.env, names::input_device).value, "cuda:0");
    EXPECT_TRUE(component_of(k.env, names::torch_version).lossy);
    EXPECT_EQ(component_of(k.env, names::cxx).scope, Scope::environment);
    EXPECT_EQ(component_of(k.env, names::matmul).scope, Scope::process);
    EXPECT_GT(k.config.size(), 400u);
    ASSERT_EQ(k.hazards.size(), 1u);  // the absolute path of $CXX; device cuda:0 and an empty tag are no hazard
    EXPECT_EQ(k.hazards[0].component, "inductor_config[cpp.cxx]");
    EXPECT_EQ(env_of(first_entry(kCpu)).env.find(names::input_device), nullptr);  // CPU inputs name no GPU index
}

TEST(Verdict, H100EntryOnTheH200MissesOnTheDeviceAndSystemHash) {
    KeyEnv k = env_of(first_entry(kCpu));  // even the CPU graph: system_info is in every key
    Assessment a = assess_key(k.env, k.config, trace_fp("h200/trace/warm"));
    EXPECT_EQ(a.verdict, Verdict::miss);
    ASSERT_EQ(a.differs.size(), 2u);
    EXPECT_EQ(a.differs[0].component, "system_info[device]");
    EXPECT_EQ(a.differs[0].cached, "{'name': 'NVIDIA H100 80GB HBM3'}");
    EXPECT_EQ(a.differs[0].target, "{'name': 'NVIDIA H200'}");
    EXPECT_EQ(a.differs[1].component, "system_info[hash]");
    EXPECT_TRUE(a.unknown.empty());
    EXPECT_EQ(assess_key(k.env, k.config, trace_fp("h100/trace/warm")).verdict, Verdict::hit);
}

TEST(Verdict, UnknownOnTheTargetIsNeverAHit) {
    KeyEnv k = env_of(first_entry(kMm));
    Fingerprint t = trace_fp("h100/trace/warm");
    t.components.erase(std::remove_if(t.components.begin(), t.components.end(),
                                      [](const EnvComponent& c) { return c.name == names::torch_version; }),
                       t.components.end());
    t.mark_unknown(std::string(names::torch_version), "needs torch");
    Assessment a = assess_key(k.env, k.config, t);
    EXPECT_EQ(a.verdict, Verdict::unknown);
    ASSERT_EQ(a.unknown.size(), 1u);
    EXPECT_EQ(a.unknown[0].name, "torch_version");
    EXPECT_EQ(a.unknown[0].why, "needs torch");

    // torch_version printed without its hash: the printed bytes are lossy, so no comparison.
    t.set({std::string(names::torch_version), component_of(k.env, names::torch_version).value, "", Scope::install, true,
           false, true, false, "test"});
    a = assess_key(k.env, k.config, t);
    EXPECT_EQ(a.verdict, Verdict::unknown);
    EXPECT_NE(a.unknown[0].why.find("lossy"), std::string::npos);

    // A known difference decides, whatever else is unknown.
    t.set(
        {std::string(names::device), "{'name': 'NVIDIA H200'}", "", Scope::machine, true, false, false, false, "test"});
    a = assess_key(k.env, k.config, t);
    EXPECT_EQ(a.verdict, Verdict::miss);
    EXPECT_EQ(a.differs.size(), 1u);  // compared by value: the target has no hash for it
}

TEST(Verdict, ProcessStateOfAFreshProcessIsNotAMiss) {
    KeyEnv k = env_of(first_entry(kMm));
    Fingerprint t = trace_fp("h100/trace/warm");
    t.set({std::string(names::input_device), "cuda:1", "", Scope::process, true, false, false, true, "test"});
    Assessment a = assess_key(k.env, k.config, t);
    EXPECT_EQ(a.verdict, Verdict::unknown);
    ASSERT_EQ(a.unknown.size(), 1u);
    EXPECT_NE(a.unknown[0].why.find("set by the program"), std::string::npos) << a.unknown[0].why;
    t.set({std::string(names::input_device), "cuda:1", "", Scope::process, true, false, false, false, "test"});
    EXPECT_EQ(assess_key(k.env, k.config, t).verdict, Verdict::miss);  // seen in a real compile there: a miss
}

TEST(Verdict, ConfigTheTargetEnvironmentSetsIsCompared) {
    KeyEnv k = env_of(first_entry(kMm));
    Fingerprint t = trace_fp("h100/trace/warm");
    for (const auto& c : k.config)
        if (c.name == "inductor_config[max_autotune]")
            t.set({std::string(c.name), c.value == "True" ? "False" : "True", "", Scope::environment, true, false,
                   false, false, "test"});
    Assessment a = assess_key(k.env, k.config, t);
    EXPECT_EQ(a.verdict, Verdict::miss);
    ASSERT_EQ(a.differs.size(), 1u);
    EXPECT_EQ(a.differs[0].component, "inductor_config[max_autotune]");
}

}  // namespace

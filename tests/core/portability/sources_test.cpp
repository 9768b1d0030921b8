// Fingerprints from every source, on real data: traces, entries, roots, the torch probe's output
// (tests/data/probe-h100-from-trace.json, see make_probe_from_trace.py), files, this machine.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "portability/key_env.hpp"
#include "portability/sources.hpp"
#include "test_support.hpp"
#include "trace/trace_log.hpp"

namespace {

using namespace kiln::portability;

// The component, or an empty one (and a failure) when the fingerprint lacks it.
EnvComponent comp(const Fingerprint& fp, std::string_view name) {
    const EnvComponent* c = fp.find(name);
    EXPECT_NE(c, nullptr) << "no component " << name << " in " << fp.origin;
    return c ? *c : EnvComponent{};
}
namespace fs = std::filesystem;

fs::path fx() { return kiln::test::fixture_dir() / "h100h200"; }

Fingerprint must(kiln::Result<Fingerprint> r) {
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().str());
    return r.ok() ? std::move(r).value() : Fingerprint{};
}

nlohmann::json probe_json() {
    return nlohmann::json::parse(
        kiln::test::read_file(kiln::test::source_dir() / "tests/data/probe-h100-from-trace.json"));
}

// The key components both fingerprints have, compared by hash (or value where there is no hash).
void expect_same_key_components(const Fingerprint& a, const Fingerprint& b) {
    std::size_t compared = 0;
    for (const auto& c : a.components) {
        if (!c.in_key) continue;
        const EnvComponent* o = b.find(c.name);
        if (!o) continue;
        ++compared;
        if (!c.hash.empty() && !o->hash.empty()) EXPECT_EQ(c.hash, o->hash) << c.name;
        else EXPECT_EQ(c.value, o->value) << c.name;
    }
    EXPECT_GE(compared, 9u);
}

TEST(Sources, TraceGivesTheProcesssEnvironmentAndItsSystemHash) {
    Fingerprint h200 = must(fingerprint_from_trace(fx() / "h200/trace/warm"));
    EXPECT_EQ(h200.device_name(), "NVIDIA H200");
    const EnvComponent* hash = h200.find(names::system_hash);
    ASSERT_NE(hash, nullptr);
    EXPECT_EQ(recompute_system_hash(h200), hash->value);  // Inductor's rule over the printed device and versions
    EXPECT_TRUE(fs::exists(fx() / "inductor/cache" / hash->value));  // the H200's timing cache is named by it
    EXPECT_EQ(comp(h200, names::compute_capability).value, "90");
    EXPECT_EQ(comp(h200, names::sm_count).value, "132");
    EXPECT_EQ(comp(h200, names::pickle_protocol).value, "4");
    EXPECT_EQ(comp(h200, names::python).value, "3.12.3");
    EXPECT_NE(comp(h200, names::env_vars).value.find("TORCHINDUCTOR_CACHE_DIR="), std::string::npos);
    EXPECT_EQ(comp(h200, names::devices).value, "NVIDIA H200 x1");

    Fingerprint h100 = must(fingerprint_from_trace(fx() / "h100/trace/warm"));  // only hits: the code is stored code
    EXPECT_EQ(h100.device_name(), "NVIDIA H100 80GB HBM3");
    EXPECT_TRUE(fs::exists(fx() / "inductor/cache" / comp(h100, names::system_hash).value));
    EXPECT_NE(comp(h100, names::compute_capability).source.find("hit"), std::string::npos);
    EXPECT_EQ(h100.find(names::backend_hash), nullptr);  // only a miss's code tells this machine's backend hash
}

TEST(Sources, ProbeOutputAgreesWithTheSameMachinesTrace) {
    Fingerprint probe = must(fingerprint_from_probe(probe_json(), nullptr, "probe"));
    Fingerprint trace = must(fingerprint_from_trace(fx() / "h100/trace/warm"));
    expect_same_key_components(probe, trace);
    EXPECT_EQ(comp(probe, names::torch_key).value.size(), 64u);
    EXPECT_EQ(comp(probe, names::compute_capability).value, "90");
    EXPECT_EQ(comp(probe, names::backend_hash).value.size(), 64u);
    EXPECT_TRUE(comp(probe, names::matmul).fresh_default);
    EXPECT_TRUE(comp(probe, names::input_device).fresh_default);
    EXPECT_EQ(comp(probe, names::input_device).value, "cuda:0");
    EXPECT_FALSE(comp(probe, names::device).fresh_default);
    EXPECT_EQ(recompute_system_hash(probe), comp(probe, names::system_hash).value);
}

TEST(Sources, ProbeBaselineNamesTheConfigTheEnvironmentSets) {
    // The baseline run's config lines: real ones from the `changed` process, where two configs differ.
    nlohmann::json probe = probe_json(), baseline = probe_json();
    auto changed = kiln::trace::read_trace_logs(fx() / "h100/trace/changed");
    ASSERT_TRUE(changed.ok());
    baseline["debug_lines"] = nlohmann::json::array();
    for (const auto& l : changed->front().components)
        if (l.find("] inductor_config[") != std::string::npos) baseline["debug_lines"].push_back(l);
    Fingerprint fp = must(fingerprint_from_probe(probe, &baseline, "probe"));
    std::vector<std::string> env_set;
    for (const auto& c : fp.components)
        if (c.name.rfind("inductor_config[", 0) == 0 && c.source == "python (set by environment variables)")
            env_set.push_back(c.name);
    std::sort(env_set.begin(), env_set.end());
    EXPECT_EQ(env_set, (std::vector<std::string>{"inductor_config[max_fusion_size]",
                                                 "inductor_config[realize_opcount_threshold]"}));
}

TEST(Sources, EntryAndRoot) {
    fs::path aot;
    for (const auto& f : fs::recursive_directory_iterator(kiln::test::h100_root() / "aotautograd"))
        if (f.is_regular_file()) aot = f.path();
    Fingerprint e = must(fingerprint_from_entry(aot));
    EXPECT_EQ(e.device_name(), "NVIDIA H100 80GB HBM3");
    Fingerprint root = must(fingerprint_from_root(fx() / "inductor"));  // the H200 processes wrote last
    EXPECT_EQ(root.device_name(), "NVIDIA H200");
    EXPECT_EQ(comp(root, names::compute_capability).value, "90");
    bool names_other = false;
    for (const auto& n : root.notes) names_other = names_other || n.find("NVIDIA H100 80GB HBM3") != std::string::npos;
    EXPECT_TRUE(names_other);
}

TEST(Sources, LoadDetectsWhatAPathIs) {
    kiln::test::ScratchDir dir("portability-load");
    EXPECT_EQ(must(load_fingerprint(fx() / "h200/trace/warm")).device_name(), "NVIDIA H200");
    EXPECT_EQ(must(load_fingerprint(fs::directory_iterator(fx() / "h200/trace/warm")->path())).device_name(),
              "NVIDIA H200");
    EXPECT_EQ(must(load_fingerprint(fx() / "inductor")).device_name(), "NVIDIA H200");
    Fingerprint timing = must(
        load_fingerprint(fx() / "inductor/cache/2b00ebb9d40b504fab0d8c9073411848066a922b8fa47b047b01c18e86e43158"));
    EXPECT_EQ(timing.device_name(), "NVIDIA H100 80GB HBM3");
    EXPECT_TRUE(timing.notes.size() == 1);  // its hash matches its device and versions: no note about that
    EXPECT_EQ(comp(must(load_fingerprint(kiln::test::source_dir() / "tests/data/probe-h100-from-trace.json")),
                   names::torch_key)
                  .value.size(),
              64u);

    // A fingerprint file round trip.
    Fingerprint h200 = must(fingerprint_from_trace(fx() / "h200/trace/warm"));
    fs::path file = dir.path() / "fp.json";
    std::ofstream(file) << to_json(h200).dump(1);
    Fingerprint back = must(load_fingerprint(file));
    EXPECT_EQ(to_json(back).dump(), to_json(h200).dump());

    // A Mega-Cache blob reads as the cache it unpacks to: the H200's entries.
    Fingerprint blob = must(load_fingerprint(fx() / "h200/megacache.bin"));
    EXPECT_EQ(blob.find(names::system_hash)->value, h200.find(names::system_hash)->value);
    auto missing = load_fingerprint(dir.path() / "nope");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, kiln::Errc::not_found);
    std::ofstream(dir.path() / "text") << "hello\n";
    EXPECT_EQ(load_fingerprint(dir.path() / "text").error().code, kiln::Errc::parse);
    std::ofstream(dir.path() / "other.json") << "{\"a\": 1}";
    EXPECT_EQ(load_fingerprint(dir.path() / "other.json").error().code, kiln::Errc::parse);
    std::ofstream(dir.path() / "bad-scope.json")
        << R"({"kiln_fingerprint": 1, "components": [{"name": "x", "scope": "galaxy"}]})";
    EXPECT_EQ(load_fingerprint(dir.path() / "bad-scope.json").error().code, kiln::Errc::parse);
}

TEST(Sources, ThisMachineWithoutPython) {
    ::setenv("CXX", "/usr/lib/ccache/g++", 1);
    Fingerprint fp = local_fingerprint();
    ::unsetenv("CXX");
    EXPECT_EQ(comp(fp, names::cxx).value, "(None, '/usr/lib/ccache/g++')");
    EXPECT_EQ(comp(fp, names::cxx).source, "environment ($CXX)");
    EXPECT_EQ(comp(local_fingerprint(), names::cxx).value, "(None, 'g++')");
    EXPECT_EQ(fp.find(names::torch_version), nullptr);
    ASSERT_NE(fp.find_unknown(names::torch_version), nullptr);
    if (kiln::test::has_cuda_device()) {  // a GPU host: the driver names the device
        EXPECT_NE(fp.find(names::device), nullptr);
        EXPECT_EQ(fp.find_unknown(names::device), nullptr);
    } else if (!kiln::test::cuda_driver_loads()) {  // no GPU driver: the device is unknown, and says why
        ASSERT_NE(fp.find_unknown(names::device), nullptr);
        EXPECT_NE(fp.find_unknown(names::device)->why.find("libcuda"), std::string::npos)
            << fp.find_unknown(names::device)->why;
    }
}

TEST(Sources, PythonWithoutTorchIsAClearError) {
    kiln::test::ScratchDir dir("portability-python");
    // A real interpreter that cannot see site-packages (-S): torch is not importable, whatever is installed.
    fs::path py = dir.path() / "python-no-site";
    std::ofstream(py) << "#!/bin/sh\nexec python3 -S \"$@\"\n";
    fs::permissions(py, fs::perms::owner_all);
    auto r = python_fingerprint({py.string(), std::chrono::seconds(60)});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, kiln::Errc::not_found);
    EXPECT_NE(r.error().message.find("cannot import torch"), std::string::npos) << r.error().str();
    EXPECT_NE(r.error().hint.find("--python"), std::string::npos);
    auto none = python_fingerprint({(dir.path() / "no-python").string(), std::chrono::seconds(10)});
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.error().code, kiln::Errc::not_found);
    EXPECT_NE(none.error().message.find("cannot run"), std::string::npos);
    // The default (python3 from $PATH, here one without torch) falls back to the driver, with a note saying why.
    const std::string saved = std::getenv("PATH") ? std::getenv("PATH") : "";
    ::setenv("PATH", kiln::test::path_without_torch(dir.path()).c_str(), 1);
    auto here = this_machine_fingerprint(std::nullopt);
    ::setenv("PATH", saved.c_str(), 1);
    ASSERT_TRUE(here.ok());
    ASSERT_FALSE(here->notes.empty());
    EXPECT_NE(here->notes.back().find("cannot import torch"), std::string::npos) << here->notes.back();
}

}  // namespace

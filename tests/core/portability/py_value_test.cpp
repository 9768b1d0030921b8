// Component hashes recomputed from values must equal the hashes torch wrote into the fixture's keys.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "inductor/debug_lines.hpp"
#include "inductor/graph_entry.hpp"
#include "portability/key_env.hpp"
#include "portability/py_value.hpp"
#include "test_support.hpp"

namespace {

using namespace kiln::portability;
using kiln::inductor::KeyComponent;

std::vector<KeyComponent> components_of(const std::filesystem::path& entry) {
    auto e = kiln::inductor::load_graph_entry(entry);
    EXPECT_TRUE(e.ok()) << e.error().str();
    auto c = kiln::inductor::parse_debug_lines(e->debug_lines());
    EXPECT_TRUE(c.ok());
    return c.value_or({});
}

// One FX entry of each machine of the h100h200 fixture.
std::vector<std::filesystem::path> fx_entries(const std::filesystem::path& root) {
    std::vector<std::filesystem::path> out;
    for (const auto& f : std::filesystem::recursive_directory_iterator(root / "fxgraph"))
        if (f.is_regular_file()) out.push_back(f.path());
    std::sort(out.begin(), out.end());
    return out;
}

const KeyComponent& find(const std::vector<KeyComponent>& cs, const std::string& name) {
    static const KeyComponent none;
    for (const auto& c : cs)
        if (c.name == name) return c;
    ADD_FAILURE() << "no component " << name;
    return none;
}

TEST(PyValue, SystemInfoAndSettingsHashLikeTorch) {
    std::set<std::string> devices;
    for (const auto& path : fx_entries(kiln::test::h100_h200_root())) {
        auto cs = components_of(path);
        const auto& dev = find(cs, "system_info[device]");
        std::string name = device_name_of(dev.value);
        ASSERT_FALSE(name.empty()) << dev.value;
        devices.insert(name);
        PyValue d = PyValue::dict({{"name", PyValue::str(name)}});
        EXPECT_EQ(component_hash(d, 4), dev.hash) << path;
        EXPECT_EQ(py_str(d), dev.value);
        EXPECT_NE(component_hash(d, 5), dev.hash);  // Python 3.14's protocol makes other hashes

        const auto& hash = find(cs, "system_info[hash]");
        EXPECT_EQ(component_hash(PyValue::str(hash.value), 4), hash.hash);
        const auto& tag = find(cs, "cache_key_tag");
        EXPECT_EQ(component_hash(PyValue::str(tag.value), 4), tag.hash);

        const auto& ver = find(cs, "system_info[version]");
        auto t0 = ver.value.find("'triton': '") + 11, t1 = ver.value.find('\'', t0);
        auto c0 = ver.value.find("'cuda': '") + 9, c1 = ver.value.find('\'', c0);
        PyValue v = PyValue::dict({{"triton", PyValue::str(ver.value.substr(t0, t1 - t0))},
                                   {"cuda", PyValue::str(ver.value.substr(c0, c1 - c0))}});
        EXPECT_EQ(py_str(v), ver.value);
        EXPECT_EQ(component_hash(v, 4), ver.hash);  // 1.9 KB Triton key: a BINUNICODE inside a frame

        const auto& det = find(cs, "deterministic_algorithms_settings");
        ASSERT_EQ(det.value, "(False, False, True)");
        EXPECT_EQ(component_hash(
                      PyValue::tuple({PyValue::boolean(false), PyValue::boolean(false), PyValue::boolean(true)}), 4),
                  det.hash);
        const auto& mm = find(cs, "cuda_matmul_settings");
        PyValue m = PyValue::tuple({PyValue::str("none"), PyValue::boolean(true), PyValue::boolean(true)});
        EXPECT_EQ(py_str(m), mm.value);
        EXPECT_EQ(component_hash(m, 4), mm.hash);
        const auto& cxx = find(cs, "inductor_config[cpp.cxx]");
        PyValue x = PyValue::tuple({PyValue::none(), PyValue::str("/opt/gcc/bin/g++")});
        EXPECT_EQ(py_str(x), cxx.value);
        EXPECT_EQ(component_hash(x, 4), cxx.hash);
    }
    EXPECT_EQ(devices, (std::set<std::string>{"NVIDIA H100 80GB HBM3", "NVIDIA H200"}));
}

// Every inductor_config line printing None, True, False or an integer re-pickles to its own hash
// (an integer's text may also be a str: str() prints '0' and 0 alike, so either must match).
TEST(PyValue, ScalarConfigValuesHashLikeTorch) {
    auto cs = components_of(fx_entries(kiln::test::h100_root()).front());
    std::size_t checked = 0, ints = 0;
    for (const auto& c : cs) {
        if (c.name.rfind("inductor_config[", 0) != 0) continue;
        std::optional<PyValue> v;
        bool maybe_str = false;
        if (c.value == "None") v = PyValue::none();
        else if (c.value == "True") v = PyValue::boolean(true);
        else if (c.value == "False") v = PyValue::boolean(false);
        else if (!c.value.empty() && c.value.size() < 12 &&
                 c.value.find_first_not_of("-0123456789") == std::string::npos) {
            v = PyValue::integer(std::stoll(c.value));
            maybe_str = true;
        }
        if (!v) continue;
        if (maybe_str && component_hash(*v, 4) != c.hash) v = PyValue::str(c.value);
        else if (maybe_str) ++ints;
        EXPECT_EQ(component_hash(*v, 4), c.hash) << c.name << " = " << c.value;
        ++checked;
    }
    EXPECT_GT(checked, 300u);
    EXPECT_GT(ints, 20u);  // BININT1, BININT2 and BININT (e.g. 2147483647-sized limits) all appear
}

TEST(PyValue, DetectsTheProtocolOfAKey) {
    auto cs = components_of(fx_entries(kiln::test::h100_root()).front());
    EXPECT_EQ(detect_protocol(cs), 4);
    for (auto& c : cs)
        if (c.name == "system_info[hash]" || c.name == "cache_key_tag")
            c.hash = component_hash(PyValue::str(c.value), 5);
    EXPECT_EQ(detect_protocol(cs), 5);
    for (auto& c : cs)
        if (c.name == "system_info[hash]" || c.name == "cache_key_tag") c.hash = std::string(51, 'a');
    EXPECT_EQ(detect_protocol(cs), std::nullopt);
}

TEST(PyValue, ReprQuotesLikePython) {
    EXPECT_EQ(py_repr_str("g++"), "'g++'");
    EXPECT_EQ(py_repr_str("it's"), "\"it's\"");
    EXPECT_EQ(py_repr_str("a'b\"c"), "'a\\'b\"c'");
    EXPECT_EQ(py_repr_str("t\tn\n\x01"), "'t\\tn\\n\\x01'");
    EXPECT_EQ(py_str(PyValue::tuple({PyValue::integer(1)})), "(1,)");
    EXPECT_EQ(py_str(PyValue::tuple({})), "()");
}

}  // namespace

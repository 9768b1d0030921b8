// Output code -> the kernels it launches, on every output module of the H100 fixture: each Triton
// kernel's module file and each C++ kernel's .main.cpp must be found in the cache by the join rules.
#include "inductor/output_code.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "test_support.hpp"

namespace kiln::inductor {
namespace {

namespace fs = std::filesystem;

std::map<std::string, fs::path> output_modules(const fs::path& root) {
    std::map<std::string, fs::path> out;
    for (auto& e : fs::recursive_directory_iterator(root)) {
        if (!e.is_regular_file() || e.path().extension() != ".py") continue;
        std::string text = test::read_file(e.path());
        if (text.starts_with("# AOT ID: ")) out[e.path().stem().string()] = e.path();
    }
    return out;
}

TEST(OutputCode, EveryKernelOfTheFixtureResolvesToItsFiles) {
    fs::path root = test::h100_root();
    std::map<std::string, fs::path> cpp_sources;  // sha256 of the kernel part -> .main.cpp
    for (auto& e : fs::recursive_directory_iterator(root)) {
        std::string name = e.path().filename().string();
        if (!name.ends_with(".main.cpp")) continue;
        auto key = cpp_main_source_sha256(test::read_file(e.path()));
        ASSERT_TRUE(key) << e.path();
        cpp_sources[*key] = e.path();
    }
    auto modules = output_modules(root);
    ASSERT_EQ(modules.size(), 12u);  // 15 "output_code" by today's rule; 3 are benchmark harnesses
    int triton = 0, cpp = 0, externs = 0;
    for (auto& [key, path] : modules) {
        auto oc = parse_output_code(test::read_file(path));
        ASSERT_TRUE(oc.ok()) << path << ": " << oc.error().str();
        EXPECT_FALSE(oc->aot_id.empty());
        EXPECT_FALSE(oc->kernels.empty()) << path;
        for (const auto& k : oc->kernels) {
            EXPECT_GE(k.launches, 1u) << path << " " << k.name;
            if (k.kind == KernelKind::triton) {
                ++triton;
                EXPECT_TRUE(fs::exists(root / k.module_rel_path()))
                    << path << " " << k.name << " -> " << k.module_rel_path();
                EXPECT_TRUE(fs::exists(root / k.kernel_path)) << path << " " << k.name << " -> " << k.kernel_path;
                EXPECT_FALSE(k.triton_category().empty()) << k.name;
            } else if (k.kind == KernelKind::cpp) {
                ++cpp;
                EXPECT_EQ(cpp_sources.count(k.source_sha256), 1u) << path << " " << k.name;
            } else {
                ++externs;
            }
        }
    }
    EXPECT_EQ(triton, 13);
    EXPECT_EQ(cpp, 3);
    EXPECT_GE(externs, 1);
}

// The 512x512 mm graph runs the template with relu fused in; PyCodeCache loads it from another file
// than the `# kernel path:` one (whitespace-only lines differ).
TEST(OutputCode, TemplateKernelOfTheMmGraph) {
    auto path = test::h100_root() / "y6" / "cy6x6j4mf5jvs7kc5j47y5oj7snslen5qyahqjnblkm46xfshtuz.py";
    ASSERT_TRUE(fs::exists(path));
    auto oc = parse_output_code(test::read_file(path));
    ASSERT_TRUE(oc.ok()) << oc.error().str();
    ASSERT_EQ(oc->kernels.size(), 1u);
    const auto& k = oc->kernels[0];
    EXPECT_EQ(k.name, "triton_tem_fused_mm_relu_0");
    EXPECT_EQ(k.triton_category(), "template");
    EXPECT_TRUE(k.kernel_path.starts_with("sv/csvxuxh4")) << k.kernel_path;
    EXPECT_TRUE(k.module_key.starts_with("cmouqc6v")) << k.module_key;
    EXPECT_EQ(k.launches, 1u);
}

TEST(OutputCode, PythonEscapes) {
    EXPECT_EQ(*decode_python_escapes(R"(a\nb\t\\ \'q\' \x41\u00e9\101 line\
cont)"),
              "a\nb\t\\ 'q' A\xc3\xa9"
              "A linecont");
    EXPECT_EQ(*decode_python_escapes(R"(\d stays)"), "\\d stays");
    EXPECT_FALSE(decode_python_escapes("ends in \\").ok());
    EXPECT_FALSE(decode_python_escapes(R"(\x4)").ok());
    EXPECT_FALSE(decode_python_escapes(R"(\ud800)").ok());
    EXPECT_FALSE(decode_python_escapes(R"(\N{BULLET})").ok());
}

TEST(OutputCode, HostileText) {
    EXPECT_TRUE(parse_output_code("").ok());
    EXPECT_TRUE(parse_output_code("print('hello')").value().kernels.empty());
    auto unterminated = parse_output_code("k = async_compile.triton('k', '''\ndef k(): pass\n");
    ASSERT_FALSE(unterminated.ok());
    EXPECT_NE(unterminated.error().message.find("never ends"), std::string::npos);
    EXPECT_FALSE(parse_output_code("= async_compile.triton(").ok());
    // A kernel name inside another kernel's source is not a launch.
    auto oc = parse_output_code(
        "a = async_compile.triton('a', '''b.run(x)''', device_str='cuda')\n"
        "b = async_compile.triton('b', '''pass''', device_str='cuda')\n"
        "def call(args):\n    b.run(1)\n    extern_kernels.mm(x, y, out=z)\n    extern_kernels.mm(x, y, out=w)\n");
    ASSERT_TRUE(oc.ok()) << oc.error().str();
    ASSERT_EQ(oc->kernels.size(), 3u);
    EXPECT_EQ(oc->kernels[0].launches, 0u);
    EXPECT_EQ(oc->kernels[1].launches, 1u);
    EXPECT_EQ(oc->kernels[2].name, "mm");
    EXPECT_EQ(oc->kernels[2].launches, 2u);
}

}  // namespace
}  // namespace kiln::inductor

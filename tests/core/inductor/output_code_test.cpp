// Output code -> the kernels it launches, on every output module of the H100 fixture: each Triton
// kernel's module file and each C++ kernel's .main.cpp must be found in the cache by the join rules.
#include "inductor/output_code.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <vector>

#include "output_code_reference.hpp"
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

// The parse that searches with memmem and counts launches in one pass gives what the plain parse gives
// (tests/support/output_code_reference.hpp): the same error or the same kernels, field for field.
void expect_same_as_reference(std::string_view text, const std::string& what) {
    auto fast = parse_output_code(text);
    auto plain = test::output_code_reference::parse_output_code(text);
    ASSERT_EQ(fast.ok(), plain.ok()) << what;
    if (!fast.ok()) {
        EXPECT_EQ(fast.error().str(), plain.error().str()) << what;
        return;
    }
    EXPECT_EQ(fast->aot_id, plain->aot_id) << what;
    ASSERT_EQ(fast->kernels.size(), plain->kernels.size()) << what;
    for (std::size_t i = 0; i < fast->kernels.size(); ++i) {
        const KernelRef &f = fast->kernels[i], &r = plain->kernels[i];
        EXPECT_EQ(f.name, r.name) << what << " #" << i;
        EXPECT_EQ(f.kind, r.kind) << what << " " << f.name;
        EXPECT_EQ(f.module_key, r.module_key) << what << " " << f.name;
        EXPECT_EQ(f.kernel_path, r.kernel_path) << what << " " << f.name;
        EXPECT_EQ(f.source_sha256, r.source_sha256) << what << " " << f.name;
        EXPECT_EQ(f.launches, r.launches) << what << " " << f.name;
    }
    auto fast_text = decode_python_escapes(text);
    auto plain_text = test::output_code_reference::decode_python_escapes(text);
    ASSERT_EQ(fast_text.ok(), plain_text.ok()) << what;
    if (fast_text.ok()) {
        EXPECT_EQ(*fast_text, *plain_text) << what;
    }
}

TEST(OutputCode, TheFastParseAgreesWithThePlainOneOnEveryFixtureModule) {
    int modules = 0, kernels = 0;
    for (const fs::path& root : {test::h100_root(), test::two_entries_root(), test::h100_h200_root(), test::pgo_root()})
        for (auto& e : fs::recursive_directory_iterator(root)) {
            if (!e.is_regular_file() || e.path().extension() != ".py") continue;
            const std::string text = test::read_file(e.path());
            expect_same_as_reference(text, e.path().string());
            if (!text.starts_with("# AOT ID: ")) continue;
            ++modules;
            kernels += static_cast<int>(parse_output_code(text)->kernels.size());
            // Cut anywhere (a file another process is still writing): a literal that never ends, a
            // definition without its source, half a launch.
            for (std::size_t k = 1; k < 97; ++k)
                expect_same_as_reference(std::string_view(text).substr(0, text.size() * k / 97),
                                         e.path().string() + " cut at " + std::to_string(k) + "/97");
            // Without the `# kernel path:` comments, and twice over (each name defined twice).
            std::string bare;
            for (std::size_t at = 0; at < text.size();) {
                const std::size_t eol = std::min(text.find('\n', at), text.size());
                if (!std::string_view(text).substr(at, eol - at).starts_with("# kernel path: "))
                    bare += text.substr(at, eol + 1 - at);
                at = eol + 1;
            }
            expect_same_as_reference(bare, e.path().string() + " without kernel paths");
            expect_same_as_reference(text + text, e.path().string() + " twice");
        }
    EXPECT_GE(modules, 12);
    EXPECT_GE(kernels, 30);  // real kernels were compared, not empty modules
}

TEST(OutputCode, TheFastParseAgreesWithThePlainOneOnCraftedText) {
    const std::string def = R"(k = async_compile.triton('k', '''
def k(): pass
''', device_str='cuda')
)";
    const std::vector<std::string> texts = {
        def + "def call(args):\n    k.run(1)\n    xk.run(2)\n    a.k.run(3)\n    k .run(4)\n    k.run(5)\n",
        R"(k = async_compile.triton('k', '''a\''' b''' c''')
k.run(1))",  // an escaped quote
        R"(k = async_compile.triton('k', '''a\\''' k.run(0)
k.run(1))",  // an escaped backslash
        R"(k = async_compile.triton('k', '''\x41\u00e9\101\
''')
k.run(1))",
        R"(k = async_compile.triton('k', '''\ud800''')
)",  // no such character
        R"(c = async_compile.cpp_pybinding(['float*'], r'''\''' + c(1)
c(2)
.c(3)
xc(4)
)",
        "# kernel path: /tmp/x/ab/cabc.py\n# kernel path: /tmp/y/cd/ccd.py\n" + def + "k.run()",
        "# kernel path: /tmp/../../etc/passwd\n" + def,
        def + "# kernel path: /a/b/c.py\n" + def + "k.run(1)\n",
        "extern_kernels.mm(a)\nextern_kernels.mm (b)\nxextern_kernels.bmm(c)\n" + def +
            "extern_kernels.addmm(d)\nextern_kernels.mm(e)\n",
        "q = async_compile.triton('''\n",
        R"('''k.run(1)''' = async_compile.triton('k', '''x''')
k.run(2))",
        R"(k = async_compile.cpp_pybinding(['f'], '''x''')
)",  // not raw: no source literal
    };
    for (const std::string& text : texts) expect_same_as_reference(text, text);
}

}  // namespace
}  // namespace kiln::inductor

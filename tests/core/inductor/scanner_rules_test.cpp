// The §2 classification rules, one path at a time, and root resolution.
#include <gtest/gtest.h>

#include <cstdlib>

#include "inductor/classify.hpp"
#include "inductor/roots.hpp"
#include "test_support.hpp"

namespace kiln::inductor {
namespace {

const std::string K = "c24kvwr6kusedkhok3emjdjffgmokvb7hdk5uqnmed7h576xrh5t";  // a real code key
const std::string H = "2b00ebb9d40b504fab0d8c9073411848066a922b8fa47b047b01c18e86e43158";

Category cat(const std::string& rel, RootKind k = RootKind::inductor) { return classify_path(rel, k).category; }

TEST(ClassifyRules, GraphEntriesAndKeyDirs) {
    auto c =
        classify_path("fxgraph/yg/fygldk366xeatlz7nfvy2zsl3k55ym5kcn2c366ejalbhhojodnz/xqe7kzjy", RootKind::inductor);
    EXPECT_EQ(c.category, Category::fxgraph);
    EXPECT_EQ(c.key, "fygldk366xeatlz7nfvy2zsl3k55ym5kcn2c366ejalbhhojodnz");
    EXPECT_EQ(c.group_kind, GroupKind::key_dir);
    EXPECT_EQ(c.group_rel, "fxgraph/yg/fygldk366xeatlz7nfvy2zsl3k55ym5kcn2c366ejalbhhojodnz");
    EXPECT_EQ(cat("fxgraph/xx/fygldk/entry"), Category::other);  // key[1:3] must name the parent dir
    EXPECT_EQ(cat("fxgraph/yg/entry"), Category::other);
    EXPECT_EQ(cat("aotautograd/a42ibrx/entry"), Category::aotautograd);
    EXPECT_EQ(cat("aotautograd/a42ibrx/sub/entry"), Category::other);
}

TEST(ClassifyRules, ModulesAndSidecars) {
    // classify_path returns views into its argument: keep the paths alive.
    std::string dir = K.substr(1, 2) + "/";
    const std::string py_path = dir + K + ".py", rec_path = dir + K + ".so.json";
    auto py = classify_path(py_path, RootKind::inductor);
    EXPECT_TRUE(py.needs_python_sniff);
    EXPECT_EQ(py.category, Category::kernel_module);
    EXPECT_EQ(py.group_rel, dir + K);
    EXPECT_EQ(cat(dir + K + ".kernel_perf"), Category::kernel_perf);
    EXPECT_EQ(cat(dir + K + ".cpp"), Category::cpp_source);
    EXPECT_EQ(cat(dir + K + ".main.cpp"), Category::cpp_source);
    EXPECT_EQ(cat(dir + K + ".so"), Category::cpp_library);
    EXPECT_EQ(cat(dir + K + ".main.so"), Category::cpp_library);
    EXPECT_EQ(cat(dir + K + ".cu"), Category::cuda_source);
    auto rec = classify_path(rec_path, RootKind::inductor);
    EXPECT_EQ(rec.category, Category::build_record);
    EXPECT_EQ(rec.group_rel, dir + K);                   // lives and dies with the .so
    EXPECT_EQ(cat("zz/" + K + ".py"), Category::other);  // wrong shard dir
    EXPECT_EQ(cat(dir + "notakey.py"), Category::other);
    EXPECT_EQ(cat(dir + H + ".best_config"), Category::best_config);
    EXPECT_EQ(cat(dir + "xyz.best_config"), Category::other);
}

TEST(ClassifyRules, TritonAutotuneLocksTemp) {
    auto t = classify_path("triton/0/JNIY6HAMER4UMTF73CBDM74IMPESUB5HHTYSDS6LQIL5IJO5PJAA/triton_mm.cubin",
                           RootKind::inductor);
    EXPECT_EQ(t.category, Category::triton_compiled);
    EXPECT_EQ(t.group_kind, GroupKind::triton_kernel_dir);
    EXPECT_EQ(t.group_rel, "triton/0/JNIY6HAMER4UMTF73CBDM74IMPESUB5HHTYSDS6LQIL5IJO5PJAA");
    EXPECT_EQ(cat("triton/x/HASH/f"), Category::other);
    EXPECT_EQ(cat("cache/" + H), Category::autotune_local_cache);
    EXPECT_EQ(cat("cache/notahash"), Category::other);
    const std::string lock_path = "locks/" + K + ".lock";
    auto lock = classify_path(lock_path, RootKind::inductor);
    EXPECT_EQ(lock.category, Category::lock);
    EXPECT_EQ(lock.key, K);
    EXPECT_EQ(cat("fxgraph/yg/fyg/.12345.140001.tmp"), Category::temp);
    EXPECT_EQ(cat("24/.1.2.tmp"), Category::temp);
    EXPECT_EQ(cat("24/.1.x.tmp"), Category::other);
    EXPECT_EQ(cat("README"), Category::other);
    EXPECT_EQ(cat("a/b/c/d/e/f/g"), Category::other);
}

TEST(ClassifyRules, StandaloneTritonCache) {
    auto t = classify_path("JNIY6HAMER4UMTF73CBDM74IMPESUB5HHTYSDS6LQIL5IJO5PJAA/k.ptx", RootKind::triton);
    EXPECT_EQ(t.category, Category::triton_compiled);
    EXPECT_EQ(t.group_rel, "JNIY6HAMER4UMTF73CBDM74IMPESUB5HHTYSDS6LQIL5IJO5PJAA");
    EXPECT_EQ(cat("loose-file", RootKind::triton), Category::other);
}

TEST(ClassifyRules, PythonSniffSeesOnlyTheHead) {
    EXPECT_TRUE(python_is_output_code("# AOT ID: ['0_inference']\nimport torch\n"));
    EXPECT_TRUE(python_is_output_code("import torch\nasync_compile = AsyncCompile()\n"));
    EXPECT_TRUE(python_is_output_code("def call(args):\n"));
    EXPECT_TRUE(python_is_output_code("inductor_meta={'kernel_num_gb': 0.1}"));
    EXPECT_FALSE(python_is_output_code("import triton\n@triton.jit\ndef triton_poi(x):\n"));
    std::string late(kPythonSniffBytes, ' ');
    late += "def call(";
    EXPECT_FALSE(python_is_output_code(late));  // beyond 4 KB: never read
}

class EnvGuard {
public:
    EnvGuard(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old, had_ = true;
        if (value) ::setenv(name, value, 1);
        else ::unsetenv(name);
    }
    ~EnvGuard() {
        if (had_) ::setenv(name_, old_.c_str(), 1);
        else ::unsetenv(name_);
    }

private:
    const char* name_;
    std::string old_;
    bool had_ = false;
};

TEST(Roots, ResolvedLikeTorch) {
    EnvGuard a("TORCHINDUCTOR_CACHE_DIR", "/some/where");
    EXPECT_EQ(default_inductor_root(), "/some/where");
    EnvGuard b("TORCHINDUCTOR_CACHE_DIR", nullptr);
    EnvGuard c("TMPDIR", "/scratch/tmp");
    EnvGuard d("LOGNAME", "ann/b");
    EXPECT_EQ(default_inductor_root(), "/scratch/tmp/torchinductor_ann_b");
    EnvGuard e("TRITON_CACHE_DIR", "/tc");
    EXPECT_EQ(default_triton_root(), "/tc");
    EnvGuard f("TRITON_CACHE_DIR", nullptr);
    EnvGuard g("HOME", "/home/ann");
    EXPECT_EQ(default_triton_root(), "/home/ann/.triton/cache");
}

TEST(Roots, MissingRootIsNotFoundWithPathAndHint) {
    auto r = open_root_dir("/nonexistent/kiln-cache");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, Errc::not_found);
    EXPECT_EQ(r.error().context, "/nonexistent/kiln-cache");
    EXPECT_FALSE(r.error().hint.empty());
}

TEST(Roots, DetectsKinds) {
    EXPECT_EQ(detect_root_kind(test::h100_root()), RootKind::inductor);
    EXPECT_EQ(detect_root_kind(test::h100_root() / "triton" / "0"), RootKind::triton);
    EXPECT_EQ(detect_root_kind(test::source_dir()), std::nullopt);
}

}  // namespace
}  // namespace kiln::inductor

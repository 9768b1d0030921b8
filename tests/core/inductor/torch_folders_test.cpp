// Every folder torch 2.9-2.12 writes under the cache dir has a category (not `other`), the PGO
// fixture's dynamo/ files are counted as what they are, and evict keeps PGO profiles unless asked.
#include <gtest/gtest.h>

#include <fstream>

#include "inductor/classify.hpp"
#include "inductor/evict.hpp"
#include "inductor/stats.hpp"
#include "opened_dir.hpp"
#include "scanner_test_helpers.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;

namespace kiln::inductor {
namespace {

const std::string kModuleKey = "c24kvwr6kusedkhok3emjdjffgmokvb7hdk5uqnmed7h576xrh5t";
const std::string kPrecompileHash = "2b00ebb9d40b504fab0d8c9073411848066a922b8fa47b047b01c18e86e43158";
const std::string T = "JNIY6HAMER4UMTF73CBDM74IMPESUB5HHTYSDS6LQIL5IJO5PJAA";

Category category_of(const std::string& rel, RootKind k = RootKind::inductor) { return classify_path(rel, k).category; }

TEST(TorchFolders, DynamoPgoProfilesAndPrecompileEntries) {
    const std::string pgo = "dynamo/code_state_kiln-dev-job_None_.pkl";
    auto c = classify_path(pgo, RootKind::inductor);
    EXPECT_EQ(c.category, Category::pgo_profile);
    EXPECT_EQ(c.key, "kiln-dev-job_None_");
    EXPECT_EQ(category_of(pgo + ".lock"), Category::lock);
    EXPECT_EQ(category_of(pgo + ".tmp"), Category::temp);
    const std::string pre = "dynamo/" + kPrecompileHash + "/entry";
    auto p = classify_path(pre, RootKind::inductor);
    EXPECT_EQ(p.category, Category::precompile_entry);
    EXPECT_EQ(p.group_kind, GroupKind::key_dir);
    EXPECT_EQ(p.group_rel, "dynamo/" + kPrecompileHash);
    EXPECT_EQ(category_of("dynamo/something"), Category::other);
}

TEST(TorchFolders, TritonStagingAndAutotuneResults) {
    // TritonBundler's tmp.<uuid4> was grouped as a kernel named "tmp.<uuid>": now temp, one dir.
    const std::string bundler = "triton/0/tmp.3f2a9c1e-1b2c-4d5e-8f90-0123456789ab/triton_mm.cubin";
    auto b = classify_path(bundler, RootKind::inductor);
    EXPECT_EQ(b.category, Category::temp);
    EXPECT_EQ(b.group_rel, "triton/0/tmp.3f2a9c1e-1b2c-4d5e-8f90-0123456789ab");
    EXPECT_EQ(category_of("triton/0/" + T + "/tmp.pid_123_abcdef/k.ptx"), Category::temp);  // Triton's put staging
    EXPECT_EQ(category_of(T + "/tmp.pid_123_abcdef/k.ptx", RootKind::triton), Category::temp);
    const std::string autotune =
        "triton/0/" + kPrecompileHash + "/matmul_kernel.autotune.json";  // classify_path returns views into it
    auto a = classify_path(autotune, RootKind::inductor);
    EXPECT_EQ(a.category, Category::triton_autotune);
    EXPECT_EQ(a.key, kPrecompileHash);
    EXPECT_EQ(category_of(kPrecompileHash + "/matmul_kernel.autotune.json", RootKind::triton),
              Category::triton_autotune);
    EXPECT_EQ(category_of("triton/0/" + T + "/triton_mm.cubin"), Category::triton_compiled);  // unchanged
}

TEST(TorchFolders, ModuleSidecars) {
    const std::string d = kModuleKey.substr(1, 2) + "/" + kModuleKey;
    EXPECT_EQ(category_of(d + ".picked_kernel"), Category::picked_kernel);
    EXPECT_EQ(category_of(d + ".optimized.cpp"), Category::cpp_source);
    EXPECT_EQ(category_of(d + ".o"), Category::object_file);
    EXPECT_EQ(category_of(d + ".cu.error"), Category::compile_error);
    for (const char* ext : {".wrapper.cpp", ".wrapper.so", ".kernel.cpp", ".wrapper_metadata.json",
                            ".wrapper_compile_flags.json", ".kernel_metadata.json"})
        EXPECT_EQ(category_of(d + ext), Category::aoti_artifact) << ext;
    EXPECT_EQ(category_of(d + ".so.json"), Category::build_record);  // Kiln's own build record, unchanged
    const std::string halide = d + ".halide/halide_kernel.a";
    auto h = classify_path(halide, RootKind::inductor);
    EXPECT_EQ(h.category, Category::halide);
    EXPECT_EQ(h.group_rel, d + ".halide");
    EXPECT_EQ(category_of("halide-runtime-host-cuda-abc/standalone_halide_runtime.a"), Category::halide);
}

TEST(TorchFolders, TopLevelFoldersAndFiles) {
    EXPECT_EQ(category_of("aoti_eager/aten/cuda/add.Tensor.json"), Category::aoti_eager);
    EXPECT_EQ(category_of("autoheuristic/NVIDIA H100/mm.txt"), Category::debug_dump);
    EXPECT_EQ(category_of("bisect/run_state.txt"), Category::debug_dump);
    EXPECT_EQ(category_of("unhashed_kernel_inputs/triton_poi_run_0/arg0.pt"), Category::debug_dump);
    EXPECT_EQ(category_of("memoizer_cache.json"), Category::debug_dump);
    EXPECT_EQ(category_of("memoizer_cache.lock"), Category::lock);
    EXPECT_EQ(category_of("tmpab_12xyz.py"), Category::debug_dump);
    EXPECT_EQ(category_of("configs_0123abcd.json"), Category::cutlass);
    EXPECT_EQ(category_of("compiled_cache.db"), Category::cutlass);
    EXPECT_EQ(category_of("torch_cutlass/include/cute.h"), Category::cutlass);
    EXPECT_EQ(category_of("cutedsl_compile_cache/" + kPrecompileHash + ".o"), Category::cutedsl);
    EXPECT_EQ(category_of("cutedsl_compile_cache/tmpab12cd34.o.tmp"), Category::temp);
    EXPECT_EQ(category_of("precompiled_headers/" + kModuleKey + ".h"), Category::precompiled_header);
    EXPECT_EQ(category_of("precompiled_headers/locks/" + kModuleKey + ".lock"), Category::lock);
    EXPECT_EQ(category_of("cache/should_pad/abc"), Category::caching_module);
    EXPECT_EQ(category_of("cache/should_pad/dir.lock"), Category::lock);
    EXPECT_EQ(category_of("cache/" + kPrecompileHash), Category::autotune_local_cache);  // unchanged
    EXPECT_EQ(category_of("gcc/bin/g++"), Category::toolchain);
    // A whole second cache left by fresh_cache(delete=False), however deep: one group.
    const std::string nested = "tmpx1y2z3w4/triton/0/" + T + "/tmp.pid_1_2/k.ptx";
    auto n = classify_path(nested, RootKind::inductor);
    EXPECT_EQ(n.category, Category::nested_root);
    EXPECT_EQ(n.group_rel, "tmpx1y2z3w4");
    EXPECT_EQ(category_of("tmp/x"), Category::other);  // not Python's tempfile name
}

TEST(TorchFolders, PgoFixtureCounts) {
    auto scan = scan_cache(test::pgo_root());
    ASSERT_TRUE(scan.ok()) << scan.error().str();
    CacheStats s = compute_stats(*scan);
    // ../shared/fixtures/README.md's counts, with its two dynamo/ files no longer `other`.
    EXPECT_EQ(s[Category::fxgraph].files, 2u);
    EXPECT_EQ(s[Category::aotautograd].files, 2u);
    EXPECT_EQ(s[Category::output_code].files, 2u);
    EXPECT_EQ(s[Category::kernel_module].files, 2u);
    EXPECT_EQ(s[Category::best_config].files, 2u);
    EXPECT_EQ(s[Category::triton_compiled].files, 40u);
    EXPECT_EQ(s[Category::triton_compiled].entries, 5u);
    EXPECT_EQ(s[Category::pgo_profile].files, 1u);
    EXPECT_EQ(s[Category::lock].files, 1u);
    EXPECT_EQ(s[Category::other].files, 0u);
    EXPECT_EQ(s.total_files, 52u);
    EXPECT_EQ(s.total_bytes, 1098147u);
}

TEST(TorchFolders, EvictKeepsPgoProfilesUnlessAskedByCategory) {
    test::ScratchDir dir("evict-pgo");
    fs::path root = dir.path() / "cache";
    test::copy_tree(test::pgo_root(), root);
    const fs::path profile = root / "dynamo/code_state_kiln-dev-job_None_.pkl";
    EvictPolicy p;
    p.max_bytes = 0;
    p.dry_run = false;
    auto all = evict_cache(kiln::test::open_dir(root), p);
    ASSERT_TRUE(all.ok()) << all.error().str();
    EXPECT_TRUE(fs::exists(profile));
    std::uint64_t left = 0;
    for (auto& e : fs::recursive_directory_iterator(root)) left += e.is_regular_file();
    EXPECT_EQ(left, 2u);  // the profile and its lock: everything else went
    p.categories = {Category::pgo_profile};
    auto asked = evict_cache(kiln::test::open_dir(root), p);
    ASSERT_TRUE(asked.ok()) << asked.error().str();
    EXPECT_FALSE(fs::exists(profile));
    EXPECT_EQ(asked->removed.size(), 1u);
}

}  // namespace
}  // namespace kiln::inductor

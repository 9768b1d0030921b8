// A timing cache's choices that name one kernel module hold one copy of its parameters and path
// (issue 44: a million-file cache's timing caches name the same modules tens of thousands of times).
#include "timings/timing_cache_source.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "opened_dir.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace kiln::timings;

TEST(TimingCacheSource, ChoicesNamingOneModuleShareItsParamsAndPath) {
    const fs::path root = kiln::test::h100_root();
    std::string rel;
    for (const auto& e : fs::directory_iterator(root / "cache")) rel = "cache/" + e.path().filename().string();
    ASSERT_FALSE(rel.empty());
    const auto opened = kiln::test::open_dir(root);
    KernelModuleMemo memo;
    // Read twice through one memo, as the GUI reads a root's many timing caches.
    auto first = read_timing_cache(kiln::inductor::OpenedRoot(opened), rel, &memo);
    auto second = read_timing_cache(kiln::inductor::OpenedRoot(opened), rel, &memo);
    ASSERT_TRUE(first.ok()) << first.error().str();
    ASSERT_TRUE(second.ok()) << second.error().str();
    ASSERT_EQ(first->ops.size(), second->ops.size());
    int joined = 0;
    std::map<std::string, const nlohmann::ordered_json*> by_module;
    for (std::size_t o = 0; o < first->ops.size(); ++o)
        for (std::size_t i = 0; i < first->ops[o].choices.size(); ++i) {
            const Choice& a = first->ops[o].choices[i];
            const Choice& b = second->ops[o].choices[i];
            if (a.module_path->empty()) continue;
            ++joined;
            EXPECT_FALSE(a.params->empty()) << a.name;
            // The same objects, not equal copies.
            EXPECT_EQ(&a.params.get(), &b.params.get()) << a.name;
            EXPECT_EQ(&a.module_path.get(), &b.module_path.get()) << a.name;
            auto [it, fresh] = by_module.try_emplace(*a.module_path, &a.params.get());
            if (!fresh) {
                EXPECT_EQ(it->second, &a.params.get()) << a.name;
            }
            // And what the module itself says.
            auto info = read_kernel_module_info(*a.module_path);
            ASSERT_TRUE(info.ok()) << info.error().str();
            EXPECT_EQ(a.params->dump(), info->params.dump()) << a.name;
        }
    EXPECT_GT(joined, 2) << "the fixture's timing cache names its triton choices' modules";
    // A choice without a module starts from the one shared empty object.
    Choice plain;
    EXPECT_EQ(&plain.params.get(), &no_params().get());
    EXPECT_TRUE(plain.params->is_object());
}

}  // namespace

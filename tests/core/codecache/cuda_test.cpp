// CUDA sources through nvcc: .cu -> .so and .cubin (compiling only; running kernels needs a GPU and
// belongs to the autotune module). Skips, saying why, where nvcc is absent.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "codecache/build_record.hpp"
#include "codecache/code_cache.hpp"
#include "cuda/nvcc.hpp"
#include "test_support.hpp"

namespace kiln::codecache {
namespace {

constexpr const char* kScaleKernel = R"(
__global__ void scale(float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}
extern "C" int launch_scale(float* x, float a, int n) {
    scale<<<(n + 255) / 256, 256>>>(x, a, n);
    return 0;
}
)";

TEST(CodeCacheCuda, CompilesCuToSharedLibraryAndCubin) {
    if (cuda::find_nvcc().empty())
        GTEST_SKIP() << "nvcc not found ($CUDACXX, $CUDA_HOME/bin, /usr/local/cuda/bin, PATH)";
    test::ScratchDir dir("codecache_cuda");
    CodeCache cache(CodeCacheOptions{.root = dir.path(), .cuda_arch = "90"});
    for (std::string ext : {"so", "cubin"}) {
        CompileRequest req{.source = kScaleKernel, .lang = Lang::Cuda, .out_ext = ext};
        auto out = cache.compile(req);
        ASSERT_TRUE(out.ok()) << ext << ": " << out.error().str();
        EXPECT_FALSE(out->hit);
        EXPECT_EQ(out->source_path.extension(), ".cu");
        EXPECT_EQ(out->output_path.extension(), "." + ext);
        EXPECT_EQ(test::read_file(out->output_path).substr(1, 3), "ELF");
        EXPECT_NE(out->command.find("sm_90a"), std::string::npos) << out->command;
        auto j = nlohmann::json::parse(test::read_file(sidecar_path(out->output_path)));
        EXPECT_NE(j["compiler_version"].get<std::string>().find("release"), std::string::npos);
        EXPECT_TRUE(cache.compile(req)->hit);
    }
}

}  // namespace
}  // namespace kiln::codecache

// Template modules read without running them; their launch arguments and grids.
#include <gtest/gtest.h>

#include <limits>

#include "retune/problem.hpp"
#include "retune/template_launch.hpp"
#include "retune/template_module.hpp"

using namespace kiln::retune;

namespace {

std::string module_text(const std::string& signature, const std::string& def_args, const std::string& body,
                        const std::string& constants = "{}") {
    return "import triton\n@triton_heuristics.template(\n\nnum_stages=3,\nnum_warps=4,\ntriton_meta={'signature': " +
           signature + ", 'device': DeviceProperties(type='cuda', index=0), 'constants': " + constants +
           ", 'configs': []},\ninductor_meta={'kernel_name': 'Placeholder.DESCRIPTIVE_NAME', 'config_args': "
           "{'EVEN_K': True, 'ACC_TYPE': 'tl.float32', 'BLOCK_M': 64, 'BLOCK_N': 32, 'BLOCK_K': 16, 'GROUP_M': "
           "8}},\n\n)\n"
           "@triton.jit\ndef triton_mm(" +
           def_args + "):\n    EVEN_K : tl.constexpr = True\n" + body + "\n";
}

Problem mm_problem() {
    auto p = make_problem(
        "mm", "[('cuda', 'torch.float16', 100, 48, 48, 1, 0), ('cuda', 'torch.float16', 48, 70, 70, 1, 0)]");
    EXPECT_TRUE(p.ok());
    return *p;
}

}  // namespace

TEST(RetuneTemplateModule, SignatureConfigAndAssignmentsAreRead) {
    auto m = parse_template_module(
        module_text("{'arg_A': '*fp16', 'arg_B': '*fp16', 'out_ptr0': '*fp16', 'ks0': 'i32', 'ks1': 'i32'}",
                    "arg_A, arg_B, out_ptr0, ks0, ks1", "    M = ks0\n    N = ks1\n    K = 48\n    stride_am = ks1"),
        "x.py");
    ASSERT_TRUE(m.ok()) << m.error().str();
    EXPECT_EQ(m->kernel, "triton_mm");
    ASSERT_EQ(m->signature.size(), 5u);
    EXPECT_EQ(m->signature[3], (std::pair<std::string, std::string>{"ks0", "i32"}));
    EXPECT_EQ(m->config["BLOCK_M"], 64);
    EXPECT_EQ(m->config["num_warps"], 4);
    EXPECT_EQ(m->config["num_stages"], 3);
    EXPECT_EQ(m->assignments.at("M"), "ks0");
    EXPECT_EQ(m->assignments.at("K"), "48");
    EXPECT_FALSE(m->tensor_descriptors);
}

TEST(RetuneTemplateModule, NonTemplatesAreRefused) {
    auto m =
        parse_template_module("@triton_heuristics.pointwise(\n)\n@triton.jit\ndef triton_poi(x):\n    pass\n", "p.py");
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.error().code, kiln::Errc::unsupported);
}

TEST(RetuneTemplateLaunch, ArgumentsBindInputsOutputAndSizes) {
    auto m = parse_template_module(
        module_text("{'arg_A': '*fp16', 'arg_B': '*fp16', 'out_ptr0': '*fp16', 'ks0': 'i32', 'ks1': 'i64', "
                    "'XBLOCK': 'constexpr', 'ks2': 'i32'}",
                    "arg_A, arg_B, out_ptr0, ks0, ks1, XBLOCK, ks2", "    M = ks0\n    N = ks1\n    stride_bk = ks2",
                    "{'unused': 1}"),
        "x.py");
    ASSERT_TRUE(m.ok()) << m.error().str();
    auto args = bind_arguments(*m, mm_problem());
    ASSERT_TRUE(args.ok()) << args.error().str();
    ASSERT_EQ(args->size(), 6u);  // the constexpr is not a kernel parameter
    EXPECT_EQ((*args)[0].binds, "input:0");
    EXPECT_EQ((*args)[2].binds, "output");
    EXPECT_EQ((*args)[3].value, 100);
    EXPECT_EQ((*args)[4].value, 70);
    EXPECT_EQ((*args)[4].type, "i64");
    EXPECT_EQ((*args)[5].binds, "stride_bk");
    EXPECT_EQ((*args)[5].value, 70);
}

TEST(RetuneTemplateLaunch, ConstantsAreRemovedLikeConstexprs) {
    auto m =
        parse_template_module(module_text("{'arg_A': '*fp16', 'arg_B': '*fp16', 'out_ptr0': '*fp16', 'ks0': 'i32'}",
                                          "arg_A, arg_B, out_ptr0, ks0", "    pass", "{'ks0': 1}"),
                              "x.py");
    ASSERT_TRUE(m.ok());
    auto args = bind_arguments(*m, mm_problem());
    ASSERT_TRUE(args.ok()) << args.error().str();
    EXPECT_EQ(args->size(), 3u);
}

TEST(RetuneTemplateLaunch, UnboundArgumentsAreReportedByName) {
    auto scalar =
        parse_template_module(module_text("{'arg_A': '*fp16', 'arg_B': '*fp16', 'out_ptr0': '*fp16', 'ks9': 'i32'}",
                                          "arg_A, arg_B, out_ptr0, ks9", "    X = ks9"),
                              "x.py");
    ASSERT_TRUE(scalar.ok());
    auto a = bind_arguments(*scalar, mm_problem());
    ASSERT_FALSE(a.ok());
    EXPECT_NE(a.error().message.find("scalar argument ks9"), std::string::npos) << a.error().message;

    auto extra =
        parse_template_module(module_text("{'arg_A': '*fp16', 'arg_B': '*fp16', 'out_ptr0': '*fp16', 'ws_ptr': '*u8'}",
                                          "arg_A, arg_B, out_ptr0, ws_ptr", "    pass"),
                              "x.py");
    ASSERT_TRUE(extra.ok());
    auto b = bind_arguments(*extra, mm_problem());
    ASSERT_FALSE(b.ok());
    EXPECT_NE(b.error().message.find("ws_ptr"), std::string::npos);

    auto desc = parse_template_module(
        module_text("{'a_desc': 'tensordesc<fp16[64, 16]>', 'arg_B': '*fp16', 'out_ptr0': '*fp16'}",
                    "a_desc, arg_B, out_ptr0", "    pass"),
        "x.py");
    ASSERT_TRUE(desc.ok());
    EXPECT_TRUE(desc->tensor_descriptors);
    auto c = bind_arguments(*desc, mm_problem());
    ASSERT_FALSE(c.ok());
    EXPECT_NE(c.error().message.find("TMA tensor descriptor"), std::string::npos);
}

TEST(RetuneTemplateLaunch, GridRulesOfTheMmFamily) {
    nlohmann::ordered_json config{{"BLOCK_M", 64}, {"BLOCK_N", 32}};
    auto mm = template_grid("triton_mm", mm_problem(), config);
    ASSERT_TRUE(mm.ok());
    // cdiv(100, 64) * cdiv(70, 32) = 2 * 3
    EXPECT_EQ(mm->grid, (std::array<std::int64_t, 3>{6, 1, 1}));
    EXPECT_EQ(mm->rule, "cdiv(M,BLOCK_M)*cdiv(N,BLOCK_N), 1, 1");

    auto bmm_problem = make_problem("bmm",
                                    "[('cuda', 'torch.float16', 5, 100, 48, 4800, 48, 1, 0), "
                                    "('cuda', 'torch.float16', 5, 48, 70, 3360, 70, 1, 0)]");
    ASSERT_TRUE(bmm_problem.ok());
    auto bmm = template_grid("triton_bmm", *bmm_problem, config);
    ASSERT_TRUE(bmm.ok());
    EXPECT_EQ(bmm->grid, (std::array<std::int64_t, 3>{6, 5, 1}));

    nlohmann::ordered_json persistent{{"BLOCK_M", 64}, {"BLOCK_N", 32}, {"NUM_SMS", 4}};
    auto p = template_grid("triton_mm_persistent_tma", mm_problem(), persistent);
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(p->grid, (std::array<std::int64_t, 3>{4, 1, 1}));

    auto unknown = template_grid("triton_flex_attention", mm_problem(), config);
    ASSERT_FALSE(unknown.ok());
    EXPECT_NE(unknown.error().message.find("grid rule"), std::string::npos);
    auto no_blocks = template_grid("triton_mm", mm_problem(), nlohmann::ordered_json::object());
    EXPECT_FALSE(no_blocks.ok());
}

// Issue 42 #14: sizes of 2^63-1 or -256 overflowed cdiv(M, BLOCK_M) into a negative grid that was
// still runnable. Such shapes are now no problem at all, and a grid that does not fit CUDA's limits
// (or the sizes a hand-made Problem holds) is an error, never a wrapped number.
TEST(RetuneTemplateLaunch, HugeOrNegativeSizesNeverOverflowTheGrid) {
    const std::string b = ", ('cuda', 'torch.float16', 48, 70, 70, 1, 0)]";
    for (const auto& [size, why] : std::vector<std::pair<std::string, std::string>>{
             {"9223372036854775807", "more elements than 64 bits count"},
             {"-256", "negative size -256"},
             {"4611686018427387904", "more elements than 64 bits count"}}) {
        auto p = make_problem("mm", "[('cuda', 'torch.float16', " + size + ", 48, 48, 1, 0)" + b);
        ASSERT_FALSE(p.ok()) << size;
        EXPECT_NE(p.error().message.find(why), std::string::npos) << p.error().str();
    }
    auto stride = make_problem("mm", "[('cuda', 'torch.float16', 100, 48, -48, 1, 0)" + b);
    ASSERT_FALSE(stride.ok());
    EXPECT_NE(stride.error().message.find("negative stride -48"), std::string::npos) << stride.error().str();
    auto span = make_problem("mm", "[('cuda', 'torch.float16', 100, 48, 4611686018427387904, 1, 0)" + b);
    ASSERT_FALSE(span.ok());
    EXPECT_NE(span.error().message.find("64 bits"), std::string::npos) << span.error().str();

    nlohmann::ordered_json config{{"BLOCK_M", 64}, {"BLOCK_N", 32}};
    Problem huge = mm_problem();
    huge.M = std::numeric_limits<std::int64_t>::max();  // as before the checks: (M + 63) overflowed
    auto g = template_grid("triton_mm", huge, config);
    ASSERT_FALSE(g.ok());
    EXPECT_NE(g.error().message.find("outside CUDA's limits"), std::string::npos) << g.error().str();
    huge.N = huge.M;
    auto both = template_grid("triton_mm", huge, config);
    ASSERT_FALSE(both.ok());
    EXPECT_NE(both.error().message.find("overflows 64 bits"), std::string::npos) << both.error().str();
    Problem negative = mm_problem();
    negative.M = -256;
    EXPECT_FALSE(template_grid("triton_mm", negative, config).ok());
    Problem empty = mm_problem();
    empty.M = 0;
    EXPECT_FALSE(template_grid("triton_mm", empty, config).ok());
}

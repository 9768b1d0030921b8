#include "timings/py_literal.hpp"

#include <gtest/gtest.h>

using namespace kiln::timings;

TEST(PyLiteral, Scalars) {
    EXPECT_EQ(py_scalar("True"), true);
    EXPECT_EQ(py_scalar(" 42 "), 42);
    EXPECT_DOUBLE_EQ(py_scalar("1.5e-3").get<double>(), 1.5e-3);
    EXPECT_EQ(py_scalar("'tl.float32'"), "tl.float32");
    EXPECT_TRUE(py_scalar("None").is_null());
    EXPECT_EQ(py_scalar("s52"), "s52");  // symbols are kept as written
}

TEST(PyLiteral, KwargsKeepOrderAndQuotedCommas) {
    auto kw = py_kwargs("ACC_TYPE='tl.float32', NAME='a, b', BLOCK_K=128, EVEN_K=False, num_warps=4");
    ASSERT_EQ(kw.size(), 5u);
    EXPECT_EQ(kw.begin().key(), "ACC_TYPE");
    EXPECT_EQ(kw["NAME"], "a, b");
    EXPECT_EQ(kw["BLOCK_K"], 128);
    EXPECT_EQ(kw["EVEN_K"], false);
}

TEST(PyLiteral, FlatDict) {
    auto d = py_flat_dict("{'EVEN_K': True, 'ACC_TYPE': 'tl.float32', 'BLOCK_M': 64}");
    ASSERT_TRUE(d.ok()) << d.error().str();
    EXPECT_EQ((*d)["BLOCK_M"], 64);
    EXPECT_EQ((*d)["EVEN_K"], true);
    EXPECT_FALSE(py_flat_dict("[1, 2]").ok());
    EXPECT_FALSE(py_flat_dict("{'a' 1}").ok());
}

TEST(PyLiteral, InputsKey) {
    auto k = parse_inputs_key(
        "[('cuda', 'torch.float16', 1024, 2048, 2048, 1, 0), ('cuda', 'torch.float16', 2048, 256, 256, 1, 0)]");
    ASSERT_TRUE(k.ok()) << k.error().str();
    ASSERT_EQ(k->size(), 2u);
    EXPECT_EQ((*k)[0].device, "cuda");
    EXPECT_EQ((*k)[0].dtype, "float16");
    EXPECT_EQ((*k)[0].sizes, (std::vector<std::string>{"1024", "2048"}));
    EXPECT_EQ((*k)[0].strides, (std::vector<std::string>{"2048", "1"}));
    EXPECT_EQ((*k)[1].sizes, (std::vector<std::string>{"2048", "256"}));
    EXPECT_FALSE(parse_inputs_key("[('cuda', 'torch.float16', 1, 2)]").ok());  // even field count: not 2n+3
    EXPECT_FALSE(parse_inputs_key("not a list").ok());
}

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

// The one reader of "marker {dict}" (template modules, kernel modules, ranks' output code): a brace
// inside a quoted value does not end the dict; absent, open and missing dicts are told apart.
TEST(PyLiteral, DictAfterMarker) {
    const std::string text =
        "triton_meta={'signature': {'a': '*fp16', 'b': 'i32'}, 'note': '}{'}, "
        "inductor_meta={'config_args': {'BLOCK_M': 64, 'S': 'x}y'}}";
    auto sig = py_dict_after(text, "'signature':");
    ASSERT_TRUE(sig.ok()) << sig.error().str();
    ASSERT_TRUE(*sig);
    EXPECT_EQ((**sig)["b"], "i32");
    auto args = py_dict_after(text, "'config_args':");
    ASSERT_TRUE(args.ok() && *args);
    EXPECT_EQ((**args)["S"], "x}y");
    auto none = py_dict_after(text, "'constants':");
    ASSERT_TRUE(none.ok());
    EXPECT_FALSE(*none);
    auto open = py_dict_after("'config_args': {'BLOCK_M': 64", "'config_args':", "m.py");
    ASSERT_FALSE(open.ok());
    EXPECT_EQ(open.error().message, "unbalanced dict after 'config_args':");
    EXPECT_EQ(open.error().context, "m.py");
    EXPECT_FALSE(py_dict_after("'config_args': None", "'config_args':").ok());
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

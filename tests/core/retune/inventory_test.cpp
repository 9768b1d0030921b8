// The inventory over the fixtures: every autotuned op, every Triton choice resolved to a binary
// that exists, the extern choice to its cuBLAS call, and clear reasons for what cannot run.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "decoy_root.hpp"
#include "opened_dir.hpp"
#include "retune/inventory.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace kiln::retune;

namespace {

const RetuneOp* find_op(const RetuneReport& r, const std::string& inputs_prefix) {
    for (const auto& op : r.ops)
        if (op.inputs.rfind(inputs_prefix, 0) == 0) return &op;
    return nullptr;
}

}  // namespace

TEST(RetuneInventory, EveryTritonChoiceOfTheH100FixtureHasAnExistingCubin) {
    auto rep = inventory(kiln::test::open_dir(kiln::test::h100_root()), {90, ""});
    ASSERT_TRUE(rep.ok()) << rep.error().str();
    ASSERT_EQ(rep->ops.size(), 2u);
    for (const auto& op : rep->ops) {
        EXPECT_EQ(op.op, "mm");
        EXPECT_EQ(op.precision, "highest");
        EXPECT_EQ(op.recorded_for.device, "NVIDIA H100 80GB HBM3");
        EXPECT_EQ(op.recorded_for.system_hash, "2b00ebb9d40b504fab0d8c9073411848066a922b8fa47b047b01c18e86e43158");
        EXPECT_EQ(op.recorded_for.cuda, "13.0");
        for (const auto& c : op.choices) {
            ASSERT_TRUE(c.recorded_ms.has_value()) << c.name;
            if (c.kind == ChoiceKind::triton) {
                EXPECT_TRUE(c.runnable) << c.name << ": " << c.why;
                ASSERT_TRUE(c.triton.has_value()) << c.name;
                EXPECT_TRUE(fs::is_regular_file(c.binary)) << c.binary;
                EXPECT_EQ(fs::path(c.binary).extension(), ".cubin");
                EXPECT_EQ(c.triton->arch, 90);
                EXPECT_EQ(c.triton->function, "triton_mm");
                EXPECT_TRUE(fs::is_regular_file(c.module)) << c.module;
                EXPECT_GT(c.triton->num_warps, 0);
                EXPECT_TRUE(c.config.contains("BLOCK_M")) << c.name;
                ASSERT_TRUE(c.grid.has_value());
            } else {
                EXPECT_EQ(c.kind, ChoiceKind::extern_op) << c.name;
                EXPECT_TRUE(c.runnable) << c.why;
                ASSERT_TRUE(c.gemm.has_value());
                EXPECT_EQ(c.binary, "cublasGemmEx");
            }
        }
    }
    // Counts per op.
    const RetuneOp* small = find_op(*rep, "[('cuda', 'torch.float16', 512, 512");
    const RetuneOp* large = find_op(*rep, "[('cuda', 'torch.float16', 1024, 2048");
    ASSERT_TRUE(small && large);
    auto s = count_choices(*small), l = count_choices(*large);
    EXPECT_EQ(s.choices, 20);
    EXPECT_EQ(s.triton, 19);
    EXPECT_EQ(s.triton_with_binary, 19);
    EXPECT_EQ(s.extern_ops, 1);
    EXPECT_EQ(s.runnable, 20);
    EXPECT_EQ(l.choices, 21);
    EXPECT_EQ(l.triton, 20);
    EXPECT_EQ(l.triton_with_binary, 20);
    EXPECT_EQ(l.runnable, 21);
}

TEST(RetuneInventory, DynamicShapeKernelsGetTheirSizesFromTheKernelBody) {
    auto rep = inventory(kiln::test::open_dir(kiln::test::h100_root()), {90, ""});
    ASSERT_TRUE(rep.ok());
    const RetuneOp* large = find_op(*rep, "[('cuda', 'torch.float16', 1024, 2048");
    ASSERT_TRUE(large);
    int with_scalars = 0;
    for (const auto& c : large->choices) {
        if (c.kind != ChoiceKind::triton) continue;
        ASSERT_GE(c.args.size(), 3u);
        EXPECT_EQ(c.args[0].binds, "input:0");
        EXPECT_EQ(c.args[1].binds, "input:1");
        EXPECT_EQ(c.args[2].binds, "output");
        if (c.args.size() == 6) {
            ++with_scalars;
            // triton_mm(arg_A, arg_B, out_ptr0, ks0, ks1, ks2) with M = ks0, N = ks1, K = ks2.
            EXPECT_EQ(c.args[3].binds, "M");
            EXPECT_EQ(c.args[3].value, 1024);
            EXPECT_EQ(c.args[4].binds, "N");
            EXPECT_EQ(c.args[4].value, 256);
            EXPECT_EQ(c.args[5].binds, "K");
            EXPECT_EQ(c.args[5].value, 2048);
            EXPECT_EQ(c.args[5].type, "i32");
        }
        auto bm = c.config["BLOCK_M"].get<std::int64_t>(), bn = c.config["BLOCK_N"].get<std::int64_t>();
        EXPECT_EQ((*c.grid)[0], ((1024 + bm - 1) / bm) * ((256 + bn - 1) / bn)) << c.name;
        EXPECT_EQ((*c.grid)[1], 1);
    }
    EXPECT_EQ(with_scalars, 20);
}

TEST(RetuneInventory, AnotherArchitectureHasNoBinaryAndSaysWhy) {
    auto rep = inventory(kiln::test::open_dir(kiln::test::h100_root()), {100, ""});
    ASSERT_TRUE(rep.ok());
    for (const auto& op : rep->ops)
        for (const auto& c : op.choices) {
            if (c.kind == ChoiceKind::extern_op) {
                EXPECT_TRUE(c.runnable);
                continue;
            }
            EXPECT_FALSE(c.runnable) << c.name;
            EXPECT_NE(c.why.find("no cubin for sm_100"), std::string::npos) << c.why;
            EXPECT_NE(c.why.find("sm_90a"), std::string::npos) << c.why;
            EXPECT_FALSE(c.recorded_ms == std::nullopt);
        }
}

TEST(RetuneInventory, AMissingCubinOrModuleCostsThatChoiceOnly) {
    kiln::test::ScratchDir dir("retune-inventory-missing");
    fs::copy(kiln::test::h100_root(), dir.path() / "inductor", fs::copy_options::recursive);
    fs::path root = dir.path() / "inductor";
    auto before = inventory(kiln::test::open_dir(root), {90, ""});
    ASSERT_TRUE(before.ok());
    const RetuneOp& op = before->ops.front();
    std::vector<const RetuneChoice*> triton;
    for (const auto& c : op.choices)
        if (c.kind == ChoiceKind::triton) triton.push_back(&c);
    ASSERT_GE(triton.size(), 2u);
    const RetuneChoice* a = triton[0];
    const RetuneChoice* b = triton[1];
    std::string a_name = a->name, b_name = b->name;
    // Remove every compiled copy of a's kernel, and b's benchmark module.
    fs::remove_all(fs::path(a->binary).parent_path());
    fs::remove(b->module);
    auto after = inventory(kiln::test::open_dir(root), {90, ""});
    ASSERT_TRUE(after.ok());
    int runnable = 0;
    for (const auto& c : after->ops.front().choices) {
        if (c.name == a_name) {
            EXPECT_FALSE(c.runnable);
            EXPECT_NE(c.why.find("no compiled kernel in the Triton cache"), std::string::npos) << c.why;
        } else if (c.name == b_name) {
            EXPECT_FALSE(c.runnable);
            EXPECT_NE(c.why.find("is not in the cache"), std::string::npos) << c.why;
        } else if (c.runnable) {
            ++runnable;
        }
    }
    EXPECT_EQ(runnable, static_cast<int>(op.choices.size()) - 2);
}

TEST(RetuneInventory, BothCachesOfTheH100ThenH200FixtureAreListed) {
    auto rep = inventory(kiln::test::open_dir(kiln::test::h100_h200_root()), {});
    ASSERT_TRUE(rep.ok()) << rep.error().str();
    ASSERT_EQ(rep->ops.size(), 4u);
    std::set<std::string> devices;
    for (const auto& op : rep->ops) devices.insert(op.recorded_for.device);
    EXPECT_EQ(devices, (std::set<std::string>{"NVIDIA H100 80GB HBM3", "NVIDIA H200"}));
}

TEST(RetuneInventory, TheOpFilterKeepsMatchingOps) {
    auto rep = inventory(kiln::test::open_dir(kiln::test::h100_root()), {90, "1024, 2048"});
    ASSERT_TRUE(rep.ok());
    ASSERT_EQ(rep->ops.size(), 1u);
    EXPECT_EQ(rep->ops[0].choices.size(), 21u);
}

TEST(RetuneInventory, ARootWithoutTimingCacheIsNotFound) {
    kiln::test::ScratchDir dir("retune-inventory-empty");
    auto rep = inventory(kiln::test::open_dir(dir.path()), {});
    ASSERT_FALSE(rep.ok());
    EXPECT_EQ(rep.error().code, kiln::Errc::not_found);
    EXPECT_NE(rep.error().hint.find("max-autotune"), std::string::npos);
}

TEST(RetuneInventory, ChoiceKeysSplitIntoStemAndModuleKey) {
    auto [stem, key] = split_choice_key("triton_mm-czotzywsqlxea3dhs3qhrphv2dh7sgk5citgjx7hidvdiweg7xqz");
    EXPECT_EQ(stem, "triton_mm");
    EXPECT_EQ(key, "czotzywsqlxea3dhs3qhrphv2dh7sgk5citgjx7hidvdiweg7xqz");
    auto [s2, k2] = split_choice_key("decompose_k_mm_256_split");
    EXPECT_EQ(s2, "decompose_k_mm_256_split");
    EXPECT_EQ(k2, "");
}

TEST(RetuneInventory, ExternStemsCarryTheirArguments) {
    auto e = parse_extern_stem("bias_addmm-alpha=1-beta=0.5");
    EXPECT_EQ(e.base, "bias_addmm");
    EXPECT_EQ(e.numbers.at("alpha"), 1);
    EXPECT_EQ(e.numbers.at("beta"), 0.5);
    EXPECT_TRUE(e.others.empty());
    auto m = parse_extern_stem("mm");
    EXPECT_EQ(m.base, "mm");
    EXPECT_TRUE(m.numbers.empty());
    auto o = parse_extern_stem("addmm-layout=nt");
    ASSERT_EQ(o.others.size(), 1u);
    EXPECT_EQ(o.others[0], "layout=nt");
}

TEST(RetuneInventory, AddmmExternChoicesOfTorch211AreRunnableWithAlphaAndBeta) {
    // A timing cache as torch 2.11 writes addmm's extern choices (names from an H100 run).
    kiln::test::ScratchDir dir("retune-inventory-addmm");
    fs::create_directories(dir.path() / "cache");
    const std::string key =
        "[('cuda', 'torch.bfloat16', 2048, 3072, 0, 1, 0), ('cuda', 'torch.bfloat16', 2048, 1024, "
        "1024, 1, 0), ('cuda', 'torch.bfloat16', 1024, 3072, 1, 1024, 0)]";
    const std::string hash = "c4xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    nlohmann::json cache = {{"system", {{"device", {{"name", "NVIDIA H100 80GB HBM3"}}}, {"hash", "abc"}}},
                            {"cache",
                             {{"addmm",
                               {{key,
                                 {{"highest",
                                   {{"addmm-alpha=1-beta=1-" + hash, 0.05},
                                    {"bias_addmm-alpha=2-beta=0.5-" + hash, 0.04},
                                    {"addmm-layout=nt-" + hash, 0.06}}}}}}}}}};
    {
        std::ofstream f(dir.path() / "cache" / "abc");
        f << cache.dump();
    }
    auto rep = inventory(kiln::test::open_dir(dir.path()), {90, ""});
    ASSERT_TRUE(rep.ok()) << rep.error().str();
    ASSERT_EQ(rep->ops.size(), 1u);
    std::map<std::string, const RetuneChoice*> by;
    for (const auto& c : rep->ops[0].choices) by[c.name.substr(0, c.name.size() - hash.size() - 1)] = &c;
    const RetuneChoice* plain = by.at("addmm-alpha=1-beta=1");
    ASSERT_TRUE(plain->runnable) << plain->why;
    EXPECT_EQ(plain->gemm->bias_fill, "rows");
    EXPECT_EQ(plain->gemm->beta, 1);
    EXPECT_TRUE(plain->gemm->trans_a);  // mat2 is column-major (strides 1, 1024)
    const RetuneChoice* bias = by.at("bias_addmm-alpha=2-beta=0.5");
    ASSERT_TRUE(bias->runnable) << bias->why;
    EXPECT_EQ(bias->gemm->alpha, 2);
    EXPECT_EQ(bias->gemm->beta, 0.5);
    EXPECT_EQ(bias->config["aten"], "bias_addmm");
    const RetuneChoice* odd = by.at("addmm-layout=nt");
    EXPECT_FALSE(odd->runnable);
    EXPECT_NE(odd->why.find("layout=nt"), std::string::npos) << odd->why;
}

// Issue 44: the inventory reads the timing caches, benchmark modules and Triton cache beneath the
// root as opened, through its descriptor: the root renamed away after the open and a decoy put at its
// path (a timing cache of another op, no modules, no Triton cache), every op is still the opened
// cache's, every Triton choice still resolves to its module and binary, and the binaries the workers
// are sent are relative to the root they inherit (kiln-worker --root-fd), not paths into the decoy.
TEST(RetuneInventory, ReadsBeneathTheOpenedRootNotItsPath) {
    kiln::test::ScratchDir dir("retune-inventory-decoy");
    const kiln::test::DecoyedRoot d = kiln::test::open_h100_root_then_decoy(dir);
    const fs::path &root = d.root, &moved = d.moved;
    const kiln::test::OpenedDir& opened = d.opened;
    ASSERT_TRUE(opened.fd.valid());
    auto rep = inventory(opened, {90, ""});
    ASSERT_TRUE(rep.ok()) << rep.error().str();
    ASSERT_EQ(rep->ops.size(), 2u) << "the inventory read the decoy's timing cache";
    int triton = 0;
    for (const auto& op : rep->ops) {
        EXPECT_EQ(op.op, "mm");
        EXPECT_EQ(op.recorded_for.device, "NVIDIA H100 80GB HBM3");
        for (const auto& c : op.choices) {
            EXPECT_TRUE(c.runnable) << c.name << ": " << c.why;
            if (c.kind != ChoiceKind::triton) continue;
            ++triton;
            ASSERT_TRUE(c.triton.has_value()) << c.name;
            const std::string& cubin = c.triton->cubin;
            EXPECT_FALSE(fs::path(cubin).is_absolute()) << cubin;
            EXPECT_EQ(cubin.rfind("triton/", 0), 0u) << cubin;
            EXPECT_TRUE(fs::is_regular_file(moved / cubin)) << cubin;
            EXPECT_EQ(c.binary, (root / cubin).string()) << "the report names the root as it was opened";
            EXPECT_EQ(c.kernel, "triton_mm") << "its benchmark module was not read";
        }
    }
    EXPECT_EQ(triton, 39);
}

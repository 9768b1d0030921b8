// The report's JSON contract (read back by another tool and the GUI) and the comparison with
// the recorded ranking.
#include <gtest/gtest.h>

#include "opened_dir.hpp"
#include "retune/inventory.hpp"
#include "retune/recorded_compare.hpp"
#include "retune/retune_report.hpp"
#include "test_support.hpp"
#include "worker/protocol.hpp"

using namespace kiln::retune;

namespace {

RetuneOp measured_op() {
    RetuneOp op;
    op.op = "mm";
    op.inputs = "[('cuda', 'torch.float16', 64, 32, 32, 1, 0), ('cuda', 'torch.float16', 32, 16, 16, 1, 0)]";
    op.precision = "highest";
    auto add = [&](const std::string& name, ChoiceKind kind, double recorded, std::optional<double> ms, double spread) {
        RetuneChoice c;
        c.name = name;
        c.kind = kind;
        c.recorded_ms = recorded;
        c.runnable = true;
        c.config = {{"BLOCK_M", 64}, {"num_warps", 4}};
        Measurement m;
        m.device = 2;
        m.status = ms ? "ok" : "wrong";
        m.ms = ms;
        m.spread_ms = spread;
        if (!ms) m.why = "mismatch: 3 of 1024 elements differ";
        c.measured.push_back(m);
        op.choices.push_back(c);
    };
    add("mm-cqrjyn5jqdhj5q3lohxxeq3fxnpvy6qsigzdm2ykqas7fpkl7zrz", ChoiceKind::extern_op, 0.010, 0.0101, 0.0001);
    add("triton_mm-czotzywsqlxea3dhs3qhrphv2dh7sgk5citgjx7hidvdiweg7xqz", ChoiceKind::triton, 0.011, 0.0090, 0.0001);
    add("triton_mm-cvzvmxboaohk5yqgtlsf357gr5x54yoxxuxtjcikjawgavztfgkn", ChoiceKind::triton, 0.020, 0.0200, 0.0001);
    add("triton_mm-c7d5z4oaljokxdwoovbpo546qais7jmurqkz6fblsd4h6ophbzna", ChoiceKind::triton, 0.030, std::nullopt, 0);
    return op;
}

}  // namespace

TEST(RetuneReport, TheComparisonNamesWinnersMarginsAndOrderChanges) {
    auto cmp = compare_with_recorded(measured_op());
    ASSERT_EQ(cmp.size(), 1u);
    const auto& c = cmp[0];
    EXPECT_EQ(c.device, 2);
    EXPECT_EQ(c.recorded_winner, "mm-cqrjyn5jqdhj5q3lohxxeq3fxnpvy6qsigzdm2ykqas7fpkl7zrz");
    EXPECT_EQ(c.measured_winner, "triton_mm-czotzywsqlxea3dhs3qhrphv2dh7sgk5citgjx7hidvdiweg7xqz");
    EXPECT_FALSE(c.same_winner);
    EXPECT_FALSE(c.winner_within_noise);  // 0.0101 vs 0.0090, noise 0.0002
    EXPECT_NEAR(c.recorded_margin, 0.1, 1e-9);
    EXPECT_NEAR(c.measured_margin, 0.0101 / 0.0090 - 1, 1e-9);
    EXPECT_EQ(c.measured, 3);
    EXPECT_EQ(c.failed, 1);
    ASSERT_EQ(c.order_changes.size(), 1u);
    EXPECT_EQ(c.order_changes[0].faster_recorded, "mm-cqrjyn5jqdhj5q3lohxxeq3fxnpvy6qsigzdm2ykqas7fpkl7zrz");
    EXPECT_NEAR(c.order_changes[0].measured_gap_ms, 0.0011, 1e-12);
}

TEST(RetuneReport, WithinNoiseIsNotAnOrderChange) {
    RetuneOp op = measured_op();
    op.choices[0].measured[0].spread_ms = 0.002;  // the extern's noise now covers the gap
    auto c = compare_with_recorded(op)[0];
    EXPECT_TRUE(c.order_changes.empty());
    EXPECT_TRUE(c.winner_within_noise);
}

TEST(RetuneReport, TheAutotuneTableListsFastestFirstAndFailuresLast) {
    std::string t = autotune_table(measured_op(), 2);
    EXPECT_NE(t.find("AUTOTUNE mm(64x32, 32x16)"), std::string::npos) << t;
    EXPECT_NE(t.find("strides: [32, 1], [16, 1]"), std::string::npos) << t;
    EXPECT_NE(t.find("dtypes: torch.float16, torch.float16"), std::string::npos) << t;
    // Choices named as `timings` names them (timings::choice_name), never by their module hash.
    auto first = t.find("  triton_mm (BLOCK_M 64, 4 warps) 0.0090 ms 100.0% BLOCK_M=64, num_warps=4");
    auto extern_row = t.find("  mm (BLOCK_M 64, 4 warps) 0.0101 ms 89.1%");
    auto failed = t.find("  triton_mm (BLOCK_M 64, 4 warps) wrong: mismatch");
    EXPECT_EQ(t.find("-c"), std::string::npos) << t;
    EXPECT_NE(first, std::string::npos) << t;
    EXPECT_NE(extern_row, std::string::npos) << t;
    EXPECT_NE(failed, std::string::npos) << t;
    EXPECT_LT(first, extern_row);
    EXPECT_LT(extern_row, failed);
}

TEST(RetuneReport, JsonHasTheContractFieldsAndReadsBack) {
    auto inv = inventory(kiln::test::open_dir(kiln::test::h100_root()), {90, ""});
    ASSERT_TRUE(inv.ok());
    RetuneReport r = *inv;
    r.devices = {{2, "NVIDIA H100 80GB HBM3", "sm_90"}};
    r.ops[0] = measured_op();
    nlohmann::json j = nlohmann::json::parse(to_json(r).dump());
    const auto& op = j["ops"][0];
    for (const char* k : {"op", "inputs", "precision", "recorded_for", "choices"}) EXPECT_TRUE(op.contains(k)) << k;
    const auto& rf = j["ops"][1]["recorded_for"];
    for (const char* k : {"system_hash", "device", "triton", "cuda"}) EXPECT_TRUE(rf.contains(k)) << k;
    for (const auto& c : j["ops"][1]["choices"])
        for (const char* k : {"name", "kind", "module", "binary", "config", "grid", "runnable", "why", "recorded_ms"})
            EXPECT_TRUE(c.contains(k)) << k;
    const auto& m = op["choices"][0]["measured"][0];
    for (const char* k : {"device", "status", "ms", "spread_ms", "why"}) EXPECT_TRUE(m.contains(k)) << k;
    EXPECT_EQ(j["devices"][0]["index"], 2);
    EXPECT_EQ(j["devices"][0]["arch"], "sm_90");
    EXPECT_TRUE(op["choices"][3]["measured"][0]["ms"].is_null());
    EXPECT_EQ(op["comparison"][0]["same_winner"], false);

    auto back = retune_report_from_json(j);
    ASSERT_TRUE(back.ok()) << back.error().str();
    ASSERT_EQ(back->ops.size(), r.ops.size());
    EXPECT_EQ(back->ops[1].inputs, r.ops[1].inputs);
    EXPECT_EQ(back->ops[1].recorded_for.system_hash, r.ops[1].recorded_for.system_hash);
    const auto& bc = back->ops[1].choices[3];
    const auto& rc = r.ops[1].choices[3];
    EXPECT_EQ(bc.name, rc.name);
    EXPECT_EQ(bc.kind, rc.kind);
    EXPECT_EQ(bc.binary, rc.binary);
    EXPECT_EQ(bc.grid, rc.grid);
    EXPECT_EQ(bc.args.size(), rc.args.size());
    ASSERT_TRUE(bc.triton.has_value());
    EXPECT_EQ(bc.triton->cubin, rc.triton->cubin);
    EXPECT_EQ(back->ops[0].choices[0].measured[0].ms, 0.0101);
    EXPECT_EQ(back->ops[0].choices[3].measured[0].status, "wrong");
    EXPECT_FALSE(back->ops[0].choices[3].measured[0].ms.has_value());
    EXPECT_FALSE(retune_report_from_json(nlohmann::json::object()).ok());
}

// Issue 40: the report says which statistic its times are, keeps the median beside it, and marks a
// choice torch records as inf; all of it survives the JSON contract, and the hand-back reads it.
TEST(RetuneReport, TheStatisticAndTorchsInfinityTravelInTheContract) {
    RetuneReport r;
    r.root = "/tmp/x";
    r.devices = {{2, "NVIDIA H100 80GB HBM3", "sm_90"}};
    r.statistic = kiln::worker::statistic_name(kiln::worker::Statistic::torch_min);
    r.ops.push_back(measured_op());
    auto& m = r.ops[0].choices[1].measured[0];
    m.median_ms = 0.0093;
    auto& bad = r.ops[0].choices[3].measured[0];
    bad.status = "failed";
    bad.why = "the kernel needs 262144 bytes of shared memory; this GPU allows 232448";
    bad.torch_inf = true;
    auto j = to_json(r);
    EXPECT_EQ(j["statistic"], "torch-min");
    EXPECT_NE(j["statistic_means"].get<std::string>().find("minimum over CUDA event pairs"), std::string::npos);
    auto back = retune_report_from_json(nlohmann::json::parse(j.dump()));
    ASSERT_TRUE(back) << back.error().str();
    EXPECT_EQ(back->statistic, "torch-min");
    EXPECT_DOUBLE_EQ(back->ops[0].choices[1].measured[0].median_ms, 0.0093);
    EXPECT_TRUE(back->ops[0].choices[3].measured[0].torch_inf);
    EXPECT_FALSE(back->ops[0].choices[1].measured[0].torch_inf);
    EXPECT_EQ(kiln::worker::statistic_from_name("torch-min"), kiln::worker::Statistic::torch_min);
    EXPECT_EQ(kiln::worker::statistic_from_name("median"), kiln::worker::Statistic::median);
    EXPECT_FALSE(kiln::worker::statistic_from_name("mean"));
    // The worker gets the statistic through the request's timing options.
    kiln::worker::TimingOptions t;
    t.statistic = kiln::worker::Statistic::torch_min;
    EXPECT_EQ(kiln::worker::timing_options_from_json(kiln::worker::to_json(t)).statistic,
              kiln::worker::Statistic::torch_min);
}

// Kiln's times against the recorded ones over a whole report (issue 40: the GUI's and retune's
// summary line): a failed measurement and a choice torch recorded as failed are left out.
TEST(RetuneReport, AgreementWithRecordedIsTheMedianDeviation) {
    RetuneReport r;
    r.ops.push_back(measured_op());  // +1 %, -18.2 %, 0 %, and one wrong (left out)
    RetuneChoice never;              // torch recorded it as failed: nothing to compare
    never.name = "triton_mm-cnever";
    never.measured.push_back({});
    never.measured.back().status = "ok";
    never.measured.back().ms = 0.5;
    r.ops[0].choices.push_back(never);
    EXPECT_FALSE(deviation_from_recorded(r.ops[0].choices[3], r.ops[0].choices[3].measured[0]));
    EXPECT_FALSE(deviation_from_recorded(never, never.measured[0]));
    EXPECT_NEAR(*deviation_from_recorded(r.ops[0].choices[1], r.ops[0].choices[1].measured[0]), 0.009 / 0.011 - 1,
                1e-12);
    auto a = agreement_with_recorded(r);
    EXPECT_EQ(a.compared, 3);
    EXPECT_NEAR(a.median_abs_deviation, 0.01, 1e-9);
    EXPECT_NEAR(a.median_deviation, 0.0, 1e-9);
    EXPECT_EQ(a.within_3_percent, 2);
    EXPECT_EQ(a.within_10_percent, 2);
    EXPECT_EQ(agreement_text(a),
              "Kiln against recorded: median |Kiln/recorded - 1| 1.0 % (signed +0.0 %), 2 of 3 within 3 %");
    EXPECT_EQ(agreement_note(a), "");  // agreeing times need no explanation
    // An even count: the mean of the middle two, as Python's statistics.median (retune_vs_torch.py).
    r.ops[0].choices.erase(r.ops[0].choices.begin() + 2);  // drop the 0 %: +1 % and -18.2 % remain
    a = agreement_with_recorded(r);
    EXPECT_EQ(a.compared, 2);
    EXPECT_NEAR(a.median_abs_deviation, (0.01 + (1 - 0.009 / 0.011)) / 2, 1e-9);
    EXPECT_EQ(agreement_text(RecordedAgreement{}), "Kiln against recorded: no choice both recorded and measured ok");
    EXPECT_EQ(agreement_note(RecordedAgreement{}), "");
    // Kiln's the lower by more than 3 %: the note names torch's host launch, the cause measured on the GPU.
    RecordedAgreement lower{.compared = 445, .median_abs_deviation = 0.182, .median_deviation = -0.182};
    EXPECT_NE(agreement_note(lower).find("Python's launch"), std::string::npos);
    lower.median_deviation = -0.03;  // at the line: nothing to explain
    EXPECT_EQ(agreement_note(lower), "");
    RecordedAgreement higher{.compared = 10, .median_abs_deviation = 0.2, .median_deviation = 0.2};
    EXPECT_EQ(agreement_note(higher), "");  // Kiln's higher is not torch's launch: no note claims it
}

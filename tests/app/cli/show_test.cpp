// `kiln-cli show` end to end: the real binary on the real fixture entries.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "hash/sha256.hpp"
#include "test_support.hpp"

namespace kiln::test {
namespace {

std::string entry(const char* rel) { return (two_entries_root() / rel).string(); }
const char* kFirst =
    "fxgraph/sb/fsbnatbp6m2keoozno6te7auv6dbw22iozfrx4joxfgl6rn734eh/"
    "deg4ivyb4kcgy5eslbjybulmyzbjan4oasgg56equm4f3dzcmga";
const char* kSecond =
    "fxgraph/sb/fsbnatbp6m2keoozno6te7auv6dbw22iozfrx4joxfgl6rn734eh/"
    "naiolsaiywonfvjqzuuystkn5qe7virsv3d3rgkz7xkb52e6pb5";

nlohmann::json golden_for(const std::string& rel) {
    auto g = nlohmann::json::parse(read_file(fixture_dir() / "two" / "golden.json"));
    for (auto& e : g["entries"])
        if (e["path"] == rel) return e;
    return {};
}

TEST(CliShow, JsonIsOneObjectPerFileWithTypeAndFields) {
    auto r = run_command({cli_path(), "show", "--json", entry(kFirst), entry(kSecond)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::istringstream lines(r.out);
    std::string line;
    int n = 0;
    for (const char* rel : {kFirst, kSecond}) {
        ASSERT_TRUE(std::getline(lines, line));
        ++n;
        auto j = nlohmann::ordered_json::parse(line);
        auto g = golden_for(rel);
        std::vector<std::string> keys;
        for (auto& [k, v] : j.items()) keys.push_back(k);
        EXPECT_EQ(keys, (std::vector<std::string>{"type", "fields"}));
        EXPECT_EQ(j["type"], g["type"]);
        EXPECT_EQ(j["fields"].size(), g["fields"].size());
        const auto& f = j["fields"];
        EXPECT_EQ(f["cache_key"], g["cache_key"]);
        EXPECT_EQ(f["guards_expr"], g["guards_expr"]);
        EXPECT_EQ(f["_time_taken_ns"], g["_time_taken_ns"]);
        EXPECT_EQ(f["device_types"], g["device_types"]);  // OrderedSet -> array
        EXPECT_EQ(f["device_idxs"], g["device_idxs"]);
        EXPECT_EQ(f["_fx_graph_cache_debug_lines"], g["debug_lines"]);
        EXPECT_EQ(f["current_callable"], nullptr);
        EXPECT_EQ(hash::sha256_hex(f["source_code"].get<std::string>()), g["source_code_sha256"].get<std::string>());
        EXPECT_EQ(f["_triton_bundle"]["$type"], "torch._inductor.triton_bundler.TritonBundle");
        // bytes -> {"$bytes": n}
        auto arts = f["_triton_bundle"]["kernel_artifacts"];
        ASSERT_FALSE(arts.empty());
        EXPECT_TRUE(arts[0]["artifacts"][0]["payload"]["$bytes"].is_number_unsigned());
    }
    EXPECT_EQ(n, 2);
    EXPECT_FALSE(std::getline(lines, line));
}

TEST(CliShow, FieldRawPrintsTheSourceCodeExactly) {
    auto r = run_command({cli_path(), "show", entry(kFirst), "--field", "source_code", "--raw"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto g = golden_for(kFirst);
    EXPECT_EQ(hash::sha256_hex(r.out), g["source_code_sha256"].get<std::string>());
}

TEST(CliShow, FieldWithoutRawIsJson) {
    auto r = run_command({cli_path(), "show", entry(kSecond), "--field", "guards_expr", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out), "2 <= L['t0']");
}

TEST(CliShow, SummaryNamesTheEssentials) {
    auto r = run_command({cli_path(), "show", entry(kFirst)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("torch._inductor.output_code.CompiledFxGraph"), std::string::npos);
    EXPECT_NE(r.out.find("c475duf7cyvjfj6byf6m42hich2h253yg3yccqxonsuu6cm44wbu"), std::string::npos);
    EXPECT_NE(r.out.find("2 <= L['t0'] and L['t0'] <= 2147483647"), std::string::npos);
    EXPECT_NE(r.out.find("fields (33):"), std::string::npos);
}

// The story: the max-autotune mm graph runs triton_tem_fused_mm_relu_0 (relu fused into the
// template), whose config is the timing cache's triton_mm-cy2dwohf... choice, 6.1 % ahead of extern mm.
TEST(CliShow, KernelsOfTheMmGraph) {
    const std::string mm = (h100_root() / "fxgraph/ej/fej3ypleo5ccxyjnzfv46rsawa3nerozpyvrcvtakojqw2j5kwww").string();
    auto r = run_command({cli_path(), "show", mm, "--kernels", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_NE(j["output_module"].get<std::string>().find("y6/cy6x6j4mf5jvs7kc5j47y5oj7snslen5qyahqjnblkm46xfshtuz.py"),
              std::string::npos);
    ASSERT_EQ(j["kernels"].size(), 1u);
    const auto& k = j["kernels"][0];
    EXPECT_EQ(k["name"], "triton_tem_fused_mm_relu_0");
    EXPECT_EQ(k["fused_ops"], nlohmann::json::array({"relu"}));
    EXPECT_EQ(k["autotune"]["choice"], "triton_mm-cy2dwohf74knmswzb73qaw4qclaosh4ozzvjns4nzoxgvhzcdqgh");
    EXPECT_EQ(k["autotune"]["ms"], 0.005791999865323305);
    EXPECT_EQ(k["autotune"]["rank"], 1);
    EXPECT_EQ(k["autotune"]["other"], "mm-cqrjyn5jqdhj5q3lohxxeq3fxnpvy6qsigzdm2ykqas7fpkl7zrz");
    EXPECT_EQ(k["autotune"]["device"], "NVIDIA H100 80GB HBM3");

    r = run_command({cli_path(), "show", mm, "--kernels"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("epilogue fused into the template: relu"), std::string::npos) << r.out;
    // One name per choice: torch's short form with the config, the hash as a detail.
    EXPECT_NE(r.out.find("chose this template, triton_mm (BLOCK 64\u00d732\u00d7128, 5 stages, 4 warps): 0.0058 ms, "
                         "fastest of 20 valid choices (runner-up mm: 0.0061 ms, +6.1%)"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("triton_mm-cy2dwohf74knmswzb73qaw4qclaosh4ozzvjns4nzoxgvhzcdqgh"), std::string::npos);
}

// What a new user hit: autotune chose extern mm and the template runs because Inductor fused the
// epilogue into it. The fixture's graph with extern mm made the benchmark's winner (a copy of the
// root without its Triton binaries, the timing cache's mm time lowered below the template's).
TEST(CliShow, KernelsSayWhenTheTemplateRunsByEpilogueFusion) {
    ScratchDir dir("show_fusion");
    const std::filesystem::path root = dir.path() / "inductor";
    const std::string key = "fxgraph/ej/fej3ypleo5ccxyjnzfv46rsawa3nerozpyvrcvtakojqw2j5kwww";
    std::filesystem::create_directories(root);
    for (const auto& e : std::filesystem::directory_iterator(h100_root()))
        if (e.path().filename() != "triton")
            std::filesystem::copy(e.path(), root / e.path().filename(), std::filesystem::copy_options::recursive);
    for (const auto& f : std::filesystem::directory_iterator(root / "cache")) {
        std::string text = read_file(f.path());
        const std::string from = "\"mm-cqrjyn5jqdhj5q3lohxxeq3fxnpvy6qsigzdm2ykqas7fpkl7zrz\": 0.006144000217318535";
        auto at = text.find(from);
        ASSERT_NE(at, std::string::npos);
        text.replace(at, from.size(), "\"mm-cqrjyn5jqdhj5q3lohxxeq3fxnpvy6qsigzdm2ykqas7fpkl7zrz\": 0.005");
        std::ofstream(f.path(), std::ios::trunc) << text;
    }
    auto r = run_command({cli_path(), "show", (root / key).string(), "--kernels"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.find("chose this template"), std::string::npos) << r.out;
    EXPECT_NE(
        r.out.find("on NVIDIA H100 80GB HBM3 chose mm (0.0050 ms); this template, triton_mm (BLOCK "
                   "64\u00d732\u00d7128, 5 stages, 4 warps) (0.0058 ms, rank 2 of 20 valid choices, +15.8%), runs "
                   "because Inductor fused the epilogue (relu) into it"),
        std::string::npos)
        << r.out;
    r = run_command({cli_path(), "show", (root / key).string(), "--kernels", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto k = nlohmann::json::parse(r.out)["kernels"][0]["autotune"];
    EXPECT_EQ(k["rank"], 2);
    EXPECT_EQ(k["other_display"], "mm");
}

// A pointwise kernel with coordinate descent: its .best_config is the one beside its module.
TEST(CliShow, KernelsWithBestConfig) {
    const std::string dyn = (h100_root() / "fxgraph/yg/fygldk366xeatlz7nfvy2zsl3k55ym5kcn2c366ejalbhhojodnz").string();
    auto r = run_command({cli_path(), "show", dyn, "--kernels", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["kernels"].size(), 2u);
    EXPECT_EQ(j["kernels"][0]["name"], "triton_poi_fused_relu_0");
    EXPECT_EQ(j["kernels"][0]["best_config"]["config"]["XBLOCK"], 512);
    EXPECT_EQ(j["kernels"][0]["best_config"]["config"]["found_by_coordesc"], true);
    EXPECT_EQ(j["kernels"][1]["kind"], "extern");
}

// A key dir is shown as its entries (it used to be refused).
TEST(CliShow, KeyDirShowsItsEntries) {
    auto r = run_command(
        {cli_path(), "show",
         (two_entries_root() / "fxgraph/sb/fsbnatbp6m2keoozno6te7auv6dbw22iozfrx4joxfgl6rn734eh").string(), "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::istringstream lines(r.out);
    std::string line;
    std::size_t n = 0;
    while (std::getline(lines, line)) n += !line.empty();
    EXPECT_EQ(n, 2u);
}

// A Dynamo PGO profile (dynamo/code_state_*.pkl) is no object with fields: `show` used to print
// "fields (0)". It names the profile, its frames and what automatic-dynamic learned per input.
TEST(CliShow, PgoProfileSaysWhatItHolds) {
    const std::string pkl = (pgo_root() / "dynamo" / "code_state_kiln-dev-job_None_.pkl").string();
    auto r = run_command({cli_path(), "show", pkl});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.find("fields (0)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Dynamo PGO profile"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("frames             1, 2 inputs, 2 with a dynamic size"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("f_dev (/work/steering/tools/gen_pgo.py:12, file hash 30f1ec7d)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("L['x']"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("L['w']"), std::string::npos) << r.out;
    auto j = run_command({cli_path(), "show", pkl, "--json"});
    ASSERT_EQ(j.exit_code, 0) << j.err;
    auto doc = nlohmann::json::parse(j.out);
    EXPECT_EQ(doc["type"], "pgo_profile");
    ASSERT_EQ(doc["frames"].size(), 1u);
    EXPECT_EQ(doc["frames"][0]["name"], "f_dev");
    EXPECT_EQ(doc["frames"][0]["firstlineno"], 12);
    ASSERT_EQ(doc["frames"][0]["inputs"].size(), 2u);
    EXPECT_EQ(doc["frames"][0]["inputs"][0]["source"], "L['x']");
    EXPECT_NE(doc["frames"][0]["inputs"][0]["size"].get<std::string>().find("dynamic"), std::string::npos) << j.out;
}

TEST(CliShow, ErrorsAndUsage) {
    ScratchDir dir("show");
    auto broken = dir.path() / "broken";
    {
        std::string bytes = read_file(entry(kFirst));
        std::ofstream(broken, std::ios::binary) << bytes.substr(0, 5000);
    }
    auto r = run_command({cli_path(), "show", broken.string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find(broken.string() + ": byte "), std::string::npos) << r.err;

    r = run_command({cli_path(), "show", entry(kFirst), "--field", "no_such_field"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("no field 'no_such_field'"), std::string::npos);

    r = run_command({cli_path(), "show", entry(kFirst), "--raw"});
    EXPECT_EQ(r.exit_code, 2);

    r = run_command({cli_path(), "show", entry(kFirst), "--field", "device_types", "--raw"});
    EXPECT_EQ(r.exit_code, 1);  // an OrderedSet has no raw text
}

// Issue 41.5: the key `ls` prints (13 characters) shows that key's entries, under --root; a blob's
// entry is named by the blob, never by the folder it is unpacked into.
TEST(CliShow, TheKeyLsPrintsShowsItsEntries) {
    const std::string prefix = "fsbnatbp6m2ke";  // `ls` of the two-entries fixture: kind, key (13), ...
    auto ls = run_command({cli_path(), "ls", two_entries_root().string()});
    ASSERT_EQ(ls.exit_code, 0) << ls.err;
    EXPECT_NE(ls.out.find("fxgraph     " + prefix + " "), std::string::npos) << ls.out;
    auto by_prefix = run_command({cli_path(), "show", prefix, "--root", two_entries_root().string(), "--json"});
    auto by_dir = run_command({cli_path(), "show", (two_entries_root() / kFirst).parent_path().string(), "--json"});
    ASSERT_EQ(by_prefix.exit_code, 0) << by_prefix.err;
    EXPECT_EQ(by_prefix.out, by_dir.out);

    const std::string blob = (fixture_dir() / "h100h200/h200/megacache.bin").string();
    auto blob_ls = run_command({cli_path(), "ls", blob, "--json"});
    ASSERT_EQ(blob_ls.exit_code, 0) << blob_ls.err;
    std::string key;
    const auto rows = nlohmann::json::parse(blob_ls.out);
    for (const auto& row : rows["entries"])
        if (row["kind"] == "fxgraph") key = row["key"].get<std::string>();
    ASSERT_FALSE(key.empty()) << blob_ls.out;
    auto shown = run_command({cli_path(), "show", key.substr(0, 13), "--root", blob});
    ASSERT_EQ(shown.exit_code, 0) << shown.err;
    EXPECT_EQ(shown.out.rfind(blob + "[fxgraph/" + key.substr(1, 2) + "/" + key + "/", 0), 0u) << shown.out;
    EXPECT_EQ(shown.out.find("kiln-blob"), std::string::npos) << shown.out;
}

}  // namespace
}  // namespace kiln::test

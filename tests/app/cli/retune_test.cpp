// kiln-cli retune: the inventory (--list) on the fixtures, as text and as the JSON contract; a
// run where there is no GPU (or on the CPU) is one clear error that writes nothing.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "decoy_root.hpp"
#include "fixture_copy.hpp"
#include "test_support.hpp"
#include "util/process.hpp"
#include "util/python_json.hpp"

namespace fs = std::filesystem;
using kiln::test::run_command;

TEST(CliRetune, ListJsonResolvesEveryChoiceOfTheFixture) {
    auto r = run_command(
        {kiln::test::cli_path(), "retune", kiln::test::h100_root().string(), "--list", "--json", "--arch", "90"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["ops"].size(), 2u);
    EXPECT_FALSE(j.contains("devices"));  // an inventory measures nothing
    int triton = 0;
    for (const auto& op : j["ops"]) {
        EXPECT_EQ(op["op"], "mm");
        EXPECT_EQ(op["inputs"].get<std::string>().rfind("[('cuda', 'torch.float16', ", 0), 0u);
        EXPECT_EQ(op["recorded_for"]["device"], "NVIDIA H100 80GB HBM3");
        for (const auto& c : op["choices"]) {
            EXPECT_TRUE(c["runnable"].get<bool>()) << c["name"] << ": " << c["why"];
            EXPECT_TRUE(c["recorded_ms"].is_number());
            if (c["kind"] == "triton") {
                ++triton;
                EXPECT_EQ(c["name"].get<std::string>().rfind("triton_mm-c", 0), 0u);
                EXPECT_TRUE(fs::is_regular_file(c["binary"].get<std::string>()));
                EXPECT_TRUE(fs::is_regular_file(c["module"].get<std::string>()));
                EXPECT_EQ(c["grid"].size(), 3u);
                EXPECT_TRUE(c["config"].contains("BLOCK_K"));
            } else {
                EXPECT_EQ(c["kind"], "extern");
                EXPECT_EQ(c["name"].get<std::string>().rfind("mm-c", 0), 0u);
            }
        }
    }
    EXPECT_EQ(triton, 39);
}

// `--root-fd N` (the GUI's re-tune child): ROOT as the parent opened it, inherited as descriptor N,
// read beneath the descriptor and never opened again by its path (issue 44): the root renamed after
// the open and a decoy (another op's timing cache) at its path, the inventory is the opened root's,
// its files named under ROOT. A descriptor that is no directory is bad input.
TEST(CliRetune, RootFdReadsTheInheritedRootNotItsPath) {
    kiln::test::ScratchDir dir("cli-retune-root-fd");
    const kiln::test::DecoyedRoot d = kiln::test::open_h100_root_then_decoy(dir);
    ASSERT_TRUE(d.opened.fd.valid());
    kiln::ProcessOptions o;
    o.argv = {kiln::test::cli_path(),
              "retune",
              d.root.string(),
              "--root-fd",
              std::to_string(d.opened.fd.get()),
              "--list",
              "--json",
              "--arch",
              "90"};
    o.keep_fds = {d.opened.fd.get()};
    auto r = kiln::run_process(o);
    ASSERT_TRUE(r) << r.error().str();
    ASSERT_EQ(r->exit_status, 0) << r->err;
    auto j = nlohmann::json::parse(r->out);
    ASSERT_EQ(j["ops"].size(), 2u);
    int modules = 0;
    for (const auto& op : j["ops"]) {
        EXPECT_EQ(op["op"], "mm");  // not the decoy's decoy_op
        for (const auto& c : op["choices"])
            if (c["kind"] == "triton") {
                EXPECT_EQ(c["module"].get<std::string>().rfind(d.root.string() + "/", 0), 0u) << c["module"];
                ++modules;
            }
    }
    EXPECT_EQ(modules, 39);
    // The same ROOT by its path reads the decoy: what --root-fd keeps the child from.
    auto by_path = run_command({kiln::test::cli_path(), "retune", d.root.string(), "--list", "--json"});
    EXPECT_EQ(by_path.out.find("\"mm\""), std::string::npos) << by_path.out;
    for (const std::string fd : {"0", "999"}) {  // stdin is no directory; 999 is not open
        auto bad = run_command({kiln::test::cli_path(), "retune", d.root.string(), "--root-fd", fd, "--list"});
        EXPECT_EQ(bad.exit_code, 2) << bad.err;
        EXPECT_NE(bad.err.find("no open directory"), std::string::npos) << bad.err;
    }
}

TEST(CliRetune, ListTextSaysWhatRunsAndWhatCannot) {
    auto r =
        run_command({kiln::test::cli_path(), "retune", kiln::test::h100_root().string(), "--list", "--arch", "100"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("20 choices: 19 triton (0 with a binary), 1 extern, 0 other; 1 runnable"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("not runnable: no cubin for sm_100"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("cublasGemmEx(N,N, m=256 n=1024 k=2048"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("cuBLAS for extern choices:"), std::string::npos);
}

TEST(CliRetune, ARootWithoutTimingCacheIsBadInput) {
    kiln::test::ScratchDir dir("cli-retune-empty");
    auto r = run_command({kiln::test::cli_path(), "retune", dir.path().string(), "--list"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("no timing cache"), std::string::npos) << r.err;
}

namespace {

// Every file, link and directory under `root` with its bytes: equal before and after means the command
// wrote nothing (no session log, no folder).
std::map<std::string, std::string> tree_bytes(const fs::path& root) {
    std::map<std::string, std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(root)) {
        std::string rel = fs::relative(e.path(), root).string();
        if (e.is_symlink()) out[rel] = "link:" + fs::read_symlink(e.path()).string();
        else if (e.is_directory()) out[rel] = "dir";
        else out[rel] = kiln::test::read_file(e.path());
    }
    return out;
}

// CUDA_VISIBLE_DEVICES="" hides every GPU from kiln-cli (inherited), so "no GPU" holds on a GPU host too.
struct NoVisibleGpu {
    std::optional<std::string> saved;
    NoVisibleGpu() {
        if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) saved = v;
        ::setenv("CUDA_VISIBLE_DEVICES", "", 1);
    }
    ~NoVisibleGpu() {
        if (saved) ::setenv("CUDA_VISIBLE_DEVICES", saved->c_str(), 1);
        else ::unsetenv("CUDA_VISIBLE_DEVICES");
    }
};

std::size_t count_of(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

}  // namespace

// Issue 41.4: one error that says what to do instead (the no-GPU workflow), never `--devices cpu`,
// exit 1 (the work could not be done: frontend::exit_code of Errc::unavailable), and the cache as it was.
TEST(CliRetune, WithoutAGpuOneClearErrorAndNothingWritten) {
    NoVisibleGpu hidden;
    kiln::test::ScratchDir dir("cli-retune-nogpu");
    fs::copy(kiln::test::h100_root(), dir.path() / "inductor", fs::copy_options::recursive);
    const auto before = tree_bytes(dir.path());
    auto r = run_command({kiln::test::cli_path(), "retune", (dir.path() / "inductor").string()});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_EQ(count_of(r.err, "\n"), 1u) << r.err;
    EXPECT_NE(r.err.find("no CUDA GPU to re-tune on"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("retune ROOT --list"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("retune ROOT --json > retune.json"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("handback ROOT --from retune.json"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("--devices cpu"), std::string::npos) << r.err;
    EXPECT_EQ(tree_bytes(dir.path()), before);
    EXPECT_FALSE(fs::exists(dir.path() / "inductor" / "kiln"));
}

// --devices cpu would fail every choice (the cache's cubins and cuBLAS calls run on a GPU only): it is
// refused as bad input before any worker starts, and nothing is written.
TEST(CliRetune, DevicesCpuIsRefusedAndNothingWritten) {
    kiln::test::ScratchDir dir("cli-retune-cpu");
    fs::copy(kiln::test::h100_root(), dir.path() / "inductor", fs::copy_options::recursive);
    const auto before = tree_bytes(dir.path());
    for (const char* devices : {"cpu", "0,cpu"}) {
        auto r = run_command(
            {kiln::test::cli_path(), "retune", (dir.path() / "inductor").string(), "--devices", devices, "--json"});
        EXPECT_EQ(r.exit_code, 2) << r.err;
        EXPECT_TRUE(r.out.empty()) << r.out;
        EXPECT_EQ(count_of(r.err, "\n"), 1u) << r.err;
        EXPECT_NE(r.err.find("the CPU cannot run them"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("retune ROOT --json > retune.json"), std::string::npos) << r.err;
        EXPECT_EQ(r.err.find("failed"), std::string::npos) << r.err;
    }
    EXPECT_EQ(tree_bytes(dir.path()), before);
}

// Issue 41.5: one name per choice: `retune --list` names each choice as `timings` does
// (timings::choice_name: family and tile config), never by its module hash.
TEST(CliRetune, ListNamesEachChoiceAsTimingsDoes) {
    auto list =
        run_command({kiln::test::cli_path(), "retune", kiln::test::h100_root().string(), "--list", "--arch", "90"});
    ASSERT_EQ(list.exit_code, 0) << list.err;
    auto timings = run_command({kiln::test::cli_path(), "timings", kiln::test::h100_root().string(), "--top", "0"});
    ASSERT_EQ(timings.exit_code, 0) << timings.err;
    int named = 0;
    std::istringstream lines(list.out);
    for (std::string line; std::getline(lines, line);) {
        auto open = line.find("triton_mm (");
        if (open == std::string::npos) continue;
        const std::string name = line.substr(open, line.find("):", open) + 1 - open);
        EXPECT_NE(timings.out.find(" " + name + " "), std::string::npos) << name;
        ++named;
    }
    EXPECT_EQ(named, 39);
    EXPECT_EQ(list.out.find("triton_mm-c"), std::string::npos) << list.out;
}

namespace {

nlohmann::json list_json(const fs::path& root) {
    auto r = run_command({kiln::test::cli_path(), "retune", root.string(), "--list", "--json", "--arch", "90"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out, nullptr, false);
}

// Replaces `"field": <old value>` in a Triton metadata file (json.dumps: ", " and ": ").
void poison_metadata(const fs::path& cubin, const std::string& field, const std::string& value) {
    fs::path meta = fs::path(cubin).replace_extension(".json");
    auto j = nlohmann::ordered_json::parse(kiln::test::read_file(meta));
    ASSERT_TRUE(j.contains(field)) << meta << " has no " << field;
    std::string text = j.dump();
    std::string before = "\"" + field + "\":" + j[field].dump();
    auto at = text.find(before);
    ASSERT_NE(at, std::string::npos);
    text.replace(at, before.size(), "\"" + field + "\":" + value);
    std::ofstream(meta, std::ios::trunc) << text;
}

}  // namespace

// Issue 42 #7: one wrong-typed field of a kernel's metadata (`num_warps: "8"`, `name: 123`, a 23-digit
// `shared`) was an "internal error" and the whole listing was lost. Now that kernel's choice is not
// runnable and says which field, and every other choice is listed as before.
TEST(CliRetune, AWrongTypedKernelMetadataFieldCostsThatChoiceOnly) {
    kiln::test::ScratchDir d("cli-retune-poison");
    fs::path root = copy_h100(d);
    auto before = list_json(root);
    ASSERT_TRUE(before.is_object());
    std::vector<std::pair<std::string, std::string>> poisons = {
        {"num_warps", "\"8\""}, {"name", "123"}, {"shared", "12345678901234567890123"}};
    std::map<std::string, std::string> poisoned;  // choice -> the field's name in the expected message
    for (const auto& c : before["ops"][0]["choices"]) {
        if (c["kind"] != "triton" || poisoned.size() == poisons.size()) continue;
        const auto& [field, value] = poisons[poisoned.size()];
        poison_metadata(c["binary"].get<std::string>(), field, value);
        poisoned[c["name"].get<std::string>()] = field;
    }
    ASSERT_EQ(poisoned.size(), 3u);
    auto after = list_json(root);
    ASSERT_TRUE(after.is_object());
    ASSERT_EQ(after["ops"].size(), 2u);
    int runnable = 0, choices = 0;
    for (const auto& op : after["ops"])
        for (const auto& c : op["choices"]) {
            ++choices;
            auto it = poisoned.find(c["name"].get<std::string>());
            if (it == poisoned.end()) {
                EXPECT_TRUE(c["runnable"].get<bool>()) << c["name"] << ": " << c["why"];
                runnable += c["runnable"].get<bool>();
                continue;
            }
            EXPECT_FALSE(c["runnable"].get<bool>()) << c["name"];
            std::string why = c["why"];
            EXPECT_NE(why.find("kernel metadata cannot be read"), std::string::npos) << why;
            EXPECT_NE(why.find(it->second + " is "), std::string::npos) << why;
        }
    EXPECT_EQ(runnable, choices - 3);
}

namespace {

// The H100 fixture's timing cache with the first op's entry copied under an inputs key whose first
// size is `size`.
fs::path with_inputs_size(const kiln::test::ScratchDir& d, const std::string& size) {
    fs::path root = copy_h100(d);
    fs::path file = *fs::directory_iterator(root / "cache");
    auto j = kiln::py_loads(kiln::test::read_file(file)).value();
    auto& mm = j["cache"]["mm"];
    const std::string first = mm.begin().key();
    const std::string from = "('cuda', 'torch.float16', 512, ";
    EXPECT_EQ(first.rfind("[" + from, 0), 0u) << first;
    std::string hostile = "[('cuda', 'torch.float16', " + size + ", " + first.substr(from.size() + 1);
    auto entry = mm.begin().value();
    mm[hostile] = entry;
    std::ofstream(file, std::ios::trunc) << kiln::py_dumps(j, {.indent = 4});
    return root;
}

}  // namespace

// Issue 42 #14: sizes of 2^63-1 or -256 in an inputs key overflowed the grid into negative blocks
// and the choices still said `runnable: true`. Now the op's choices are not runnable and say why.
TEST(CliRetune, OverflowingOrNegativeSizesAreNotRunnable) {
    for (const std::string size : {"9223372036854775807", "-256"}) {
        kiln::test::ScratchDir d("cli-retune-sizes");
        fs::path root = with_inputs_size(d, size);
        auto j = list_json(root);
        ASSERT_TRUE(j.is_object());
        ASSERT_EQ(j["ops"].size(), 3u);
        int hostile = 0;
        for (const auto& op : j["ops"]) {
            bool bad = op["inputs"].get<std::string>().find(size) != std::string::npos;
            hostile += bad;
            for (const auto& c : op["choices"]) {
                if (!bad) {
                    EXPECT_TRUE(c["runnable"].get<bool>()) << c["name"] << ": " << c["why"];
                    continue;
                }
                EXPECT_FALSE(c["runnable"].get<bool>()) << size << " " << c["name"] << " grid " << c["grid"];
                std::string why = c["why"];
                EXPECT_TRUE(why.find(size == "-256" ? "negative size -256" : "64 bits") != std::string::npos)
                    << size << ": " << why;
                if (c["grid"].is_array()) {
                    for (const auto& g : c["grid"]) EXPECT_GT(g.get<std::int64_t>(), 0) << why;
                }
            }
        }
        EXPECT_EQ(hostile, 1) << size;
    }
}

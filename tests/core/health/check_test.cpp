// check_cache's streaming walk: the report does not depend on how many workers read the files, and
// write_json is dump_json(to_json(report)) byte for byte.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "health/check.hpp"
#include "health/check_context.hpp"
#include "health/check_walk.hpp"
#include "inductor/scanner.hpp"
#include "opened_dir.hpp"
#include "test_support.hpp"
#include "util/json_out.hpp"

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

namespace kiln::health {
namespace {

// A copy of the H100 fixture broken in several ways at once (problems of many kinds and files).
fs::path broken_copy(const test::ScratchDir& dir) {
    fs::path root = dir.path() / "cache";
    fs::copy(test::h100_root(), root, fs::copy_options::recursive);
    std::vector<fs::path> files;
    for (auto& e : fs::recursive_directory_iterator(root))
        if (e.is_regular_file()) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    int cut = 0;
    for (const auto& f : files) {
        std::string ext = f.extension().string();
        if ((ext == ".cubin" || ext == ".so") && cut++ % 3 == 0) fs::resize_file(f, fs::file_size(f) / 2);
    }
    for (const auto& f : files)
        if (f.string().find("/fxgraph/") != std::string::npos) {
            fs::resize_file(f, 100);
            break;
        }
    std::ofstream(root / "locks" / ("c" + std::string(51, 'z') + ".lock"));
    return root;
}

// Triton's group files are read without a full JSON parse when json.dumps wrote them: the names are
// nlohmann's, on real files, on every prefix of one (a file being written) and on other forms.
TEST(Check, GroupFilesAreReadAsAFullJsonParseReadsThem) {
    auto reference = [](std::string_view text) -> std::optional<std::vector<std::string>> {
        auto j = nlohmann::json::parse(text, nullptr, false);
        if (j.is_discarded() || !j.is_object() || !j.contains("child_paths") || !j["child_paths"].is_object())
            return std::nullopt;
        std::vector<std::string> names;
        for (const auto& [child, where] : j["child_paths"].items()) names.push_back(child);
        return names;
    };
    std::vector<std::string> texts;
    for (const auto& e : fs::recursive_directory_iterator(test::h100_root()))
        if (e.is_regular_file() && e.path().filename().string().starts_with("__grp__")) {
            std::ifstream in(e.path(), std::ios::binary);
            texts.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        }
    ASSERT_GT(texts.size(), 10u);
    EXPECT_EQ(texts[0].find('\\'), std::string::npos);  // the form read without a parse
    const std::string real = texts[0];
    for (std::size_t n = 0; n < real.size(); ++n) texts.push_back(real.substr(0, n));
    for (const char* t :
         {R"({"child_paths": {}})", "{\"child_paths\": {}}\n", R"({"child_paths": {"b": "/x", "a": "/y", "b": "/z"}})",
          R"({"child_paths": {"a\"b": "/x"}})", R"({"child_paths": {"a\u00e9": "/x"}})",
          "{\"child_paths\": {\"a\xc3\xa9\": \"/x\"}}", "{\"child_paths\": {\"a\xff\": \"/x\"}}",
          R"({"child_paths":{"a":"/x"}})", R"({ "child_paths": {"a": "/x"} })", R"({"child_paths": {"a": 1}})",
          R"({"child_paths": {"a": null, "b": "/x"}})", R"({"child_paths": {"a": "/x"}, "other": 1})",
          R"({"child_paths": {"a": "/x"}}x)", R"({"child_paths": []})", R"({"child_paths": {"d/e": "/x"}})",
          "{\"child_paths\": {\"a\": \"/x\ny\"}}", R"({"child_paths": {"a": "/x", }})", R"([])", ""})
        texts.emplace_back(t);
    for (const std::string& t : texts) {
        SCOPED_TRACE(t);
        EXPECT_EQ(detail::group_file_children(t), reference(t));
    }
}

TEST(Check, TheReportIsTheSameWithOneWorkerOrMany) {
    test::ScratchDir dir{"health-check-threads"};
    fs::path root = broken_copy(dir);
    CheckOptions one;
    one.threads = 1;
    CheckOptions many;
    many.threads = 16;
    auto a = check_cache(kiln::test::open_dir(root), one);
    auto b = check_cache(kiln::test::open_dir(root), many);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_GT(a->problems.size(), 5u);
    EXPECT_EQ(dump_json(to_json(*a)), dump_json(to_json(*b)));
}

TEST(Check, AKeptScanGivesTheStreamingReport) {
    // The GUI checks the window's scan (check_scan); the CLI streams its own walk (check_cache).
    test::ScratchDir dir{"health-check-scan"};
    fs::path root = broken_copy(dir);
    auto scan = inductor::scan_cache(root);
    ASSERT_TRUE(scan.ok()) << scan.error().str();
    auto streamed = check_cache(kiln::test::open_dir(root));
    auto kept = check_scan(*scan);
    ASSERT_TRUE(streamed.ok() && kept.ok());
    EXPECT_GT(streamed->problems.size(), 5u);
    EXPECT_EQ(dump_json(to_json(*streamed)), dump_json(to_json(*kept)));
    auto count = count_problems(*scan);
    ASSERT_TRUE(count.ok());
    EXPECT_EQ(*count, streamed->problems.size());
}

TEST(Check, OnlyFilesAReferenceCanNameAreHashedAsPaths) {
    // References name kernel modules, C++ libraries and lock-guarded files, never a Triton kernel dir's
    // files (known as dirs), graph entries (known by key) or locks: those take no room in `paths`.
    using detail::Known;
    EXPECT_TRUE(Known::may_be_named("ab/cabcdef.py"));
    EXPECT_TRUE(Known::may_be_named("ab/cabcdef.main.so"));
    EXPECT_TRUE(Known::may_be_named("triton/0/x/odd.main.so"));
    EXPECT_TRUE(Known::may_be_named("cache/0123abcd"));
    EXPECT_TRUE(Known::may_be_named("dynamo/code_state_f.pkl"));
    EXPECT_TRUE(Known::may_be_named("tritonish/a.py"));
    EXPECT_FALSE(Known::may_be_named("triton/0/HASH/k.cubin"));
    EXPECT_FALSE(Known::may_be_named("fxgraph/ab/fabc/entry"));
    EXPECT_FALSE(Known::may_be_named("aotautograd/ab/entry"));
    EXPECT_FALSE(Known::may_be_named("locks/fabc.lock"));

    auto scan = inductor::scan_cache(test::h100_root());
    ASSERT_TRUE(scan.ok()) << scan.error().str();
    Known known;
    std::size_t nameable = 0, triton = 0;
    for (const auto& a : scan->artifacts) {
        known.add_file(a);
        nameable += Known::may_be_named(a.rel_path());
        triton += a.rel_path().starts_with("triton/");
    }
    known.seal();
    EXPECT_GT(triton, 0u);
    EXPECT_GT(nameable, 0u);
    EXPECT_LE(known.paths.size(), nameable);
    for (const auto& a : scan->artifacts) {
        if (Known::may_be_named(a.rel_path())) {
            EXPECT_TRUE(known.paths.contains(a.rel_path())) << a.rel_path();
        }
    }
}

TEST(Check, EntriesVersionsAreKeptOnceEach) {
    // Every graph entry carries Triton's system_info[version] (~2 KB): the check keeps one copy.
    detail::StringPool pool;
    std::string big(2000, 'v');
    detail::PooledString a = pool.intern(big), b = pool.intern(big), other = pool.intern("[h] 2.11.0");
    EXPECT_EQ(a.str(), big);
    EXPECT_EQ(&a.str(), &b.str());  // the same bytes
    EXPECT_EQ(a, b);
    EXPECT_NE(a, other);
    EXPECT_EQ(other.str(), "[h] 2.11.0");
    detail::PooledString none = pool.intern("");
    EXPECT_TRUE(none.empty());
    EXPECT_EQ(none, detail::PooledString());
    EXPECT_NE(none, other);
}

TEST(Check, WriteJsonIsDumpJsonOfTheReport) {
    test::ScratchDir dir{"health-check-json"};
    fs::path root = broken_copy(dir);
    auto r = check_cache(kiln::test::open_dir(root));
    ASSERT_TRUE(r.ok());
    ASSERT_FALSE(r->problems.empty());
    r->problems.front().detail = std::string("bytes \xff\xfe and \"quotes\"\n");  // not UTF-8: escaped alike
    nlohmann::ordered_json extra = {{"quarantine_moved", {{"manifest", nullptr}, {"skipped", {"a"}}}}};
    for (bool with_problems : {true, false}) {
        HealthReport report = *r;
        if (!with_problems) report.problems.clear();
        nlohmann::ordered_json whole = to_json(report);
        whole["quarantine_moved"] = extra["quarantine_moved"];
        std::ostringstream streamed;
        write_json(streamed, report, extra);
        EXPECT_EQ(streamed.str(), dump_json(whole));
    }
}

TEST(Check, AProblemsGroupIsItsPathsDirItselfOrItsOwn) {
    // Kept as a length into the path where it is the file's dir or the file (the usual case), else apart.
    Problem dir{ProblemKind::truncated_binary, "triton/0/ABC/k.cubin", "not an ELF file", "triton/0/ABC"};
    Problem self{ProblemKind::stale_temp, "xy/.1.2.tmp", "written 2 h ago", "xy/.1.2.tmp"};
    Problem other{ProblemKind::kernel_module_missing, "ab/cmod.best_config", "d", "ab/cmod.py"};
    Problem not_at_slash{ProblemKind::orphan_lock, "ab/cdef.lock", "d", "ab/cd"};
    Problem none{ProblemKind::orphan_lock, "locks/k.lock", "d", ""};
    EXPECT_EQ(dir.group(), "triton/0/ABC");
    EXPECT_EQ(self.group(), "xy/.1.2.tmp");
    EXPECT_EQ(other.group(), "ab/cmod.py");
    EXPECT_EQ(not_at_slash.group(), "ab/cd");
    EXPECT_EQ(none.group(), "");
    Problem copy = dir;  // a copy reads its own path
    dir.path = "elsewhere";
    EXPECT_EQ(copy.group(), "triton/0/ABC");
    copy.set_group("ab/cmod.py");
    EXPECT_EQ(copy.group(), "ab/cmod.py");
}

// Enough problems for several chunks and rounds of the parallel writer.
TEST(Check, WriteJsonOfManyProblemsIsDumpJsonOfTheReport) {
    HealthReport r;
    r.root = "/cache";
    for (int i = 0; i < 100000; ++i)
        r.problems.push_back({static_cast<ProblemKind>(i % kProblemKinds), "p/" + std::to_string(i),
                              i % 7 ? "d" : "\x80", "g/" + std::to_string(i % 13)});
    std::ostringstream streamed;
    write_json(streamed, r);
    EXPECT_EQ(streamed.str(), dump_json(to_json(r)));
}

}  // namespace
}  // namespace kiln::health

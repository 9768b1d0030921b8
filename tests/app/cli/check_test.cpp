// `kiln-cli check` end to end: every shared fixture is healthy; a copy corrupted once per problem
// kind reports exactly those problems; --quarantine leaves a healthy cache and --restore brings back
// the same bytes.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "hash/sha256.hpp"
#include "health/check.hpp"
#include "inductor/scanner.hpp"
#include "newer_torch_cache.hpp"
#include "test_support.hpp"
#include "util/json_out.hpp"

namespace fs = std::filesystem;

namespace kiln::test {
namespace {

nlohmann::json check_json(const fs::path& root, std::vector<std::string> extra = {}, int expect_rc = -1) {
    std::vector<std::string> argv{cli_path(), "check", root.string(), "--json"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    auto r = run_command(argv);
    if (expect_rc >= 0) {
        EXPECT_EQ(r.exit_code, expect_rc) << r.err;
    }
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.out << r.err;
    return j;
}

// sha256 of every file under root (the quarantine folder left out), by relative path.
std::map<std::string, std::string> digests_outside_quarantine(const fs::path& root) {
    std::map<std::string, std::string> out;
    for (auto& e : fs::recursive_directory_iterator(root)) {
        std::string rel = fs::relative(e.path(), root).string();
        if (rel.rfind(".kiln-quarantine", 0) == 0) continue;
        if (e.is_regular_file()) out[rel] = hash::sha256_hex(read_file(e.path()));
    }
    return out;
}

std::vector<fs::path> sorted_files_under(const fs::path& dir) {
    std::vector<fs::path> out;
    for (auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file()) out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

std::string rel(const fs::path& p, const fs::path& root) { return fs::relative(p, root).string(); }

TEST(CliCheck, EverySharedFixtureIsHealthy) {
    for (const fs::path& fixture : {h100_root(), two_entries_root(), h100_h200_root(), pgo_root()}) {
        ScratchDir dir{"cli-check-ok"};
        fs::path root = dir.path() / "cache";
        fs::copy(fixture, root, fs::copy_options::recursive);
        auto j = check_json(root, {}, 0);
        EXPECT_TRUE(j["problems"].empty()) << fixture << ": " << j["problems"].dump(1);
        EXPECT_EQ(j["healthy"], true);
        EXPECT_GT(j["files"].get<int>(), 0);
    }
}

TEST(CliCheck, TheGuisCheckOfAKeptScanIsTheCliJson) {
    // The GUI checks the window's scan (health::check_scan, problems' groups kept as lengths into their
    // paths); what it holds is what `kiln-cli check --json` prints, byte for byte.
    ScratchDir dir{"cli-check-kept"};
    fs::path root = dir.path() / "cache";
    fs::copy(h100_root(), root, fs::copy_options::recursive);
    int cut = 0;
    for (const auto& f : sorted_files_under(root)) {
        std::string ext = f.extension().string();
        if ((ext == ".cubin" || ext == ".so") && cut++ % 2 == 0) fs::resize_file(f, fs::file_size(f) / 2);
        if (f.filename().string().rfind("__grp__", 0) == 0 && cut % 5 == 0) fs::resize_file(f, 10);
        if (f.string().find("/fxgraph/") != std::string::npos && cut % 7 == 0) fs::resize_file(f, 100);
    }
    std::ofstream(root / "locks" / ("c" + std::string(51, 'z') + ".lock"));
    auto cli = run_command({cli_path(), "check", root.string(), "--json"});
    EXPECT_EQ(cli.exit_code, 1) << cli.err;
    auto scan = inductor::scan_cache(root);
    ASSERT_TRUE(scan.ok()) << scan.error().str();
    health::CheckOptions options;
    options.default_target = true;  // as the CLI and the GUI both judge stale entries
    auto kept = health::check_scan(*scan, options);
    ASSERT_TRUE(kept.ok()) << kept.error().str();
    EXPECT_GT(kept->problems.size(), 10u);
    EXPECT_EQ(dump_json(health::to_json(*kept)) + "\n", cli.out);
}

TEST(CliCheck, StaleEntriesAgainstAnotherGpuAreApartUnlessStrict) {
    fs::path h100_trace = fixture_dir() / "h100h200" / "h100" / "trace" / "warm";
    auto j = check_json(h100_h200_root(), {"--target", h100_trace.string()}, 0);
    EXPECT_TRUE(j["problems"].empty());
    ASSERT_FALSE(j["stale"].empty());  // the H200 entries can never hit on the H100
    for (const auto& s : j["stale"]) {
        bool device = false;
        for (const auto& d : s["differs"]) device |= d["component"] == "system_info[device]";
        EXPECT_TRUE(device) << s.dump();
    }
    check_json(h100_h200_root(), {"--target", h100_trace.string(), "--strict"}, 1);
}

TEST(CliCheck, ReportsExactlyEachCorruptionThenQuarantinesAndRestores) {
    ScratchDir dir{"cli-check-bad"};
    fs::path root = dir.path() / "cache";
    fs::copy(h100_root(), root, fs::copy_options::recursive);
    std::multimap<std::string, std::string> expected;  // kind -> path (empty: any path, see below)

    // An AOT entry whose forward FX graph is gone: the key is written in the entry's pickle.
    fs::path aot = sorted_files_under(root / "aotautograd").front();
    std::string aot_bytes = read_file(aot);
    std::set<std::string> removed_keys;
    for (auto& shard : fs::directory_iterator(root / "fxgraph"))
        for (auto& key : fs::directory_iterator(shard.path()))
            if (removed_keys.empty() && aot_bytes.find(key.path().filename().string()) != std::string::npos) {
                removed_keys.insert(key.path().filename().string());
                fs::remove_all(key.path());
            }
    ASSERT_EQ(removed_keys.size(), 1u);
    // Other AOT entries may share that forward graph: each of them is reported.
    for (const auto& f : sorted_files_under(root / "aotautograd"))
        if (read_file(f).find(*removed_keys.begin()) != std::string::npos)
            expected.emplace("aot_fx_key_missing", rel(f, root));

    // A truncated pickle, and a sound pickle that is no graph entry (the int 1).
    auto fx = sorted_files_under(root / "fxgraph");
    ASSERT_GE(fx.size(), 2u);
    fs::resize_file(fx[0], fs::file_size(fx[0]) / 2);
    expected.emplace("entry_undecodable", rel(fx[0], root));
    std::ofstream(fx[1], std::ios::binary | std::ios::trunc) << std::string("\x80\x02K\x01.", 5);
    expected.emplace("entry_not_graph", rel(fx[1], root));

    // A cubin deleted from one Triton dir, a zero-length cubin in another.
    std::vector<fs::path> kernel_dirs;
    for (auto& e : fs::directory_iterator(root / "triton" / "0")) kernel_dirs.push_back(e.path());
    std::sort(kernel_dirs.begin(), kernel_dirs.end());
    ASSERT_GE(kernel_dirs.size(), 2u);
    for (int i = 0; i < 2; ++i) {
        fs::path cubin, group;
        for (const auto& f : sorted_files_under(kernel_dirs[i])) {
            if (f.extension() == ".cubin") cubin = f;
            if (f.filename().string().rfind("__grp__", 0) == 0) group = f;
        }
        ASSERT_FALSE(cubin.empty() || group.empty()) << kernel_dirs[i];
        if (i == 0) {
            fs::remove(cubin);
            expected.emplace("triton_file_missing", rel(group, root));
        } else {
            fs::resize_file(cubin, 0);
            expected.emplace("empty_binary", rel(cubin, root));
        }
    }

    // A truncated .so (not a .main.so: those are the C++ kernels' libraries, removed below).
    fs::path so, main_so;
    for (const auto& f : sorted_files_under(root))
        if (f.extension() == ".so") {
            bool is_main = f.filename().string().find(".main.so") != std::string::npos;
            (is_main ? main_so : so) = f;
        }
    ASSERT_FALSE(so.empty() || main_so.empty());
    fs::resize_file(so, fs::file_size(so) / 2);
    expected.emplace("truncated_binary", rel(so, root));
    fs::remove(main_so);
    expected.emplace("cpp_library_missing", "");  // the output code that loads it, checked by its detail

    // A temporary of a writer that died two hours ago, and a fresh one (not a problem).
    std::ofstream(root / ".4242.4243.tmp") << "partial";
    std::ofstream(root / "locks" / ".4242.4244.tmp") << "partial";
    auto two_hours_ago = fs::file_time_type::clock::now() - std::chrono::hours(2);
    fs::last_write_time(root / ".4242.4243.tmp", two_hours_ago);
    expected.emplace("stale_temp", ".4242.4243.tmp");

    // A lock of a key with no files left, two hours old, that nobody holds.
    std::string gone_key = "c" + std::string(51, 'q');
    std::ofstream(root / "locks" / (gone_key + ".lock")).flush();
    fs::last_write_time(root / "locks" / (gone_key + ".lock"), two_hours_ago);
    expected.emplace("orphan_lock", "locks/" + gone_key + ".lock");

    // A Triton kernel module that output code imports (its `# kernel path:` comment names it).
    std::string module_rel;
    for (const auto& f : sorted_files_under(root)) {
        if (f.extension() != ".py" || !module_rel.empty()) continue;
        std::string text = read_file(f);
        for (auto pos = text.find("# kernel path: "); pos != std::string::npos && module_rel.empty();
             pos = text.find("# kernel path: ", pos + 1)) {
            std::string path = text.substr(pos + 15, text.find('\n', pos) - pos - 15);
            std::string candidate =
                fs::path(path).parent_path().filename().string() + "/" + fs::path(path).filename().string();
            if (fs::exists(root / candidate)) module_rel = candidate;
        }
    }
    ASSERT_FALSE(module_rel.empty());
    fs::remove(root / module_rel);
    for (const auto& f : sorted_files_under(root))
        if (f.extension() == ".py" && read_file(f).find("/" + module_rel) != std::string::npos)
            expected.emplace("kernel_module_missing", rel(f, root));

    auto before = digests_outside_quarantine(root);
    auto j = check_json(root, {}, 1);
    std::multimap<std::string, std::string> found;
    for (const auto& p : j["problems"]) {
        std::string kind = p["kind"], path = p["path"];
        EXPECT_FALSE(p["why"].get<std::string>().empty());
        if (kind == "cpp_library_missing") {
            EXPECT_NE(p["detail"].get<std::string>().find(main_so.filename().string()), std::string::npos) << p.dump();
            path = "";
        }
        found.emplace(kind, path);
    }
    EXPECT_EQ(found, expected) << j["problems"].dump(1);

    // The GUI's check of a kept scan settles each reference as its worker finds it (the scan already
    // holds every path and key) instead of keeping them all for the end: the same files are missing.
    auto scan = inductor::scan_cache(root);
    ASSERT_TRUE(scan.ok()) << scan.error().str();
    auto kept = health::check_scan(*scan);
    ASSERT_TRUE(kept.ok()) << kept.error().str();
    EXPECT_EQ(nlohmann::json::parse(dump_json(health::to_json(*kept)))["problems"], j["problems"]);

    // Quarantine: healthy afterwards, the manifest says what moved; restore: the same bytes.
    auto q = check_json(root, {"--quarantine"}, 1);
    ASSERT_TRUE(q.contains("quarantine_moved")) << q.dump(1);
    std::string id = q["quarantine_moved"]["manifest"]["id"];
    EXPECT_TRUE(fs::exists(root / ".kiln-quarantine" / id / "manifest.json"));
    auto after = check_json(root, {}, 0);
    EXPECT_TRUE(after["problems"].empty()) << after["problems"].dump(1);
    EXPECT_GT(after["quarantine"]["files"].get<int>(), 0);
    auto stats = run_command({cli_path(), "stats", root.string(), "--json"});
    EXPECT_GT(nlohmann::json::parse(stats.out)["quarantine"]["bytes"].get<long>(), 0);

    auto restore = run_command({cli_path(), "check", root.string(), "--restore", id});
    EXPECT_EQ(restore.exit_code, 0) << restore.out << restore.err;
    EXPECT_EQ(digests_outside_quarantine(root), before);
    EXPECT_FALSE(fs::exists(root / ".kiln-quarantine" / id));
    auto again = run_command({cli_path(), "check", root.string(), "--restore", id});
    EXPECT_EQ(again.exit_code, 2) << again.err;  // that quarantine is gone: bad input
}

// Issue 21's "output code referring to Triton kernels that are missing": a CompiledFxGraph names the
// Triton kernel dirs of the kernels it compiled in its `_triton_bundle` (kernel_hash, device).
TEST(CliCheck, ATritonKernelDirAnEntryBundlesIsReportedWhenGone) {
    ScratchDir dir{"cli-check-triton"};
    fs::path root = dir.path() / "cache";
    fs::copy(h100_root(), root, fs::copy_options::recursive);
    auto entries = sorted_files_under(root / "fxgraph");
    std::vector<fs::path> kernel_dirs;
    for (auto& e : fs::directory_iterator(root / "triton" / "0")) kernel_dirs.push_back(e.path());
    std::sort(kernel_dirs.begin(), kernel_dirs.end());
    // The first kernel dir some entry's pickle names: its hash is written there as a string.
    std::string hash;
    for (const auto& d : kernel_dirs)
        for (const auto& f : entries)
            if (hash.empty() && read_file(f).find(d.filename().string()) != std::string::npos)
                hash = d.filename().string();
    ASSERT_FALSE(hash.empty());
    fs::remove_all(root / "triton" / "0" / hash);
    std::multimap<std::string, std::string> expected;
    for (const auto& f : entries)
        if (read_file(f).find(hash) != std::string::npos) expected.emplace("triton_kernel_missing", rel(f, root));

    auto j = check_json(root, {}, 1);
    std::multimap<std::string, std::string> found;
    for (const auto& p : j["problems"]) {
        found.emplace(p["kind"], p["path"]);
        EXPECT_NE(p["detail"].get<std::string>().find("triton/0/" + hash + "/"), std::string::npos) << p.dump();
        EXPECT_FALSE(p["why"].get<std::string>().empty());
    }
    EXPECT_EQ(found, expected) << j["problems"].dump(1);

    // Quarantined (the entry, then what needed it): healthy; restored: the same bytes.
    auto before = digests_outside_quarantine(root);
    auto q = check_json(root, {"--quarantine"}, 1);
    std::string id = q["quarantine_moved"]["manifest"]["id"];
    EXPECT_TRUE(check_json(root, {}, 0)["problems"].empty());
    EXPECT_EQ(run_command({cli_path(), "check", root.string(), "--restore", id}).exit_code, 0);
    EXPECT_EQ(digests_outside_quarantine(root), before);
}

// A root without triton/<device>/ keeps its Triton cache elsewhere (TRITON_CACHE_DIR, a Mega-Cache
// blob's root): the bundled kernels are not missing from it.
TEST(CliCheck, NoTritonDirAtAllIsNoMissingKernel) {
    ScratchDir dir{"cli-check-no-triton"};
    fs::path root = dir.path() / "cache";
    fs::copy(h100_root(), root, fs::copy_options::recursive);
    fs::remove_all(root / "triton");
    auto j = check_json(root, {}, 0);
    EXPECT_TRUE(j["problems"].empty()) << j["problems"].dump(1);
}

TEST(CliCheck, QuarantineNeverFollowsASymlinkOutOfTheRoot) {
    ScratchDir dir{"cli-check-link"};
    fs::path root = dir.path() / "cache", outside = dir.path() / "outside";
    fs::copy(two_entries_root(), root, fs::copy_options::recursive);
    fs::create_directories(outside);
    std::ofstream(outside / "keep.so") << "not an ELF";
    fs::create_symlink(outside, root / "zz");
    std::ofstream(root / ".1.2.tmp") << "x";
    fs::last_write_time(root / ".1.2.tmp", fs::file_time_type::clock::now() - std::chrono::hours(3));
    auto j = check_json(root, {"--quarantine"}, 1);
    ASSERT_EQ(j["problems"].size(), 1u) << j.dump(1);  // the link is not entered: only the temp file
    EXPECT_TRUE(fs::exists(outside / "keep.so"));
    EXPECT_TRUE(fs::is_symlink(root / "zz"));
    EXPECT_FALSE(fs::exists(root / ".1.2.tmp"));
}

TEST(CliCheck, AMegaCacheBlobIsCheckedAsTheRootItWouldMakeButNeverQuarantined) {
    fs::path blob = fixture_dir() / "h100h200" / "h200" / "megacache.bin";
    auto j = check_json(blob, {}, 0);
    EXPECT_GT(j["graph_entries"].get<int>(), 0);
    EXPECT_NE(j["root"].get<std::string>().find("Mega-Cache blob"), std::string::npos);
    auto q = run_command({cli_path(), "check", blob.string(), "--quarantine"});
    EXPECT_EQ(q.exit_code, 2) << q.err;
}

TEST(CliCheck, BadRestoreIdIsBadInput) {
    ScratchDir dir{"cli-check-id"};
    auto r = run_command({cli_path(), "check", two_entries_root().string(), "--restore", "../../etc"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
}

// A cache of a torch newer than 2.11 is healthy: what Kiln does not know is named, never a problem.
TEST(CliCheck, ACacheOfANewerTorchIsHealthyAndSaysWhatKilnDoesNotKnow) {
    ScratchDir dir("cli-check-newer-torch");
    const auto cache = make_newer_torch_cache(dir.path());
    auto r = run_command({cli_path(), "check", cache.root.string()});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_EQ(r.out.rfind("Healthy: ", 0), 0u) << r.out;
    EXPECT_NE(r.out.find("unknown to Kiln: aot_compile/ (1 file, 2 B), cutedsl_compile_cache/ (2 files, "),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("; key components torch 2.11 does not write: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("(not a problem)"), std::string::npos) << r.out;
    auto j = nlohmann::json::parse(run_command({cli_path(), "check", cache.root.string(), "--json"}).out);
    EXPECT_EQ(j["unknown_to_kiln"]["places"].size(), 2u);
    EXPECT_TRUE(j["problems"].empty());
}

}  // namespace
}  // namespace kiln::test

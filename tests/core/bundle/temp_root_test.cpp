// A blob opened for reading (stats BLOB, check BLOB, the GUI) is unpacked into a private temporary root
// that is removed afterwards: the same files as `bundle unpack` writes, without an fsync per file
// (issue 42 #16: 200,000 small artifacts took over two minutes, nearly all of it in fsync).
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <map>

#include "blob_craft.hpp"
#include "bundle/blob.hpp"
#include "bundle/temp_root.hpp"
#include "bundle/unpack.hpp"
#include "bundle_fixtures.hpp"

namespace {
std::atomic<long> fsyncs_seen{0};
}  // namespace

// Every fsync of this test program, counted, then made: the unpack's writers call it through libc, and
// a definition in the program comes before libc's.
extern "C" int fsync(int fd) {
    fsyncs_seen.fetch_add(1);
    return static_cast<int>(::syscall(SYS_fsync, fd));
}

namespace kiln::bundle {
namespace {

namespace fs = std::filesystem;
namespace craft = test::craft;

std::map<std::string, std::string> tree_bytes(const fs::path& root) {
    std::map<std::string, std::string> out;
    for (auto& e : fs::recursive_directory_iterator(root))
        if (e.is_regular_file()) out[fs::relative(e.path(), root).string()] = test::read_file(e.path());
    return out;
}

// Many small artifacts, as a blob of 200,000 PGO profiles and tuned configs has (scaled down), and the
// H200 fixture's real graph entries.
std::vector<fs::path> small_blobs(const test::ScratchDir& dir) {
    craft::Artifacts pgo, tune;
    for (int i = 0; i < 200; ++i) pgo.emplace_back("p" + std::to_string(i), "profile " + std::to_string(i));
    for (int i = 0; i < 50; ++i) {
        std::string hex = std::to_string(1000000 + i);
        hex = std::string(64 - hex.size(), 'a') + hex;
        tune.emplace_back("t" + std::to_string(i % 10) + "/" + hex + ".best_config",
                          "{\"XBLOCK\": " + std::to_string(i) + "}");
    }
    fs::path many = dir.path() / "many.bin";
    craft::write(many, craft::blob(craft::group("pgo", pgo) + craft::group("autotune", tune)));
    return {many, test::h200_blob(), test::pgo_blob()};
}

TEST(TempRoot, APrivateUnpackWritesTheFilesOfBundleUnpackWithoutAnFsyncEach) {
    test::ScratchDir dir("temp-root-unpack");
    for (const fs::path& path : small_blobs(dir)) {
        SCOPED_TRACE(path.string());
        auto blob = open_blob(path);
        ASSERT_TRUE(blob.ok()) << blob.error().str();

        fsyncs_seen = 0;
        auto tmp = materialize_blob(*blob);
        ASSERT_TRUE(tmp.ok()) << tmp.error().str();
        EXPECT_EQ(fsyncs_seen.load(), 0);

        // Into a user's cache: durable, one fsync per file before its rename.
        fs::path user = dir.path() / ("user-" + path.stem().string());
        UnpackOptions options;
        options.ignore_unknown = true;
        fsyncs_seen = 0;
        auto report = unpack_blob(*blob, user.string(), options);
        ASSERT_TRUE(report.ok()) << report.error().str();
        std::uint64_t lock_files = 0;
        for (const auto& s : report->steps) lock_files += s.lock_file;
        EXPECT_GT(report->files_written, 0u);
        EXPECT_EQ(static_cast<std::uint64_t>(fsyncs_seen.load()), report->files_written - lock_files);

        auto written = tree_bytes(user);
        EXPECT_EQ(written.size(), report->files_written);
        EXPECT_TRUE(written == tree_bytes(tmp->root()));
    }
}

}  // namespace
}  // namespace kiln::bundle

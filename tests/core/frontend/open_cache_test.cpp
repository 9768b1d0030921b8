// frontend::open_cache: the one route from what the user names to an opened cache (a root directory
// or a Mega-Cache blob unpacked), and its one error text per failure.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <optional>

#include <gtest/gtest.h>

#include "bundle_fixtures.hpp"
#include "frontend/exit_code.hpp"
#include "frontend/open_cache.hpp"
#include "inductor/evict.hpp"
#include "inductor/newer_torch.hpp"
#include "inductor/scanner.hpp"
#include "test_support.hpp"
#include "trace/graph_names.hpp"
#include "trace/misses.hpp"

namespace {

namespace fs = std::filesystem;
using kiln::Errc;
using kiln::frontend::adopt_opened_root;
using kiln::frontend::CacheAccess;
using kiln::frontend::open_cache;

// Sets an environment variable for one test, restoring the old value after.
class EnvVar {
public:
    EnvVar(const char* name, const std::optional<std::string>& value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        if (value) ::setenv(name, value->c_str(), 1);
        else ::unsetenv(name);
    }
    ~EnvVar() {
        if (old_) ::setenv(name_, old_->c_str(), 1);
        else ::unsetenv(name_);
    }

private:
    const char* name_;
    std::optional<std::string> old_;
};

void write(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

TEST(OpenCache, OpensADirectoryAsItIsWithItsDescriptorHeld) {
    const fs::path root = kiln::test::h100_root();
    auto cache = open_cache(root);
    ASSERT_TRUE(cache) << cache.error().str();
    EXPECT_FALSE(cache->is_blob());
    EXPECT_EQ(cache->root, root);
    EXPECT_EQ(cache->named, root);
    EXPECT_EQ(cache->label, root.string());
    ASSERT_TRUE(cache->root_fd.valid());
    struct stat by_fd {
    }, by_path{};
    ASSERT_EQ(::fstat(cache->root_fd.get(), &by_fd), 0);
    ASSERT_EQ(::stat(root.c_str(), &by_path), 0);
    EXPECT_EQ(by_fd.st_ino, by_path.st_ino);
    EXPECT_TRUE(open_cache(root, CacheAccess::write)) << "a directory may be written";
}

// A root a parent opened and handed down (`kiln-cli retune ROOT --root-fd N`): the descriptor taken
// as it is (closed on exec from then on), ROOT naming it; a descriptor that is no directory refused.
TEST(OpenCache, AdoptsARootAParentOpenedAndHandedDown) {
    const fs::path root = kiln::test::h100_root();
    const int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY);  // inherited: no O_CLOEXEC
    ASSERT_GE(fd, 0);
    auto cache = adopt_opened_root("/named/only", fd);
    ASSERT_TRUE(cache) << cache.error().str();
    EXPECT_EQ(cache->root_fd.get(), fd);
    EXPECT_EQ(cache->root, fs::path("/named/only"));
    EXPECT_EQ(cache->label, "/named/only");
    EXPECT_FALSE(cache->is_blob());
    EXPECT_EQ(::fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
    for (int bad : {-1, 999}) {
        auto refused = adopt_opened_root(root, bad);
        ASSERT_FALSE(refused);
        EXPECT_EQ(refused.error().code, kiln::Errc::invalid_argument);
    }
    fs::path some_file;
    for (const auto& e : fs::recursive_directory_iterator(root))
        if (e.is_regular_file()) {
            some_file = e.path();
            break;
        }
    const int regular = ::open(some_file.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(regular, 0);
    auto not_dir = adopt_opened_root(root, regular);
    ::close(regular);
    ASSERT_FALSE(not_dir);
    EXPECT_NE(not_dir.error().message.find("no open directory"), std::string::npos) << not_dir.error().str();
}

std::uint64_t regular_files(const fs::path& dir) {
    std::uint64_t n = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir)) n += e.is_regular_file();
    return n;
}

// What a command works on is the directory open_cache opened, through its descriptor, never the path
// resolved or opened again (issue 44): the root renamed away after the open and another directory put
// at its path, the scan still walks the opened one and eviction removes from it, never from the other.
TEST(OpenCache, CommandsWorkOnTheOpenedDirectoryNotOnItsPathAgain) {
    kiln::test::ScratchDir dir{"open-cache-moved"};
    const fs::path root = dir.path() / "root", moved = dir.path() / "moved";
    fs::copy(kiln::test::two_entries_root(), root, fs::copy_options::recursive);
    auto cache = open_cache(root, CacheAccess::write);
    ASSERT_TRUE(cache) << cache.error().str();
    fs::rename(root, moved);
    fs::create_directories(root / "fxgraph" / "decoy");
    write(root / "fxgraph" / "decoy" / "entry", "not the cache that was opened");
    const std::uint64_t files = regular_files(moved);
    ASSERT_GT(files, 10u);

    auto scan = kiln::inductor::scan_cache(cache->opened());
    ASSERT_TRUE(scan) << scan.error().str();
    EXPECT_EQ(scan->files, files);

    // `ls`: the entries of the opened directory, none of the decoy's (which has only its one "entry").
    auto listed = kiln::trace::list_named_graphs(cache->opened(), std::nullopt);
    ASSERT_TRUE(listed) << listed.error().str();
    ASSERT_GE(listed->rows.size(), 2u);
    for (const auto& r : listed->rows) {
        EXPECT_NE(r.key, "decoy") << "ls read the path again";
        EXPECT_TRUE(r.error.empty()) << r.path << ": " << r.error;
    }
    kiln::inductor::UnknownToKiln unknown;
    kiln::inductor::read_key_components(unknown, cache->opened());
    EXPECT_GT(unknown.entries_read, 0u) << "the key components were read from the decoy";
    // `misses`: the entries it compares a miss with.
    auto keyed = kiln::trace::load_keyed_entries(cache->opened());
    ASSERT_TRUE(keyed) << keyed.error().str();
    EXPECT_GE(keyed->entries.size(), 2u) << "misses read the path again";
    for (const auto& e : keyed->entries) EXPECT_TRUE(fs::exists(moved / e.path)) << e.path;

    kiln::inductor::EvictPolicy policy;
    policy.max_bytes = 0;  // everything
    policy.dry_run = false;
    auto evicted = kiln::inductor::evict_cache(cache->opened(), policy);
    ASSERT_TRUE(evicted) << evicted.error().str();
    EXPECT_FALSE(evicted->removed.empty());
    EXPECT_LT(regular_files(moved), files) << "the opened directory was not the one evicted";
    EXPECT_TRUE(fs::exists(root / "fxgraph" / "decoy" / "entry")) << "eviction followed the path to another cache";
}

TEST(OpenCache, UnpacksABlobIntoATemporaryRootThatGoesWithIt) {
    const fs::path blob = kiln::test::h200_blob();
    fs::path temp;
    {
        auto cache = open_cache(blob);
        ASSERT_TRUE(cache) << cache.error().str();
        EXPECT_TRUE(cache->is_blob());
        EXPECT_EQ(cache->named, blob);
        EXPECT_NE(cache->label.find(blob.string()), std::string::npos);
        EXPECT_NE(cache->label.find("Mega-Cache blob"), std::string::npos);
        temp = cache->root;
        EXPECT_TRUE(fs::is_directory(temp / "fxgraph")) << temp;
        EXPECT_TRUE(cache->root_fd.valid());
    }
    EXPECT_FALSE(fs::exists(temp)) << "the temporary root outlived the opened cache";
}

TEST(OpenCache, RefusesABlobForWriting) {
    auto cache = open_cache(kiln::test::h200_blob(), CacheAccess::write);
    ASSERT_FALSE(cache);
    EXPECT_EQ(cache.error().code, Errc::unsupported);
    EXPECT_EQ(kiln::frontend::exit_code(cache.error()), 2);
    EXPECT_NE(cache.error().message.find("can only be read"), std::string::npos);
    EXPECT_NE(cache.error().hint.find("kiln-cli bundle unpack"), std::string::npos);
}

TEST(OpenCache, NoPathMeansTheDefaultRootOfTorchinductorCacheDir) {
    EnvVar dir("TORCHINDUCTOR_CACHE_DIR", kiln::test::two_entries_root().string());
    auto cache = open_cache(std::nullopt);
    ASSERT_TRUE(cache) << cache.error().str();
    EXPECT_EQ(cache->root, kiln::test::two_entries_root());
    auto empty = open_cache(fs::path());  // an empty ROOT argument is no argument
    ASSERT_TRUE(empty) << empty.error().str();
    EXPECT_EQ(empty->root, kiln::test::two_entries_root());
}

TEST(OpenCache, TheDefaultRootIsTmpTorchinductorUserWithoutTheVariable) {
    kiln::test::ScratchDir tmp("open_cache_default");
    EnvVar dir("TORCHINDUCTOR_CACHE_DIR", std::nullopt);
    EnvVar tmpdir("TMPDIR", tmp.path().string());
    EnvVar logname("LOGNAME", std::string("kiln-user"));
    EXPECT_EQ(kiln::frontend::default_cache_root(), tmp.path() / "torchinductor_kiln-user");
    auto missing = open_cache(std::nullopt);
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code, Errc::not_found);
    EXPECT_EQ(missing.error().context, (tmp.path() / "torchinductor_kiln-user").string());
    EXPECT_NE(missing.error().message.find("default root"), std::string::npos);
    EXPECT_NE(missing.error().hint.find("TORCHINDUCTOR_CACHE_DIR"), std::string::npos);
    fs::create_directory(tmp.path() / "torchinductor_kiln-user");
    EXPECT_TRUE(open_cache(std::nullopt));
}

TEST(OpenCache, AMissingPathIsNotFound) {
    kiln::test::ScratchDir tmp("open_cache_missing");
    for (const fs::path& p : {tmp.path() / "nothing", tmp.path() / "nothing" / "deeper"}) {
        auto cache = open_cache(p);
        ASSERT_FALSE(cache);
        EXPECT_EQ(cache.error().code, Errc::not_found);
        EXPECT_EQ(cache.error().context, p.string());
        EXPECT_EQ(cache.error().message, "no cache here (no such file or directory)");
        EXPECT_NE(cache.error().hint.find("Mega-Cache blob"), std::string::npos);
    }
}

TEST(OpenCache, AFileThatIsNoBlobIsNotACache) {
    kiln::test::ScratchDir tmp("open_cache_file");
    write(tmp.path() / "notes.txt", "hello, not a cache\n");
    auto cache = open_cache(tmp.path() / "notes.txt");
    ASSERT_FALSE(cache);
    EXPECT_EQ(cache.error().code, Errc::invalid_argument);
    EXPECT_EQ(cache.error().message,
              "not a cache: a regular file, neither a cache root (a directory) nor a Mega-Cache blob");
    ASSERT_EQ(::mkfifo((tmp.path() / "fifo").c_str(), 0600), 0);
    auto fifo = open_cache(tmp.path() / "fifo");  // never opened for reading: no hang
    ASSERT_FALSE(fifo);
    EXPECT_EQ(fifo.error().code, Errc::invalid_argument);
    EXPECT_NE(fifo.error().message.find("FIFO"), std::string::npos);
}

TEST(OpenCache, APathThatCannotBeReadSaysSo) {
    kiln::test::ScratchDir tmp("open_cache_loop");
    fs::create_symlink("loop", tmp.path() / "loop");  // ELOOP, even for root
    auto cache = open_cache(tmp.path() / "loop");
    ASSERT_FALSE(cache);
    EXPECT_EQ(cache.error().code, Errc::io);
    EXPECT_EQ(cache.error().message.rfind("cannot read the cache: ", 0), 0u) << cache.error().message;
    EXPECT_NE(cache.error().hint.find("permissions"), std::string::npos);
}

TEST(OpenCache, ABrokenBlobNamesWhereItBreaks) {
    kiln::test::ScratchDir tmp("open_cache_broken");
    const std::string bytes = kiln::test::read_file(kiln::test::h200_blob());
    write(tmp.path() / "cut.bin", bytes.substr(0, 100));
    auto cache = open_cache(tmp.path() / "cut.bin");
    ASSERT_FALSE(cache);
    EXPECT_EQ(cache.error().code, Errc::parse);
    EXPECT_EQ(cache.error().context, (tmp.path() / "cut.bin").string());
    EXPECT_EQ(cache.error().message.rfind("a broken Mega-Cache blob: ", 0), 0u) << cache.error().message;
    EXPECT_NE(cache.error().message.find("byte "), std::string::npos) << cache.error().message;
    EXPECT_NE(cache.error().hint.find("save_cache_artifacts"), std::string::npos);
    EXPECT_FALSE(fs::exists(tmp.path() / "cut.bin" / "inductor"));
}

}  // namespace

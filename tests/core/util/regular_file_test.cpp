// The one way Kiln opens cache files: FIFOs and other special files are refused at once (an open
// of a FIFO would wait for a writer forever), reads keep the atime, a shrinking file is an error.
#include "util/regular_file.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>

#include "test_support.hpp"

namespace kiln {
namespace {

TEST(RegularFile, FifoAndDirectoryAreRefusedWithoutBlocking) {
    test::ScratchDir dir("regular-file");
    auto fifo = dir.path() / "pipe";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    auto t0 = std::chrono::steady_clock::now();
    auto r = open_regular_file(fifo);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, Errc::invalid_argument);
    EXPECT_NE(r.error().message.find("FIFO"), std::string::npos) << r.error().str();
    auto d = read_regular_file(dir.path());
    ASSERT_FALSE(d.ok());
    EXPECT_NE(d.error().message.find("directory"), std::string::npos);
    auto missing = open_regular_file(dir.path() / "nope");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, Errc::not_found);
}

TEST(RegularFile, ReadsKeepTheAtime) {
    test::ScratchDir dir("regular-file-atime");
    auto p = dir.path() / "entry";
    std::ofstream(p) << "some bytes";
    struct timespec old[2] = {{1000000000, 0}, {1000000000, 0}};  // 2001
    ASSERT_EQ(::utimensat(AT_FDCWD, p.c_str(), old, 0), 0);
    auto r = read_regular_file(p);
    ASSERT_TRUE(r.ok()) << r.error().str();
    EXPECT_EQ(*r, "some bytes");
    auto f = open_regular_file(p);
    ASSERT_TRUE(f.ok());
    EXPECT_TRUE(f->atime_kept);  // the test owns the file
    struct stat st {};
    ASSERT_EQ(::stat(p.c_str(), &st), 0);
    EXPECT_EQ(st.st_atim.tv_sec, 1000000000);
    EXPECT_FALSE(read_regular_file(p, 3).ok());  // over the limit
}

// Beneath a root descriptor: one openat2 where the kernel has it, the component walk otherwise and for
// every failure, so both must open the same files and refuse the same ones with the walk's words.
TEST(RegularFile, BeneathOpensWhatTheWalkOpensAndRefusesWhatItRefuses) {
    test::ScratchDir dir("regular-file-beneath");
    const auto root = dir.path() / "root";
    std::filesystem::create_directories(root / "a" / "b");
    std::ofstream(root / "a" / "b" / "f") << "entry bytes";
    std::ofstream(dir.path() / "outside") << "not the cache's";
    std::filesystem::create_directory_symlink("b", root / "a" / "link");
    std::filesystem::create_symlink("f", root / "a" / "b" / "lf");
    std::filesystem::create_symlink(dir.path() / "outside", root / "a" / "out");
    ASSERT_EQ(::mkfifo((root / "a" / "pipe").c_str(), 0600), 0);
    struct timespec old[2] = {{1000000000, 0}, {1000000000, 0}};
    ASSERT_EQ(::utimensat(AT_FDCWD, (root / "a" / "b" / "f").c_str(), old, 0), 0);
    const int root_fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ASSERT_GE(root_fd, 0);

    int err = -1;
    auto f = open_regular_file_beneath(root_fd, "a/b/f", "a/b/f", &err);
    ASSERT_TRUE(f.ok()) << f.error().str();
    EXPECT_EQ(err, 0);
    EXPECT_EQ(f->size, 11u);
    EXPECT_TRUE(f->atime_kept);
    EXPECT_EQ(read_opened_file(*f, "a/b/f", 1 << 20).value(), "entry bytes");
    EXPECT_EQ(::fcntl(f->fd.get(), F_GETFL) & O_NONBLOCK, 0);  // blocking reads again
    EXPECT_NE(::fcntl(f->fd.get(), F_GETFL) & O_NOATIME, 0);
    struct stat st {};
    ASSERT_EQ(::stat((root / "a" / "b" / "f").c_str(), &st), 0);
    EXPECT_EQ(st.st_atim.tv_sec, 1000000000);

    struct Refused {
        const char* rel;
        Errc code;
        const char* words;
    };
    for (const Refused& r : {
             Refused{"a/link/f", Errc::invalid_argument, "a path component is a symlink or no directory"},
             Refused{"a/b/lf", Errc::invalid_argument, "a symlink; not followed"},
             Refused{"a/out", Errc::invalid_argument, "a symlink; not followed"},
             Refused{"a/pipe", Errc::invalid_argument, "FIFO"},
             Refused{"a/b", Errc::invalid_argument, "directory"},
             Refused{"a/b/f/x", Errc::invalid_argument, "no directory"},
             Refused{"a/b/nope", Errc::not_found, "no such file"},
             Refused{"a/../a/b/f", Errc::invalid_argument, "not a path beneath"},
             Refused{"a/./b/f", Errc::invalid_argument, "not a path beneath"},
             Refused{"a//b/f", Errc::invalid_argument, "not a path beneath"},
             Refused{"/etc/passwd", Errc::invalid_argument, "not a path beneath"},
             Refused{"", Errc::invalid_argument, "not a path beneath"},
         }) {
        auto o = open_regular_file_beneath(root_fd, r.rel, r.rel);
        ASSERT_FALSE(o.ok()) << r.rel;
        EXPECT_EQ(o.error().code, r.code) << r.rel << ": " << o.error().str();
        EXPECT_NE(o.error().message.find(r.words), std::string::npos) << r.rel << ": " << o.error().str();
    }
    ::close(root_fd);
}

}  // namespace
}  // namespace kiln

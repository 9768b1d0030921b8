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

}  // namespace
}  // namespace kiln

// Finding kiln-worker relative to the running program (build tree, /usr, unpacked .tar.gz).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>

#include "test_support.hpp"
#include "util/install_paths.hpp"

namespace fs = std::filesystem;

namespace kiln {
namespace {

class WorkerEnv : public ::testing::Test {
protected:
    void SetUp() override {
        if (const char* v = std::getenv("KILN_WORKER")) saved_ = v, had_ = true;
    }
    void TearDown() override {
        if (had_) ::setenv("KILN_WORKER", saved_.c_str(), 1);
        else ::unsetenv("KILN_WORKER");
    }
    std::string saved_;
    bool had_ = false;
};

TEST_F(WorkerEnv, CandidatesAreEnvThenBesideThenLibexec) {
    ::setenv("KILN_WORKER", "/opt/w/kiln-worker", 1);
    auto c = worker_candidates();
    ASSERT_EQ(c.size(), 3u);
    fs::path dir = executable_dir();
    EXPECT_EQ(c[0], "/opt/w/kiln-worker");
    EXPECT_EQ(c[1], dir / "kiln-worker");
    EXPECT_EQ(c[2], (dir.parent_path() / "libexec" / "kiln" / "kiln-worker"));
}

TEST_F(WorkerEnv, ExplicitExecutableIsFound) {
    test::ScratchDir scratch("install-paths");
    fs::path w = scratch.path() / "kiln-worker";
    std::ofstream(w) << "#!/bin/sh\n";
    ::chmod(w.c_str(), 0755);
    ::setenv("KILN_WORKER", w.c_str(), 1);
    auto r = find_worker_executable();
    ASSERT_TRUE(r.ok()) << r.error().str();
    EXPECT_EQ(*r, w);
}

TEST_F(WorkerEnv, NotExecutableOrMissingIsNotFoundListingThePlaces) {
    test::ScratchDir scratch("install-paths");
    fs::path w = scratch.path() / "kiln-worker";
    std::ofstream(w) << "data";
    ::chmod(w.c_str(), 0644);
    ::setenv("KILN_WORKER", w.c_str(), 1);
    auto r = find_worker_executable();
    // Test executables live in <build>/tests: no worker beside them nor in ../libexec/kiln.
    ASSERT_FALSE(r.ok()) << *r;
    EXPECT_EQ(r.error().code, Errc::not_found);
    EXPECT_NE(r.error().context.find(w.string()), std::string::npos);
    EXPECT_NE(r.error().context.find("libexec/kiln/kiln-worker"), std::string::npos);
    EXPECT_FALSE(r.error().hint.empty());
}

}  // namespace
}  // namespace kiln

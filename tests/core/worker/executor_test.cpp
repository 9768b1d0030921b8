#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <thread>

#include "codecache/code_cache.hpp"
#include "test_support.hpp"
#include "worker/executor.hpp"

namespace fs = std::filesystem;
using namespace kiln::worker;
using namespace std::chrono_literals;

namespace {

// A real library from the real code cache: y = 2x + K.
fs::path compile_scale(const fs::path& root, int k) {
    kiln::codecache::CodeCache cc(root);
    kiln::codecache::CompileRequest cr;
    cr.lang = kiln::codecache::Lang::Cpp;
    cr.source =
        "#include <cstdint>\nextern \"C\" void scale(const float* x, float* y, std::int64_t n) {\n"
        "  for (std::int64_t i = 0; i < n; ++i) y[i] = 2.0f * x[i] + " +
        std::to_string(k) + ".0f;\n}\n";
    auto out = cc.compile(cr);
    EXPECT_TRUE(out.ok()) << (out.ok() ? "" : out.error().str());
    return out->output_path;
}

BenchmarkRequest scale_request(const fs::path& lib) {
    BenchmarkRequest r;
    r.kind = RequestKind::cpp;
    r.library_path = lib.string();
    r.kernel_name = "scale";
    TensorMeta t;
    t.dtype = DType::f32;
    t.sizes = {256};
    r.inputs = {t};
    r.output = t;
    r.extra_args = {256};
    r.timing.warmup_ms = 0.1;
    r.timing.rep_ms = 0.2;
    return r;
}

bool wait_loaded(Executor& ex, const std::string& path) {
    for (int i = 0; i < 500 && !ex.loaded(path); ++i) std::this_thread::sleep_for(10ms);
    return ex.loaded(path);
}

}  // namespace

TEST(Executor, PrefetchedLibrariesAreOpenBeforeTheirRequestArrives) {
    kiln::test::ScratchDir dir("exec-prefetch");
    fs::path a = compile_scale(dir.path(), 1), b = compile_scale(dir.path(), 2);
    Executor ex;
    EXPECT_FALSE(ex.loaded(b.string()));
    // Running `a` with `b` as the next choice loads `b` in the background.
    BenchmarkRequest ra = scale_request(a);
    ra.prefetch_libraries = {b.string()};
    BenchmarkResult r = ex.run(ra);
    ASSERT_TRUE(r.ok()) << r.reason;
    ASSERT_TRUE(wait_loaded(ex, b.string()));
    BenchmarkResult rb = ex.run(scale_request(b));
    EXPECT_TRUE(rb.ok()) << rb.reason;
    EXPECT_GT(rb.stats.count, 0);
}

TEST(Executor, AFailedPrefetchIsReportedByTheRequestThatNeedsIt) {
    kiln::test::ScratchDir dir("exec-prefetch-bad");
    fs::path a = compile_scale(dir.path(), 1);
    fs::path missing = dir.path() / "no-such-library.so";
    Executor ex;
    BenchmarkRequest ra = scale_request(a);
    ra.prefetch_libraries = {missing.string(), missing.string()};
    ASSERT_TRUE(ex.run(ra).ok());
    BenchmarkResult r = ex.run(scale_request(missing));
    EXPECT_EQ(r.status, BenchStatus::error);
    EXPECT_NE(r.reason.find("no-such-library.so"), std::string::npos) << r.reason;
}

TEST(Executor, PrefetchRoundTripsThroughTheProtocol) {
    BenchmarkRequest r = scale_request("/x/a.so");
    r.prefetch_libraries = {"/x/b.so", "/x/c.so"};
    auto back = request_from_json(to_json(r));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->prefetch_libraries, r.prefetch_libraries);
}

TEST(Executor, RandomInputsAreDeterministicNonZeroAndBothSigned) {
    TensorMeta t;
    t.dtype = DType::f32;
    t.sizes = {4096};
    auto a = random_storage(t, 7), b = random_storage(t, 7), c = random_storage(t, 8);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
    const float* f = reinterpret_cast<const float*>(a.data());
    int neg = 0;
    for (int i = 0; i < 4096; ++i) {
        EXPECT_GE(std::abs(f[i]), 0.1f);
        EXPECT_LT(std::abs(f[i]), 1.0f);
        neg += f[i] < 0;
    }
    EXPECT_GT(neg, 1800);
    EXPECT_LT(neg, 2300);
    t.dtype = DType::i32;
    auto ints = random_storage(t, 1);
    const std::int32_t* n = reinterpret_cast<const std::int32_t*>(ints.data());
    for (int i = 0; i < 4096; ++i) {
        EXPECT_GE(n[i], 1);
        EXPECT_LE(n[i], 9);
    }
}

TEST(Executor, AWarmUpPreparesInputsAndTimesNothing) {
    Executor ex;
    BenchmarkRequest w = scale_request("/nonexistent/not-loaded.so");
    w.warmup_only = true;
    BenchmarkResult r = ex.run(w);
    EXPECT_TRUE(r.ok()) << r.reason;  // no library is touched by a warm-up
    EXPECT_EQ(r.stats.count, 0);
    EXPECT_TRUE(r.details.value("warmup", false));
    EXPECT_FALSE(ex.loaded("/nonexistent/not-loaded.so"));
}

// Issue 42: the reference output (a file the reference choice saved) was read with std::ifstream, whose
// open of a FIFO put in its place waits for a writer forever. Run in a child under a 20 s alarm, so a
// hang fails the test; the request fails at once, naming what the path is.
TEST(Executor, AFifoInPlaceOfTheReferenceOutputIsRefusedAtOnce) {
    kiln::test::ScratchDir dir("exec-reference-fifo");
    const fs::path lib = compile_scale(dir.path(), 1);
    const fs::path fifo = dir.path() / "reference.bin";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    BenchmarkRequest req = scale_request(lib);
    req.reference_output_path = fifo.string();
    EXPECT_EXIT(
        {
            ::alarm(20);
            Executor ex;
            auto r = ex.run(req);
            std::_Exit(r.status == BenchStatus::error && r.reason.find("FIFO") != std::string::npos ? 0 : 2);
        },
        ::testing::ExitedWithCode(0), "");
}

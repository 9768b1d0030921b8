#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <cmath>
#include <limits>

#include "worker/channel.hpp"
#include "worker/protocol.hpp"

using namespace kiln::worker;

struct SocketPair {
    int fd[2];
    SocketPair() { EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fd), 0); }
    ~SocketPair() {
        close(fd[0]);
        if (fd[1] >= 0) close(fd[1]);
    }
};

TEST(Channel, FramesRoundTripIncludingInfinity) {
    SocketPair s;
    BenchmarkResult r = BenchmarkResult::failure(BenchStatus::crash, "killed by signal 11 (SIGSEGV)");
    ASSERT_TRUE(write_message(s.fd[0], to_json(r)).ok());
    ASSERT_TRUE(write_message(s.fd[0], {{"kind", "ping"}}).ok());
    auto a = read_message(s.fd[1], std::chrono::seconds(1));
    ASSERT_TRUE(a.ok()) << a.error().str();
    BenchmarkResult back = result_from_json(*a);
    EXPECT_EQ(back.status, BenchStatus::crash);
    EXPECT_TRUE(std::isinf(back.ms));
    auto b = read_message(s.fd[1], std::chrono::seconds(1));
    ASSERT_TRUE(b.ok());
    EXPECT_EQ((*b)["kind"], "ping");
}

TEST(Channel, TimeoutAndEndOfStreamAreDistinct) {
    SocketPair s;
    auto t = read_message(s.fd[1], std::chrono::milliseconds(50));
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.error().code, kiln::Errc::timeout);
    close(s.fd[0]);
    s.fd[0] = dup(s.fd[1]);  // keep the destructor's close valid
    close(s.fd[1]);
    s.fd[1] = -1;
    auto e = read_message(s.fd[0], std::chrono::milliseconds(500));
    ASSERT_FALSE(e.ok());
}

TEST(Channel, WritingToAClosedPeerIsAnErrorNotASignal) {
    SocketPair s;
    close(s.fd[1]);
    s.fd[1] = -1;
    EXPECT_FALSE(write_message(s.fd[0], {{"x", std::string(1 << 20, 'a')}}).ok());
}

TEST(Protocol, RequestsRoundTrip) {
    BenchmarkRequest r;
    r.kind = RequestKind::cuda;
    r.library_path = "/x/y.so";
    r.kernel_name = "k";
    r.inputs.push_back({"A", DType::f16, {2, 3}, {3, 1}, 0});
    r.output = {"C", DType::f32, {2}, {}, 1};
    r.extra_args = {2, 3};
    r.tolerance = {1e-2, 1e-3};
    r.timing.rep_ms = 7;
    auto back = request_from_json(to_json(r));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->kind, RequestKind::cuda);
    EXPECT_EQ(back->inputs[0].dtype, DType::f16);
    EXPECT_EQ(back->output.offset, 1);
    EXPECT_EQ(back->extra_args, (std::vector<std::int64_t>{2, 3}));
    EXPECT_EQ(back->timing.rep_ms, 7);
    EXPECT_FALSE(request_from_json({{"kind", "launch-missiles"}}).ok());
}

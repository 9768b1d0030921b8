#include "worker/channel.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

namespace kiln::worker {
namespace {

using Clock = std::chrono::steady_clock;

Status write_all(int fd, const std::uint8_t* data, size_t size) {
    size_t off = 0;
    while (off < size) {
        ssize_t n = ::send(fd, data + off, size - off, MSG_NOSIGNAL);
        if (n < 0 && errno == ENOTSOCK) n = ::write(fd, data + off, size - off);
        if (n < 0) {
            if (errno == EINTR) continue;
            return io_error("cannot send message", "fd " + std::to_string(fd), errno);
        }
        off += static_cast<size_t>(n);
    }
    return ok_status();
}

// Reads exactly `size` bytes before `deadline` (if any).
Status read_exact(int fd, std::uint8_t* data, size_t size, std::optional<Clock::time_point> deadline, bool at_start) {
    size_t off = 0;
    while (off < size) {
        int wait_ms = -1;
        if (deadline) {
            auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now()).count();
            if (left <= 0) return make_error(Errc::timeout, "no message in time");
            wait_ms = static_cast<int>(std::min<long long>(left, 1 << 30));
        }
        pollfd p{fd, POLLIN, 0};
        int r = ::poll(&p, 1, wait_ms);
        if (r < 0) {
            if (errno == EINTR) continue;
            return io_error("poll failed", "fd " + std::to_string(fd), errno);
        }
        if (r == 0) continue;  // the deadline check above ends the loop
        ssize_t n = ::read(fd, data + off, size - off);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            if (errno == ECONNRESET) return make_error(Errc::cancelled, "EOF");
            return io_error("cannot read message", "fd " + std::to_string(fd), errno);
        }
        if (n == 0) return make_error(Errc::cancelled, at_start && off == 0 ? "EOF" : "EOF inside a message");
        off += static_cast<size_t>(n);
    }
    return ok_status();
}

}  // namespace

Status write_message(int fd, const nlohmann::json& message) {
    std::vector<std::uint8_t> body = nlohmann::json::to_cbor(message);
    if (body.size() > kMaxMessageBytes)
        return make_error(Errc::limit, "message too large: " + std::to_string(body.size()) + " bytes");
    std::uint32_t n = static_cast<std::uint32_t>(body.size());
    std::uint8_t frame_header[4] = {static_cast<std::uint8_t>(n >> 24), static_cast<std::uint8_t>(n >> 16),
                                    static_cast<std::uint8_t>(n >> 8), static_cast<std::uint8_t>(n)};
    body.insert(body.begin(), frame_header, frame_header + 4);  // one write: the peer never sees half a header
    return write_all(fd, body.data(), body.size());
}

Result<nlohmann::json> read_message(int fd, std::optional<std::chrono::milliseconds> timeout) {
    std::optional<Clock::time_point> deadline;
    if (timeout) deadline = Clock::now() + *timeout;
    std::uint8_t h[4];
    KILN_CHECK(read_exact(fd, h, 4, deadline, true));
    std::uint32_t n = (std::uint32_t{h[0]} << 24) | (std::uint32_t{h[1]} << 16) | (std::uint32_t{h[2]} << 8) | h[3];
    if (n > kMaxMessageBytes)
        return make_error(Errc::limit, "incoming message too large: " + std::to_string(n) + " bytes");
    std::vector<std::uint8_t> body(n);
    KILN_CHECK(read_exact(fd, body.data(), n, deadline, false));
    try {
        return nlohmann::json::from_cbor(body);
    } catch (const nlohmann::json::exception& e) {
        return make_error(Errc::parse, std::string("bad message: ") + e.what());
    }
}

}  // namespace kiln::worker

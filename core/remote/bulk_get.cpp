#include "remote/bulk_get.hpp"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>
#include <optional>
#include <string_view>

#include "util/utf8.hpp"

namespace kiln::remote {
namespace {

using Kind = BulkGetFailure::Kind;

BulkGetFailure failure(Kind k, std::string text, std::size_t index = 0) { return {k, std::move(text), index}; }

// Bytes from a server that may be anything (an HTTP banner, binary): shown escaped.
std::string printable(std::string_view s) { return "\"" + printable_name(s) + "\""; }

BulkGetFailure io_failure(int err) {
    if (err == EAGAIN || err == EWOULDBLOCK) return failure(Kind::timeout, "timed out");
    return failure(Kind::io, std::strerror(err));
}

class Reader {
public:
    Reader(int fd, std::chrono::milliseconds per_reply) : fd_(fd), per_reply_(per_reply), buf_(new char[kSize]) {
        next_reply();
    }
    // Each reply gets the whole timeout, from when the previous one was complete.
    void next_reply() { deadline_ = std::chrono::steady_clock::now() + per_reply_; }

    // Reads more into the small buffer (keeping unread bytes). Failure or ok.
    BulkGetFailure fill() {
        if (pos_ > 0) {
            std::memmove(buf_.get(), buf_.get() + pos_, len_ - pos_);
            len_ -= pos_;
            pos_ = 0;
        }
        for (;;) {
            if (auto f = wait_readable(); !f.ok()) return f;
            ssize_t n = ::read(fd_, buf_.get() + len_, kSize - len_);
            if (n > 0) {
                len_ += static_cast<std::size_t>(n);
                return {};
            }
            if (n == 0) return failure(Kind::eof, "the server closed the connection");
            if (errno != EINTR) return io_failure(errno);
        }
    }
    // One CRLF-terminated line (without the CRLF).
    BulkGetFailure line(std::string_view& out) {
        for (;;) {
            std::string_view avail(buf_.get() + pos_, len_ - pos_);
            if (auto nl = avail.find("\r\n"); nl != std::string_view::npos) {
                out = avail.substr(0, nl);
                pos_ += nl + 2;
                return {};
            }
            if (len_ - pos_ >= kSize / 2) return failure(Kind::protocol, "reply header too long");
            if (auto f = fill(); !f.ok()) return f;
        }
    }
    // Reads past n bytes (a value that is not kept), through the small buffer.
    BulkGetFailure skip(std::size_t n) {
        while (n > 0) {
            if (pos_ == len_)
                if (auto f = fill(); !f.ok()) return f;
            std::size_t k = std::min(n, len_ - pos_);
            pos_ += k;
            n -= k;
        }
        return {};
    }
    // Exactly n bytes into dst: first what is buffered, the rest straight from the socket.
    BulkGetFailure bytes(char* dst, std::size_t n) {
        std::size_t have = std::min(n, len_ - pos_);
        std::memcpy(dst, buf_.get() + pos_, have);
        pos_ += have;
        for (std::size_t got = have; got < n;) {
            if (auto f = wait_readable(); !f.ok()) return f;
            ssize_t r = ::read(fd_, dst + got, n - got);
            if (r > 0) {
                got += static_cast<std::size_t>(r);
                continue;
            }
            if (r == 0) return failure(Kind::eof, "the server closed the connection");
            if (errno != EINTR) return io_failure(errno);
        }
        return {};
    }

private:
    BulkGetFailure wait_readable() {
        for (;;) {
            auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - std::chrono::steady_clock::now());
            pollfd p{fd_, POLLIN, 0};
            int ready = left.count() > 0 ? ::poll(&p, 1, static_cast<int>(left.count())) : 0;
            if (ready > 0) return {};
            if (ready < 0 && errno == EINTR) continue;
            return failure(Kind::timeout,
                           "timed out: no complete reply within " + std::to_string(per_reply_.count()) + " ms");
        }
    }

    static constexpr std::size_t kSize = 64 * 1024;
    int fd_;
    std::chrono::milliseconds per_reply_;
    std::chrono::steady_clock::time_point deadline_;
    std::unique_ptr<char[]> buf_;
    std::size_t pos_ = 0, len_ = 0;
};

BulkGetFailure send_all(int fd, const std::string& data) {
    for (std::size_t off = 0; off < data.size();) {
        ssize_t n = ::write(fd, data.data() + off, data.size() - off);
        if (n > 0) {
            off += static_cast<std::size_t>(n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        return io_failure(n < 0 ? errno : EIO);
    }
    return {};
}

void append_get(std::string& req, const std::string& key) {
    req += "*2\r\n$3\r\nGET\r\n$";
    req += std::to_string(key.size());
    req += "\r\n";
    req += key;
    req += "\r\n";
}

BulkGetFailure bulk_get_values(int fd, const std::vector<std::string>& keys, ValueBlock& out,
                               const BulkGetLimits& limits, std::size_t window, std::size_t& largest) {
    out.clear();
    Reader in(fd, limits.reply);
    std::size_t sent = 0;
    std::string req;
    std::optional<std::size_t> full;  // the first key whose value did not fit the batch
    auto send_more = [&](std::size_t done) -> BulkGetFailure {
        if (full || out.used() >= limits.max_batch_bytes) return {};  // the batch is full: send no more
        // As many in flight as the batch has room for at the largest size seen (one into an empty block).
        std::size_t allowed = window;
        if (largest > 0)
            allowed = std::clamp<std::size_t>((limits.max_batch_bytes - out.used()) / largest,
                                              sent == done && out.used() == 0 ? 1 : 0, window);
        // Top the window up in groups, so a small write goes out every few replies, not every one.
        if (sent >= keys.size() || sent - done >= allowed || sent - done > allowed / 2) return {};
        req.clear();
        for (; sent < keys.size() && sent - done < allowed; ++sent) append_get(req, keys[sent]);
        return send_all(fd, req);
    };
    if (auto f = send_more(0); !f.ok()) return f;
    std::optional<BulkGetFailure> reply_error;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        if (!reply_error)
            if (auto f = send_more(i); !f.ok()) return f;
        if (i >= sent) break;  // after an error nothing more was sent
        in.next_reply();
        std::string_view head;
        if (auto f = in.line(head); !f.ok()) return f;
        if (head.empty()) return failure(Kind::protocol, "empty reply header");
        if (head[0] == '$') {
            long long n = 0;
            auto [p, ec] = std::from_chars(head.data() + 1, head.data() + head.size(), n);
            if (ec != std::errc() || p != head.data() + head.size() || n < -1)
                return failure(Kind::protocol, "bad bulk length: " + printable(head.substr(0, 40)));
            if (n == -1) {
                if (!full) out.add_absent();
                continue;
            }
            if (static_cast<unsigned long long>(n) > limits.max_value_bytes)
                return failure(Kind::limit,
                               "a value of " + std::to_string(n) + " bytes for " + printable_name(keys[i]) +
                                   " (the limit is " + std::to_string(limits.max_value_bytes) + ")",
                               i);
            std::size_t len = static_cast<std::size_t>(n);
            largest = std::max(largest, len);
            if (!full && out.used() > 0 && out.used() + len > limits.max_batch_bytes) full = i;
            if (full) {  // read past it: the caller fetches it again in a batch of its own
                if (auto f = in.skip(len + 2); !f.ok()) return f;
                continue;
            }
            std::size_t at = out.used();
            if (auto f = in.bytes(out.tail(len + 2), len + 2); !f.ok()) return f;
            if (std::memcmp(out.tail(0) + len, "\r\n", 2) != 0)
                return failure(Kind::protocol, "bulk string not followed by CRLF");
            out.commit(len);
            out.add_value(at, len);
            continue;
        }
        if (head[0] == '-') {
            // WRONGTYPE: a list, a hash, ... (foreign data) reads as absent; other errors fail the
            // batch once the replies already on their way are read.
            if (!head.substr(1).starts_with("WRONGTYPE") && !reply_error)
                reply_error = failure(Kind::reply, std::string(head.substr(1)), i);
            if (!full) out.add_absent();
            continue;
        }
        if (head[0] == '+' || head[0] == ':') {
            if (!full) out.add_absent();
            continue;
        }
        return failure(Kind::protocol, "not a Redis reply to GET: " + printable(head.substr(0, 40)));
    }
    if (reply_error) return *reply_error;
    return {};
}

}  // namespace

BulkGetFailure bulk_get(int fd, const std::vector<std::string>& keys, ValueBlock& out, BulkGetLimits limits,
                        std::size_t window) {
    std::size_t largest = limits.largest_value;
    BulkGetFailure result = bulk_get_values(fd, keys, out, limits, window, largest);
    result.largest_value = largest;
    return result;
}

}  // namespace kiln::remote

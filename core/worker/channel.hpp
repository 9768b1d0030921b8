#pragma once
// Length-prefixed messages between the tuner and its workers: a 4-byte big-endian length, then the
// body as CBOR (nlohmann). CBOR keeps doubles exact, +inf included, which JSON text cannot.
#include <chrono>
#include <optional>

#include <nlohmann/json.hpp>

#include "util/result.hpp"

namespace kiln::worker {

inline constexpr std::uint32_t kMaxMessageBytes = 64u << 20;

// Writes one message; never raises SIGPIPE (sockets use MSG_NOSIGNAL, other fds plain write).
Status write_message(int fd, const nlohmann::json& message);

// Reads one message. A clean end of stream before any byte is Errc::cancelled with message "EOF";
// no complete message within `timeout` is Errc::timeout (the stream is then out of step: the
// caller must drop the peer). No timeout: wait forever.
Result<nlohmann::json> read_message(int fd, std::optional<std::chrono::milliseconds> timeout = std::nullopt);

}  // namespace kiln::worker

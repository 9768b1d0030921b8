#pragma once
// Pipelined GETs read straight from the socket into a ValueBlock: a small RESP reader for the
// replies a GET can get (bulk string, nil, error), so a browse copies each value once (the
// kernel's copy) instead of three times through hiredis's buffers and reply objects. Used by
// RedisClient::get_many when hiredis holds no buffered input or output on the connection.
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "remote/redis_client.hpp"

namespace kiln::remote {

struct BulkGetFailure {
    enum class Kind { none, timeout, eof, io, protocol, limit, reply } kind = Kind::none;
    std::string text;               // errno text, the unexpected bytes, or the server's error reply
    std::size_t key_index = 0;      // reply: the GET that failed
    std::size_t largest_value = 0;  // the largest value read, kept or not (failed or not)
    bool ok() const { return kind == Kind::none; }
    // After timeout / eof / io / protocol the connection is out of step and must not be reused;
    // after a reply error every pending reply has been read and it is fine.
};

struct BulkGetLimits {
    std::chrono::milliseconds reply{10000};      // each reply complete within this (a trickle times out)
    std::size_t max_value_bytes = 512ull << 20;  // a larger bulk length is refused before allocating
    std::size_t max_batch_bytes = 64ull << 20;   // the values kept in `out` together (see bulk_get)
    std::size_t largest_value = 0;  // the largest value seen before (0: none): fewer GETs in flight for big ones
};

// Sends GET for every key (at most `window` in flight) on the blocking socket `fd` and fills `out`
// in key order. The block holds at most max_batch_bytes (or one value, if that alone is larger): once
// a value would not fit, it and the replies still in flight are read past and dropped, no more GETs
// are sent, and `out` holds a prefix of `keys` (out.size() < keys.size(): fetch the rest again). With
// values as large as `largest_value`, only as many GETs are in flight as the batch has room for, so
// few values are read past.
BulkGetFailure bulk_get(int fd, const std::vector<std::string>& keys, ValueBlock& out, BulkGetLimits limits = {},
                        std::size_t window = 8);

}  // namespace kiln::remote

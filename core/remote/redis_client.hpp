#pragma once
// A blocking Redis connection over hiredis: connect and command timeouts, AUTH, SELECT, SCAN,
// and pipelined GET/SET batches (many commands written at once, replies read back in order), which
// is what makes browsing thousands of keys cost a few round trips instead of thousands.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "remote/redis_url.hpp"
#include "util/result.hpp"

struct redisContext;

namespace kiln::remote {

// What one connection may cost: a broken or hostile server must neither hang Kiln nor make it
// allocate without bound.
struct RedisLimits {
    std::chrono::milliseconds connect{3000};
    std::chrono::milliseconds command{10000};      // a whole reply, not each read: a trickle times out too
    std::size_t max_value_bytes = 512ull << 20;    // one reply's size (Inductor's values are a few MB)
    std::size_t max_batch_bytes = 64ull << 20;     // the values of one pipelined GET batch together
    std::size_t max_reply_elements = 1u << 18;     // strings, nils, ... in one reply (a SCAN page has ~COUNT)
    std::chrono::milliseconds scan_total{120000};  // all SCAN steps of one scan_all together
    long long max_scan_rounds = 1 << 20;           // SCAN steps of one scan_all, whatever DBSIZE says
    std::size_t max_scan_keys = 1u << 24;          // keys one scan_all hands out (memory for the callers)
};

// A reply as a value (hiredis' own is freed right after conversion).
struct RedisReply {
    enum class Type { nil, string, integer, array, status, error };
    Type type = Type::nil;
    std::string str;  // string, status, error
    long long integer = 0;
    std::vector<RedisReply> elements;

    bool is_error() const { return type == Type::error; }
};

struct ScanPage {
    std::string cursor;  // "0" when the iteration is complete
    std::vector<std::string> keys;
};

// The values of one pipelined batch in one reusable buffer (a browse recycles a few of these, so a
// gigabyte of values does not become a gigabyte of separate allocations and page faults).
struct ValueBlock {
    std::vector<std::size_t> offsets, sizes;
    std::vector<char> present;  // 0: nil (gone, or not a string)

    void clear() {
        used_ = 0;
        offsets.clear();
        sizes.clear();
        present.clear();
    }
    std::size_t size() const { return present.size(); }
    std::optional<std::string_view> value(std::size_t i) const {
        if (!present[i]) return std::nullopt;
        return std::string_view(data_.get() + offsets[i], sizes[i]);
    }
    // Room for `n` more bytes at the end (uninitialised: the socket writes them), then commit.
    char* tail(std::size_t n) {
        if (used_ + n > capacity_) {
            // Doubling, but never more than 64 MB beyond what is needed (blocks are capped per batch).
            std::size_t cap = std::max(used_ + n, std::min(capacity_ * 2, used_ + n + (64u << 20)));
            std::unique_ptr<char[]> grown(new char[cap]);
            if (used_) std::memcpy(grown.get(), data_.get(), used_);
            data_ = std::move(grown);
            capacity_ = cap;
        }
        return data_.get() + used_;
    }
    void commit(std::size_t n) { used_ += n; }
    std::size_t used() const { return used_; }
    void add_value(std::size_t offset, std::size_t n) {
        offsets.push_back(offset);
        sizes.push_back(n);
        present.push_back(1);
    }
    void add_absent() {
        offsets.push_back(used_);
        sizes.push_back(0);
        present.push_back(0);
    }

private:
    std::unique_ptr<char[]> data_;
    std::size_t capacity_ = 0, used_ = 0;
};

class RedisClient {
public:
    // Connects, authenticates (AUTH [user] password), selects the db, and PINGs, so a wrong
    // password or an unreachable server is reported here, with a hint, not at the first read.
    static Result<RedisClient> connect(const RedisEndpoint& endpoint, RedisLimits timeouts = {});

    RedisClient(RedisClient&&) noexcept;
    RedisClient& operator=(RedisClient&&) noexcept;
    ~RedisClient();

    // One command; an error reply (-ERR ...) becomes an Error.
    Result<RedisReply> command(const std::vector<std::string>& argv);
    // EXEC of a MULTI that queued `queued` commands. Nil (a WATCHed key changed: nothing applied) comes
    // back as it is. Inside the array each command has its own reply, and a command that failed there
    // (-ERR, -OOM, -READONLY...) is no error of EXEC itself: any such reply, or an array of another
    // length, is an error here (the server's message, how many failed), never a transaction taken as done.
    Result<RedisReply> exec(std::size_t queued);
    // One SCAN step: SCAN cursor MATCH pattern COUNT count.
    Result<ScanPage> scan(std::string_view cursor, std::string_view match, int count);
    // SCAN from cursor 0 until it comes back to 0, handing each page's keys to `page` (which returns
    // false to stop early). Ends with an error when the server repeats a cursor (a SCAN that revisits
    // a cursor would never end: found with Brent's cycle search, which keeps one cursor, not all of
    // them), hands out a cursor that is no number (real ones are 64-bit integers), or goes on far
    // longer than its DBSIZE allows or than the fixed limits (rounds, keys, time spent in SCAN).
    Status scan_all(std::string_view match, int count, const std::function<Result<bool>(ScanPage&)>& page);
    // Pipelined GETs; nullopt where the key is gone (expired or deleted between SCAN and GET) or
    // holds no string (a list, a hash: foreign data in a shared server). Values of more than
    // max_batch_bytes together are an error (the callers read small values).
    Result<std::vector<std::optional<std::string>>> get_many(const std::vector<std::string>& keys);
    // The same into `out` (cleared first, its capacity kept), reading the socket straight into the
    // block (bulk_get.hpp) so that a value is copied once, by the kernel. The block holds at most
    // max_batch_bytes: it may hold the values of a prefix of `keys` only (out.size() < keys.size());
    // the caller asks for the rest again.
    Status get_many(const std::vector<std::string>& keys, ValueBlock& out);
    // Pipelined SETs (the writer side, used for sharing timings and by tests and benchmarks).
    Status set_many(const std::vector<std::pair<std::string, std::string>>& items);
    Result<std::optional<std::string>> get(std::string_view key);
    Status set(std::string_view key, std::string_view value);

    const RedisEndpoint& endpoint() const { return endpoint_; }

private:
    struct ContextDeleter {
        void operator()(redisContext* c) const;
    };
    RedisClient(std::unique_ptr<redisContext, ContextDeleter> ctx, RedisEndpoint endpoint, RedisLimits limits);
    Error io_failure(std::string_view what) const;
    Status append(const std::vector<std::string>& argv);
    Result<RedisReply> read_reply();

    std::unique_ptr<redisContext, ContextDeleter> ctx_;
    RedisEndpoint endpoint_;
    RedisLimits limits_;
    // What hiredis may build for one reply (objects, bytes), counted by reply-object functions that
    // wrap its own: a reply past it fails instead of allocating (an array of 20 million nils, or a
    // `*2000000000` header hiredis would calloc). On the heap: hiredis keeps a pointer to it.
    struct ReplyBudget;
    std::shared_ptr<ReplyBudget> budget_;
    std::size_t largest_value_ = 0;  // the largest value get_many has read: how many GETs to pipeline
};

}  // namespace kiln::remote

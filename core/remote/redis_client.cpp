#include "remote/redis_client.hpp"

#include "remote/bulk_get.hpp"

#include <hiredis/hiredis.h>
#include <hiredis/sds.h>

#include <poll.h>
#include <sys/time.h>

#include <cerrno>
#include <cstring>
#include <unordered_set>

namespace kiln::remote {
namespace {

timeval to_timeval(std::chrono::milliseconds ms) {
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
    tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
    return tv;
}

RedisReply convert(const redisReply* r) {
    RedisReply out;
    switch (r->type) {
        case REDIS_REPLY_STRING:
            out.type = RedisReply::Type::string;
            out.str.assign(r->str, r->len);
            break;
        case REDIS_REPLY_STATUS:
            out.type = RedisReply::Type::status;
            out.str.assign(r->str, r->len);
            break;
        case REDIS_REPLY_ERROR:
            out.type = RedisReply::Type::error;
            out.str.assign(r->str, r->len);
            break;
        case REDIS_REPLY_INTEGER:
            out.type = RedisReply::Type::integer;
            out.integer = r->integer;
            break;
        case REDIS_REPLY_ARRAY:
            out.type = RedisReply::Type::array;
            out.elements.reserve(r->elements);
            for (size_t i = 0; i < r->elements; ++i) out.elements.push_back(convert(r->element[i]));
            break;
        default: out.type = RedisReply::Type::nil; break;
    }
    return out;
}

// A server's error reply, with the hint a user needs for the common ones.
Error reply_error(const std::string& text, const RedisEndpoint& ep, std::string_view command) {
    Error e = make_error(Errc::external, "Redis replied: " + text, ep.display() + " " + std::string(command));
    if (text.starts_with("NOAUTH"))
        e.hint = "the server needs a password: redis://[user]:PASSWORD@" + ep.host + ":" + std::to_string(ep.port);
    else if (text.starts_with("WRONGPASS") || text.find("invalid password") != std::string::npos)
        e.hint = "check the user and password in the URL", e.code = Errc::invalid_argument;
    else if (text.find("without any password configured") != std::string::npos)
        e.hint = "the server has no password; remove it from the URL", e.code = Errc::invalid_argument;
    else if (text.starts_with("ERR DB index") || text.starts_with("ERR invalid DB"))
        e.hint = "the db number in the URL is out of range", e.code = Errc::invalid_argument;
    return e;
}

}  // namespace

void RedisClient::ContextDeleter::operator()(redisContext* c) const { redisFree(c); }

RedisClient::RedisClient(std::unique_ptr<redisContext, ContextDeleter> ctx, RedisEndpoint endpoint, RedisLimits limits)
    : ctx_(std::move(ctx)), endpoint_(std::move(endpoint)), limits_(limits) {}
RedisClient::RedisClient(RedisClient&&) noexcept = default;
RedisClient& RedisClient::operator=(RedisClient&&) noexcept = default;
RedisClient::~RedisClient() = default;

Error RedisClient::io_failure(std::string_view what) const {
    int err = ctx_ ? ctx_->err : REDIS_ERR_OTHER;
    std::string text = ctx_ ? ctx_->errstr : "no connection";
    bool timed_out = err == REDIS_ERR_IO && (errno == EAGAIN || errno == EWOULDBLOCK || errno == ETIMEDOUT);
    if (timed_out || text.find("timed out") != std::string::npos ||
        text.find("temporarily unavailable") != std::string::npos)
        return make_error(Errc::timeout, std::string(what) + " timed out", endpoint_.display(),
                          "the server is slow or unreachable; a value may be very large");
    if (err == REDIS_ERR_EOF)
        return make_error(Errc::io, std::string(what) + ": the server closed the connection", endpoint_.display(),
                          "the server may have restarted or hit its client output limit");
    if (err == REDIS_ERR_PROTOCOL)
        return make_error(Errc::parse, std::string(what) + ": the server does not speak Redis (" + text + ")",
                          endpoint_.display(), "is this host:port a Redis server? (not an HTTP or TLS-only port)");
    return make_error(Errc::io, std::string(what) + " failed: " + text, endpoint_.display());
}

Result<RedisClient> RedisClient::connect(const RedisEndpoint& ep, RedisLimits timeouts) {
    std::unique_ptr<redisContext, ContextDeleter> ctx(
        redisConnectWithTimeout(ep.host.c_str(), ep.port, to_timeval(timeouts.connect)));
    if (!ctx) return make_error(Errc::io, "cannot allocate a Redis connection", ep.display());
    if (ctx->err) {
        std::string text = ctx->errstr;
        Errc code = text.find("timed out") != std::string::npos || text.find("temporarily") != std::string::npos
                        ? Errc::timeout
                        : Errc::io;
        return make_error(code, "cannot connect to Redis: " + text, ep.display(),
                          "is redis-server running there? check the host and port (TORCHINDUCTOR_REDIS_URL, --redis)");
    }
    if (redisSetTimeout(ctx.get(), to_timeval(timeouts.command)) != REDIS_OK)
        return make_error(Errc::io, "cannot set the command timeout", ep.display());
    // Keep the reader's buffer between replies: by default hiredis frees it once it is empty and
    // larger than 16 KB, so every value of ~100 KB paid for a fresh buffer and its page faults.
    ctx->reader->maxbuf = 0;
    RedisClient client(std::move(ctx), ep, timeouts);
    if (!ep.password.empty()) {
        std::vector<std::string> auth{"AUTH"};
        if (!ep.user.empty()) auth.push_back(ep.user);
        auth.push_back(ep.password);
        KILN_TRY(auto r, client.command(auth));
        (void)r;
    }
    if (ep.db != 0) {
        KILN_TRY(auto r, client.command({"SELECT", std::to_string(ep.db)}));
        (void)r;
    }
    KILN_TRY(auto pong, client.command({"PING"}));
    (void)pong;
    return client;
}

Status RedisClient::append(const std::vector<std::string>& argv) {
    std::vector<const char*> ptrs;
    std::vector<size_t> lens;
    ptrs.reserve(argv.size());
    lens.reserve(argv.size());
    for (const auto& a : argv) {
        ptrs.push_back(a.data());
        lens.push_back(a.size());
    }
    if (redisAppendCommandArgv(ctx_.get(), static_cast<int>(argv.size()), ptrs.data(), lens.data()) != REDIS_OK)
        return io_failure("writing " + (argv.empty() ? std::string() : argv[0]));
    return ok_status();
}

// Like redisGetReply, but the whole reply must arrive within the command timeout (hiredis's own
// timeout is per read, so a server trickling a byte at a time would hold Kiln forever) and may not
// grow past the value limit. After a failure the connection is out of step and is dropped.
Result<RedisReply> RedisClient::read_reply() {
    auto deadline = std::chrono::steady_clock::now() + limits_.command;
    void* raw = nullptr;
    auto fail = [&](Error e) -> Result<RedisReply> {
        ctx_.reset();
        return e;
    };
    for (int done = 0; !done;)
        if (redisBufferWrite(ctx_.get(), &done) != REDIS_OK) return fail(io_failure("writing a command"));
    for (;;) {
        if (redisGetReplyFromReader(ctx_.get(), &raw) != REDIS_OK) return fail(io_failure("reading a reply"));
        if (raw) break;
        if (ctx_->reader->len - ctx_->reader->pos > limits_.max_value_bytes + 64)
            return fail(make_error(Errc::limit,
                                   "a reply larger than " + std::to_string(limits_.max_value_bytes) + " bytes",
                                   endpoint_.display(), "a value that large is not an Inductor cache entry"));
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        pollfd p{ctx_->fd, POLLIN, 0};
        int ready = left.count() > 0 ? ::poll(&p, 1, static_cast<int>(left.count())) : 0;
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0)
            return fail(make_error(
                Errc::timeout, "reading a reply timed out after " + std::to_string(limits_.command.count()) + " ms",
                endpoint_.display(), "the server is slow or unreachable; a value may be very large"));
        if (redisBufferRead(ctx_.get()) != REDIS_OK) return fail(io_failure("reading a reply"));
    }
    auto* r = static_cast<redisReply*>(raw);
    RedisReply out = convert(r);
    freeReplyObject(r);
    return out;
}

Result<RedisReply> RedisClient::command(const std::vector<std::string>& argv) {
    if (!ctx_) return make_error(Errc::io, "not connected", endpoint_.display());
    KILN_CHECK(append(argv));
    KILN_TRY(auto reply, read_reply());
    // AUTH's arguments are secrets: name only the command in the context.
    if (reply.is_error()) return reply_error(reply.str, endpoint_, argv.empty() ? "" : argv[0]);
    return reply;
}

Result<ScanPage> RedisClient::scan(std::string_view cursor, std::string_view match, int count) {
    KILN_TRY(auto r,
             command({"SCAN", std::string(cursor), "MATCH", std::string(match), "COUNT", std::to_string(count)}));
    if (r.type != RedisReply::Type::array || r.elements.size() != 2 || r.elements[0].type != RedisReply::Type::string ||
        r.elements[1].type != RedisReply::Type::array)
        return make_error(Errc::parse, "unexpected SCAN reply", endpoint_.display());
    ScanPage page{std::move(r.elements[0].str), {}};
    page.keys.reserve(r.elements[1].elements.size());
    for (auto& k : r.elements[1].elements) page.keys.push_back(std::move(k.str));
    return page;
}

Status RedisClient::scan_all(std::string_view match, int count, const std::function<Result<bool>(ScanPage&)>& page) {
    // A real server visits its buckets once: about buckets / COUNT rounds, and its table has at most
    // ~10 buckets per key. The cap is that with a wide margin, and DBSIZE is asked once.
    KILN_TRY(auto size, command({"DBSIZE"}));
    long long keys = size.type == RedisReply::Type::integer && size.integer > 0 ? size.integer : 0;
    const long long max_rounds = 16 * (keys / std::max(count, 1) + 1) * 10 + 1024;
    std::unordered_set<std::string> seen_cursors;
    std::string cursor = "0";
    for (long long round = 0;; ++round) {
        if (round >= max_rounds)
            return make_error(
                Errc::limit,
                "SCAN did not finish after " + std::to_string(round) + " rounds (DBSIZE " + std::to_string(keys) + ")",
                endpoint_.display(), "the server's SCAN cursor never returns to 0: is it a Redis server?");
        auto scanned = scan(cursor, match, count);
        if (!scanned) return std::move(scanned.error());
        ScanPage& p = *scanned;
        if (p.cursor != "0" && !seen_cursors.insert(p.cursor).second)
            return make_error(Errc::parse, "SCAN returned cursor " + p.cursor + " a second time", endpoint_.display(),
                              "the server's SCAN would never end: is it a Redis server?");
        cursor = p.cursor;
        KILN_TRY(bool more, page(p));
        if (!more || cursor == "0") return ok_status();
    }
}

Result<std::vector<std::optional<std::string>>> RedisClient::get_many(const std::vector<std::string>& keys) {
    if (!ctx_) return make_error(Errc::io, "not connected", endpoint_.display());
    for (const auto& k : keys) KILN_CHECK(append({"GET", k}));
    std::vector<std::optional<std::string>> values;
    values.reserve(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) {
        KILN_TRY(auto r, read_reply());
        if (r.type == RedisReply::Type::string) values.emplace_back(std::move(r.str));
        else if (r.type == RedisReply::Type::nil) values.emplace_back(std::nullopt);
        else if (r.is_error() && r.str.starts_with("WRONGTYPE"))
            values.emplace_back(std::nullopt);  // a list, hash, ...
        else if (r.is_error()) return reply_error(r.str, endpoint_, "GET " + keys[i]);
        else values.emplace_back(std::nullopt);
    }
    return values;
}

Status RedisClient::get_many(const std::vector<std::string>& keys, ValueBlock& out) {
    out.clear();
    if (!ctx_) return make_error(Errc::io, "not connected", endpoint_.display());
    // The socket is read directly: hiredis must hold nothing half-read or unsent (it never does
    // between complete commands).
    if (sdslen(ctx_->obuf) != 0 || ctx_->reader->pos != ctx_->reader->len)
        return make_error(Errc::io, "the connection has unread replies or unsent commands", endpoint_.display());
    BulkGetFailure f = bulk_get(ctx_->fd, keys, out, {limits_.command, limits_.max_value_bytes});
    if (f.ok()) return ok_status();
    if (f.kind == BulkGetFailure::Kind::reply) return reply_error(f.text, endpoint_, "GET " + keys[f.key_index]);
    ctx_.reset();  // out of step with the server: not usable any more
    using Kind = BulkGetFailure::Kind;
    Errc code = f.kind == Kind::timeout    ? Errc::timeout
                : f.kind == Kind::limit    ? Errc::limit
                : f.kind == Kind::protocol ? Errc::parse
                                           : Errc::io;
    const char* hint = f.kind == Kind::timeout    ? "the server is slow or unreachable; a value may be very large"
                       : f.kind == Kind::limit    ? "a value that large is not an Inductor cache entry"
                       : f.kind == Kind::protocol ? "is this host:port a Redis server? (not an HTTP or TLS-only port)"
                                                  : "the server may have restarted; connect again";
    return make_error(code, "reading values: " + f.text, endpoint_.display(), hint);
}

Status RedisClient::set_many(const std::vector<std::pair<std::string, std::string>>& items) {
    if (!ctx_) return make_error(Errc::io, "not connected", endpoint_.display());
    for (const auto& [k, v] : items) KILN_CHECK(append({"SET", k, v}));
    std::optional<Error> first;
    for (size_t i = 0; i < items.size(); ++i) {
        KILN_TRY(auto r, read_reply());
        if (r.is_error() && !first) first = reply_error(r.str, endpoint_, "SET " + items[i].first);
    }
    if (first) return std::move(*first);
    return ok_status();
}

Result<std::optional<std::string>> RedisClient::get(std::string_view key) {
    KILN_TRY(auto values, get_many({std::string(key)}));
    return std::move(values[0]);
}

Status RedisClient::set(std::string_view key, std::string_view value) {
    return set_many({{std::string(key), std::string(value)}});
}

}  // namespace kiln::remote

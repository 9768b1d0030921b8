#include "remote/redis_client.hpp"

#include "remote/bulk_get.hpp"

#include <hiredis/hiredis.h>
#include <hiredis/sds.h>

#include <poll.h>
#include <sys/time.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "util/utf8.hpp"

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

// A real cursor is an unsigned 64-bit number in decimal.
bool is_scan_cursor(const std::string& c) {
    if (c.empty() || c.size() > 20 || c.find_first_not_of("0123456789") != std::string::npos) return false;
    return c.size() < 20 || c <= "18446744073709551615";
}

}  // namespace

struct RedisClient::ReplyBudget {
    const redisReplyObjectFunctions* base = nullptr;  // hiredis's own functions
    std::size_t max_objects = 0, max_bytes = 0;
    std::size_t objects = 0, bytes = 0;
    bool exceeded = false;

    void reset() { objects = bytes = 0, exceeded = false; }
    bool take(std::size_t n_objects, std::size_t n_bytes) {
        objects += n_objects;
        bytes += n_bytes;
        exceeded = exceeded || objects > max_objects || bytes > max_bytes;
        return !exceeded;
    }
    static ReplyBudget& of(const redisReadTask* t) { return *static_cast<ReplyBudget*>(t->privdata); }
    static void* string(const redisReadTask* t, char* s, size_t len) {
        return of(t).take(1, len) ? of(t).base->createString(t, s, len) : nullptr;
    }
    static void* array(const redisReadTask* t, int elements) {
        // Room for the elements' pointers is allocated at once: counted before it is.
        return elements >= 0 && of(t).take(1, static_cast<std::size_t>(elements) * sizeof(void*))
                   ? of(t).base->createArray(t, elements)
                   : nullptr;
    }
    static void* integer(const redisReadTask* t, long long v) {
        return of(t).take(1, 0) ? of(t).base->createInteger(t, v) : nullptr;
    }
    static void* nil(const redisReadTask* t) { return of(t).take(1, 0) ? of(t).base->createNil(t) : nullptr; }
    static void free_object(void* reply) { freeReplyObject(reply); }
    static redisReplyObjectFunctions functions;
};
redisReplyObjectFunctions RedisClient::ReplyBudget::functions = {string, array, integer, nil, free_object};

void RedisClient::ContextDeleter::operator()(redisContext* c) const { redisFree(c); }

RedisClient::RedisClient(std::unique_ptr<redisContext, ContextDeleter> ctx, RedisEndpoint endpoint, RedisLimits limits)
    : ctx_(std::move(ctx)), endpoint_(std::move(endpoint)), limits_(limits), budget_(std::make_shared<ReplyBudget>()) {
    budget_->base = ctx_->reader->fn;
    budget_->max_objects = limits_.max_reply_elements;
    budget_->max_bytes = limits_.max_value_bytes;
    ctx_->reader->fn = &ReplyBudget::functions;
    ctx_->reader->privdata = budget_.get();
}
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
    budget_->reset();
    for (;;) {
        if (redisGetReplyFromReader(ctx_.get(), &raw) != REDIS_OK) {
            if (budget_->exceeded)
                return fail(make_error(Errc::limit,
                                       "a reply of more than " + std::to_string(budget_->max_objects) +
                                           " elements or " + std::to_string(budget_->max_bytes) + " bytes",
                                       endpoint_.display(), "no Redis reply Kiln asks for is that large"));
            return fail(io_failure("reading a reply"));
        }
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

Result<RedisReply> RedisClient::exec(std::size_t queued) {
    KILN_TRY(auto reply, command({"EXEC"}));
    if (reply.type == RedisReply::Type::nil) return reply;
    if (reply.type != RedisReply::Type::array)
        return make_error(Errc::external, "EXEC answered no list of replies", endpoint_.display() + " EXEC",
                          "the transaction may not have been applied; try again");
    std::size_t failed = 0;
    const RedisReply* first = nullptr;
    for (const auto& r : reply.elements)
        if (r.is_error()) {
            ++failed;
            if (!first) first = &r;
        }
    if (first) {
        Error e = reply_error(first->str, endpoint_, "EXEC");
        e.message += " (" + std::to_string(failed) + " of " + std::to_string(reply.elements.size()) +
                     " queued command(s) failed)";
        if (e.hint.empty()) e.hint = "the commands that failed were not applied; the others were";
        return e;
    }
    if (reply.elements.size() != queued)
        return make_error(Errc::external,
                          "EXEC answered " + std::to_string(reply.elements.size()) + " replies for " +
                              std::to_string(queued) + " queued command(s)",
                          endpoint_.display() + " EXEC", "the server is no Redis this client understands; try again");
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
    // ~10 buckets per key. The cap is that with a wide margin, and DBSIZE is asked once; a server
    // could say anything there, so fixed limits (rounds, keys, time spent in SCAN) hold whatever it says.
    KILN_TRY(auto size, command({"DBSIZE"}));
    const long long keys =
        size.type == RedisReply::Type::integer && size.integer > 0 ? std::min(size.integer, 1LL << 40) : 0;
    const long long max_rounds = std::min(16 * (keys / std::max(count, 1) + 1) * 10 + 1024, limits_.max_scan_rounds);
    auto unending = [&](std::string what) {
        return make_error(Errc::limit,
                          "SCAN did not finish: " + std::move(what) + " (DBSIZE " + std::to_string(keys) + ")",
                          endpoint_.display(), "the server's SCAN cursor never returns to 0: is it a Redis server?");
    };
    // Brent's cycle search: one saved cursor, replaced at rounds 1, 2, 4, 8, ...; a SCAN that loops
    // comes back to it within twice the loop's length.
    std::string saved = "0";
    long long power = 1, since_saved = 0;
    std::size_t handed_out = 0;
    std::chrono::steady_clock::duration in_scan{};
    std::string cursor = "0";
    for (long long round = 0;; ++round) {
        if (round >= max_rounds) return unending("still going after " + std::to_string(round) + " rounds");
        if (in_scan > limits_.scan_total)
            return unending("still going after " +
                            std::to_string(std::chrono::duration_cast<std::chrono::seconds>(in_scan).count()) +
                            " s in SCAN, " + std::to_string(round) + " rounds");
        const auto t0 = std::chrono::steady_clock::now();
        auto scanned = scan(cursor, match, count);
        in_scan += std::chrono::steady_clock::now() - t0;
        if (!scanned) return std::move(scanned.error());
        ScanPage& p = *scanned;
        if (!is_scan_cursor(p.cursor))
            return make_error(
                Errc::parse,
                "SCAN returned a cursor that is not a 64-bit number (" + std::to_string(p.cursor.size()) + " bytes)",
                endpoint_.display(), "a Redis server's cursors are numbers: is it a Redis server?");
        if (p.cursor != "0" && p.cursor == saved)
            return make_error(Errc::parse, "SCAN returned cursor " + p.cursor + " a second time", endpoint_.display(),
                              "the server's SCAN would never end: is it a Redis server?");
        if (++since_saved == power) {
            saved = p.cursor;
            power *= 2;
            since_saved = 0;
        }
        handed_out += p.keys.size();
        if (handed_out > limits_.max_scan_keys)
            return unending("more than " + std::to_string(limits_.max_scan_keys) + " keys");
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
    std::size_t total = 0;
    for (size_t i = 0; i < keys.size(); ++i) {
        KILN_TRY(auto r, read_reply());
        total += r.str.size();
        if (total > limits_.max_batch_bytes) {
            ctx_.reset();  // replies still pending: out of step with the server
            return make_error(Errc::limit,
                              "values of more than " + std::to_string(limits_.max_batch_bytes) +
                                  " bytes in one batch of " + std::to_string(keys.size()) + " GETs",
                              endpoint_.display(), "these keys hold far larger values than Kiln writes there");
        }
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
    BulkGetFailure f = bulk_get(ctx_->fd, keys, out,
                                {limits_.command, limits_.max_value_bytes, limits_.max_batch_bytes, largest_value_});
    largest_value_ = std::max(largest_value_, f.largest_value);
    if (f.ok()) return ok_status();
    if (f.kind == BulkGetFailure::Kind::reply)
        return reply_error(f.text, endpoint_, "GET " + printable_name(keys[f.key_index]));
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

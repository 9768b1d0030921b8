#pragma once
// Where a Redis server is: parsed from `redis://[user:password@]host:port[/db]` (the form torch's
// TORCHINDUCTOR_REDIS_URL takes) or from TORCHINDUCTOR_REDIS_HOST / _PORT.
#include <string>
#include <string_view>

#include "util/result.hpp"

namespace kiln::remote {

inline constexpr int kDefaultRedisPort = 6379;

struct RedisEndpoint {
    std::string host = "localhost";
    int port = kDefaultRedisPort;
    std::string user;      // empty: AUTH with the password only (the `default` user)
    std::string password;  // empty: no AUTH
    int db = 0;

    // redis://[user@]host:port/db -- never shows the password (it goes to logs and window titles).
    std::string display() const;
    // The full URL, password included, percent-encoded so parse_redis_url reads it back.
    std::string url() const;
};

// Parses redis://[user:password@]host[:port][/db]. `rediss://` (TLS) and `unix://` are refused with
// a hint: Debian's hiredis 0.14 has no TLS.
Result<RedisEndpoint> parse_redis_url(std::string_view url);

// One value in a server: redis://[user:password@]host[:port][/db]/KEY, where KEY is the rest of the
// path, used verbatim after percent-decoding (Inductor keys hold ':' and no '/'). A first segment of
// digits followed by another segment is the db.
struct RedisKeyRef {
    RedisEndpoint endpoint;
    std::string key;
};
Result<RedisKeyRef> parse_redis_key_url(std::string_view url);
bool is_redis_url(std::string_view s);

// torch's own variables: TORCHINDUCTOR_REDIS_URL, else TORCHINDUCTOR_REDIS_HOST / _PORT (localhost,
// 6379). Errc::not_found when none is set, so callers can say "pass --redis".
Result<RedisEndpoint> redis_endpoint_from_env();

// `spec` when given (a URL), else the environment.
Result<RedisEndpoint> resolve_redis_endpoint(std::string_view spec);

}  // namespace kiln::remote

#include "remote/redis_url.hpp"

#include <cctype>
#include <charconv>
#include <cstdlib>

namespace kiln::remote {
namespace {

constexpr std::string_view kScheme = "redis://";

Error url_error(std::string message, std::string_view url, std::string hint = {}) {
    // The context never repeats the URL's password.
    auto at = url.rfind('@');
    std::string shown =
        at == std::string_view::npos ? std::string(url) : std::string(kScheme) + "…@" + std::string(url.substr(at + 1));
    return make_error(Errc::invalid_argument, std::move(message), shown,
                      hint.empty() ? "expected redis://[user:password@]host[:port][/db]" : std::move(hint));
}

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

Result<std::string> percent_decode(std::string_view s, std::string_view url) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '%') {
            out += s[i];
            continue;
        }
        if (i + 2 >= s.size()) return url_error("truncated %-escape", url);
        int hi = hex_value(s[i + 1]), lo = hex_value(s[i + 2]);
        if (hi < 0 || lo < 0) return url_error("bad %-escape", url);
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
    }
    return out;
}

std::string percent_encode(std::string_view s) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : s) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') out += static_cast<char>(c);
        else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

Result<int> parse_int(std::string_view s, int lo, int hi, const char* what, std::string_view url) {
    int v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || p != s.data() + s.size() || v < lo || v > hi)
        return url_error(std::string("bad ") + what + " '" + std::string(s) + "'", url);
    return v;
}

bool all_digits(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s)
        if (c < '0' || c > '9') return false;
    return true;
}

// Parses everything of a URL except the path; returns the path (after the first '/') in `path`.
Result<RedisEndpoint> parse_authority(std::string_view url, std::string_view& path) {
    if (url.starts_with("rediss://"))
        return make_error(Errc::unsupported, "TLS (rediss://) is not supported", std::string(url),
                          "Debian's hiredis 0.14 has no TLS; reach the server through an SSH or stunnel tunnel");
    if (url.starts_with("unix://"))
        return make_error(Errc::unsupported, "unix sockets are not supported", std::string(url),
                          "use redis://host:port");
    if (!url.starts_with(kScheme)) return url_error("not a redis:// URL", url);
    std::string_view rest = url.substr(kScheme.size());
    auto slash = rest.find('/');
    std::string_view authority = rest.substr(0, slash);
    path = slash == std::string_view::npos ? std::string_view{} : rest.substr(slash + 1);

    RedisEndpoint ep;
    if (auto at = authority.rfind('@'); at != std::string_view::npos) {
        std::string_view userinfo = authority.substr(0, at);
        authority = authority.substr(at + 1);
        auto colon = userinfo.find(':');
        KILN_TRY(ep.user, percent_decode(userinfo.substr(0, colon), url));
        if (colon != std::string_view::npos) {
            KILN_TRY(ep.password, percent_decode(userinfo.substr(colon + 1), url));
        } else {
            ep.password = std::move(ep.user);
            ep.user.clear();
        }  // redis://secret@host: a password alone
    }
    std::string_view host = authority;
    if (host.starts_with('[')) {  // [::1]:6379
        auto close = host.find(']');
        if (close == std::string_view::npos) return url_error("unclosed '[' in host", url);
        std::string_view after = host.substr(close + 1);
        host = host.substr(1, close - 1);
        if (!after.empty()) {
            if (after[0] != ':') return url_error("expected ':' after ']'", url);
            KILN_TRY(ep.port, parse_int(after.substr(1), 1, 65535, "port", url));
        }
    } else if (auto colon = host.rfind(':'); colon != std::string_view::npos) {
        KILN_TRY(ep.port, parse_int(host.substr(colon + 1), 1, 65535, "port", url));
        host = host.substr(0, colon);
    }
    if (host.empty()) return url_error("no host", url);
    ep.host = std::string(host);
    return ep;
}

}  // namespace

std::string RedisEndpoint::display() const {
    std::string s(kScheme);
    if (!user.empty()) s += percent_encode(user) + "@";
    bool v6 = host.find(':') != std::string::npos;
    s += (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port) + "/" + std::to_string(db);
    return s;
}

std::string RedisEndpoint::url() const {
    std::string s(kScheme);
    if (!user.empty() || !password.empty()) s += percent_encode(user) + ":" + percent_encode(password) + "@";
    bool v6 = host.find(':') != std::string::npos;
    s += (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port) + "/" + std::to_string(db);
    return s;
}

bool is_redis_url(std::string_view s) { return s.starts_with(kScheme) || s.starts_with("rediss://"); }

Result<RedisEndpoint> parse_redis_url(std::string_view url) {
    std::string_view path;
    KILN_TRY(auto ep, parse_authority(url, path));
    if (path.ends_with('/')) path.remove_suffix(1);
    if (!path.empty()) {
        KILN_TRY(ep.db, parse_int(path, 0, 1 << 20, "database number", url));
    }
    return ep;
}

Result<RedisKeyRef> parse_redis_key_url(std::string_view url) {
    std::string_view path;
    KILN_TRY(auto ep, parse_authority(url, path));
    if (auto slash = path.find('/'); slash != std::string_view::npos && all_digits(path.substr(0, slash))) {
        KILN_TRY(ep.db, parse_int(path.substr(0, slash), 0, 1 << 20, "database number", url));
        path = path.substr(slash + 1);
    }
    if (path.empty())
        return url_error("no key in the URL", url,
                         "expected redis://host:port[/db]/KEY, e.g. …/6379/0/pt2:fx-graph-v1::fabc…:c1");
    KILN_TRY(auto key, percent_decode(path, url));
    return RedisKeyRef{std::move(ep), std::move(key)};
}

Result<RedisEndpoint> redis_endpoint_from_env() {
    if (const char* url = std::getenv("TORCHINDUCTOR_REDIS_URL"); url && *url) {
        auto ep = parse_redis_url(url);
        if (!ep) return std::move(ep.error()).with_context("TORCHINDUCTOR_REDIS_URL");
        return ep;
    }
    const char* host = std::getenv("TORCHINDUCTOR_REDIS_HOST");
    const char* port = std::getenv("TORCHINDUCTOR_REDIS_PORT");
    if ((!host || !*host) && (!port || !*port))
        return make_error(Errc::not_found, "no Redis server given", {},
                          "pass --redis redis://host:port or set TORCHINDUCTOR_REDIS_URL");
    RedisEndpoint ep;
    if (host && *host) ep.host = host;
    if (port && *port) {
        KILN_TRY(ep.port, parse_int(port, 1, 65535, "TORCHINDUCTOR_REDIS_PORT", port));
    }
    return ep;
}

Result<RedisEndpoint> resolve_redis_endpoint(std::string_view spec) {
    if (!spec.empty()) return parse_redis_url(spec);
    return redis_endpoint_from_env();
}

}  // namespace kiln::remote

#include "remote/redis_url.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace kiln::remote;

TEST(RedisUrl, FullForm) {
    auto ep = parse_redis_url("redis://alice:s%3Acret@cache.example.org:6380/3");
    ASSERT_TRUE(ep) << ep.error().str();
    EXPECT_EQ(ep->host, "cache.example.org");
    EXPECT_EQ(ep->port, 6380);
    EXPECT_EQ(ep->user, "alice");
    EXPECT_EQ(ep->password, "s:cret");
    EXPECT_EQ(ep->db, 3);
    EXPECT_EQ(ep->display(), "redis://alice@cache.example.org:6380/3");  // no password
    auto again = parse_redis_url(ep->url());
    ASSERT_TRUE(again);
    EXPECT_EQ(again->password, "s:cret");
    EXPECT_EQ(again->user, "alice");
}

TEST(RedisUrl, Defaults) {
    auto ep = parse_redis_url("redis://localhost");
    ASSERT_TRUE(ep);
    EXPECT_EQ(ep->port, 6379);
    EXPECT_EQ(ep->db, 0);
    EXPECT_TRUE(ep->password.empty());
    auto slash = parse_redis_url("redis://10.0.0.5:7000/");
    ASSERT_TRUE(slash);
    EXPECT_EQ(slash->port, 7000);
}

TEST(RedisUrl, PasswordOnlyForms) {
    auto colon = parse_redis_url("redis://:hunter2@h:1");
    ASSERT_TRUE(colon);
    EXPECT_EQ(colon->user, "");
    EXPECT_EQ(colon->password, "hunter2");
    auto bare = parse_redis_url("redis://hunter2@h:1");  // redis-py reads this as a password
    ASSERT_TRUE(bare);
    EXPECT_EQ(bare->password, "hunter2");
    EXPECT_EQ(bare->user, "");
}

TEST(RedisUrl, Ipv6) {
    auto ep = parse_redis_url("redis://[::1]:6390/2");
    ASSERT_TRUE(ep) << ep.error().str();
    EXPECT_EQ(ep->host, "::1");
    EXPECT_EQ(ep->port, 6390);
    EXPECT_EQ(ep->display(), "redis://[::1]:6390/2");
}

TEST(RedisUrl, Rejections) {
    auto tls = parse_redis_url("rediss://h:6379");
    ASSERT_FALSE(tls);
    EXPECT_EQ(tls.error().code, kiln::Errc::unsupported);
    EXPECT_NE(tls.error().hint.find("hiredis 0.14"), std::string::npos);
    for (const char* bad : {"http://h:1", "redis://h:0", "redis://h:70000", "redis://h:12x", "redis://:pw@:6379",
                            "redis://h:1/db", "redis://%zz@h"}) {
        auto r = parse_redis_url(bad);
        EXPECT_FALSE(r) << bad;
        if (!r) {
            EXPECT_EQ(r.error().code, kiln::Errc::invalid_argument) << bad;
        }
    }
    auto pw = parse_redis_url("redis://u:topsecret@h:99999");
    ASSERT_FALSE(pw);
    EXPECT_EQ(pw.error().str().find("topsecret"), std::string::npos) << pw.error().str();
}

TEST(RedisUrl, KeyUrls) {
    auto a = parse_redis_key_url("redis://h:1/pt2:fx-graph-v1::fabc:c1");
    ASSERT_TRUE(a) << a.error().str();
    EXPECT_EQ(a->endpoint.db, 0);
    EXPECT_EQ(a->key, "pt2:fx-graph-v1::fabc:c1");
    auto b = parse_redis_key_url("redis://:pw@h:1/4/pt2:autograd-experimental::aq:c1");
    ASSERT_TRUE(b);
    EXPECT_EQ(b->endpoint.db, 4);
    EXPECT_EQ(b->endpoint.password, "pw");
    EXPECT_EQ(b->key, "pt2:autograd-experimental::aq:c1");
    EXPECT_FALSE(parse_redis_key_url("redis://h:1/"));
    EXPECT_FALSE(parse_redis_key_url("redis://h:1"));
    EXPECT_TRUE(is_redis_url("redis://x"));
    EXPECT_FALSE(is_redis_url("/tmp/redis://x"));
}

TEST(RedisUrl, TorchEnvironment) {
    ::unsetenv("TORCHINDUCTOR_REDIS_URL");
    ::unsetenv("TORCHINDUCTOR_REDIS_HOST");
    ::unsetenv("TORCHINDUCTOR_REDIS_PORT");
    auto none = redis_endpoint_from_env();
    ASSERT_FALSE(none);
    EXPECT_EQ(none.error().code, kiln::Errc::not_found);

    ::setenv("TORCHINDUCTOR_REDIS_PORT", "6390", 1);
    auto port_only = redis_endpoint_from_env();
    ASSERT_TRUE(port_only);
    EXPECT_EQ(port_only->host, "localhost");
    EXPECT_EQ(port_only->port, 6390);

    ::setenv("TORCHINDUCTOR_REDIS_HOST", "cachebox", 1);
    auto host_port = redis_endpoint_from_env();
    ASSERT_TRUE(host_port);
    EXPECT_EQ(host_port->host, "cachebox");

    ::setenv("TORCHINDUCTOR_REDIS_URL", "redis://other:7001/1", 1);  // the URL wins, as in torch
    auto url = resolve_redis_endpoint("");
    ASSERT_TRUE(url);
    EXPECT_EQ(url->host, "other");
    EXPECT_EQ(url->db, 1);
    auto explicit_spec = resolve_redis_endpoint("redis://given:1");
    ASSERT_TRUE(explicit_spec);
    EXPECT_EQ(explicit_spec->host, "given");

    ::setenv("TORCHINDUCTOR_REDIS_URL", "redis://broken:port", 1);
    auto bad = redis_endpoint_from_env();
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().context.find("TORCHINDUCTOR_REDIS_URL"), std::string::npos);
    ::unsetenv("TORCHINDUCTOR_REDIS_URL");
    ::unsetenv("TORCHINDUCTOR_REDIS_HOST");
    ::unsetenv("TORCHINDUCTOR_REDIS_PORT");
}

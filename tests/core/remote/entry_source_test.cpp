// fetch_entry: redis:// entries for frontend/entry_ref.hpp (show, guards, diff), the same bytes as
// the local file (local paths: tests/core/frontend/entry_ref_test.cpp).
#include "remote/entry_source.hpp"

#include <gtest/gtest.h>

#include "redis_server.hpp"
#include "remote/remote_export.hpp"
#include "remote/remote_value.hpp"

using namespace kiln::remote;

TEST(EntrySource, RemoteUrlsGiveTheLocalFilesBytes) {
    kiln::test::RedisServer server;
    auto client = RedisClient::connect(*parse_redis_url(server.url(2)));
    ASSERT_TRUE(client) << client.error().str();
    auto items = remote_items_from_local(kiln::test::two_entries_root());
    ASSERT_TRUE(items) << items.error().str();
    ASSERT_TRUE(publish_items(*client, *items));
    const RemoteItem* last_fx = nullptr;
    for (const auto& it : *items)
        if (it.redis_key.starts_with("pt2:fx-graph-v1::")) last_fx = &it;
    ASSERT_NE(last_fx, nullptr);
    std::string local = kiln::test::read_file(last_fx->source_path);

    // Full Redis key, db 2 in the path.
    auto full = fetch_entry(server.url(2) + "/" + last_fx->redis_key);
    ASSERT_TRUE(full) << full.error().str();
    EXPECT_EQ(full->bytes, local);
    EXPECT_EQ(full->origin, "redis://127.0.0.1:" + std::to_string(server.port()) + "/2/" + last_fx->redis_key);

    // Inductor's key alone.
    std::string key = parse_remote_key(last_fx->redis_key)->key;
    auto short_form = fetch_entry(server.url(2) + "/" + key);
    ASSERT_TRUE(short_form) << short_form.error().str();
    EXPECT_EQ(short_form->bytes, local);
}

TEST(EntrySource, ErrorsSayWhatIsThere) {
    kiln::test::RedisServer server;
    auto client = RedisClient::connect(*parse_redis_url(server.url()));
    ASSERT_TRUE(client);
    ASSERT_TRUE(client->set("pt2:autotune-best-config-v2::abc:c1", R"({"XBLOCK": 4})"));
    ASSERT_TRUE(client->set("pt2:fx-graph-v1::fjunk:c1", "junk"));

    auto missing = fetch_entry(server.url() + "/fnothere");
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code, kiln::Errc::not_found);
    EXPECT_NE(missing.error().hint.find("pt2:fx-graph-v1::fnothere:c1"), std::string::npos) << missing.error().str();

    auto json = fetch_entry(server.url() + "/pt2:autotune-best-config-v2::abc:c1");
    ASSERT_FALSE(json);
    EXPECT_EQ(json.error().code, kiln::Errc::invalid_argument);
    EXPECT_NE(json.error().message.find("JSON"), std::string::npos);
    auto value = load_remote_value(server.url() + "/pt2:autotune-best-config-v2::abc:c1");
    ASSERT_TRUE(value);
    EXPECT_EQ(value->json["XBLOCK"], 4);

    auto junk = fetch_entry(server.url() + "/fjunk");
    ASSERT_FALSE(junk);
    EXPECT_EQ(junk.error().code, kiln::Errc::parse);
    EXPECT_NE(junk.error().message.find("not JSON"), std::string::npos) << junk.error().str();
}

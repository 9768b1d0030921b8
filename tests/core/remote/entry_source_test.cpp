// load_entry_any / LocalCopy: one resolver for local paths and redis:// entries (show, guards, diff).
#include "remote/entry_source.hpp"
#include "remote/local_copy.hpp"

#include <gtest/gtest.h>

#include "redis_server.hpp"
#include "remote/remote_export.hpp"
#include "remote/remote_value.hpp"

using namespace kiln::remote;

TEST(EntrySource, LocalPathsAndRemoteUrlsGiveTheSameBytes) {
    kiln::test::RedisServer server;
    auto client = RedisClient::connect(*parse_redis_url(server.url(2)));
    ASSERT_TRUE(client) << client.error().str();
    auto items = remote_items_from_local(kiln::test::two_entries_root());
    ASSERT_TRUE(items) << items.error().str();
    ASSERT_TRUE(publish_items(*client, *items));
    const RemoteItem* last_fx = nullptr;
    for (const auto& it : *items) if (it.redis_key.starts_with("pt2:fx-graph-v1::")) last_fx = &it;
    ASSERT_NE(last_fx, nullptr);
    std::string local = kiln::test::read_file(last_fx->source_path);

    auto from_path = load_entry_any(last_fx->source_path);
    ASSERT_TRUE(from_path) << from_path.error().str();
    EXPECT_FALSE(from_path->remote);
    EXPECT_EQ(from_path->bytes, local);

    // Full Redis key, db 2 in the path.
    auto full = load_entry_any(server.url(2) + "/" + last_fx->redis_key);
    ASSERT_TRUE(full) << full.error().str();
    EXPECT_TRUE(full->remote);
    EXPECT_EQ(full->bytes, local);
    EXPECT_EQ(full->origin, "redis://127.0.0.1:" + std::to_string(server.port()) + "/2/" + last_fx->redis_key);

    // Inductor's key alone.
    std::string key = parse_remote_key(last_fx->redis_key)->key;
    auto short_form = load_entry_any(server.url(2) + "/" + key);
    ASSERT_TRUE(short_form) << short_form.error().str();
    EXPECT_EQ(short_form->bytes, local);

    auto copy = LocalCopy::fetch(server.url(2) + "/" + key);
    ASSERT_TRUE(copy) << copy.error().str();
    EXPECT_EQ(kiln::test::read_file(copy->entry()), local);
    EXPECT_EQ(copy->key_dir().filename(), key);
    auto dir = copy->key_dir().parent_path();
    { LocalCopy moved = std::move(*copy); }
    EXPECT_FALSE(std::filesystem::exists(dir));

    std::string spec = server.url(2) + "/" + key;
    std::optional<LocalCopy> keep;
    ASSERT_TRUE(localize(spec, keep));
    ASSERT_TRUE(keep.has_value());
    EXPECT_EQ(spec, keep->entry().string());
    EXPECT_EQ(kiln::test::read_file(spec), local);
    std::string path = last_fx->source_path;
    std::optional<LocalCopy> untouched;
    ASSERT_TRUE(localize(path, untouched));
    EXPECT_EQ(path, last_fx->source_path);
    EXPECT_FALSE(untouched.has_value());
}

TEST(EntrySource, ErrorsSayWhatIsThere) {
    kiln::test::RedisServer server;
    auto client = RedisClient::connect(*parse_redis_url(server.url()));
    ASSERT_TRUE(client);
    ASSERT_TRUE(client->set("pt2:autotune-best-config-v2::abc:c1", R"({"XBLOCK": 4})"));
    ASSERT_TRUE(client->set("pt2:fx-graph-v1::fjunk:c1", "junk"));

    auto missing = load_entry_any(server.url() + "/fnothere");
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code, kiln::Errc::not_found);
    EXPECT_NE(missing.error().hint.find("pt2:fx-graph-v1::fnothere:c1"), std::string::npos) << missing.error().str();

    auto json = load_entry_any(server.url() + "/pt2:autotune-best-config-v2::abc:c1");
    ASSERT_FALSE(json);
    EXPECT_EQ(json.error().code, kiln::Errc::invalid_argument);
    EXPECT_NE(json.error().message.find("JSON"), std::string::npos);
    auto value = load_remote_value(server.url() + "/pt2:autotune-best-config-v2::abc:c1");
    ASSERT_TRUE(value);
    EXPECT_EQ(value->json["XBLOCK"], 4);

    auto junk = load_entry_any(server.url() + "/fjunk");
    ASSERT_FALSE(junk);
    EXPECT_EQ(junk.error().code, kiln::Errc::parse);
    EXPECT_NE(junk.error().message.find("not JSON"), std::string::npos) << junk.error().str();

    auto no_file = load_entry_any("/nonexistent/entry");
    ASSERT_FALSE(no_file);
    EXPECT_EQ(no_file.error().code, kiln::Errc::not_found);
}

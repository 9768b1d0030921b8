// Shared<T>: copies share one object, a change is the changer's own, and JSON writes the value.
#include "util/shared_value.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace {

using kiln::Shared;
using Json = nlohmann::ordered_json;

TEST(Shared, CopiesShareOneObject) {
    Shared<std::string> a(std::string(100, 'x'));
    Shared<std::string> b = a;
    EXPECT_EQ(&a.get(), &b.get());
    EXPECT_EQ(b, std::string(100, 'x'));
    Shared<std::string> none, other_none;
    EXPECT_EQ(&none.get(), &other_none.get()) << "every default-made holder shares one T{}";
    EXPECT_TRUE(none->empty());
}

TEST(Shared, AnEditIsTheEditorsOwnAndCopiesOnlyWhenShared) {
    Shared<Json> a(Json{{"BLOCK_M", 64}});
    Shared<Json> b = a;
    b.edit()["num_warps"] = 4;
    EXPECT_EQ(a->dump(), R"({"BLOCK_M":64})");
    EXPECT_EQ(b->dump(), R"({"BLOCK_M":64,"num_warps":4})");
    const Json* own = &b.get();
    b.edit()["num_stages"] = 3;  // b's alone now: changed in place
    EXPECT_EQ(&b.get(), own);
    Shared<Json> fresh;  // the shared null: an edit must not change it for every other holder
    fresh.edit()["x"] = 1;
    EXPECT_TRUE(Shared<Json>()->is_null());
}

TEST(Shared, HoldsTheValueItIsMadeFromAndWritesItAsJson) {
    const Json params = {{"BLOCK_M", 64}, {"num_warps", 4}};
    Shared<Json> braced{params};  // not [params], as Json{params} would be
    EXPECT_TRUE(braced->is_object());
    Shared<std::string> path("/tmp/c2/c2omz.py");
    // Inside a braced JSON list: a key/value pair of an object, not a two-element array.
    Json j = {{"params", braced}, {"module", path}};
    EXPECT_EQ(j.dump(), R"({"params":{"BLOCK_M":64,"num_warps":4},"module":"/tmp/c2/c2omz.py"})");
    EXPECT_EQ(braced["num_warps"], 4);
    EXPECT_TRUE(braced == params);
    EXPECT_FALSE(braced == Shared<Json>(Json::object()));
}

// Copies made and dropped on several threads while each edits its own (TSan runs this file).
TEST(Shared, CopiesCrossThreads) {
    const Shared<Json> origin(Json{{"BLOCK_M", 64}});
    std::vector<std::thread> threads;
    std::vector<int> sums(4, 0);
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < 2000; ++i) {
                Shared<Json> mine = origin;
                if (i % 7 == 0) mine.edit()["i"] = i;
                sums[t] += mine["BLOCK_M"].get<int>();
            }
        });
    for (auto& th : threads) th.join();
    for (int s : sums) EXPECT_EQ(s, 2000 * 64);
    EXPECT_EQ(origin->dump(), R"({"BLOCK_M":64})");
}

}  // namespace

// Names from inputs as file-name parts (util/path_component): an op key "x/../../outside/pwn" once put a
// session log outside the cache.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "util/path_component.hpp"

namespace kiln {
namespace {

TEST(FileNamePart, APlainNameStaysAsItIs) {
    EXPECT_EQ(file_name_part("mm"), "mm");
    EXPECT_EQ(file_name_part("addmm_bias-1"), "addmm_bias-1");
}

TEST(FileNamePart, AnyOtherNameIsEscapedBoundedAndTellsApart) {
    const std::set<std::string> names = {"x/../../.../outside/pwn",
                                         "..",
                                         ".",
                                         "",
                                         "a b",
                                         "a/b",
                                         "a_b\n",
                                         std::string(5000, 'm'),
                                         std::string(5000, 'm') + "n",
                                         "\xff\xfe",
                                         std::string("a\0b", 3)};
    std::set<std::string> parts;
    for (const auto& n : names) {
        const std::string p = file_name_part(n);
        EXPECT_FALSE(p.empty()) << n;
        EXPECT_LE(p.size(), 57u) << n;
        EXPECT_EQ(p.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"),
                  std::string::npos)
            << p;
        EXPECT_TRUE(is_plain_file_name(p)) << p;
        parts.insert(p);
    }
    EXPECT_EQ(parts.size(), names.size());  // no two alike
    EXPECT_EQ(file_name_part("x/../../.../outside/pwn").rfind("x___________outside_pwn-", 0), 0u)
        << file_name_part("x/../../.../outside/pwn");
}

TEST(IsPlainFileName, OnlyNamesThatStayInTheirFolder) {
    for (const char* ok : {"c24kvwr6kusedkhok3emjdjffgmokvb7hdk5uqnmed7h576xrh5t", "2b00ebb9d40b504fab0d8c90734118",
                           "csv.py", "a-b_c.best_config"})
        EXPECT_TRUE(is_plain_file_name(ok)) << ok;
    for (const std::string& bad : {std::string(), std::string("."), std::string(".."), std::string("../x"),
                                   std::string("a/b"), std::string("/abs"), std::string(".hidden"), std::string("a b"),
                                   std::string(256, 'a'), std::string("a\0b", 3)})
        EXPECT_FALSE(is_plain_file_name(bad)) << bad;
}

}  // namespace
}  // namespace kiln

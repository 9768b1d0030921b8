// CRC-32 as zlib computes it: the check value, a bitwise reference, running checksums.
#include <gtest/gtest.h>

#include <string>

#include "blob_craft.hpp"
#include "hash/crc32.hpp"

namespace kiln::hash {
namespace {

namespace craft = test::craft;

TEST(Crc32, IsZlibs) {
    EXPECT_EQ(crc32(""), 0u);
    EXPECT_EQ(crc32("123456789"), 0xCBF43926u);  // the CRC-32/ISO-HDLC check value
    std::string all;
    for (int i = 0; i < 1000; ++i) all += static_cast<char>(i * 7);
    EXPECT_EQ(crc32(all), craft::crc32(all));
    for (std::size_t cut : {0, 1, 7, 8, 9, 500, 999})
        EXPECT_EQ(crc32(all.substr(cut), crc32(all.substr(0, cut))), crc32(all));
}

}  // namespace
}  // namespace kiln::hash

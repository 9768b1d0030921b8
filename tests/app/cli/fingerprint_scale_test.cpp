// A fingerprint of 300,000 components through every command that reads one (`env --from`, `portable
// --target`, `check --target`). Loading was quadratic (40k components took 4 s, 300k timed out); this
// file's tests run under a TIMEOUT property (tests/app/CMakeLists.txt) that linear loading meets many
// times over and quadratic loading cannot: the test itself times nothing.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "test_support.hpp"

namespace {

using kiln::test::cli_path;
using kiln::test::run_command;
using nlohmann::ordered_json;
namespace fs = std::filesystem;

constexpr int kComponents = 300000;

// The H100 fixture's own fingerprint plus many components (a few of them config, which `portable`
// compares with each key's inductor_config lines), facts and unknown names.
fs::path write_big_fingerprint(const fs::path& dir) {
    auto env = run_command({cli_path(), "env", "--from", kiln::test::h100_root().string(), "--json"});
    EXPECT_EQ(env.exit_code, 0) << env.err;
    ordered_json fp = ordered_json::parse(env.out);
    for (int i = 0; i < kComponents; ++i) {
        const std::string n = std::to_string(i);
        if (i % 3 == 0)
            fp["facts"].push_back({{"name", "fact_" + n}, {"value", n}, {"scope", "machine"}, {"source", "test"}});
        else
            fp["components"].push_back({{"name", i < 300 ? "inductor_config[kiln_test_" + n + "]" : "kiln_test_" + n},
                                        {"value", n},
                                        {"hash", nullptr},
                                        {"scope", "environment"},
                                        {"source", "test"}});
        if (i % 10 == 0) fp["unknown"].push_back({{"name", "unknown_" + n}, {"why", "test"}});
    }
    const fs::path file = dir / "big.json";
    std::ofstream(file) << fp.dump();
    return file;
}

TEST(CliFingerprintScale, ThreeHundredThousandComponentsLoadInEveryCommand) {
    kiln::test::ScratchDir dir("cli-fingerprint-scale");
    const fs::path big = write_big_fingerprint(dir.path());

    auto env = run_command({cli_path(), "env", "--from", big.string(), "--json"});
    ASSERT_EQ(env.exit_code, 0) << env.err;
    ordered_json back = ordered_json::parse(env.out);
    EXPECT_GE(back["components"].size() + back["facts"].size(), static_cast<std::size_t>(kComponents));
    EXPECT_GE(back["unknown"].size(), static_cast<std::size_t>(kComponents / 10));

    // Each config component the target sets is compared with each entry's key: they differ here.
    auto portable =
        run_command({cli_path(), "portable", kiln::test::h100_root().string(), "--target", big.string(), "--json"});
    EXPECT_EQ(portable.exit_code, 1) << portable.err;
    EXPECT_NE(portable.out.find("kiln_test_298"), std::string::npos);

    auto check = run_command({cli_path(), "check", kiln::test::h100_root().string(), "--target", big.string()});
    EXPECT_NE(check.exit_code, 2) << check.err;
}

}  // namespace

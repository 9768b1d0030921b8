// A blob opened through the one route (frontend::open_cache) finds the runs kept beside the blob file (issue 33: a blob's Overview named
// its frames "(unnamed)" and its timeline was empty), through links that go with the temporary root and
// never take what they point at with them.
#include <gtest/gtest.h>

#include "frontend/open_cache.hpp"
#include "test_support.hpp"
#include "trace/compile_timeline.hpp"
#include "trace/graph_names.hpp"

namespace kiln::frontend {
namespace {

namespace fs = std::filesystem;

TEST(BlobTraces, ABlobsRootFindsTheRunsBesideTheBlob) {
    const fs::path h200 = test::fixture_dir() / "h100h200" / "h200";
    fs::path temp;
    {
        auto opened = open_cache(h200 / "megacache.bin");
        ASSERT_TRUE(opened.ok()) << opened.error().str();
        ASSERT_TRUE(opened->is_blob());
        temp = opened->root.parent_path();
        const auto dirs = trace::find_trace_dirs(opened->root);
        ASSERT_EQ(dirs.size(), 1u);
        EXPECT_EQ(fs::canonical(dirs[0]), fs::canonical(h200 / "trace"));
        EXPECT_TRUE(fs::is_symlink(temp / "trace"));
        // `ls` names the blob's entries by the frames that compiled them.
        auto list = trace::list_named_graphs(opened->opened(), std::nullopt);
        ASSERT_TRUE(list.ok()) << list.error().str();
        int named = 0;
        for (const auto& r : list->rows) named += r.label().find("(gen_inductor_cache.py:") != std::string::npos;
        EXPECT_GE(named, 5) << "of " << list->rows.size();
        // The timeline of the runs that wrote it: warm, then mega.
        auto t = trace::read_compile_timelines(dirs);
        ASSERT_EQ(t.processes.size(), 2u);
        EXPECT_EQ(t.processes[1].label, "mega");
    }
    EXPECT_FALSE(fs::exists(temp));                 // the links went with the temporary root
    EXPECT_TRUE(fs::is_directory(h200 / "trace"));  // what they pointed at did not
    EXPECT_FALSE(fs::is_empty(h200 / "trace" / "mega"));
}

}  // namespace
}  // namespace kiln::frontend

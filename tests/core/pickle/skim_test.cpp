// skim_file: a skimmed graph entry decodes to the tree the whole file decodes to (large bytes payloads
// left out, their sizes kept) after reading a fraction of it, and a file cut anywhere fails with the
// same message at the same byte as the whole-file decode.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "pickle/buffer.hpp"
#include "pickle/decoder.hpp"
#include "pickle/skim.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace kiln::pickle;

namespace {

// The same tree: kinds, offsets, scalars and texts (an elided payload: its size), children in order.
void expect_same(Ref full, Ref skim, std::set<std::pair<Ref, Ref>>& seen, std::size_t& elided) {
    ASSERT_EQ(full == nullptr, skim == nullptr);
    if (!full || !seen.insert({full, skim}).second) return;
    ASSERT_EQ(full->kind(), skim->kind()) << "at byte " << full->offset();
    ASSERT_EQ(full->offset(), skim->offset());
    if (skim->elided()) {
        ++elided;
        EXPECT_TRUE(skim->text().empty());
        EXPECT_EQ(skim->byte_size(), full->text().size());
    } else {
        EXPECT_FALSE(full->elided());
        EXPECT_EQ(full->text(), skim->text());
    }
    switch (full->kind()) {
        case Kind::integer: EXPECT_EQ(full->as_int().to_decimal(), skim->as_int().to_decimal()); break;
        case Kind::floating: EXPECT_EQ(full->as_double(), skim->as_double()); break;
        case Kind::boolean: EXPECT_EQ(full->as_bool(), skim->as_bool()); break;
        case Kind::global: EXPECT_EQ(full->name(), skim->name()); break;
        default: break;
    }
    auto a = children(full), b = children(skim);
    ASSERT_EQ(a.size(), b.size()) << "at byte " << full->offset();
    for (std::size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].label, b[i].label);
        expect_same(a[i].value, b[i].value, seen, elided);
    }
}

std::vector<fs::path> graph_entries(const fs::path& root) {
    std::vector<fs::path> out;
    for (const char* dir : {"fxgraph", "aotautograd"})
        for (const auto& e : fs::recursive_directory_iterator(root / dir))
            if (e.is_regular_file()) out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

fs::path largest(const std::vector<fs::path>& files) {
    return *std::max_element(files.begin(), files.end(),
                             [](const fs::path& a, const fs::path& b) { return fs::file_size(a) < fs::file_size(b); });
}

std::string outcome(const kiln::Result<std::shared_ptr<const Buffer>>& buffer) {
    if (!buffer) return "load: " + buffer.error().str();
    auto doc = decode(*buffer);
    return doc ? "ok" : doc.error().str();
}

void write(const fs::path& p, std::string_view bytes) { std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes; }

}  // namespace

TEST(Skim, EveryFixtureEntryDecodesToTheSameTree) {
    std::size_t elided = 0;
    for (const auto& path : graph_entries(kiln::test::h100_root())) {
        auto full = decode_file(path);
        ASSERT_TRUE(full.ok()) << full.error().str();
        SkimStats stats;
        auto buffer = skim_file(path, 4096, &stats);
        ASSERT_TRUE(buffer.ok()) << buffer.error().str();
        auto skim = decode(*buffer);
        ASSERT_TRUE(skim.ok()) << path << ": " << skim.error().str();
        EXPECT_EQ(stats.file_bytes, fs::file_size(path));
        EXPECT_LE(stats.read_bytes, stats.file_bytes);
        std::set<std::pair<Ref, Ref>> seen;
        expect_same((*full)->root(), (*skim)->root(), seen, elided);
        EXPECT_EQ((*full)->node_count(), (*skim)->node_count());
    }
    EXPECT_GT(elided, 100u);  // the bundled Triton binaries
}

TEST(Skim, ReadsAFractionOfAnEntryThatBundlesKernels) {
    fs::path big = largest(graph_entries(kiln::test::h100_root()));
    SkimStats stats;
    auto buffer = skim_file(big, 4096, &stats);
    ASSERT_TRUE(buffer.ok()) << buffer.error().str();
    EXPECT_GT(stats.file_bytes, 4'000'000u);
    EXPECT_LT(stats.read_bytes, stats.file_bytes / 4) << stats.read_bytes << " of " << stats.file_bytes;
    EXPECT_LT((*buffer)->bytes().size(), stats.file_bytes / 4);
    EXPECT_EQ((*buffer)->source_size(), stats.file_bytes);
}

TEST(Skim, AFileCutAnywhereFailsAsTheWholeFileDoes) {
    kiln::test::ScratchDir dir{"pickle-skim-cut"};
    auto entries = graph_entries(kiln::test::h100_root());
    // A mid-sized entry with bundled kernels: cut around its payloads and at even steps.
    fs::path src;
    for (const auto& e : entries)
        if (fs::file_size(e) > 500'000 && fs::file_size(e) < 2'000'000) src = e;
    ASSERT_FALSE(src.empty());
    std::string bytes = kiln::test::read_file(src);
    auto skimmed = skim_file(src);
    ASSERT_TRUE(skimmed.ok());
    std::vector<std::size_t> cuts{0, 1, 2, bytes.size() - 1};
    for (std::size_t k = 1; k < 16; ++k) cuts.push_back(bytes.size() * k / 16);
    std::uint64_t skipped = 0;
    auto elisions = (*skimmed)->elisions();
    ASSERT_GT(elisions.size(), 3u);
    for (std::size_t i = 0; i < elisions.size(); ++i) {
        std::uint64_t op = elisions[i].at + skipped, len = elisions[i].length;
        skipped += len;
        if (i % (elisions.size() / 3) != 0) continue;
        std::uint64_t w = bytes[op] == 'B' ? 4 : 8;  // BINBYTES, else BINBYTES8 / BYTEARRAY8
        for (std::uint64_t c :
             {op, op + 1, op + 1 + w / 2, op + 1 + w, op + 1 + w + len / 2, op + w + len, op + 1 + w + len})
            cuts.push_back(static_cast<std::size_t>(c));
    }
    fs::path cut_file = dir.path() / "entry";
    for (std::size_t cut : cuts) {
        ASSERT_LT(cut, bytes.size());
        write(cut_file, std::string_view(bytes).substr(0, cut));
        std::string whole = outcome(load_file(cut_file));
        EXPECT_NE(whole, "ok") << cut;
        EXPECT_EQ(outcome(skim_file(cut_file)), whole) << "cut at " << cut << " of " << bytes.size();
    }
}

TEST(Skim, FrameLengthsAreCheckedAgainstTheWholeFile) {
    kiln::test::ScratchDir dir{"pickle-skim-frame"};
    // PROTO 4, FRAME n, BINBYTES8 5000 + payload, STOP: the frame spans the elided payload.
    auto pickle = [](std::uint64_t frame) {
        std::string s = "\x80\x04\x95";
        for (int k = 0; k < 8; ++k) s += static_cast<char>((frame >> (8 * k)) & 0xff);
        s += '\x8e';
        for (int k = 0; k < 8; ++k) s += static_cast<char>((5000ull >> (8 * k)) & 0xff);
        return s + std::string(5000, 'x') + ".";
    };
    fs::path p = dir.path() / "framed";
    for (std::uint64_t frame : {5010ull, 5011ull, 9ull}) {
        write(p, pickle(frame));
        std::string whole = outcome(load_file(p));
        EXPECT_EQ(outcome(skim_file(p)), whole) << frame;
        EXPECT_EQ(whole == "ok", frame != 5011) << whole;
    }
}

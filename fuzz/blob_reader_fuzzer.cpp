// libFuzzer target: any byte string through the Mega-Cache blob reader (framing, strict base64,
// UTF-8 and key checks, targets, shadowed groups), the writer (what reads back must rebuild to the
// same artifacts) and unpack's planning. Every path must return a value or an error: a crash, a
// sanitizer report, a timeout or an over-allocation is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "bundle/blob.hpp"
#include "bundle/blob_writer.hpp"
#include "bundle/unpack.hpp"
#include "inductor/graph_entry.hpp"

namespace {

using namespace kiln;
using namespace kiln::bundle;

class View final : public pickle::Buffer {
public:
    explicit View(std::string_view b) : Buffer("fuzz"), b_(b) {}
    std::string_view bytes() const override { return b_; }

private:
    std::string_view b_;
};

// An absolute path, or one with an empty, "." or ".." segment.
bool leaves_root(std::string_view rel) {
    if (rel.empty() || rel.front() == '/') return true;
    while (true) {
        auto slash = rel.find('/');
        std::string_view seg = rel.substr(0, slash);
        if (seg.empty() || seg == "." || seg == "..") return true;
        if (slash == std::string_view::npos) return false;
        rel.remove_prefix(slash + 1);
    }
}

// A blob the reader accepted, written again by Kiln's writer, must read back to the same artifacts.
void check_round_trip(const Blob& blob) {
    if (!blob.unknown_types().empty() || blob.invalid_keys()) return;
    std::vector<OutGroup> groups;
    for (const auto& g : blob.groups) {
        if (g.ignored_by_torch) return;  // the writer refuses two groups of a type
        groups.push_back({g.kind, {}});
        for (std::size_t i = 0; i < g.count; ++i)
            groups.back().artifacts.push_back({blob.artifacts[g.first + i].key, blob.artifacts[g.first + i].content});
    }
    auto bytes = build_blob(groups);
    if (!bytes.ok()) __builtin_trap();
    auto again = read_blob(std::make_shared<View>(*bytes));
    if (!again.ok() || again->artifacts.size() != blob.artifacts.size()) __builtin_trap();
    for (std::size_t i = 0; i < blob.artifacts.size(); ++i)
        if (again->artifacts[i].key != blob.artifacts[i].key ||
            again->artifacts[i].content != blob.artifacts[i].content ||
            again->artifacts[i].target != blob.artifacts[i].target)
            __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view bytes(reinterpret_cast<const char*>(data), size);
    (void)looks_like_blob(bytes);
    auto strict = read_blob(std::make_shared<View>(bytes));
    if (!strict.ok()) (void)strict.error().str();

    ReadOptions lenient;
    lenient.verify_checksum = false;  // mutations break the CRC: still explore everything behind it
    auto blob = read_blob(std::make_shared<View>(bytes), lenient);
    if (!blob.ok()) {
        (void)blob.error().str();
        return 0;
    }
    for (const auto& a : blob->artifacts) {
        // Nothing a refused key becomes may be a path; a valid one never leaves the root.
        if (!a.key_problem.empty() && !a.target.empty()) __builtin_trap();
        if (!a.target.empty() && leaves_root(a.target)) __builtin_trap();
        if (a.kind == ArtifactType::inductor || a.kind == ArtifactType::aot_autograd) {
            auto entry = inductor::decode_graph_entry(artifact_buffer(*blob, a));
            if (entry.ok()) (void)entry->type();
        }
    }
    check_round_trip(*blob);
    UnpackOptions plan;
    plan.dry_run = true;
    plan.ignore_unknown = true;
    auto report = unpack_blob(*blob, "/nonexistent/kiln-fuzz-root", plan);
    if (report.ok()) (void)report->conflicts();
    return 0;
}

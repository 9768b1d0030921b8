#include "bundle/root_artifacts.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>

#include "inductor/roots.hpp"
#include "inductor/scanner.hpp"
#include "util/regular_file.hpp"

namespace kiln::bundle {
namespace {

using inductor::Category;

std::optional<ArtifactType> type_of(Category c) {
    switch (c) {
        case Category::fxgraph: return ArtifactType::inductor;
        case Category::aotautograd: return ArtifactType::aot_autograd;
        case Category::best_config: return ArtifactType::autotune;
        case Category::pgo_profile: return ArtifactType::pgo;
        case Category::precompile_entry: return ArtifactType::precompile;
        default: return std::nullopt;
    }
}

std::string_view file_name(std::string_view rel) { return rel.substr(rel.rfind('/') + 1); }

// The key torch used when it wrote this file (inverse of load_target).
std::string key_of(ArtifactType t, const inductor::Artifact& a) {
    std::string_view rel = a.rel_path();
    switch (t) {
        case ArtifactType::autotune: return std::string(rel);  // "<xx>/<hex64>.best_config"
        case ArtifactType::pgo: {
            std::string_view name = file_name(rel);  // code_state_<S>.pkl
            return std::string(name.substr(11, name.size() - 15));
        }
        default: return std::string(a.key());  // key dir name / precompile id
    }
}

}  // namespace

Result<std::shared_ptr<const pickle::Buffer>> read_root_artifact(int root_fd, const RootArtifact& a,
                                                                 std::uint64_t max_bytes) {
    KILN_TRY(OpenedFile file, open_regular_file_beneath(root_fd, a.rel_path, a.path));
    struct stat st {};
    if (::fstat(file.fd.get(), &st) != 0) return io_error("cannot stat", a.path, errno);
    if (static_cast<std::uint64_t>(st.st_ino) != a.ino || file.size != a.size)
        return make_error(Errc::busy, "changed since the scan (replaced or rewritten); not packed", a.path,
                          "pack again once the cache is not being written");
    return pickle::load_opened_file(file, a.path, max_bytes);
}

int blob_type_rank(ArtifactType t) {
    switch (t) {
        case ArtifactType::aot_autograd: return 0;
        case ArtifactType::inductor: return 1;
        case ArtifactType::autotune: return 2;
        case ArtifactType::pgo: return 3;
        case ArtifactType::precompile: return 4;
        case ArtifactType::unknown: break;
    }
    return 5;
}

Result<RootArtifacts> collect_root_artifacts(const inductor::OpenedRoot& root) {
    inductor::ScanOptions options;
    options.kind = inductor::RootKind::inductor;
    options.sniff_python = false;
    KILN_TRY(auto scan, inductor::scan_cache(root, options));
    RootArtifacts out;
    out.root = scan.root;
    for (const auto& a : scan.artifacts) {
        auto type = type_of(a.category);
        if (!type) continue;
        if (file_name(a.rel_path()).substr(0, 1) == ".") continue;  // hidden or an in-flight write_atomic
        std::string key = key_of(*type, a);
        Status ok = check_key(*type, key);
        if (!ok.ok()) {
            out.skipped.push_back(std::string(a.rel_path()) + ": " + ok.error().message);
            continue;
        }
        out.artifacts.push_back(
            {*type, std::move(key), a.path(), std::string(a.rel_path()), a.size, a.mtime_ns, a.ino});
    }
    std::sort(out.artifacts.begin(), out.artifacts.end(), [](const RootArtifact& x, const RootArtifact& y) {
        if (blob_type_rank(x.type) != blob_type_rank(y.type)) return blob_type_rank(x.type) < blob_type_rank(y.type);
        return x.key != y.key ? x.key < y.key : x.rel_path < y.rel_path;
    });
    return out;
}

}  // namespace kiln::bundle

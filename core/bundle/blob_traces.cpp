#include "bundle/blob_traces.hpp"

#include "bundle/temp_root.hpp"
#include "trace/compile_timeline.hpp"

namespace kiln::bundle {

int link_traces_beside(const std::filesystem::path& blob, const TempRoot& tmp) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path beside = fs::absolute(blob, ec).lexically_normal().parent_path();
    const fs::path into = tmp.root().parent_path();
    if (ec || beside.empty() || into.empty()) return 0;
    int linked = 0;
    for (const fs::path& dir : trace::find_trace_dirs(blob)) {
        const fs::path rel = dir.lexically_relative(beside);
        if (rel.empty() || *rel.begin() == ".." || rel == "inductor") continue;
        fs::create_directories((into / rel).parent_path(), ec);
        fs::create_directory_symlink(fs::absolute(dir, ec), into / rel, ec);
        if (!ec) ++linked;
        ec.clear();
    }
    return linked;
}

}  // namespace kiln::bundle

#include "bundle/temp_root.hpp"

#include <stdlib.h>

#include <cerrno>

#include "bundle/blob_traces.hpp"
#include "bundle/unpack.hpp"
#include "inductor/roots.hpp"

namespace kiln::bundle {

TempRoot& TempRoot::operator=(TempRoot&& o) noexcept {
    if (this != &o) {
        std::error_code ec;
        if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
        dir_ = std::move(o.dir_);
        cleanup_ = std::move(o.cleanup_);
        o.dir_.clear();
    }
    return *this;
}

TempRoot::~TempRoot() {
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
}

Result<TempRoot> materialize_blob(const Blob& blob) {
    std::string pattern = (inductor::temp_dir() / "kiln-blob-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) return io_error("make a temporary directory", pattern, errno);
    TempRoot tmp{std::filesystem::path(pattern)};
    UnpackOptions options;
    options.ignore_unknown = true;
    KILN_TRY(UnpackReport report, unpack_blob(blob, tmp.root().string(), options));
    (void)report;
    return tmp;
}

Result<RootOrBlob> open_root_or_blob(const std::filesystem::path& path) {
    RootOrBlob out;
    out.root = path;
    out.label = path.string();
    if (!is_blob_file(path)) return out;
    KILN_TRY(Blob blob, open_blob(path));
    KILN_TRY(TempRoot tmp, materialize_blob(blob));
    out.root = tmp.root();
    link_traces_beside(path, tmp);  // the runs beside the blob name its entries and fill the timeline
    out.blob_root = std::move(tmp);
    out.label += " (Mega-Cache blob, as load_cache_artifacts would write it)";
    return out;
}

}  // namespace kiln::bundle

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
    options.scratch_root = true;  // made just now, removed with `tmp`: nothing of it must outlive a crash
    KILN_TRY(UnpackReport report, unpack_blob(blob, tmp.root().string(), options));
    (void)report;
    return tmp;
}

}  // namespace kiln::bundle

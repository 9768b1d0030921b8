#include "frontend/open_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <string>

#include "bundle/blob.hpp"
#include "bundle/blob_traces.hpp"
#include "inductor/roots.hpp"

namespace fs = std::filesystem;

namespace kiln::frontend {

fs::path default_cache_root(inductor::RootKind kind) {
    return kind == inductor::RootKind::triton ? inductor::default_triton_root() : inductor::default_inductor_root();
}

std::string in_given_terms(const OpenedCache& cache, const std::string& path) {
    if (!cache.is_blob()) return path;
    const std::string root = cache.root.string();
    if (path == root) return cache.named.string();
    if (path.rfind(root + "/", 0) == 0) return cache.named.string() + "[" + path.substr(root.size() + 1) + "]";
    return path;
}

Error in_given_terms(const OpenedCache& cache, Error error) {
    error.context = in_given_terms(cache, error.context);
    return error;
}

std::vector<OpenedCache> open_each(const std::vector<fs::path>& paths) {
    std::vector<OpenedCache> out;
    for (const auto& p : paths)
        if (auto cache = open_cache(p)) out.push_back(std::move(cache).value());
    return out;
}

std::vector<inductor::OpenedRoot> opened_roots(const std::vector<OpenedCache>& caches) {
    std::vector<inductor::OpenedRoot> out;
    for (const auto& c : caches) out.push_back(c.opened());
    return out;
}

Result<OpenedCache> adopt_opened_root(const fs::path& named, int fd) {
    struct stat st {};
    if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode))
        return make_error(Errc::invalid_argument, "--root-fd " + std::to_string(fd) + " is no open directory",
                          named.string(), "pass the descriptor of the cache root the parent opened, inherited");
    ::fcntl(fd, F_SETFD, FD_CLOEXEC);
    OpenedCache out;
    out.root = named;
    out.label = named.string();
    out.named = named;
    out.root_fd = UniqueFd(fd);
    return out;
}

Result<OpenedCache> open_cache(const std::optional<fs::path>& path, CacheAccess access, inductor::RootKind kind) {
    const bool defaulted = !path || path->empty();
    const fs::path named = defaulted ? default_cache_root(kind) : *path;
    OpenedCache out;
    out.root = named;
    out.label = named.string();
    out.named = named;
    struct stat st {};
    if (::stat(named.c_str(), &st) != 0) {
        const int err = errno;
        if (err == ENOENT || err == ENOTDIR) return inductor::no_root_error(named, defaulted, kind);
        return inductor::unreadable_root_error(named, err);
    }
    if (S_ISDIR(st.st_mode)) {
        KILN_TRY(out.root_fd, inductor::open_root_dir(named));
        return out;
    }
    if (!S_ISREG(st.st_mode)) return inductor::not_a_root_error(named, st.st_mode);
    {
        UniqueFd probe(::open(named.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
        if (!probe.valid()) return inductor::unreadable_root_error(named, errno);
    }
    if (!bundle::is_blob_file(named)) return inductor::not_a_root_error(named, st.st_mode);
    if (access == CacheAccess::write)
        return make_error(Errc::unsupported,
                          "a Mega-Cache blob can only be read: this command changes a cache in place", named.string(),
                          "unpack it into a directory first (kiln-cli bundle unpack BLOB DIR) and run on DIR");
    auto blob = bundle::open_blob(named);
    if (!blob) {
        const Error& e = blob.error();
        std::string where = e.context;
        if (where.rfind(named.string() + ": ", 0) == 0) where.erase(0, named.string().size() + 2);
        where = where.empty() || where == named.string() ? "" : " (" + where + ")";
        return make_error(Errc::parse, "a broken Mega-Cache blob: " + e.message + where, named.string(),
                          "save it again (torch.compiler.save_cache_artifacts); kiln-cli bundle show lists what "
                          "it holds");
    }
    KILN_TRY(bundle::TempRoot tmp, bundle::materialize_blob(*blob));
    out.root = tmp.root();
    bundle::link_traces_beside(named, tmp);  // the runs beside the blob name its entries and fill the timeline
    out.blob_root = std::move(tmp);
    out.label += " (Mega-Cache blob, as load_cache_artifacts would write it)";
    KILN_TRY(out.root_fd, inductor::open_root_dir(out.root));
    return out;
}

}  // namespace kiln::frontend

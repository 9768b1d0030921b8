#include "util/result.hpp"

#include <cstring>

#include "util/temp_cleanup.hpp"

namespace kiln {

namespace {
// "read failed: ...", "cannot read: ...", "poll failed: ...": `what` is an action ("read"), or already
// says it failed ("cannot read", "poll failed"), which must not become "cannot read failed".
std::string failure_text(const std::string& what, int err) {
    const bool says_failed =
        what.rfind("cannot ", 0) == 0 || (what.size() >= 6 && what.compare(what.size() - 6, 6, "failed") == 0);
    return what + (says_failed ? ": " : " failed: ") + std::strerror(err);
}
}  // namespace

std::string Error::str() const {
    std::string s;
    if (!context.empty()) s += context + ": ";
    s += message;
    if (!hint.empty()) s += " (" + hint + ")";
    return s;
}

Error&& Error::with_context(std::string outer) && {
    context = context.empty() ? std::move(outer) : outer + ": " + context;
    return std::move(*this);
}

Error&& Error::with_hint(std::string h) && {
    hint = std::move(h);
    return std::move(*this);
}

Error io_error(const std::string& what, const std::string& path, int err) {
    Error e{Errc::io, failure_text(what, err), path, {}};
    if (err == EACCES || err == EPERM) e.hint = "check the permissions of this path";
    else if (err == ENOENT) {
        e.code = Errc::not_found;
        e.hint = "check that the path exists";
    } else if (err == ENOSPC) {
        // A full temporary folder is not the cache's fault: evicting cache entries would not help.
        e.hint = is_under_temp_directory(path)
                     ? "the temporary folder " + temp_directory().string() +
                           " is full; free space there, or point TMPDIR at a folder with room, and retry"
                     : "the disk is full; free space (kiln-cli evict) and retry";
    }
    return e;
}

}  // namespace kiln

#include "util/result.hpp"

#include <cstring>

namespace kiln {

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
    Error e{Errc::io, what + " failed: " + std::strerror(err), path, {}};
    if (err == EACCES || err == EPERM) e.hint = "check the permissions of this path";
    else if (err == ENOENT) {
        e.code = Errc::not_found;
        e.hint = "check that the path exists";
    } else if (err == ENOSPC) e.hint = "the disk is full; free space (kiln-cli evict) and retry";
    return e;
}

}  // namespace kiln

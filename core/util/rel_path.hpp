#pragma once
// Parts of a '/'-separated path relative to a cache root, as the scan keeps them.
#include <string_view>

namespace kiln {

// The directory part of a relative path ("" at the top).
inline std::string_view rel_dir(std::string_view rel) {
    const auto slash = rel.rfind('/');
    return slash == std::string_view::npos ? std::string_view() : rel.substr(0, slash);
}

}  // namespace kiln

#include "remote/remote_key.hpp"

#include <charconv>

namespace kiln::remote {

std::optional<RemoteKey> parse_remote_key(std::string_view k) {
    if (!k.starts_with("pt2:")) return std::nullopt;
    k.remove_prefix(4);
    // The cache id never holds "::"; the key may hold ':' (it is the caller's string), so the
    // version suffix is found from the right.
    auto sep = k.find("::");
    auto ver = k.rfind(":c");
    if (sep == std::string_view::npos || sep == 0 || ver == std::string_view::npos || ver < sep + 2)
        return std::nullopt;
    int version = 0;
    std::string_view digits = k.substr(ver + 2);
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), version);
    if (digits.empty() || ec != std::errc() || p != digits.data() + digits.size()) return std::nullopt;
    return RemoteKey{std::string(k.substr(0, sep)), std::string(k.substr(sep + 2, ver - sep - 2)), version};
}

std::string format_remote_key(std::string_view cache_id, std::string_view key, int version) {
    std::string s = "pt2:";
    s.append(cache_id).append("::").append(key).append(":c").append(std::to_string(version));
    return s;
}

RemoteValueKind value_kind_for(std::string_view cache_id) {
    return cache_id == kFxGraphCacheId || cache_id == kAutogradCacheId ? RemoteValueKind::graph_pickle
                                                                       : RemoteValueKind::json;
}

}  // namespace kiln::remote

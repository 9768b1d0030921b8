#include "remote/remote_export.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "inductor/graph_entry.hpp"
#include "remote/remote_key.hpp"
#include "remote/remote_value.hpp"
#include "util/python_json.hpp"
#include "util/regular_file.hpp"

namespace fs = std::filesystem;

namespace kiln::remote {
namespace {

Result<std::string> read_all(const fs::path& p) { return read_regular_file(p); }

// Sorted, dot-files skipped: the order Inductor's own lookup walks a key dir in.
std::vector<fs::path> sorted_children(const fs::path& dir, bool want_dirs) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
        if (it->path().filename().string().starts_with('.')) continue;
        if (want_dirs ? it->is_directory(ec) : it->is_regular_file(ec)) out.push_back(it->path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

Status add_key_dir(const fs::path& key_dir, std::string_view cache_id, std::vector<RemoteItem>& out) {
    std::string key = key_dir.filename().string();
    for (const auto& entry : sorted_children(key_dir, false)) {
        KILN_TRY(auto value, graph_value_from_file(entry));
        out.push_back({format_remote_key(cache_id, key), std::move(value), entry.string()});
    }
    return ok_status();
}

}  // namespace

Result<std::string> graph_value_from_file(const fs::path& entry) {
    KILN_TRY(auto bytes, read_all(entry));
    KILN_TRY(auto decoded, inductor::decode_graph_entry(bytes, entry.string()));
    // Inductor: int((graph._time_taken_ns or 0) // 1e6).
    long long ms = decoded.time_taken_ns().value_or(0) / 1'000'000;
    return encode_graph_value(bytes, ms);
}

Result<std::vector<RemoteItem>> remote_items_from_local(const fs::path& root) {
    if (!fs::is_directory(root))
        return make_error(Errc::not_found, "not a directory", root.string(), "pass an Inductor cache root");
    std::vector<RemoteItem> items;
    for (const auto& shard : sorted_children(root / "fxgraph", true))
        for (const auto& key_dir : sorted_children(shard, true))
            KILN_CHECK(add_key_dir(key_dir, kFxGraphCacheId, items));
    for (const auto& key_dir : sorted_children(root / "aotautograd", true))
        KILN_CHECK(add_key_dir(key_dir, kAutogradCacheId, items));
    for (const auto& shard : sorted_children(root, true)) {
        if (shard.filename().string().size() != 2) continue;
        for (const auto& f : sorted_children(shard, false)) {
            if (f.extension() != ".best_config") continue;
            KILN_TRY(auto text, read_all(f));
            KILN_TRY(auto json, decode_json_value(text));
            items.push_back({format_remote_key(kAutotuneCacheId, f.stem().string()), py_dumps(json), f.string()});
        }
    }
    return items;
}

Status publish_items(RedisClient& client, const std::vector<RemoteItem>& items, std::size_t batch) {
    std::vector<std::pair<std::string, std::string>> chunk;
    for (size_t i = 0; i < items.size(); ++i) {
        chunk.emplace_back(items[i].redis_key, items[i].value);
        if (chunk.size() >= batch || i + 1 == items.size()) {
            KILN_CHECK(client.set_many(chunk));
            chunk.clear();
        }
    }
    return ok_status();
}

}  // namespace kiln::remote

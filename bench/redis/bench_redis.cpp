// bench_redis fill URL ROOT COUNT [MAX_ENTRY_BYTES]: writes COUNT remote entries made from the
//   cache ROOT's entries (round robin, each under a fresh key), in Inductor's remote format.
// bench_redis browse URL: browses every pt2:* key and decodes every value (graph pickles with
//   Kiln's decoder, autotune values as JSON); prints one JSON line with counts, time, peak RSS.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "hash/sha256.hpp"
#include "remote/remote_export.hpp"
#include "remote/remote_graph.hpp"
#include "remote/remote_key.hpp"

using namespace kiln::remote;

namespace {

int fail(const kiln::Error& e) {
    std::fprintf(stderr, "bench_redis: %s\n", e.str().c_str());
    return 1;
}

long peak_rss_kb() {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

int fill(const std::string& url, const std::string& root, std::size_t count, std::size_t max_bytes) {
    auto ep = parse_redis_url(url);
    if (!ep) return fail(ep.error());
    auto client = RedisClient::connect(*ep);
    if (!client) return fail(client.error());
    auto items = remote_items_from_local(root);
    if (!items) return fail(items.error());
    std::vector<RemoteItem> pool;
    for (auto& it : *items)
        if (it.value.size() <= max_bytes) pool.push_back(std::move(it));
    if (pool.empty()) return fail(kiln::make_error(kiln::Errc::not_found, "no entries under the size cap", root));
    std::vector<std::pair<std::string, std::string>> batch;
    std::uint64_t bytes = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const RemoteItem& src = pool[i % pool.size()];
        auto parsed = parse_remote_key(src.redis_key);
        // A fresh key of the same shape: "f"/"a" + sha256_hash(...) for graphs, hex for autotune.
        std::string seed = src.redis_key + "#" + std::to_string(i);
        std::string key = parsed->cache_id == kAutotuneCacheId
                              ? kiln::hash::sha256_hex(seed)
                              : parsed->key.substr(0, 1) + kiln::hash::sha256_hash(seed);
        batch.emplace_back(format_remote_key(parsed->cache_id, key), src.value);
        bytes += src.value.size();
        if (batch.size() == 64 || i + 1 == count) {
            if (auto st = client->set_many(batch); !st) return fail(st.error());
            batch.clear();
        }
    }
    std::printf("{\"written\": %zu, \"distinct_sources\": %zu, \"value_bytes\": %llu}\n", count, pool.size(),
                static_cast<unsigned long long>(bytes));
    return 0;
}

int browse(const std::string& url) {
    auto start = std::chrono::steady_clock::now();
    auto ep = parse_redis_url(url);
    if (!ep) return fail(ep.error());
    auto client = RedisClient::connect(*ep);
    if (!client) return fail(client.error());
    std::uint64_t graphs = 0, json = 0, corrupt = 0, undecodable = 0, guarded = 0;
    BrowseOptions options;
    options.decode_graphs = true;  // every graph pickle through Kiln's decoder, on all cores
    auto totals = browse_remote(*client, options, [&](std::vector<RemoteEntry>& batch) -> kiln::Status {
        for (auto& e : batch) {
            if (e.state == RemoteState::json) {
                ++json;
                continue;
            }
            if (e.state != RemoteState::graph) {
                ++corrupt;
                continue;
            }
            if (!e.graph) {
                ++undecodable;
                continue;
            }
            ++graphs;
            guarded += e.graph->guards_expr().has_value();  // touch the decoded tree, as a listing would
        }
        return kiln::ok_status();
    });
    if (!totals) return fail(totals.error());
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf(
        "{\"keys\": %llu, \"graphs_decoded\": %llu, \"json\": %llu, \"corrupt\": %llu, \"undecodable\": %llu, "
        "\"with_guards\": %llu, \"value_bytes\": %llu, \"round_trips\": %llu, \"seconds\": %.4f, \"peak_rss_kb\": "
        "%ld}\n",
        static_cast<unsigned long long>(totals->keys), static_cast<unsigned long long>(graphs),
        static_cast<unsigned long long>(json), static_cast<unsigned long long>(corrupt),
        static_cast<unsigned long long>(undecodable), static_cast<unsigned long long>(guarded),
        static_cast<unsigned long long>(totals->value_bytes), static_cast<unsigned long long>(totals->round_trips), s,
        peak_rss_kb());
    return corrupt + undecodable == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "fill" && argc >= 5)
        return fill(argv[2], argv[3], std::strtoull(argv[4], nullptr, 10),
                    argc > 5 ? std::strtoull(argv[5], nullptr, 10) : 256 * 1024);
    if (mode == "browse" && argc == 3) return browse(argv[2]);
    std::fprintf(stderr, "usage: bench_redis fill URL ROOT COUNT [MAX_ENTRY_BYTES] | bench_redis browse URL\n");
    return 2;
}

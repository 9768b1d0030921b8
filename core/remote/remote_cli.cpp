#include "remote/remote_cli.hpp"

#include <cstdio>
#include <iostream>

#include "remote/remote_stats.hpp"

namespace kiln::remote {
namespace {

int report(const Error& e) {
    std::fprintf(stderr, "kiln-cli: %s\n", e.str().c_str());
    return e.code == Errc::invalid_argument || e.code == Errc::unsupported || e.code == Errc::not_found ? 2 : 1;
}

}  // namespace

int run_remote_stats(const std::string& url, bool json) {
    auto ep = resolve_redis_endpoint(url);
    if (!ep) return report(ep.error());
    auto client = RedisClient::connect(*ep);
    if (!client) return report(client.error());
    auto stats = collect_remote_stats(*client);
    if (!stats) return report(stats.error());
    if (json) std::cout << remote_stats_to_json(*stats).dump(2) << "\n";
    else std::cout << format_remote_stats(*stats);
    // Corrupt values are listed, never fatal.
    for (const auto& p : stats->problems) std::fprintf(stderr, "kiln-cli: warning: %s\n", p.c_str());
    if (stats->unreadable > stats->problems.size())
        std::fprintf(stderr, "kiln-cli: warning: %llu more unreadable\n",
                     static_cast<unsigned long long>(stats->unreadable - stats->problems.size()));
    return 0;
}

}  // namespace kiln::remote

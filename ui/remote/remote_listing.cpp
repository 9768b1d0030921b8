#include "ui/remote/remote_listing.hpp"

#include <QElapsedTimer>

#include <algorithm>
#include <map>

#include "remote/remote_browser.hpp"
#include "ui/jobs/job_control.hpp"

namespace kiln::ui {

RemoteListing listRemoteCache(const QString& url, JobControl& ctl) {
    QElapsedTimer timer;
    timer.start();
    RemoteListing out;
    out.url = url;
    auto fail = [&](const Error& e) {
        out.error = QString::fromStdString(e.str());
        out.elapsedMs = timer.elapsed();
        return out;
    };
    auto ep = remote::resolve_redis_endpoint(url.toStdString());
    if (!ep) return fail(ep.error());
    out.endpoint = QString::fromStdString(ep->display());
    auto client = remote::RedisClient::connect(*ep);
    if (!client) return fail(client.error());

    remote::BrowseOptions options;
    options.keep_values = false;
    options.cancel = ctl.cancelFlag();
    std::map<QString, RemoteGroup> groups;
    auto totals = remote::browse_remote(*client, options, [&](std::vector<remote::RemoteEntry>& batch) -> Status {
        for (auto& e : batch) {
            QString id = e.cache_id.empty() ? QStringLiteral("foreign") : QString::fromStdString(e.cache_id);
            RemoteGroup& g = groups[id];
            g.cacheId = id;
            g.bytes += e.value_bytes;
            g.rows.push_back(
                {QString::fromStdString(e.redis_key), QString::fromStdString(e.key.empty() ? e.redis_key : e.key),
                 QString::fromLatin1(remote::remote_state_name(e.state)), QString::fromStdString(e.problem),
                 e.value_bytes, e.time_taken_ms ? static_cast<qint64>(*e.time_taken_ms) : -1});
        }
        ctl.setProgress(static_cast<std::int64_t>(out.keys += batch.size()), 0);
        return ok_status();
    });
    if (!totals) return fail(totals.error());
    for (auto& [id, g] : groups) {
        std::sort(g.rows.begin(), g.rows.end(), [](const RemoteRow& a, const RemoteRow& b) { return a.key < b.key; });
        out.groups.push_back(std::move(g));
    }
    out.keys = totals->keys;
    out.bytes = totals->value_bytes;
    out.roundTrips = totals->round_trips;
    out.elapsedMs = timer.elapsed();
    return out;
}

}  // namespace kiln::ui

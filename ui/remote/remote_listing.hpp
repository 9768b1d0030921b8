#pragma once
// A remote cache as the Redis panel shows it: cache id › key, with each value's state and size.
// Built on a worker thread by browsing the server (values are unwrapped to tell corrupt ones and
// then dropped, so memory stays bounded), handed to the model whole.
#include <QString>
#include <QVector>

#include <cstdint>

namespace kiln::ui {

class JobControl;

struct RemoteRow {
    QString redisKey;
    QString key;      // Inductor's key inside the cache id
    QString state;    // graph | json | corrupt | foreign | missing
    QString problem;  // corrupt: why
    std::uint64_t bytes = 0;
    qint64 timeTakenMs = -1;  // -1: not recorded
};

struct RemoteGroup {
    QString cacheId;  // "fx-graph-v1", ..., "foreign"
    QVector<RemoteRow> rows;
    std::uint64_t bytes = 0;
};

struct RemoteListing {
    QString url;                  // with the password: what the panel reconnects with (never shown)
    QString endpoint;             // display form, no password
    QVector<RemoteGroup> groups;  // sorted by cache id, rows by key
    QString error;                // connection or browse failure (then groups is empty)
    std::uint64_t keys = 0;
    std::uint64_t bytes = 0;
    std::uint64_t roundTrips = 0;
    qint64 elapsedMs = 0;
};

// Connects and browses every Inductor key (pt2:*). Never throws; honours ctl.cancelled().
RemoteListing listRemoteCache(const QString& url, JobControl& ctl);

}  // namespace kiln::ui

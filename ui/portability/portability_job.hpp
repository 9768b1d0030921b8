#pragma once
// The Portability view's work, run off the UI thread: the target's fingerprint, then every entry of
// the open cache judged against it, through the calls `kiln-cli portable ROOT --target T` makes
// (portability::load_target, portability::assess_opened), so both front ends give one answer.
#include <QString>

#include <memory>

#include "portability/portable.hpp"

namespace kiln::bundle {
struct RootOrBlob;
}

namespace kiln::ui {

class JobControl;

// What to compare with: this machine (the CUDA driver, and torch through `python3` when it imports
// it), or a path: a fingerprint file, a cache root, a TORCH_TRACE dir or log, a graph entry, a blob.
struct PortabilityTarget {
    bool thisMachine = true;
    QString path;
    QString describe() const;  // "this machine" or the path
};

struct PortabilityOutcome {
    std::shared_ptr<const portability::PortableReport> report;  // null on error
    QString root;  // the scanned root (a blob's temporary root): items' paths are relative to it
    QString error;
    qint64 elapsedMs = 0;
};

// `opened` is held for the job's duration (a blob's temporary root stays while it is read).
PortabilityOutcome runPortability(std::shared_ptr<const bundle::RootOrBlob> opened, const PortabilityTarget& target,
                                  JobControl& ctl);

// An item's absolute path in the browser's tree (the root as the window scanned it + its relative path).
QString itemAbsolutePath(const QString& root, const portability::PortableItem& item);

}  // namespace kiln::ui

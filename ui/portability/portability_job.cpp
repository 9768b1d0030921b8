#include "ui/portability/portability_job.hpp"

#include <QElapsedTimer>
#include <QObject>

#include "bundle/temp_root.hpp"
#include "portability/target.hpp"
#include "ui/jobs/job_control.hpp"

namespace kiln::ui {

QString PortabilityTarget::describe() const { return thisMachine ? QObject::tr("this machine") : path; }

PortabilityOutcome runPortability(std::shared_ptr<const bundle::RootOrBlob> opened, const PortabilityTarget& target,
                                  JobControl& ctl) {
    PortabilityOutcome out;
    QElapsedTimer clock;
    clock.start();
    if (!opened) {
        out.error = QObject::tr("No cache is open.");
        return out;
    }
    out.root = QString::fromStdString(opened->root.string());
    portability::TargetSpec spec;
    spec.this_machine = target.thisMachine;
    if (!target.thisMachine) spec.path = target.path.toStdString();
    auto fp = portability::load_target(spec);
    if (!fp) {
        out.error = QObject::tr("Target %1: %2").arg(target.describe(), QString::fromStdString(fp.error().str()));
        return out;
    }
    portability::PortableOptions options;
    options.cancel = ctl.cancelFlag();
    auto report = portability::assess_opened(*opened, *fp, options);
    if (!report) out.error = QString::fromStdString(report.error().str());
    else out.report = std::make_shared<const portability::PortableReport>(std::move(report).value());
    out.elapsedMs = clock.elapsed();
    return out;
}

QString itemAbsolutePath(const QString& root, const portability::PortableItem& item) {
    return root + QLatin1Char('/') + QString::fromStdString(item.path);
}

}  // namespace kiln::ui

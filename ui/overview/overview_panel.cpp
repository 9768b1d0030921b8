#include "overview/overview_panel.hpp"

#include <QEvent>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "jobs/job_runner.hpp"
#include "overview/overview_html.hpp"

namespace kiln::ui {

namespace {
struct OverviewOutcome {
    QString root;
    std::shared_ptr<const overview::Overview> overview;
    QString error;
};
}  // namespace

OverviewPanel::OverviewPanel(JobRunner* jobs, QWidget* parent)
    : QWidget(parent), jobs_(jobs), view_(new QTextBrowser(this)) {
    setObjectName(QStringLiteral("overviewPanel"));
    view_->setOpenLinks(false);
    view_->setFrameShape(QFrame::NoFrame);
    view_->document()->setDocumentMargin(16);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(view_);
    setFocusProxy(view_);
    connect(view_, &QTextBrowser::anchorClicked, this, &OverviewPanel::linkActivated);
}

bool OverviewPanel::isLoading() const { return jobs_->isRunning(QStringLiteral("overview")); }

void OverviewPanel::load(const QString& root) {
    root_ = root;
    noCache_.clear();
    error_.clear();
    overview_.reset();
    view_->setHtml(tr("<p>Reading %1 …</p>").arg(root.toHtmlEscaped()));
    jobs_->start(
        QStringLiteral("overview"), tr("Overview of %1").arg(root),
        [root](JobControl& ctl) {
            overview::OverviewOptions opt;
            opt.cancel = ctl.cancelFlag();
            auto o = overview::compute_overview(root.toStdString(), opt);
            OverviewOutcome out{root, nullptr, {}};
            if (o.ok()) out.overview = std::make_shared<const overview::Overview>(std::move(o).value());
            else out.error = QString::fromStdString(o.error().str());
            return out;
        },
        [this](OverviewOutcome out) {
            if (out.root != root_) return;
            overview_ = std::move(out.overview);
            error_ = out.error;
            render();
            emit computed();
        });
}

void OverviewPanel::showNoCache(const QString& reason) {
    root_.clear();
    overview_.reset();
    noCache_ = reason;
    render();
}

void OverviewPanel::render() {
    if (overview_) view_->setHtml(overviewHtml(*overview_, palette()));
    else if (!error_.isEmpty())
        view_->setHtml(tr("<h3>Could not read %1</h3><p>%2</p>").arg(root_.toHtmlEscaped(), error_.toHtmlEscaped()));
    else if (!noCache_.isEmpty()) view_->setHtml(noCacheHtml(noCache_, palette()));
}

void OverviewPanel::changeEvent(QEvent* e) {
    if (e->type() == QEvent::PaletteChange) render();
    QWidget::changeEvent(e);
}

}  // namespace kiln::ui

#include "ui/remote/remote_panel.hpp"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QTreeView>
#include <QVBoxLayout>

#include "remote/redis_url.hpp"
#include "ui/jobs/job_runner.hpp"
#include "ui/remote/remote_connect_dialog.hpp"
#include "ui/remote/remote_model.hpp"
#include "ui/theme/palette.hpp"

namespace kiln::ui {

RemotePanel::RemotePanel(JobRunner* jobs, QWidget* parent)
    : QWidget(parent),
      jobs_(jobs),
      model_(new RemoteModel(this)),
      proxy_(new QSortFilterProxyModel(this)),
      view_(new QTreeView(this)),
      filter_(new QLineEdit(this)),
      status_(new QLabel(this)) {
    proxy_->setSourceModel(model_);
    proxy_->setRecursiveFilteringEnabled(true);
    proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
    proxy_->setFilterKeyColumn(RemoteModel::KeyColumn);
    view_->setModel(proxy_);
    view_->setUniformRowHeights(true);
    view_->setSortingEnabled(true);
    view_->sortByColumn(RemoteModel::KeyColumn, Qt::AscendingOrder);
    view_->header()->setSectionResizeMode(RemoteModel::KeyColumn, QHeaderView::Stretch);
    view_->header()->setStretchLastSection(false);
    filter_->setPlaceholderText(tr("Filter keys"));
    filter_->setClearButtonEnabled(true);
    status_->setWordWrap(true);
    status_->setText(tr("Not connected. Inductor shares caches through Redis (TORCHINDUCTOR_REDIS_URL)."));

    auto* connectButton = new QPushButton(tr("Connect…"), this);
    auto* refreshButton = new QPushButton(tr("Refresh"), this);
    auto* bar = new QHBoxLayout;
    bar->addWidget(connectButton);
    bar->addWidget(refreshButton);
    bar->addWidget(filter_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(bar);
    layout->addWidget(status_);
    layout->addWidget(view_, 1);

    connect(connectButton, &QPushButton::clicked, this, &RemotePanel::showConnectDialog);
    connect(refreshButton, &QPushButton::clicked, this, &RemotePanel::refresh);
    connect(filter_, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);
    auto activate = [this](const QModelIndex& index) {
        const QString key = index.data(RemoteModel::RedisKeyRole).toString();
        if (!key.isEmpty()) emit entryActivated(url_, key);
    };
    connect(view_, &QTreeView::activated, this, activate);
    connect(view_, &QTreeView::clicked, this, activate);
}

void RemotePanel::showConnectDialog() {
    QSettings settings;
    RemoteConnectDialog dlg(settings.value(QStringLiteral("remote/lastUrl")).toString(), this);
    if (dlg.exec() != QDialog::Accepted) return;
    // Remember the server, never the password.
    if (auto ep = remote::parse_redis_url(dlg.url().toStdString())) {
        ep->password.clear();
        settings.setValue(QStringLiteral("remote/lastUrl"), QString::fromStdString(ep->url()));
    }
    connectTo(dlg.url());
}

void RemotePanel::connectTo(const QString& url) {
    url_ = url;
    status_->setText(tr("Listing %1 …").arg(url.section(QLatin1Char('@'), -1).toHtmlEscaped()));
    jobs_->start(
        QStringLiteral("remote-list"), tr("Listing the Redis cache"),
        [url](JobControl& ctl) { return listRemoteCache(url, ctl); },
        [this](RemoteListing listing) { onListing(std::move(listing)); });
}

void RemotePanel::refresh() {
    if (!url_.isEmpty()) connectTo(url_);
}

void RemotePanel::onListing(RemoteListing listing) {
    const bool ok = listing.error.isEmpty();
    if (ok) {
        status_->setText(tr("%1: %2 keys, %3 MB in %4 round trips (%5 ms)")
                             .arg(listing.endpoint)
                             .arg(listing.keys)
                             .arg(double(listing.bytes) / 1e6, 0, 'f', 1)
                             .arg(listing.roundTrips)
                             .arg(listing.elapsedMs));
    } else {
        status_->setText(errorHtml(listing.error));
    }
    const QString endpoint = listing.endpoint;
    model_->setListing(std::move(listing));
    view_->expandToDepth(0);
    emit listed(endpoint, ok);
}

}  // namespace kiln::ui

#include "ui/remote/remote_connect_dialog.hpp"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include "remote/redis_url.hpp"
#include "ui/theme/palette.hpp"

namespace kiln::ui {

QString RemoteConnectDialog::urlFromEnvironment() {
    auto ep = remote::redis_endpoint_from_env();
    return ep ? QString::fromStdString(ep->url()) : QString();
}

RemoteConnectDialog::RemoteConnectDialog(const QString& lastUrl, QWidget* parent)
    : QDialog(parent), urlEdit_(new QLineEdit(this)), passwordEdit_(new QLineEdit(this)), error_(new QLabel(this)) {
    setWindowTitle(tr("Connect to a Redis cache"));
    QString initial = lastUrl.isEmpty() ? urlFromEnvironment() : lastUrl;
    // The password never sits in the visible field: split it out of a remembered URL.
    if (auto ep = remote::parse_redis_url(initial.toStdString())) {
        passwordEdit_->setText(QString::fromStdString(ep->password));
        ep->password.clear();
        initial = QString::fromStdString(ep->url());
    }
    urlEdit_->setText(initial);
    urlEdit_->setPlaceholderText(QStringLiteral("redis://[user@]host:6379/0"));
    urlEdit_->setMinimumWidth(380);
    passwordEdit_->setEchoMode(QLineEdit::Password);
    passwordEdit_->setPlaceholderText(tr("none"));
    error_->setStyleSheet(QStringLiteral("color:%1;").arg(themeColors().error.name()));
    error_->setWordWrap(true);
    error_->hide();

    auto* note = new QLabel(tr("Inductor's remote cache (FX_GRAPH_REMOTE_CACHE, TORCHINDUCTOR_REDIS_URL). "
                               "TLS (rediss://) is not supported: Debian's hiredis 0.14 has no TLS."),
                            this);
    note->setWordWrap(true);
    auto* form = new QFormLayout;
    form->addRow(tr("URL"), urlEdit_);
    form->addRow(tr("Password"), passwordEdit_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Connect"));
    connect(buttons, &QDialogButtonBox::accepted, this, &RemoteConnectDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &RemoteConnectDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(note);
    layout->addLayout(form);
    layout->addWidget(error_);
    layout->addWidget(buttons);
}

void RemoteConnectDialog::accept() {
    auto ep = remote::parse_redis_url(urlEdit_->text().trimmed().toStdString());
    if (!ep) {
        error_->setText(QString::fromStdString(ep.error().str()));
        error_->show();
        return;
    }
    if (!passwordEdit_->text().isEmpty()) ep->password = passwordEdit_->text().toStdString();
    url_ = QString::fromStdString(ep->url());
    QDialog::accept();
}

}  // namespace kiln::ui

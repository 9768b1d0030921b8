#pragma once
// Asks where the team's Redis cache is: a redis:// URL (prefilled from the last one used, else
// torch's TORCHINDUCTOR_REDIS_URL / _HOST / _PORT) and an optional password kept out of the URL
// field. Accepts only a URL the core can parse; says so when TLS (rediss://) is asked for.
#include <QDialog>

class QLabel;
class QLineEdit;

namespace kiln::ui {

class RemoteConnectDialog : public QDialog {
    Q_OBJECT
public:
    explicit RemoteConnectDialog(const QString& lastUrl, QWidget* parent = nullptr);
    // The URL to connect with, the password folded in (percent-encoded).
    QString url() const { return url_; }

    // TORCHINDUCTOR_REDIS_URL, else redis://$TORCHINDUCTOR_REDIS_HOST:$..._PORT, else empty.
    static QString urlFromEnvironment();

    void accept() override;

private:
    QLineEdit* urlEdit_;
    QLineEdit* passwordEdit_;
    QLabel* error_;
    QString url_;
};

}  // namespace kiln::ui

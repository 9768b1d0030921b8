#pragma once
// The Redis source beside the local cache browser: Connect… (RemoteConnectDialog), the remote
// cache as cache id › key (RemoteModel behind a filter), Refresh. Activating a key emits
// entryActivated; remote_install.cpp shows it in the inspector with the same tabs as a local file.
#include <QWidget>

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTreeView;

namespace kiln::ui {

class JobRunner;
class RemoteModel;
struct RemoteListing;

class RemotePanel : public QWidget {
    Q_OBJECT
public:
    explicit RemotePanel(JobRunner* jobs, QWidget* parent = nullptr);

    // Lists the server at `url` (background job); the model is replaced when it answers.
    void connectTo(const QString& url);
    QString url() const { return url_; }
    RemoteModel* model() const { return model_; }
    QTreeView* view() const { return view_; }

public slots:
    void showConnectDialog();
    void refresh();

signals:
    void entryActivated(const QString& url, const QString& redisKey);
    void listed(const QString& endpoint, bool ok);

private:
    void onListing(RemoteListing listing);

    JobRunner* jobs_;
    RemoteModel* model_;
    QSortFilterProxyModel* proxy_;
    QTreeView* view_;
    QLineEdit* filter_;
    QLabel* status_;
    QString url_;
};

}  // namespace kiln::ui

#pragma once
// The "Overview" workspace tab, the first thing the app shows: what the open cache holds and what to
// look at first (overview_html.hpp). Computed off the UI thread through the JobRunner ("overview"
// channel) from overview::compute_overview; links ask the main window to show the item's view.
#include <QUrl>
#include <QWidget>

#include <memory>

#include "overview/overview.hpp"

class QTextBrowser;

namespace kiln::ui {

class JobRunner;

class OverviewPanel : public QWidget {
    Q_OBJECT
public:
    explicit OverviewPanel(JobRunner* jobs, QWidget* parent = nullptr);

    void load(const QString& root);  // recomputes in the background
    void showNoCache(const QString& reason);
    std::shared_ptr<const overview::Overview> overview() const { return overview_; }
    QString error() const { return error_; }
    QTextBrowser* view() const { return view_; }
    bool isLoading() const;

signals:
    void computed();
    void linkActivated(const QUrl& url);

protected:
    void changeEvent(QEvent* e) override;  // palette changes: re-render in the new colours

private:
    void render();

    JobRunner* jobs_;
    QTextBrowser* view_;
    QString root_;
    QString error_;
    QString noCache_;
    std::shared_ptr<const overview::Overview> overview_;
};

}  // namespace kiln::ui

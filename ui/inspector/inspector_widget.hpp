#pragma once
// The centre pane: the selected artifact in tabs (Summary, Source, Object tree, Guards,
// Key components, Raw). It only displays an Inspection; the main window computes it off-thread.
#include <QTabWidget>

class QLabel;
class QPlainTextEdit;
class QStackedWidget;
class QTableView;
class QTextBrowser;
class QTreeView;

namespace kiln::ui {

struct Inspection;
class CodeView;
class GuardsPanel;
class HexModel;
class KeyComponentsModel;
class ObjectTreeModel;
class OpcodeModel;
class JobRunner;

class InspectorWidget : public QTabWidget {
    Q_OBJECT
public:
    enum Tab { SummaryTab, SourceTab, ObjectTreeTab, GuardsTab, KeyComponentsTab, RawTab };

    InspectorWidget(JobRunner* jobs, QWidget* parent = nullptr);
    void showInspection(const Inspection& ins);
    void showMessage(const QString& html);  // e.g. "Decoding…" or a category's description
    // The Summary made again for the inspection shown (its kernels joined to the root's timings once
    // they are read); dropped when another artifact is shown by then. Keeps where the page was scrolled.
    void updateSummary(const QString& path, const QString& html);
    void setSourceFontSize(int pt);

    GuardsPanel* guardsPanel() const { return guards_; }
    CodeView* sourceView() const { return source_; }
    QTextBrowser* summaryView() const { return summary_; }
    QTableView* componentsView() const { return componentsView_; }
    // The selected key component whole (name, hash, every line of its value) below the table.
    QPlainTextEdit* componentValueView() const { return componentValue_; }

signals:
    void linkActivated(const QUrl& url);  // kiln-path: / kiln-filter: links of the Summary tab

private:
    QWidget* buildSourceTab();
    QWidget* buildRawTab();

    QTextBrowser* summary_;
    QString shownPath_;  // the inspection shown, empty while a message is
    QLabel* sourceTitle_ = nullptr;
    CodeView* source_ = nullptr;
    QTreeView* objectView_;
    ObjectTreeModel* objects_;
    GuardsPanel* guards_;
    QTableView* componentsView_;
    QPlainTextEdit* componentValue_ = nullptr;
    KeyComponentsModel* components_;
    QLabel* rawInfo_ = nullptr;
    QStackedWidget* rawStack_ = nullptr;
    QTableView* opsView_ = nullptr;
    OpcodeModel* ops_ = nullptr;
    CodeView* rawText_ = nullptr;
    QTableView* hexView_ = nullptr;
    HexModel* hex_ = nullptr;
};

}  // namespace kiln::ui

#include "ui/inspector/inspector_widget.hpp"

#include <QFileInfo>
#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QTreeView>
#include <QVBoxLayout>

#include "ui/inspector/guards_panel.hpp"
#include "ui/inspector/inspection.hpp"
#include "ui/inspector/key_components_model.hpp"
#include "ui/inspector/object_tree_model.hpp"
#include "ui/inspector/opcode_model.hpp"
#include "ui/source/code_view.hpp"
#include "ui/source/hex_model.hpp"

namespace kiln::ui {

namespace {

QTableView* makeTable(QWidget* parent, QAbstractItemModel* model) {
    auto* v = new QTableView(parent);
    v->setModel(model);
    v->verticalHeader()->hide();
    v->verticalHeader()->setDefaultSectionSize(v->fontMetrics().height() + 4);  // fixed rows: no per-row measuring
    v->horizontalHeader()->setStretchLastSection(true);
    v->horizontalHeader()->setResizeContentsPrecision(200);  // sizing a column reads 200 rows, not all of a long key
    v->setSelectionBehavior(QAbstractItemView::SelectRows);
    v->setWordWrap(false);
    return v;
}

QWidget* withTitle(QLabel* title, QWidget* body, QWidget* parent) {
    auto* w = new QWidget(parent);
    auto* l = new QVBoxLayout(w);
    l->setContentsMargins(4, 4, 4, 4);
    l->addWidget(title);
    l->addWidget(body);
    return w;
}

}  // namespace

InspectorWidget::InspectorWidget(JobRunner* jobs, QWidget* parent)
    : QTabWidget(parent),
      summary_(new QTextBrowser(this)),
      objectView_(new QTreeView(this)),
      objects_(new ObjectTreeModel(this)),
      guards_(new GuardsPanel(jobs, this)),
      components_(new KeyComponentsModel(this)) {
    summary_->setOpenLinks(false);
    connect(summary_, &QTextBrowser::anchorClicked, this, &InspectorWidget::linkActivated);
    objectView_->setModel(objects_);
    objectView_->setUniformRowHeights(true);
    objectView_->header()->resizeSection(ObjectTreeModel::NameColumn, 260);
    objectView_->header()->resizeSection(ObjectTreeModel::TypeColumn, 240);

    auto* proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(components_);
    proxy->setFilterKeyColumn(-1);
    proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    componentsView_ = makeTable(this, proxy);
    componentsView_->setSortingEnabled(true);
    componentsView_->sortByColumn(-1, Qt::AscendingOrder);  // the key's own order until a header is clicked
    // The table shows a value's first line; the selected component is read whole below it.
    componentValue_ = new QPlainTextEdit(this);
    componentValue_->setObjectName(QStringLiteral("componentValue"));
    componentValue_->setReadOnly(true);
    componentValue_->setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    componentValue_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    connect(componentsView_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this, proxy](const QModelIndex& current) {
                const QModelIndex i = proxy->mapToSource(current);
                if (!i.isValid() || i.row() >= components_->components().size()) {
                    componentValue_->clear();
                    return;
                }
                const KeyComponentRow& c = components_->components()[i.row()];
                componentValue_->setPlainText(
                    tr("%1   [%2]%3\n\n%4")
                        .arg(c.name, c.hash,
                             c.binary ? tr("   (not text: bytes torch could not print read \\ufffd, control bytes "
                                           "\\xNN; compare it by its hash)")
                                      : QString(),
                             c.value));
            });
    auto* componentsSplit = new QSplitter(Qt::Vertical, this);
    componentsSplit->addWidget(componentsView_);
    componentsSplit->addWidget(componentValue_);
    componentsSplit->setStretchFactor(0, 3);
    componentsSplit->setStretchFactor(1, 1);

    addTab(summary_, tr("Summary"));
    addTab(buildSourceTab(), tr("Source"));
    addTab(objectView_, tr("Object tree"));
    addTab(guards_, tr("Guards"));
    addTab(componentsSplit, tr("Key components"));
    addTab(buildRawTab(), tr("Raw"));
}

QWidget* InspectorWidget::buildSourceTab() {
    sourceTitle_ = new QLabel(this);
    source_ = new CodeView(this);
    return withTitle(sourceTitle_, source_, this);
}

QWidget* InspectorWidget::buildRawTab() {
    rawInfo_ = new QLabel(this);
    rawStack_ = new QStackedWidget(this);
    ops_ = new OpcodeModel(this);
    opsView_ = makeTable(this, ops_);
    rawText_ = new CodeView(this);
    hex_ = new HexModel(this);
    hexView_ = makeTable(this, hex_);
    rawStack_->addWidget(opsView_);
    rawStack_->addWidget(rawText_);
    rawStack_->addWidget(hexView_);
    return withTitle(rawInfo_, rawStack_, this);
}

void InspectorWidget::setSourceFontSize(int pt) {
    source_->setFontPointSize(pt);
    rawText_->setFontPointSize(pt);
}

void InspectorWidget::showMessage(const QString& html) {
    shownPath_.clear();
    summary_->setHtml(html);
}

void InspectorWidget::updateSummary(const QString& path, const QString& html) {
    if (path.isEmpty() || path != shownPath_) return;
    QScrollBar* bar = summary_->verticalScrollBar();
    const int at = bar->value();
    summary_->setHtml(html);
    bar->setValue(at);
}

void InspectorWidget::showInspection(const Inspection& ins) {
    shownPath_ = ins.path;
    summary_->setHtml(ins.summaryHtml);

    // Source: highlighting a multi-megabyte text would stall the UI thread; such texts stay plain.
    constexpr qsizetype kHighlightLimit = 2 << 20;
    sourceTitle_->setText(ins.hasSource ? ins.sourceTitle : tr("No source for this item."));
    source_->setSource(ins.hasSource ? ins.sourceText : QString(),
                       ins.sourceText.size() > kHighlightLimit ? SourceLanguage::plain : ins.sourceLanguage);

    if (ins.entry) objects_->setDocument(ins.entry->document_ptr(), ins.entry->root(), QStringLiteral("entry"));
    else objects_->clear();
    objectView_->expandToDepth(0);

    components_->setComponents(ins.components);
    componentsView_->resizeColumnToContents(KeyComponentsModel::NameColumn);
    // The value is what the user reads: it takes the room; the hash keeps a short column at the end.
    componentsView_->horizontalHeader()->setStretchLastSection(false);
    componentsView_->horizontalHeader()->setSectionResizeMode(KeyComponentsModel::ValueColumn, QHeaderView::Stretch);
    componentsView_->setColumnWidth(KeyComponentsModel::HashColumn, 160);
    componentValue_->clear();
    if (components_->rowCount() > 0) componentsView_->setCurrentIndex(componentsView_->model()->index(0, 0));

    guards_->setKeyDir(ins.keyDir, ins.entry ? QFileInfo(ins.path).fileName() : QString());

    if (ins.ops) {
        ops_->setOps(ins.ops);
        rawStack_->setCurrentWidget(opsView_);
        rawInfo_->setText(ins.opsError.isEmpty()
                              ? tr("%1 opcodes").arg(ins.ops->size())
                              : tr("%1 opcodes; stopped: %2").arg(ins.ops->size()).arg(ins.opsError));
    } else if (ins.rawIsText) {
        rawText_->setSource(QString::fromUtf8(ins.rawBytes), SourceLanguage::plain);
        rawStack_->setCurrentWidget(rawText_);
        rawInfo_->setText(tr("Text, %1 bytes").arg(ins.rawBytes.size()));
    } else {
        hex_->setBytes(ins.rawBytes);
        rawStack_->setCurrentWidget(hexView_);
        rawInfo_->setText(ins.rawBytes.isEmpty() ? tr("Select a file to see its bytes.")
                                                 : tr("Binary, %1 bytes").arg(ins.rawBytes.size()));
    }
    setTabEnabled(ObjectTreeTab, ins.entry.has_value());
    setTabEnabled(KeyComponentsTab, !ins.components.isEmpty());
    setTabEnabled(GuardsTab, !ins.keyDir.isEmpty());
}

}  // namespace kiln::ui

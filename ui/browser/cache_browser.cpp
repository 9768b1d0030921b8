#include "ui/browser/cache_browser.hpp"

#include <QDir>
#include <QFileInfo>

#include <QClipboard>
#include <QGuiApplication>
#include <QHeaderView>
#include <QLineEdit>
#include <QMenu>
#include <QScrollBar>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>

#include <utility>

#include "ui/browser/cache_tree_model.hpp"

namespace kiln::ui {

CacheBrowser::CacheBrowser(QWidget* parent)
    : QWidget(parent), model_(new CacheTreeModel(this)), filter_(new QLineEdit(this)), view_(new QTreeView(this)) {
    filter_->setPlaceholderText(tr("Filter by name, function, key, path or kernel name (Ctrl+F)"));
    filter_->setClearButtonEnabled(true);
    view_->setModel(model_);
    view_->setUniformRowHeights(true);  // lets the view skip measuring rows of a large cache
    view_->setSortingEnabled(true);     // the header's clicks reach CacheTreeModel::sort
    view_->sortByColumn(CacheTreeModel::NameColumn, Qt::AscendingOrder);
    view_->setContextMenuPolicy(Qt::CustomContextMenu);
    view_->header()->setStretchLastSection(false);
    view_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    view_->header()->setSectionResizeMode(CacheTreeModel::NameColumn, QHeaderView::Stretch);
    // The hash, elided: graph entries are named in the Name column; widen it to read the whole key.
    view_->header()->setSectionResizeMode(CacheTreeModel::KeyColumn, QHeaderView::Interactive);
    view_->header()->resizeSection(CacheTreeModel::KeyColumn, 90);
    view_->setAlternatingRowColors(true);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(filter_);
    layout->addWidget(view_);

    // Typing filters after a short pause so a large tree is not refiltered on every key press.
    auto* debounce = new QTimer(this);
    debounce->setSingleShot(true);
    debounce->setInterval(150);
    connect(filter_, &QLineEdit::textChanged, debounce, qOverload<>(&QTimer::start));
    connect(debounce, &QTimer::timeout, this, [this] { applyFilter(filter_->text()); });
    // A large tree's filter lands later, from a worker: show the categories holding its matches then.
    connect(model_, &CacheTreeModel::orderApplied, this, [this] {
        if (!filter_->text().isEmpty()) view_->expandToDepth(0);
    });
    connect(view_, &QTreeView::expanded, this, [this](const QModelIndex& i) {
        if (model_->nodeAt(i) > 0 && i.parent().isValid())
            expanded_.insert(i.data(CacheTreeModel::PathRole).toString());
    });
    connect(view_, &QTreeView::collapsed, this, [this](const QModelIndex& i) {
        if (i.parent().isValid()) expanded_.remove(i.data(CacheTreeModel::PathRole).toString());
    });
    connect(view_->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex& cur) { onCurrentChanged(cur); });
    connect(view_, &QWidget::customContextMenuRequested, this, &CacheBrowser::showContextMenu);
}

std::shared_ptr<const CacheTree> CacheBrowser::tree() const { return model_->tree(); }

void CacheBrowser::applyFilter(const QString& text) {
    model_->setFilterText(text);
    if (!text.isEmpty() && !model_->isReordering()) view_->expandToDepth(0);
}

void CacheBrowser::setTree(std::shared_ptr<const CacheTree> tree) {
    const QString current = currentPath();
    const QString currentCategory = view_->currentIndex().isValid() && current.isEmpty()
                                        ? view_->currentIndex().siblingAtColumn(0).data().toString()
                                        : QString();
    QStringList expandedCategories;  // a handful of top rows; expanded groups are in expanded_
    for (int r = 0; r < model_->rowCount(); ++r)
        if (view_->isExpanded(model_->index(r, 0))) expandedCategories << model_->index(r, 0).data().toString();
    const QSet<QString> expandedGroups = std::exchange(expanded_, {});
    const int scroll = view_->verticalScrollBar()->value();
    const bool sameRoot = model_->tree() && tree && model_->tree()->root == tree->root;

    const QSignalBlocker block(view_->selectionModel());  // a rescan is not a new selection
    model_->setTree(std::move(tree));
    if (!sameRoot) return;
    for (int r = 0; r < model_->rowCount(); ++r) {
        const QModelIndex cat = model_->index(r, 0);
        if (expandedCategories.contains(cat.data().toString())) view_->expand(cat);
        if (!currentCategory.isEmpty() && cat.data().toString() == currentCategory) view_->setCurrentIndex(cat);
    }
    for (const QString& p : expandedGroups) {
        const QModelIndex idx = model_->indexForPath(p);
        if (idx.isValid()) view_->expand(idx);
    }
    if (!current.isEmpty()) {
        const QModelIndex idx = model_->indexForPath(current);
        if (idx.isValid()) view_->setCurrentIndex(idx);
    }
    view_->verticalScrollBar()->setValue(scroll);
}

bool CacheBrowser::selectPath(const QString& path) {
    const auto tree = model_->tree();
    if (!tree || tree->findPath(path) <= 0) return false;
    QModelIndex idx = model_->indexForPath(path);
    if (!idx.isValid()) {  // hidden by the filter: clear it
        filter_->clear();
        model_->setFilterText(QString(), true);
        idx = model_->indexForPath(path);
    }
    if (!idx.isValid()) return false;
    view_->setCurrentIndex(idx);
    view_->scrollTo(idx);
    return true;
}

QString CacheBrowser::findArtifact(const QString& given) const {
    const auto tree = model_->tree();
    if (!tree || given.isEmpty()) return {};
    QStringList candidates;
    if (QDir::isAbsolutePath(given)) {
        candidates << QDir::cleanPath(given);
    } else {
        candidates << QDir::cleanPath(tree->root + QLatin1Char('/') + given)
                   << QDir::cleanPath(QDir::current().absoluteFilePath(given));
    }
    // The same file through a symbolic link (a root opened as /tmp/x, named as /private/tmp/x).
    const QString canonicalRoot = QFileInfo(tree->root).canonicalFilePath();
    for (const QString& c : QStringList(candidates)) {
        const QString canonical = QFileInfo(c).canonicalFilePath();
        if (!canonicalRoot.isEmpty() && canonical.startsWith(canonicalRoot + QLatin1Char('/')))
            candidates << tree->root + canonical.mid(canonicalRoot.size());
    }
    for (const QString& c : candidates)
        if (tree->findPath(c.toStdString()) > 0) return c;
    return {};
}

bool CacheBrowser::selectCategory(inductor::Category category) {
    filter_->clear();
    model_->setFilterText(QString(), true);
    for (int r = 0; r < model_->rowCount(); ++r) {
        const QModelIndex idx = model_->index(r, 0);
        if (idx.data(CacheTreeModel::CategoryRole).toInt() != int(category)) continue;
        view_->setCurrentIndex(idx);
        view_->expand(idx);
        view_->scrollTo(idx);
        return true;
    }
    return false;
}

QString CacheBrowser::currentPath() const { return view_->currentIndex().data(CacheTreeModel::PathRole).toString(); }

void CacheBrowser::setFilterText(const QString& text) {
    filter_->setText(text);
    applyFilter(text);
}

void CacheBrowser::focusFilter() {
    filter_->setFocus();
    filter_->selectAll();
}

void CacheBrowser::onCurrentChanged(const QModelIndex& current) {
    if (model_->nodeAt(current) < 0) return;
    const CacheNode n = model_->item(current);
    emit currentChanged(n.path, n);
}

void CacheBrowser::showContextMenu(const QPoint& pos) {
    const QModelIndex idx = view_->indexAt(pos);
    if (model_->nodeAt(idx) < 0) return;
    const CacheNode n = model_->item(idx);
    if (n.kind != CacheNode::Kind::file) return;
    QMenu menu(this);
    const QString path = n.path;
    if (n.category == inductor::Category::fxgraph || n.category == inductor::Category::aotautograd)
        menu.addAction(tr("Diff with another entry…"), this, [this, path] { emit diffRequested(path); });
    menu.addAction(tr("Copy path"), this, [path] { QGuiApplication::clipboard()->setText(path); });
    menu.exec(view_->viewport()->mapToGlobal(pos));
}

}  // namespace kiln::ui

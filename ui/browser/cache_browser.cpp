#include "browser/cache_browser.hpp"

#include <QClipboard>
#include <QGuiApplication>
#include <QHeaderView>
#include <QLineEdit>
#include <QMenu>
#include <QScrollBar>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>

#include "browser/cache_filter_proxy.hpp"
#include "browser/cache_tree_model.hpp"

namespace kiln::ui {

CacheBrowser::CacheBrowser(QWidget* parent)
    : QWidget(parent),
      model_(new CacheTreeModel(this)),
      proxy_(new CacheFilterProxy(this)),
      filter_(new QLineEdit(this)),
      view_(new QTreeView(this)) {
    proxy_->setSourceModel(model_);
    filter_->setPlaceholderText(tr("Filter by key, path or kernel name (Ctrl+F)"));
    filter_->setClearButtonEnabled(true);
    view_->setModel(proxy_);
    view_->setUniformRowHeights(true);  // lets the view skip measuring rows of a large cache
    view_->setSortingEnabled(true);
    view_->sortByColumn(CacheTreeModel::NameColumn, Qt::AscendingOrder);
    view_->setContextMenuPolicy(Qt::CustomContextMenu);
    view_->header()->setStretchLastSection(false);
    view_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    view_->header()->setSectionResizeMode(CacheTreeModel::NameColumn, QHeaderView::Stretch);
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
    connect(debounce, &QTimer::timeout, this, [this] {
        proxy_->setFilterText(filter_->text());
        if (!filter_->text().isEmpty()) view_->expandToDepth(0);
    });
    connect(view_->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex& cur) { onCurrentChanged(cur); });
    connect(view_, &QWidget::customContextMenuRequested, this, &CacheBrowser::showContextMenu);
}

std::shared_ptr<const CacheTree> CacheBrowser::tree() const { return model_->tree(); }

QStringList CacheBrowser::expandedPaths() const {
    QStringList out;
    const auto tree = model_->tree();
    if (!tree) return out;
    // Only categories and groups can be expanded: look at those, not at every file.
    for (int r = 0; r < proxy_->rowCount(); ++r) {
        const QModelIndex cat = proxy_->index(r, 0);
        if (!view_->isExpanded(cat)) continue;
        out << QStringLiteral("category:") + cat.data(Qt::DisplayRole).toString();
        for (int g = 0; g < proxy_->rowCount(cat); ++g) {
            const QModelIndex grp = proxy_->index(g, 0, cat);
            if (view_->isExpanded(grp)) out << grp.data(CacheTreeModel::PathRole).toString();
        }
    }
    return out;
}

void CacheBrowser::setTree(std::shared_ptr<const CacheTree> tree) {
    const QString current = currentPath();
    const QString currentCategory = view_->currentIndex().isValid() && current.isEmpty()
                                        ? view_->currentIndex().siblingAtColumn(0).data().toString()
                                        : QString();
    const QStringList expanded = expandedPaths();
    const int scroll = view_->verticalScrollBar()->value();
    const bool sameRoot = model_->tree() && tree && model_->tree()->root == tree->root;

    const QSignalBlocker block(view_->selectionModel());  // a rescan is not a new selection
    model_->setTree(std::move(tree));
    if (!sameRoot) return;
    for (int r = 0; r < proxy_->rowCount(); ++r) {
        const QModelIndex cat = proxy_->index(r, 0);
        if (expanded.contains(QStringLiteral("category:") + cat.data().toString())) view_->expand(cat);
        if (!currentCategory.isEmpty() && cat.data().toString() == currentCategory) view_->setCurrentIndex(cat);
    }
    for (const QString& p : expanded) {
        const QModelIndex src = model_->indexForPath(p);
        if (src.isValid()) view_->expand(proxy_->mapFromSource(src));
    }
    if (!current.isEmpty()) {
        const QModelIndex src = model_->indexForPath(current);
        if (src.isValid()) view_->setCurrentIndex(proxy_->mapFromSource(src));
    }
    view_->verticalScrollBar()->setValue(scroll);
}

bool CacheBrowser::selectPath(const QString& path) {
    const QModelIndex src = model_->indexForPath(path);
    if (!src.isValid()) return false;
    QModelIndex idx = proxy_->mapFromSource(src);
    if (!idx.isValid()) {  // hidden by the filter: clear it
        filter_->clear();
        proxy_->setFilterText(QString());
        idx = proxy_->mapFromSource(src);
    }
    view_->setCurrentIndex(idx);
    view_->scrollTo(idx);
    return true;
}

bool CacheBrowser::selectCategory(inductor::Category category) {
    for (int r = 0; r < model_->rowCount(); ++r) {
        const QModelIndex src = model_->index(r, 0);
        if (src.data(CacheTreeModel::CategoryRole).toInt() != int(category)) continue;
        filter_->clear();
        proxy_->setFilterText(QString());
        const QModelIndex idx = proxy_->mapFromSource(src);
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
    proxy_->setFilterText(text);
    if (!text.isEmpty()) view_->expandToDepth(0);
}

void CacheBrowser::focusFilter() {
    filter_->setFocus();
    filter_->selectAll();
}

void CacheBrowser::onCurrentChanged(const QModelIndex& current) {
    const CacheNode* n = model_->node(proxy_->mapToSource(current));
    if (n) emit currentChanged(n->path, *n);
}

void CacheBrowser::showContextMenu(const QPoint& pos) {
    const QModelIndex idx = view_->indexAt(pos);
    const CacheNode* n = model_->node(proxy_->mapToSource(idx));
    if (!n || n->kind != CacheNode::Kind::file) return;
    QMenu menu(this);
    const QString path = n->path;
    if (n->category == inductor::Category::fxgraph || n->category == inductor::Category::aotautograd)
        menu.addAction(tr("Diff with another entry…"), this, [this, path] { emit diffRequested(path); });
    menu.addAction(tr("Copy path"), this, [path] { QGuiApplication::clipboard()->setText(path); });
    menu.exec(view_->viewport()->mapToGlobal(pos));
}

}  // namespace kiln::ui

#include "ui/browser/cache_tree_model.hpp"

#include <QDateTime>
#include <QFutureWatcher>
#include <QGuiApplication>
#include <QLocale>
#include <QPalette>
#include <QtConcurrent/QtConcurrentRun>

#include "inductor/stats.hpp"

namespace kiln::ui {

using Kind = CacheNode::Kind;

QString formatBytes(std::uint64_t bytes) { return QString::fromStdString(inductor::format_bytes(bytes)); }

CacheTreeModel::CacheTreeModel(QObject* parent) : QAbstractItemModel(parent) {}

CacheTreeModel::~CacheTreeModel() { cancelPending(); }

void CacheTreeModel::setTree(std::shared_ptr<const CacheTree> tree) {
    cancelPending();
    beginResetModel();
    // The old tree may hold the last reference to a million-file scan: free it on a worker thread.
    if (tree_ && tree_.use_count() == 1) (void)QtConcurrent::run([old = std::move(tree_)] {});
    tree_ = std::move(tree);
    labels_.reset();  // names of the old tree's nodes
    wanted_.labelsVersion = 0;
    order_.reset();
    spec_ = OrderSpec{};
    const bool small = tree_ && tree_->size() <= asyncNodes_;
    if (small && !wanted_.isTreeOrder()) {
        order_ = computeOrder(*tree_, wanted_, nullptr, labels_.get());
        spec_ = wanted_;
    }
    endResetModel();
    reorder(false);  // a large tree: the tree's order now, the wanted one when the worker is done
}

void CacheTreeModel::setFilterText(const QString& text, bool now) {
    wanted_.words = filterWords(text);
    reorder(now);
}

void CacheTreeModel::sort(int column, Qt::SortOrder order) {
    wanted_.column = column;
    wanted_.order = order;
    reorder(false);
}

void CacheTreeModel::cancelPending() {
    if (pending_) pending_->store(true);
    pending_.reset();
}

void CacheTreeModel::reorder(bool now) {
    if (pending_ && pendingSpec_ == wanted_ && !now) return;  // on its way
    cancelPending();
    if (!tree_ || wanted_ == spec_) return;
    if (wanted_.isTreeOrder()) return apply(nullptr, wanted_);
    if (now || tree_->size() <= asyncNodes_)
        return apply(computeOrder(*tree_, wanted_, nullptr, labels_.get()), wanted_);
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    pending_ = cancel;
    pendingSpec_ = wanted_;
    auto* watcher = new QFutureWatcher<std::shared_ptr<const TreeOrder>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, cancel, spec = wanted_, tree = tree_] {
        watcher->deleteLater();
        if (cancel != pending_ || tree != tree_) return;  // superseded
        pending_.reset();
        if (auto order = watcher->result()) apply(std::move(order), spec);
    });
    watcher->setFuture(QtConcurrent::run([tree = tree_, spec = wanted_, cancel, labels = labels_] {
        return computeOrder(*tree, spec, cancel.get(), labels.get());
    }));
}

void CacheTreeModel::apply(std::shared_ptr<const TreeOrder> order, OrderSpec spec) {
    emit layoutAboutToBeChanged();
    order_ = std::move(order);
    spec_ = std::move(spec);
    // Persistent indexes follow their nodes (node indices do not change with the order).
    const QModelIndexList from = persistentIndexList();
    QModelIndexList to;
    to.reserve(from.size());
    for (const QModelIndex& i : from) {
        const int node = static_cast<int>(i.internalId());
        const int r = rowOf(node);
        to.push_back(r < 0 ? QModelIndex() : createIndex(r, i.column(), static_cast<quintptr>(node)));
    }
    changePersistentIndexList(from, to);
    emit layoutChanged();
    emit orderApplied();
}

int CacheTreeModel::shownCount(int node) const {
    return order_ ? order_->shownCount(*tree_, node) : tree_->childCount(node);
}
int CacheTreeModel::shownChild(int node, int row) const {
    return order_ ? order_->shownChild(*tree_, node, row) : tree_->child(node, row);
}
int CacheTreeModel::rowOf(int node) const { return order_ ? order_->rowOfNode(*tree_, node) : tree_->row(node); }

int CacheTreeModel::nodeIndex(const QModelIndex& parent) const {
    return parent.isValid() ? static_cast<int>(parent.internalId()) : 0;
}

int CacheTreeModel::nodeAt(const QModelIndex& index) const {
    return tree_ && index.isValid() && index.model() == this ? static_cast<int>(index.internalId()) : -1;
}

CacheNode CacheTreeModel::item(const QModelIndex& index) const {
    const int n = nodeAt(index);
    return n < 0 ? CacheNode{} : tree_->item(n);
}

QModelIndex CacheTreeModel::index(int row, int column, const QModelIndex& parent) const {
    if (!tree_ || column < 0 || column >= ColumnCount || row < 0) return {};
    if (parent.isValid() && parent.column() != 0) return {};
    const int p = nodeIndex(parent);
    if (row >= shownCount(p)) return {};
    return createIndex(row, column, static_cast<quintptr>(shownChild(p, row)));
}

QModelIndex CacheTreeModel::parent(const QModelIndex& child) const {
    if (!tree_ || !child.isValid()) return {};
    const int p = tree_->parent(static_cast<int>(child.internalId()));
    if (p <= 0) return {};  // the root node is the invisible root
    return createIndex(rowOf(p), 0, static_cast<quintptr>(p));
}

int CacheTreeModel::rowCount(const QModelIndex& parent) const {
    if (!tree_ || (parent.isValid() && parent.column() != 0)) return 0;
    return shownCount(nodeIndex(parent));
}

bool CacheTreeModel::hasChildren(const QModelIndex& parent) const { return rowCount(parent) > 0; }

int CacheTreeModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QVariant CacheTreeModel::data(const QModelIndex& index, int role) const {
    const int i = nodeAt(index);
    if (i < 0) return {};
    const TreeNode& n = tree_->node(i);
    switch (role) {
        case Qt::DisplayRole:
            switch (index.column()) {
                case NameColumn:
                    if (labels_)
                        if (const auto l = labels_->find(i); !l.empty())
                            return QString::fromUtf8(l.data(), static_cast<qsizetype>(l.size()));
                    return tree_->name(i);
                case KeyColumn: return tree_->key(i);
                case FilesColumn:
                    return n.kind == Kind::file ? QVariant() : QVariant::fromValue<qulonglong>(tree_->files(i));
                case SizeColumn: return formatBytes(tree_->bytes(i));
                case LastUsedColumn: {
                    const std::int64_t ns = tree_->lastUseNs(i);
                    return ns ? QDateTime::fromMSecsSinceEpoch(ns / 1'000'000).toString("yyyy-MM-dd hh:mm:ss")
                              : QVariant();
                }
            }
            return {};
        case Qt::ToolTipRole: {
            QString tip = n.kind == Kind::category ? tree_->name(i) : tree_->path(i);
            if (labels_ && index.column() == NameColumn)
                if (const auto l = labels_->find(i); !l.empty())
                    tip = QString::fromUtf8(l.data(), static_cast<qsizetype>(l.size())) + QLatin1Char('\n') + tip;
            if (marks_.isEmpty() || n.kind == Kind::category) return tip;
            const auto m = marks_.constFind(tree_->path(i));
            return m == marks_.cend() ? tip : tip + QLatin1Char('\n') + m->tip;
        }
        case Qt::DecorationRole: {
            if (marks_.isEmpty() || n.kind == Kind::category || index.column() != NameColumn) return {};
            const auto m = marks_.constFind(tree_->path(i));
            if (m == marks_.cend()) return {};
            return QGuiApplication::palette().color(QPalette::Base).lightness() < 128 ? m->onDark : m->onLight;
        }
        case Qt::TextAlignmentRole:
            return index.column() == NameColumn || index.column() == KeyColumn
                       ? QVariant()
                       : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
        case SortRole:
            switch (index.column()) {
                case FilesColumn: return QVariant::fromValue<qulonglong>(tree_->files(i));
                case SizeColumn: return QVariant::fromValue<qulonglong>(tree_->bytes(i));
                case LastUsedColumn: return QVariant::fromValue<qlonglong>(tree_->lastUseNs(i));
                case KeyColumn: return tree_->key(i).toLower();
                default: return data(index, Qt::DisplayRole).toString().toLower();
            }
        case PathRole: return n.kind == Kind::category ? QString() : tree_->path(i);
        case SearchRole: return tree_->searchText(i);
        case KindRole: return static_cast<int>(n.kind);
        case CategoryRole: return static_cast<int>(n.category);
        case GroupKindRole: return static_cast<int>(n.groupKind);
        case KeyRole: return tree_->key(i);
        default: return {};
    }
}

QVariant CacheTreeModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case NameColumn: return tr("Name");
        case FilesColumn: return tr("Files");
        case SizeColumn: return tr("Size");
        case LastUsedColumn: return tr("Last used");
        case KeyColumn: return tr("Key");
        default: return {};
    }
}

QModelIndex CacheTreeModel::indexForPath(const QString& path) const {
    if (!tree_) return {};
    const int i = tree_->findPath(path);
    if (i <= 0) return {};
    const int r = rowOf(i);
    return r < 0 ? QModelIndex() : createIndex(r, 0, static_cast<quintptr>(i));
}

void CacheTreeModel::setEntryLabels(std::shared_ptr<const CacheTree> forTree,
                                    std::shared_ptr<const EntryLabels> labels) {
    if (!tree_ || forTree != tree_) return;
    labels_ = std::move(labels);
    wanted_.labelsVersion = ++labelsVersion_;
    // The shown names change: the views repaint; the order (name sort, filter) follows, off the UI
    // thread for a large tree.
    emit layoutAboutToBeChanged();
    emit layoutChanged();
    reorder(false);
}

void CacheTreeModel::setMarks(QHash<QString, PathMark> marks) {
    QStringList touched = marks_.keys() + marks.keys();
    marks_ = std::move(marks);
    for (const QString& p : touched)
        if (const QModelIndex i = indexForPath(p); i.isValid())
            emit dataChanged(i, i, {Qt::DecorationRole, Qt::ToolTipRole});
}

}  // namespace kiln::ui

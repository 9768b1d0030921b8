#include "browser/cache_tree_model.hpp"

#include <QDateTime>
#include <QGuiApplication>
#include <QLocale>
#include <QPalette>

#include "inductor/stats.hpp"

namespace kiln::ui {

QString formatBytes(std::uint64_t bytes) { return QString::fromStdString(inductor::format_bytes(bytes)); }

CacheTreeModel::CacheTreeModel(QObject* parent) : QAbstractItemModel(parent) {}

void CacheTreeModel::setTree(std::shared_ptr<const CacheTree> tree) {
    beginResetModel();
    tree_ = std::move(tree);
    endResetModel();
}

int CacheTreeModel::nodeIndex(const QModelIndex& parent) const {
    return parent.isValid() ? static_cast<int>(parent.internalId()) : 0;
}

const CacheNode* CacheTreeModel::node(const QModelIndex& index) const {
    if (!tree_ || !index.isValid()) return nullptr;
    return &tree_->nodes[static_cast<int>(index.internalId())];
}

QModelIndex CacheTreeModel::index(int row, int column, const QModelIndex& parent) const {
    if (!tree_ || column < 0 || column >= ColumnCount || row < 0) return {};
    if (parent.isValid() && parent.column() != 0) return {};
    const auto& p = tree_->nodes[nodeIndex(parent)];
    if (row >= p.children.size()) return {};
    return createIndex(row, column, static_cast<quintptr>(p.children[row]));
}

QModelIndex CacheTreeModel::parent(const QModelIndex& child) const {
    if (!tree_ || !child.isValid()) return {};
    const int p = tree_->nodes[static_cast<int>(child.internalId())].parent;
    if (p <= 0) return {};  // the root node is the invisible root
    return createIndex(tree_->nodes[p].row, 0, static_cast<quintptr>(p));
}

int CacheTreeModel::rowCount(const QModelIndex& parent) const {
    if (!tree_ || (parent.isValid() && parent.column() != 0)) return 0;
    return static_cast<int>(tree_->nodes[nodeIndex(parent)].children.size());
}

int CacheTreeModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QVariant CacheTreeModel::data(const QModelIndex& index, int role) const {
    const CacheNode* n = node(index);
    if (!n) return {};
    switch (role) {
        case Qt::DisplayRole:
            switch (index.column()) {
                case NameColumn: return n->name;
                case FilesColumn:
                    return n->kind == CacheNode::Kind::file ? QVariant() : QVariant::fromValue<qulonglong>(n->files);
                case SizeColumn: return formatBytes(n->bytes);
                case LastUsedColumn:
                    return n->lastUseNs ? QDateTime::fromMSecsSinceEpoch(n->lastUseNs / 1'000'000)
                                              .toString("yyyy-MM-dd hh:mm:ss")
                                        : QVariant();
            }
            return {};
        case Qt::ToolTipRole: {
            const QString tip = n->path.isEmpty() ? n->name : n->path;
            const auto m = marks_.constFind(n->path);
            return m == marks_.cend() || n->path.isEmpty() ? tip : tip + QLatin1Char('\n') + m->tip;
        }
        case Qt::DecorationRole: {
            const auto m = index.column() == NameColumn ? marks_.constFind(n->path) : marks_.cend();
            if (m == marks_.cend() || n->path.isEmpty()) return {};
            return QGuiApplication::palette().color(QPalette::Base).lightness() < 128 ? m->onDark : m->onLight;
        }
        case Qt::TextAlignmentRole:
            return index.column() == NameColumn ? QVariant() : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
        case SortRole:
            switch (index.column()) {
                case FilesColumn: return QVariant::fromValue<qulonglong>(n->files);
                case SizeColumn: return QVariant::fromValue<qulonglong>(n->bytes);
                case LastUsedColumn: return QVariant::fromValue<qlonglong>(n->lastUseNs);
                default: return n->name.toLower();
            }
        case PathRole: return n->path;
        case SearchRole: return n->searchText;
        case KindRole: return static_cast<int>(n->kind);
        case CategoryRole: return static_cast<int>(n->category);
        case GroupKindRole: return static_cast<int>(n->groupKind);
        case KeyRole: return n->key;
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
        default: return {};
    }
}

QModelIndex CacheTreeModel::indexForPath(const QString& path) const {
    if (!tree_) return {};
    const int i = tree_->findPath(path);
    if (i <= 0) return {};
    return createIndex(tree_->nodes[i].row, 0, static_cast<quintptr>(i));
}

void CacheTreeModel::setMarks(QHash<QString, PathMark> marks) {
    QStringList touched = marks_.keys() + marks.keys();
    marks_ = std::move(marks);
    for (const QString& p : touched)
        if (const QModelIndex i = indexForPath(p); i.isValid())
            emit dataChanged(i, i, {Qt::DecorationRole, Qt::ToolTipRole});
}

}  // namespace kiln::ui

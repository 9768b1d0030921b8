#include "ui/inspector/object_tree_model.hpp"

#include <QFontDatabase>

namespace kiln::ui {

namespace {
constexpr std::size_t kMaxChildren = 100'000;  // a 1M-element list is listed up to here
}

ObjectTreeModel::ObjectTreeModel(QObject* parent) : QAbstractItemModel(parent) {}
ObjectTreeModel::~ObjectTreeModel() = default;

void ObjectTreeModel::setDocument(std::shared_ptr<const pickle::Document> doc, pickle::Ref root,
                                  const QString& rootLabel) {
    beginResetModel();
    doc_ = std::move(doc);
    root_ = std::make_unique<Item>();
    root_->fetched = true;
    if (root) {
        auto top = std::make_unique<Item>();
        top->label = rootLabel;
        top->value = root;
        top->parent = root_.get();
        root_->children.push_back(std::move(top));
    }
    endResetModel();
}

void ObjectTreeModel::clear() {
    beginResetModel();
    root_.reset();
    doc_.reset();
    endResetModel();
}

ObjectTreeModel::Item* ObjectTreeModel::item(const QModelIndex& index) const {
    return index.isValid() ? static_cast<Item*>(index.internalPointer()) : root_.get();
}

bool ObjectTreeModel::expandable(const Item* it) const {
    return it && !it->cycle && it->value && (it->value->is_container() || it->value->is(pickle::Kind::call));
}

void ObjectTreeModel::materialise(Item* p) const {
    if (p->fetched) return;
    p->fetched = true;
    if (!expandable(p)) return;
    auto kids = pickle::children(p->value);
    if (kids.size() > kMaxChildren) kids.resize(kMaxChildren);
    p->children.reserve(kids.size());
    for (auto& k : kids) {
        auto c = std::make_unique<Item>();
        c->label = QString::fromStdString(k.label);
        c->value = k.value;
        c->parent = p;
        c->row = static_cast<int>(p->children.size());
        for (const Item* a = p; a && a != root_.get(); a = a->parent)
            if (a->value == k.value) {
                c->cycle = true;
                break;
            }
        p->children.push_back(std::move(c));
    }
}

QModelIndex ObjectTreeModel::index(int row, int column, const QModelIndex& parent) const {
    Item* p = item(parent);
    if (!p || row < 0 || column < 0 || column >= ColumnCount || (parent.isValid() && parent.column() != 0)) return {};
    materialise(p);
    if (static_cast<std::size_t>(row) >= p->children.size()) return {};
    return createIndex(row, column, p->children[static_cast<std::size_t>(row)].get());
}

QModelIndex ObjectTreeModel::parent(const QModelIndex& child) const {
    if (!child.isValid()) return {};
    const Item* p = static_cast<Item*>(child.internalPointer())->parent;
    if (!p || p == root_.get()) return {};
    return createIndex(p->row, 0, const_cast<Item*>(p));
}

int ObjectTreeModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() && parent.column() != 0) return 0;
    Item* p = item(parent);
    if (!p) return 0;
    materialise(p);
    return static_cast<int>(p->children.size());
}

int ObjectTreeModel::columnCount(const QModelIndex&) const { return ColumnCount; }

bool ObjectTreeModel::hasChildren(const QModelIndex& parent) const {
    if (parent.isValid() && parent.column() != 0) return false;
    const Item* p = item(parent);
    if (!p) return false;
    if (p->fetched) return !p->children.empty();
    return expandable(p) && (p->value->is(pickle::Kind::call) || p->value->size() > 0);
}

QVariant ObjectTreeModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid()) return {};
    const Item* it = item(index);
    const pickle::Ref v = it->value;
    if (role == Qt::FontRole && index.column() == ValueColumn)
        return QFontDatabase::systemFont(QFontDatabase::FixedFont);
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
    switch (index.column()) {
        case NameColumn: return it->label;
        case TypeColumn: {
            if (!v) return QStringLiteral("null");
            if (v->is(pickle::Kind::call)) {
                const std::string t = v->call_type();
                if (!t.empty()) return QString::fromStdString(t);
            }
            return QString::fromLatin1(pickle::kind_name(v->kind()));
        }
        case ValueColumn: {
            if (it->cycle) return tr("(cycle: an ancestor of itself)");
            return QString::fromStdString(pickle::short_repr(v, role == Qt::ToolTipRole ? 2000 : 200));
        }
        case OffsetColumn: return v ? QVariant::fromValue<qulonglong>(v->offset()) : QVariant();
        default: return {};
    }
}

QVariant ObjectTreeModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case NameColumn: return tr("Name");
        case TypeColumn: return tr("Type");
        case ValueColumn: return tr("Value");
        case OffsetColumn: return tr("Byte offset");
        default: return {};
    }
}

}  // namespace kiln::ui

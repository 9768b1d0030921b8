#include "ui/status/status_panel.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QToolButton>

#include "ui/browser/cache_tree.hpp"
#include "ui/browser/cache_tree_model.hpp"

namespace kiln::ui {

StatusPanel::StatusPanel(QWidget* parent)
    : QWidget(parent),
      label_(new QLabel(this)),
      bar_(new QProgressBar(this)),
      cancel_(new QToolButton(this)),
      totals_(new QLabel(this)) {
    bar_->setMaximumWidth(180);
    bar_->setTextVisible(false);
    cancel_->setText(tr("Cancel"));
    cancel_->setToolTip(tr("Cancel the running scan or decode (Esc)"));
    auto* l = new QHBoxLayout(this);
    l->setContentsMargins(0, 0, 0, 0);
    l->addWidget(label_);
    l->addWidget(bar_);
    l->addWidget(cancel_);
    l->addSpacing(12);
    l->addWidget(totals_);
    connect(cancel_, &QToolButton::clicked, this, &StatusPanel::cancelRequested);
    setBusy(false);
}

void StatusPanel::setBusy(bool busy) {
    bar_->setVisible(busy);
    cancel_->setVisible(busy);
    label_->setVisible(busy);
    if (busy) bar_->setRange(0, 0);
}

void StatusPanel::setProgress(const QString& label, qint64 done, qint64 total) {
    label_->setText(label);
    if (total > 0) {
        // QProgressBar takes int: scale large totals (bytes) down.
        const int scale = total > 1'000'000'000 ? 1'000'000 : 1;
        bar_->setRange(0, static_cast<int>(total / scale));
        bar_->setValue(static_cast<int>(std::min(done, total) / scale));
    } else if (done > 0) {
        bar_->setRange(0, 0);
        label_->setText(tr("%1 (%2 files)").arg(label).arg(done));
    }
}

void StatusPanel::setTotals(const CacheTree& tree) {
    using inductor::Category;
    const inductor::CacheStats& s = tree.stats;  // the numbers of `kiln-cli stats`, formatted the same way
    QString text = tr("%1 files, %2 · %3 graph entries in %4 keys · %5 Triton kernels")
                       .arg(s.total_files)
                       .arg(formatBytes(s.total_bytes))
                       .arg(s[Category::fxgraph].entries)
                       .arg(s.fxgraph_keys)
                       .arg(s[Category::triton_compiled].entries);
    if (s.unreadable) text += tr(" · %1 unreadable").arg(s.unreadable);
    totals_->setText(text);
    QString tip;
    for (std::size_t c = 0; c < inductor::kCategoryCount; ++c) {
        const auto& t = s.categories[c];
        if (!t.files) continue;
        tip += QStringLiteral("%1: %2 files, %3 entries, %4\n")
                   .arg(categoryTitle(static_cast<Category>(c)))
                   .arg(t.files)
                   .arg(t.entries)
                   .arg(formatBytes(t.bytes));
    }
    totals_->setToolTip(tip.trimmed());
}

QString StatusPanel::totalsText() const { return totals_->text(); }

}  // namespace kiln::ui

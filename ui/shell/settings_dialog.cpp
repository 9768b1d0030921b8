#include "ui/shell/settings_dialog.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QSpinBox>

#include "ui/shell/settings.hpp"

namespace kiln::ui {

SettingsDialog::SettingsDialog(Settings& settings, QWidget* parent)
    : QDialog(parent),
      settings_(settings),
      theme_(new QComboBox(this)),
      fontSize_(new QSpinBox(this)),
      watch_(new QCheckBox(tr("Rescan when the cache changes on disk"), this)),
      coalesce_(new QSpinBox(this)) {
    setWindowTitle(tr("Kiln Settings"));
    theme_->addItems({tr("Follow the system"), tr("Light"), tr("Dark")});
    theme_->setCurrentIndex(static_cast<int>(settings.theme()));
    fontSize_->setRange(0, 72);
    fontSize_->setSpecialValueText(tr("System"));
    fontSize_->setSuffix(tr(" pt"));
    fontSize_->setValue(settings.sourceFontSize());
    watch_->setChecked(settings.watchForChanges());
    coalesce_->setRange(50, 60000);
    coalesce_->setSingleStep(100);
    coalesce_->setSuffix(tr(" ms"));
    coalesce_->setValue(settings.coalesceMs());
    coalesce_->setToolTip(tr("Wait this long after the last change before rescanning"));

    auto* form = new QFormLayout(this);
    form->addRow(tr("Theme"), theme_);
    form->addRow(tr("Source font size"), fontSize_);
    form->addRow(watch_);
    form->addRow(tr("Coalesce changes for"), coalesce_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(buttons);
}

void SettingsDialog::accept() {
    settings_.setTheme(static_cast<Theme>(theme_->currentIndex()));
    settings_.setSourceFontSize(fontSize_->value());
    settings_.setWatchForChanges(watch_->isChecked());
    settings_.setCoalesceMs(coalesce_->value());
    QDialog::accept();
}

}  // namespace kiln::ui

#pragma once
#include <QString>

class QWidget;

namespace kiln::ui {

// The versions Kiln was built with and finds at run time (Kiln, Qt, OpenSSL, CUDA), as HTML.
QString versionReportHtml();
void showAboutDialog(QWidget* parent);

}  // namespace kiln::ui

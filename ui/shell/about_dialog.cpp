#include "ui/shell/about_dialog.hpp"

#include <QMessageBox>
#include <QPixmap>
#include <QtGlobal>

#include <openssl/crypto.h>

#include "cuda/nvcc.hpp"
#include "kiln/version.hpp"

namespace kiln::ui {

QString versionReportHtml() {
    const QString cuda = QString::fromStdString(kiln::cuda::cuda_version_summary()).toHtmlEscaped();
    return QStringLiteral(
               "<h3>Kiln %1</h3>"
               "<p>Inspector and tuner for <code>torch.compile</code> caches.</p>"
               "<table>"
               "<tr><td>Kiln</td><td>%2</td></tr>"
               "<tr><td>Qt</td><td>%3 (built with %4)</td></tr>"
               "<tr><td>OpenSSL</td><td>%5</td></tr>"
               "<tr><td>CUDA</td><td>%6</td></tr>"
               "</table>")
        .arg(QStringLiteral(KILN_VERSION), QStringLiteral(KILN_VERSION_FULL).toHtmlEscaped(),
             QString::fromLatin1(qVersion()), QStringLiteral(QT_VERSION_STR),
             QString::fromLatin1(OpenSSL_version(OPENSSL_VERSION)).toHtmlEscaped(), cuda);
}

void showAboutDialog(QWidget* parent) {
    QMessageBox box(parent);
    box.setWindowTitle(QObject::tr("About Kiln"));
    box.setTextFormat(Qt::RichText);
    box.setText(versionReportHtml());
    box.setIconPixmap(QPixmap());
    box.exec();
}

}  // namespace kiln::ui

#include "ui/portability/verdict_style.hpp"

#include <QObject>

#include "ui/theme/palette.hpp"

namespace kiln::ui {

using portability::Verdict;

QColor verdictColor(Verdict v, bool dark) {
    const ThemeColors& c = themeColorsFor(dark);
    switch (v) {
        case Verdict::hit: return c.ok;
        case Verdict::miss: return c.error;
        case Verdict::unknown: return c.warning;
    }
    return {};
}

QColor verdictColor(Verdict v, const QPalette& palette) { return verdictColor(v, isDarkPalette(palette)); }

QString verdictTitle(Verdict v) {
    switch (v) {
        case Verdict::hit: return QObject::tr("would hit on the target");
        case Verdict::miss: return QObject::tr("would miss: a key component differs");
        case Verdict::unknown: return QObject::tr("unknown: the target does not record a component");
    }
    return {};
}

QString verdictLegendHtml(const QPalette& palette) {
    QString html;
    for (Verdict v : {Verdict::hit, Verdict::miss, Verdict::unknown})
        html += QStringLiteral("<span style='color:%1'>&#9679;</span> <b>%2</b> %3&nbsp;&nbsp; ")
                    .arg(verdictColor(v, palette).name(),
                         QString::fromUtf8(portability::verdict_name(v).data(),
                                           qsizetype(portability::verdict_name(v).size())),
                         verdictTitle(v).toHtmlEscaped());
    return html;
}

}  // namespace kiln::ui

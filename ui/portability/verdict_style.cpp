#include "portability/verdict_style.hpp"

#include <QObject>

namespace kiln::ui {

using portability::Verdict;

QColor verdictColor(Verdict v, bool dark) {
    switch (v) {
        case Verdict::hit: return dark ? QColor(0x6c, 0xcf, 0x8a) : QColor(0x1e, 0x8a, 0x4a);
        case Verdict::miss: return dark ? QColor(0xf2, 0x78, 0x78) : QColor(0xc6, 0x28, 0x28);
        case Verdict::unknown: return dark ? QColor(0xf0, 0xb8, 0x50) : QColor(0xb0, 0x6a, 0x00);
    }
    return {};
}

QColor verdictColor(Verdict v, const QPalette& palette) {
    return verdictColor(v, palette.color(QPalette::Base).lightness() < 128);
}

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

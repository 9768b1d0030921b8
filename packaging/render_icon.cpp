// Build tool: renders the scalable icon to the fixed-size PNG that hicolor wants (256 px), so the
// PNG is derived from the SVG instead of being a second, drifting source.
// usage: kiln_render_icon IN.svg OUT.png SIZE
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s IN.svg OUT.png SIZE\n", argv[0]);
        return 2;
    }
    QGuiApplication app(argc, argv);  // QSvgRenderer needs the GUI module set up (offscreen is enough)
    const int size = std::atoi(argv[3]);
    QSvgRenderer svg(QString::fromLocal8Bit(argv[1]));
    if (!svg.isValid() || size <= 0) {
        std::fprintf(stderr, "kiln_render_icon: cannot render %s\n", argv[1]);
        return 1;
    }
    QImage img(size, size, QImage::Format_ARGB32_Premultiplied);
    img.fill(Qt::transparent);
    QPainter p(&img);
    p.setRenderHint(QPainter::Antialiasing);
    svg.render(&p);
    p.end();
    if (!img.save(QString::fromLocal8Bit(argv[2]), "PNG")) {
        std::fprintf(stderr, "kiln_render_icon: cannot write %s\n", argv[2]);
        return 1;
    }
    return 0;
}

#include "ui/timeline/timeline_panel.hpp"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFont>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "ui/common/qt_string.hpp"
#include "ui/jobs/job_runner.hpp"
#include "ui/timeline/startup_view.hpp"

namespace kiln::ui {

namespace {

struct TimelineOutcome {
    QString token;
    std::shared_ptr<const trace::CompileTimeline> timeline;
    QString empty;
    std::shared_ptr<const startup::StartupReport> startup;
    QString startupEmpty;
};

QString secs(std::int64_t ns) { return formatSeconds(double(ns) / 1e9); }

QString frameText(const trace::TimelineCompile& c) {
    if (c.function.empty()) return QObject::tr("(before any frame)");
    QString s = qstr(c.function);
    const QString file = qstr(std::filesystem::path(c.file).filename().string());
    if (!file.isEmpty()) s += QStringLiteral(" (%1:%2)").arg(file).arg(c.line);
    return s;
}

// "FX miss, AOT miss" — the compile's outcome at a glance.
QString outcomeText(const trace::TimelineCompile& c) {
    QStringList parts;
    for (const char* cache : {"fx_graph", "aotautograd"})
        for (const char* state : {"hit", "miss", "bypass"})
            if (std::size_t n = c.count(cache, state)) {
                const QString name = QString::fromLatin1(std::string_view(cache) == "fx_graph" ? "FX" : "AOT");
                parts << (n > 1 ? QStringLiteral("%1 %2 ×%3").arg(name, state).arg(n)
                                : QStringLiteral("%1 %2").arg(name, state));
            }
    return parts.isEmpty() ? QObject::tr("no cache event") : parts.join(QStringLiteral(", "));
}

QTreeWidgetItem* eventItem(const trace::TimelineEvent& e) {
    const QString cache = e.cache == "fx_graph" ? QObject::tr("FX graph") : QObject::tr("AOTAutograd");
    QString state = qstr(e.state);
    if (!e.detail.empty() && e.detail != e.state && e.detail != "hit")
        state += QStringLiteral(" (%1)").arg(qstr(e.detail));
    QString time;
    if (e.time_saved_ns) time = QObject::tr("took %1 when cached").arg(secs(*e.time_saved_ns));
    else if (e.time_taken_ns) time = QObject::tr("took %1").arg(secs(*e.time_taken_ns));
    // Short enough for five processes side by side; the tooltip has it all.
    const QString shortCache = e.cache == "fx_graph" ? QStringLiteral("FX") : QStringLiteral("AOT");
    auto* item = new QTreeWidgetItem(
        {QStringLiteral("%1 %2  %3").arg(shortCache, qstr(e.state), qstr(e.key.substr(0, 9))), time});
    item->setData(0, TimelinePanel::CacheRole, qstr(e.cache));
    item->setData(0, TimelinePanel::StateRole, qstr(e.state));
    item->setData(0, TimelinePanel::KeyRole, qstr(e.key));
    QString tip = QObject::tr("%1 at %2 (log line %3)\nkey %4")
                      .arg(cache + " " + state, qstr(e.time))
                      .arg(e.line)
                      .arg(qstr(e.key));
    if (!e.reason.empty())
        tip += (e.state == "bypass" ? QObject::tr("\nwhy: ") : QObject::tr("\nfailed guards: ")) + qstr(e.reason);
    if (!e.key.empty()) tip += QObject::tr("\nDouble-click or Enter: select the entry in the cache browser.");
    for (int c = 0; c < 2; ++c) item->setToolTip(c, tip);
    if (e.state == "miss") {
        QFont f = item->font(0);
        f.setBold(true);
        item->setFont(0, f);
    }
    return item;
}

}  // namespace

TimelinePanel::TimelinePanel(JobRunner* jobs, QWidget* parent)
    : QWidget(parent),
      jobs_(jobs ? jobs : new JobRunner(this)),
      summary_(new QLabel(this)),
      open_(new QPushButton(tr("Open TORCH_TRACE folder…"), this)),
      columns_(new QSplitter(Qt::Horizontal, this)),
      startup_(new StartupView(this)) {
    setObjectName(QStringLiteral("timelinePanel"));
    summary_->setWordWrap(true);
    summary_->setTextFormat(Qt::RichText);
    auto* top = new QHBoxLayout;
    top->addWidget(summary_, 1);
    top->addWidget(open_, 0, Qt::AlignTop);
    auto* lower = new QWidget(this);
    auto* lowerLayout = new QVBoxLayout(lower);
    lowerLayout->setContentsMargins(0, 0, 0, 0);
    lowerLayout->addLayout(top);
    lowerLayout->addWidget(columns_, 1);
    columns_->setChildrenCollapsible(false);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(startup_);
    split->addWidget(lower);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(split, 1);
    connect(open_, &QPushButton::clicked, this, &TimelinePanel::openFolder);
}

bool TimelinePanel::isLoading() const {
    return jobs_->isRunning(QStringLiteral("timeline")) || jobs_->isRunning(QStringLiteral("startup"));
}

void TimelinePanel::loadRoot(const QString& root, std::shared_ptr<const bundle::RootOrBlob> opened) {
    root_ = root;
    opened_ = std::move(opened);
    QStringList dirs;
    for (const auto& d : trace::find_trace_dirs(root.toStdString())) dirs << qstr(d.string());
    if (dirs.isEmpty()) {
        const QString none = tr("<b>No TORCH_TRACE logs beside %1.</b> Run torch with <code>TORCH_TRACE=DIR</code> "
                                "and keep DIR next to the cache root (<code>trace/</code>), or open the folder here.")
                                 .arg(root.toHtmlEscaped());
        dirs_.clear();
        startup_->setReport(nullptr, none);
        setTimeline(nullptr, none);
        return;
    }
    loadDirs(dirs);
}

void TimelinePanel::loadDirs(const QStringList& dirs) {
    dirs_ = dirs;
    summary_->setText(tr("Reading %1 …").arg(dirs.join(QStringLiteral(", ")).toHtmlEscaped()));
    const QString token = dirs.join(QLatin1Char('\n'));
    jobs_->start(
        QStringLiteral("timeline"), tr("Reading TORCH_TRACE logs"),
        [dirs, token](JobControl&) {
            std::vector<std::filesystem::path> paths;
            for (const auto& d : dirs) paths.emplace_back(d.toStdString());
            auto t = std::make_shared<trace::CompileTimeline>(trace::read_compile_timelines(paths));
            QString empty;
            if (t->processes.empty())
                empty = QObject::tr("<b>No TORCH_TRACE log could be read.</b> %1")
                            .arg(t->warnings.empty() ? QString() : qstr(t->warnings.front()).toHtmlEscaped());
            return TimelineOutcome{token, std::move(t), empty, nullptr, {}};
        },
        [this](TimelineOutcome out) { setTimeline(out.timeline, out.empty); });
    // Where the time went, on its own channel: comparing misses with the root's entries decodes them, which
    // on a large cache takes longer than the timeline.
    jobs_->start(
        QStringLiteral("startup"), tr("Explaining compile times"),
        [dirs, opened = opened_.lock()](JobControl&) {  // held by the job while it runs
            std::vector<std::filesystem::path> paths;
            for (const auto& d : dirs) paths.emplace_back(d.toStdString());
            startup::StartupOptions options;
            if (opened) options.root = opened->opened();
            auto s = startup::analyze_startup(paths, options);
            if (!s && options.root) {  // a root without fxgraph/: explain from the processes alone
                options.root.reset();
                options.find_root = false;
                s = startup::analyze_startup(paths, options);
            }
            TimelineOutcome out;
            if (s) out.startup = std::make_shared<startup::StartupReport>(std::move(s).value());
            else
                out.startupEmpty =
                    QObject::tr("<b>No compile to explain:</b> %1").arg(qstr(s.error().str()).toHtmlEscaped());
            return out;
        },
        [this](TimelineOutcome out) { startup_->setReport(out.startup, out.startupEmpty); });
}

void TimelinePanel::openFolder() {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a TORCH_TRACE folder"), root_);
    if (!dir.isEmpty()) addDir(dir);
}

void TimelinePanel::addDir(const QString& dir) {
    QStringList dirs = dirs_;
    const QString clean = QDir::cleanPath(QFileInfo(dir).absoluteFilePath());
    if (!dirs.contains(clean)) dirs << clean;
    loadDirs(dirs);
}

void TimelinePanel::clearColumns() {
    while (columns_->count()) delete columns_->widget(0);
}

void TimelinePanel::setTimeline(std::shared_ptr<const trace::CompileTimeline> t, const QString& emptyText) {
    timeline_ = std::move(t);
    clearColumns();
    if (!timeline_ || timeline_->processes.empty()) {
        summary_->setText(emptyText.isEmpty() ? tr("No TORCH_TRACE logs.") : emptyText);
        emit loaded(0);
        return;
    }
    std::size_t hits = 0, misses = 0;
    std::int64_t saved = 0;
    for (const auto& p : timeline_->processes) {
        hits += p.count("fx_graph", "hit");
        misses += p.count("fx_graph", "miss");
        saved += p.saved_ns();
        columns_->addWidget(processColumn(p));
    }
    QString text =
        tr("<b>%1 processes</b>, side by side in the order they ran: %2 FX graph hits, %3 misses; the hits' graphs "
           "took <b>%4</b> to compile when they were cached (torch's record, not a time measured in these runs). Bold: "
           "a miss. Double-click an event to select its entry.")
            .arg(timeline_->processes.size())
            .arg(hits)
            .arg(misses)
            .arg(secs(saved));
    if (!timeline_->warnings.empty())
        text += tr("<br>%1 logs not read; the first: %2")
                    .arg(timeline_->warnings.size())
                    .arg(qstr(timeline_->warnings.front()).toHtmlEscaped());
    summary_->setText(text);
    emit loaded(int(timeline_->processes.size()));
}

QWidget* TimelinePanel::processColumn(const trace::TimelineProcess& p) {
    auto* box = new QWidget;
    // Which process: its run's folder, rank and pid, and the GPU its cache keys name.
    QString who = QStringLiteral("<b>%1</b>").arg(qstr(p.label).toHtmlEscaped());
    for (const auto& id : trace::process_ids(p)) who += QStringLiteral(" · ") + qstr(id).toHtmlEscaped();
    who += QStringLiteral("<br>") +
           (p.device.empty() ? tr("device not named in its keys") : qstr(p.device).toHtmlEscaped());
    auto* header = new QLabel(tr("%1<br>%2 compiles, %3<br>FX %4 hit / %5 miss · hits cached from %6 of compiling")
                                  .arg(who)
                                  .arg(p.compiles.size())
                                  .arg(formatSeconds(p.compile_s()))
                                  .arg(p.count("fx_graph", "hit"))
                                  .arg(p.count("fx_graph", "miss"))
                                  .arg(secs(p.saved_ns())),
                              box);
    header->setToolTip(qstr(p.log));
    header->setWordWrap(true);
    header->setMinimumWidth(120);
    auto* tree = new QTreeWidget(box);
    tree->setObjectName(QStringLiteral("timelineTree"));
    tree->setHeaderLabels({tr("Compile, then its cache events"), tr("Time")});
    tree->setAlternatingRowColors(true);
    tree->setUniformRowHeights(true);
    for (const auto& c : p.compiles) {
        // The function only (the columns are narrow); its file:line in the tooltip.
        auto* item =
            new QTreeWidgetItem({QStringLiteral("%1  %2%3")
                                     .arg(qstr(c.compile_id), c.function.empty() ? frameText(c) : qstr(c.function),
                                          c.kind == "backward" ? tr(" backward") : QString()),
                                 c.compile_s ? formatSeconds(*c.compile_s) : QStringLiteral("–")});
        item->setToolTip(
            0, tr("compile %1 of %2 in %3:%4, started %5%6")
                       .arg(qstr(c.compile_id), qstr(c.function), qstr(c.file))
                       .arg(c.line)
                       .arg(qstr(c.start_time), c.fail.empty() ? QString() : tr("\nfailed: ") + qstr(c.fail)) +
                   QStringLiteral("\n") + outcomeText(c));
        for (const auto& e : c.events) item->addChild(eventItem(e));
        tree->addTopLevelItem(item);
    }
    tree->expandAll();
    tree->setMinimumWidth(120);
    tree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    tree->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    tree->header()->setStretchLastSection(false);
    connect(tree, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
        const QString key = item->data(0, KeyRole).toString();
        if (!key.isEmpty()) emit keyActivated(key);
    });
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(header);
    layout->addWidget(tree, 1);
    box->setFocusProxy(tree);
    return box;
}

int TimelinePanel::processCount() const { return columns_->count(); }

QTreeWidget* TimelinePanel::processTree(int i) const {
    QWidget* w = i >= 0 && i < columns_->count() ? columns_->widget(i) : nullptr;
    return w ? w->findChild<QTreeWidget*>() : nullptr;
}

}  // namespace kiln::ui

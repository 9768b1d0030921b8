// The Ranks view (issue 43) on the real 4-rank H100 job (tests/data/ranks-h100x4-torch2.11.tar.xz):
// the tree model and the agreement model under QAbstractItemModelTester, fed with reports core builds
// and checked against what the real `kiln-cli ranks --json` prints on the same folders; the dialog's
// comparison off the UI thread, its groups and unreadable ranks, Cancel, the rule, --write on a copy,
// and the Tune menu's entry. With KILN_SCREENSHOT_DIR set, saves ranks.png and ranks-agree.png.
#include <QAbstractItemModelTester>
#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QJsonArray>
#include <QJsonObject>
#include <QMenu>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include <filesystem>
#include <fstream>

#include "ranks/rank_agreement.hpp"
#include "ranks/ranks_report.hpp"
#include "ui/jobs/job_runner.hpp"
#include "ui/ranks/agreement_model.hpp"
#include "ui/ranks/ranks_dialog.hpp"
#include "ui/ranks/ranks_model.hpp"
#include "ui/shell/install_views.hpp"
#include "ui/shell/main_window.hpp"
#include "ui_test_support.hpp"
#include "util/python_json.hpp"

using namespace kiln::ui;
namespace fs = std::filesystem;

namespace {

QString rankDir(int r) { return test::fixtureDir() + QStringLiteral("/ranks/rank%1").arg(r); }
QStringList fourRanks() { return {rankDir(0), rankDir(1), rankDir(2), rankDir(3)}; }

// What the CLI and the view are both built from: core's reading of the folders.
struct CoreRanks {
    std::vector<kiln::ranks::LoadedRank> loaded;
    std::shared_ptr<const kiln::ranks::RanksReport> report;
};
CoreRanks coreRanks(const QStringList& dirs) {
    std::vector<kiln::ranks::RankSpec> specs;
    for (const auto& d : dirs) specs.push_back({d.toStdString(), "", "", {}, ""});
    std::vector<kiln::ranks::RankProblem> problems;
    CoreRanks c;
    c.loaded = kiln::ranks::load_ranks(specs, problems);
    c.report = std::make_shared<const kiln::ranks::RanksReport>(kiln::ranks::compare_ranks(c.loaded, problems));
    return c;
}

QJsonObject cliRanks(const QStringList& dirs, const QStringList& extra = {}) {
    return test::runCliJson(QStringList{QStringLiteral("ranks")} + dirs + extra + QStringList{"--json"}).object();
}

// The op row whose first column reads `what`, or an invalid index.
QModelIndex opRow(const RanksModel& m, const QString& what) {
    const QModelIndex ops = m.sectionIndex(RanksModel::OpsSection);
    for (int r = 0; r < m.rowCount(ops); ++r)
        if (m.index(r, RanksModel::WhatColumn, ops).data().toString() == what) return m.index(r, 0, ops);
    return {};
}

QString cell(const QAbstractItemModel& m, const QModelIndex& row, int column) {
    return m.index(row.row(), column, row.parent()).data().toString();
}

// Counts the dialog's compared() signals (its argument is a value type QSignalSpy need not know).
struct ComparedCount {
    explicit ComparedCount(RanksDialog& dlg) {
        QObject::connect(&dlg, &RanksDialog::compared, &dlg, [this](const RanksOutcome&) { ++n; });
    }
    bool wait(int atLeast = 1) {
        return test::waitFor([&] { return n >= atLeast; }, 120000);
    }
    int n = 0;
};

// Every role of every cell, as views and tooltips ask for them; returns the cells visited.
int readEveryCell(const QAbstractItemModel& m, const QModelIndex& parent = {}) {
    int cells = 0;
    for (int r = 0; r < m.rowCount(parent); ++r) {
        for (int c = 0; c < m.columnCount(parent); ++c) {
            const QModelIndex i = m.index(r, c, parent);
            for (int role :
                 {int(Qt::DisplayRole), int(Qt::ToolTipRole), int(Qt::DecorationRole), int(Qt::ForegroundRole),
                  int(Qt::FontRole), int(Qt::UserRole + 1), int(Qt::UserRole + 2), int(Qt::UserRole + 3)})
                (void)i.data(role);
            ++cells;
        }
        cells += readEveryCell(m, m.index(r, 0, parent));
    }
    return cells;
}

bool compareIn(RanksDialog& dlg) {
    ComparedCount done(dlg);
    dlg.compare();
    return done.wait();
}

}  // namespace

class RanksTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QCoreApplication::setOrganizationName("KilnTest"); }

    void modelShowsWhatTheCliReports() {
        const CoreRanks c = coreRanks(fourRanks());
        RanksModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setReport(c.report, 0);
        QCOMPARE(model.rankCount(), 4);
        QCOMPARE(model.columnCount(), RanksModel::FirstRankColumn + 4);
        QCOMPARE(model.headerData(RanksModel::FirstRankColumn + 2, Qt::Horizontal).toString(), QStringLiteral("rank2"));

        // As many divergent ops as `kiln-cli ranks` counts, and as core counts.
        const QJsonObject cli = cliRanks(fourRanks());
        const QModelIndex ops = model.sectionIndex(RanksModel::OpsSection);
        QCOMPARE(model.rowCount(ops), cli["ops_differ"].toInt());
        QCOMPARE(std::size_t(model.rowCount(ops)), c.report->ops_differ());
        QCOMPARE(model.rowCount(ops), 10);
        QCOMPARE(ops.data().toString(), QStringLiteral("Autotuned ops: 10 of 16 differ"));
        const QJsonObject group = cli["groups"].toArray()[0].toObject();
        QCOMPARE(model.rowCount(model.sectionIndex(RanksModel::KernelsSection)),
                 group["best_configs"].toObject()["differ_count"].toInt());
        QCOMPARE(model.rowCount(model.sectionIndex(RanksModel::GraphsSection)),
                 group["graphs"].toObject()["differ"].toArray().size());

        // Every op's per-rank winners are the CLI's, in its order.
        const QJsonArray differ = group["ops"].toObject()["differ"].toArray();
        for (int i = 0; i < differ.size(); ++i) {
            const QJsonObject d = differ[i].toObject();
            const QModelIndex row = model.opIndex(i);
            QVERIFY(cell(model, row, RanksModel::WhatColumn).startsWith(d["op"].toString() + "("));
            const QJsonArray winner = d["winner"].toArray();
            const QJsonArray competing = d["competing"].toArray();
            QCOMPARE(model.rowCount(row), competing.size());
            for (int r = 0; r < 4; ++r) {
                const QString label = competing[winner[r].toInt()].toObject()["label"].toString();
                // The compact label, or its config alone where every choice is a config of one family.
                const QString shown = cell(model, row, RanksModel::FirstRankColumn + r);
                const QString compact = compactChoiceLabel(label.toStdString());
                QVERIFY2(shown == compact || compact.endsWith(QStringLiteral(" (") + shown + QStringLiteral(")")),
                         qPrintable(shown + " / " + compact));
                QVERIFY(model.index(row.row(), RanksModel::FirstRankColumn + r, row.parent())
                            .data(Qt::ToolTipRole)
                            .toString()
                            .contains(label));
                // ... and that choice's row marks the rank's cell as its winner, with the time it measured.
                const QModelIndex choice = model.index(winner[r].toInt(), RanksModel::FirstRankColumn + r, row);
                QVERIFY(choice.data(RanksModel::WinnerRole).toBool());
                QVERIFY(choice.data().toString().startsWith(QStringLiteral("★ ")));
            }
        }

        // cuBLAS won on ranks 0, 2 and 3, a Triton template on rank 1: another algorithm, so numerics.
        const QModelIndex mm = opRow(model, QStringLiteral("mm(1024x384 bfloat16, 384x1536 bfloat16) [highest]"));
        QVERIFY(mm.isValid());
        QCOMPARE(cell(model, mm, RanksModel::FirstRankColumn + 0), QStringLiteral("mm"));
        QCOMPARE(cell(model, mm, RanksModel::FirstRankColumn + 1), QStringLiteral("triton_mm (128×128×64, 5 st, 8 w)"));
        QCOMPARE(cell(model, mm, RanksModel::FirstRankColumn + 2), QStringLiteral("mm"));
        QCOMPARE(cell(model, mm, RanksModel::FirstRankColumn + 3), QStringLiteral("mm"));
        QCOMPARE(cell(model, mm, RanksModel::EffectColumn), QStringLiteral("changes numerics"));
        QCOMPARE(model.index(mm.row(), 0, mm.parent()).data(RanksModel::EffectRole).toInt(),
                 int(kiln::ranks::Effect::numerics));
        const QModelIndex cublas = model.index(0, RanksModel::WhatColumn, mm);
        QCOMPARE(cublas.data().toString(), QStringLiteral("mm"));
        QCOMPARE(model.index(0, RanksModel::FirstRankColumn + 0, mm).data().toString(), QStringLiteral("★ 0.0089"));
        QCOMPARE(model.index(0, RanksModel::FirstRankColumn + 1, mm).data().toString(), QStringLiteral("0.0257"));
        // A choice of one template family against another: the config alone names it.
        const QModelIndex first = model.opIndex(0);
        QCOMPARE(cell(model, first, RanksModel::FirstRankColumn + 0), QStringLiteral("64×32×32, 5 st, 8 w"));
        QCOMPARE(cell(model, first, RanksModel::FirstRankColumn + 3), QStringLiteral("64×128×128, 4 st, 4 w"));
        // Only another stage count: speed only.
        const QModelIndex stages =
            opRow(model, QStringLiteral("bmm(24x256x256 bfloat16 strides 65536x1x256, 24x256x64 bfloat16) [highest]"));
        QVERIFY(stages.isValid());
        QCOMPARE(cell(model, stages, RanksModel::EffectColumn), QStringLiteral("speed only"));
        QCOMPARE(ops.siblingAtColumn(RanksModel::EffectColumn).data().toString(),
                 QStringLiteral("9 numerics · 1 speed"));

        // A graph's output code: the kernel whose tile differs, each rank's config.
        const QModelIndex graphs = model.sectionIndex(RanksModel::GraphsSection);
        QModelIndex forward;
        for (int r = 0; r < model.rowCount(graphs); ++r)
            if (model.index(r, 0, graphs).data().toString().startsWith(QStringLiteral("output code ['0_forward']")))
                forward = model.index(r, 0, graphs);
        QVERIFY(forward.isValid());
        QModelIndex tile;
        for (int r = 0; r < model.rowCount(forward); ++r)
            if (model.index(r, 0, forward).data().toString() ==
                QStringLiteral("triton_tem_fused_addmm_native_layer_norm_t_view_1 [config]"))
                tile = model.index(r, 0, forward);
        QVERIFY(tile.isValid());
        QCOMPARE(cell(model, tile, RanksModel::FirstRankColumn + 0),
                 QStringLiteral("BLOCK 64×32×32, 5 stages, 8 warps"));
        QCOMPARE(cell(model, tile, RanksModel::FirstRankColumn + 1),
                 QStringLiteral("BLOCK 64×64×128, 5 stages, 4 warps"));
        QCOMPARE(cell(model, tile, RanksModel::EffectColumn), QStringLiteral("changes numerics"));

        // A choice of an op has no effect of its own (its op has).
        QVERIFY(!model.index(0, RanksModel::EffectColumn, mm).data().isValid());
        QVERIFY(readEveryCell(model) > 0);

        model.setReport(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void agreementModelShowsTheAgreedChoices() {
        CoreRanks c = coreRanks(fourRanks());
        std::vector<const kiln::ranks::LoadedRank*> members;
        for (const auto& r : c.loaded) members.push_back(&r);
        auto median = std::make_shared<const kiln::ranks::Agreement>(
            kiln::ranks::agree(members, kiln::ranks::AgreeRule::median, "g"));
        AgreementModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setAgreement(median);
        // The ops `kiln-cli ranks --agree` lists: those whose winners differed.
        const QJsonObject cli = cliRanks(fourRanks(), {"--agree"});
        const QJsonObject agreement = cli["agreements"].toArray()[0].toObject();
        int differed = 0;
        for (const auto& o : agreement["ops"].toArray()) differed += o.toObject()["ranks_differed"].toBool();
        QCOMPARE(model.rowCount(), differed);
        QCOMPARE(model.rowCount(), 10);
        QCOMPARE(model.columnCount(), AgreementModel::FirstRankColumn + 4);
        int row = -1;
        for (int r = 0; r < model.rowCount(); ++r)
            if (model.index(r, AgreementModel::OpColumn)
                    .data()
                    .toString()
                    .startsWith(QStringLiteral("addmm(1024x1152 bfloat16 strides 0x1,")))
                row = r;
        QVERIFY(row >= 0);
        QCOMPARE(model.index(row, AgreementModel::AgreedColumn).data().toString(),
                 QStringLiteral("triton_mm (64×64×64, 3 st, 8 w)"));
        QVERIFY(model.index(row, AgreementModel::AgreedColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .startsWith(QStringLiteral("triton_mm (BLOCK 64×64×64, 3 stages, 8 warps)")));
        QCOMPARE(model.index(row, AgreementModel::MedianColumn).data().toString(), QStringLiteral("0.0240"));
        QCOMPARE(model.index(row, AgreementModel::VotesColumn).data().toString(), QStringLiteral("1 of 4"));
        // Rank 2's own winner was the agreed choice: its file is left alone; rank 0's changes.
        QVERIFY(model.index(row, AgreementModel::FirstRankColumn + 2).data(AgreementModel::KeepsRole).toBool());
        QVERIFY(!model.index(row, AgreementModel::FirstRankColumn + 0).data(AgreementModel::KeepsRole).toBool());
        QCOMPARE(model.index(row, AgreementModel::FirstRankColumn + 0).data().toString(),
                 QStringLiteral("64×32×32, 5 st, 8 w"));
        QCOMPARE(model.index(row, AgreementModel::FirstRankColumn + 2).data().toString(),
                 QStringLiteral("✓ the agreed choice"));
        QVERIFY(model.index(row, AgreementModel::FirstRankColumn + 0)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("triton_mm (BLOCK 64×32×32, 5 stages, 8 warps)")));
        model.setShowAll(true);
        QVERIFY(readEveryCell(model) > 0);
        QCOMPARE(model.rowCount(), agreement["ops"].toArray().size());
        QCOMPARE(model.rowCount(), 16);

        // By majority: cuBLAS for the mm that three ranks ran it on.
        model.setShowAll(false);
        model.setAgreement(std::make_shared<const kiln::ranks::Agreement>(
            kiln::ranks::agree(members, kiln::ranks::AgreeRule::majority, "g")));
        bool found = false;
        for (int r = 0; r < model.rowCount(); ++r) {
            if (model.index(r, AgreementModel::OpColumn).data().toString() !=
                QStringLiteral("mm(1024x384 bfloat16, 384x1536 bfloat16) [highest]"))
                continue;
            found = true;
            QCOMPARE(model.index(r, AgreementModel::AgreedColumn).data().toString(), QStringLiteral("mm"));
            QCOMPARE(model.index(r, AgreementModel::VotesColumn).data().toString(), QStringLiteral("3 of 4"));
            // Rank 1 ran a Triton template: its file changes, its winner named with its family.
            QCOMPARE(model.index(r, AgreementModel::FirstRankColumn + 1).data().toString(),
                     QStringLiteral("triton_mm (128×128×64, 5 st, 8 w)"));
            QVERIFY(!model.index(r, AgreementModel::FirstRankColumn + 1).data(AgreementModel::KeepsRole).toBool());
        }
        QVERIFY(found);
    }

    void dialogComparesOffTheUiThreadAndNamesWhatItCouldNotRead() {
        JobRunner jobs;
        RanksDialog dlg(&jobs);
        const QString missing = QStringLiteral("/no/such/job/rank9");  // named in the README's picture
        dlg.setRankDirs(fourRanks() + QStringList{missing});
        ComparedCount done(dlg);
        dlg.compare();
        // compare() returned before the work was done: it runs on the job runner.
        QVERIFY(dlg.isComparing());
        QVERIFY(jobs.isBusy());
        QVERIFY(!dlg.outcome().data);
        QVERIFY(done.wait());
        QVERIFY(!dlg.isComparing());
        QVERIFY2(dlg.outcome().data, qPrintable(dlg.outcome().error));
        const QString summary = dlg.summaryText();
        QVERIFY2(summary.contains(QStringLiteral("ranks disagree on 10 of 16 autotuned ops")), qPrintable(summary));
        QVERIFY(summary.contains(QStringLiteral("NVIDIA H100 80GB HBM3, torch 2.11.0+cu130")));
        QVERIFY(summary.contains(QStringLiteral("not compared: ") + missing));
        QCOMPARE(dlg.model()->rowCount(dlg.model()->sectionIndex(RanksModel::OpsSection)), 10);
        QCOMPARE(dlg.agreementModel()->rowCount(), 10);
        QVERIFY(dlg.agreementText().contains(QStringLiteral("smallest median")));

        // Another rule: agreed again without reading the ranks again.
        QSignalSpy agreed(&dlg, &RanksDialog::agreed);
        dlg.setRule(kiln::ranks::AgreeRule::majority);
        // (A job that ends before the runner attaches its continuation delivers at once: count, not wait.)
        QVERIFY(test::waitFor([&] { return agreed.count() >= 1; }, 30000));
        QCOMPARE(dlg.outcome().data->rule, kiln::ranks::AgreeRule::majority);
        QVERIFY2(dlg.agreementText().contains(QStringLiteral("most ranks")), qPrintable(dlg.agreementText()));
        QCOMPARE(dlg.outcome().data->report.get(), dlg.model()->report());

        // The README's pictures: the first op open with each rank's time per choice, then the agreement.
        dlg.setRule(kiln::ranks::AgreeRule::median);
        QVERIFY(test::waitFor([&] { return agreed.count() >= 2; }, 30000));
        dlg.treeView()->expand(dlg.model()->opIndex(0));
        dlg.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dlg));
        test::saveScreenshot(&dlg, QStringLiteral("ranks.png"));
        dlg.tabs()->setCurrentIndex(1);
        test::saveScreenshot(&dlg, QStringLiteral("ranks-agree.png"));
    }

    void ranksOfAnotherKindAreAGroupApart() {
        QTemporaryDir tmp;
        const fs::path copy = fs::path(tmp.path().toStdString()) / "rank3";
        fs::copy(rankDir(3).toStdString(), copy, fs::copy_options::recursive);
        const fs::path cacheDir = copy / "inductor" / "cache";
        fs::path cache;
        for (const auto& e : fs::directory_iterator(cacheDir)) cache = e.path();
        std::ifstream in(cache);
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        auto j = kiln::py_loads(text).value();
        j["system"]["device"]["name"] = "NVIDIA H200";
        std::ofstream(cache, std::ios::trunc) << kiln::py_dumps(j, {.sort_keys = false, .indent = 4});

        JobRunner jobs;
        RanksDialog dlg(&jobs);
        dlg.setRankDirs({rankDir(0), rankDir(1), rankDir(2), QString::fromStdString(copy.string())});
        QVERIFY(compareIn(dlg));
        QVERIFY2(dlg.outcome().data, qPrintable(dlg.outcome().error));
        QCOMPARE(dlg.outcome().data->report->groups.size(), std::size_t(2));
        const QString summary = dlg.summaryText();
        QVERIFY2(summary.contains(QStringLiteral("2 kinds")), qPrintable(summary));
        QVERIFY(summary.contains(QStringLiteral("NVIDIA H200")));
        QVERIFY(summary.contains(QStringLiteral("the only rank of its kind")));
        auto* combo = dlg.findChild<QComboBox*>();
        QVERIFY(combo);
        QCOMPARE(combo->count(), 2);
        // The three H100s shown; the lone H200 has nothing to agree on.
        QCOMPARE(dlg.model()->rankCount(), 3);
        QCOMPARE(dlg.model()->rowCount(dlg.model()->sectionIndex(RanksModel::OpsSection)),
                 int(dlg.outcome().data->report->groups[0].ops.differ.size()));
        dlg.showGroup(1);
        QCOMPARE(dlg.model()->rankCount(), 1);
        QCOMPARE(dlg.agreementModel()->rowCount(), 0);
        QVERIFY(dlg.agreementText().contains(QStringLiteral("one rank")));
    }

    void addingAJobFolderAddsEachRankInIt() {
        JobRunner jobs;
        RanksDialog dlg(&jobs);
        dlg.addRankFolder(test::fixtureDir() + QStringLiteral("/ranks"));  // rank0..rank3 and machine.txt
        QCOMPARE(dlg.rankDirs(), fourRanks());
        dlg.addRankFolder(rankDir(1));                                // already there
        dlg.addRankFolder(rankDir(0) + QStringLiteral("/inductor"));  // a cache root itself
        QCOMPARE(dlg.rankDirs(), fourRanks() + QStringList{rankDir(0) + QStringLiteral("/inductor")});
    }

    void cancelStopsBetweenRanks() {
        JobRunner jobs;
        RanksDialog dlg(&jobs);
        QStringList many;
        for (int i = 0; i < 100; ++i) many += fourRanks();
        dlg.setRankDirs(many);
        ComparedCount done(dlg);
        dlg.compare();
        dlg.cancel();
        QVERIFY(done.wait());
        QVERIFY(dlg.outcome().cancelled);
        QVERIFY(!dlg.outcome().data);
        QCOMPARE(dlg.model()->rowCount(), 0);
        QVERIFY(dlg.summaryText().contains(QStringLiteral("Cancelled")));
        // One readable rank is not a comparison: the CLI's error.
        dlg.setRankDirs({rankDir(0), QStringLiteral("/no/such/rank")});
        QVERIFY(compareIn(dlg));
        QVERIFY(!dlg.outcome().data);
        QVERIFY2(dlg.outcome().error.contains(QStringLiteral("need two readable ranks to compare, 1 read")),
                 qPrintable(dlg.outcome().error));
    }

    void writingHandsTheAgreedChoiceToEveryRank() {
        QTemporaryDir tmp;
        QStringList copies;
        for (int r = 0; r < 4; ++r) {
            const fs::path to = fs::path(tmp.path().toStdString()) / ("rank" + std::to_string(r));
            fs::copy(rankDir(r).toStdString(), to, fs::copy_options::recursive);
            copies << QString::fromStdString(to.string());
        }
        JobRunner jobs;
        RanksDialog dlg(&jobs);
        dlg.setRankDirs(copies);
        QVERIFY(compareIn(dlg));
        QVERIFY(dlg.outcome().data);
        QCOMPARE(dlg.outcome().data->agreements.at(0).to_write(), std::size_t(10));
        std::vector<RanksWriteOutcome> written;
        QObject::connect(&dlg, &RanksDialog::written, &dlg, [&](const RanksWriteOutcome& w) { written.push_back(w); });
        ComparedCount compared(dlg);
        dlg.writeAgreed(false);
        QVERIFY(test::waitFor([&] { return !written.empty(); }));
        const RanksWriteOutcome& out = written.front();
        QCOMPARE(out.error, QString());
        QCOMPARE(out.written.size(), std::size_t(4));
        int ops = 0;
        for (const auto& w : out.written) ops += w.ops;
        QCOMPARE(ops, 4 + 9 + 5 + 6);  // what `kiln-cli ranks --agree --write` writes per rank on this job
        // Compared again: every rank now runs the agreed choice.
        QVERIFY(compared.wait());
        QVERIFY(dlg.outcome().data);
        QVERIFY2(dlg.summaryText().contains(QStringLiteral("ranks agree on all 16 autotuned ops")),
                 qPrintable(dlg.summaryText()));
        QCOMPARE(cliRanks(copies)["ops_differ"].toInt(), 0);
    }

    void tuneMenuOpensTheDialog() {
        MainWindow w;
        const InstalledViews v = installAllViews(w);
        QVERIFY(v.compareRanks);
        QVERIFY(v.autotune.menu);
        QVERIFY(v.autotune.menu->actions().contains(v.compareRanks));
        QCOMPARE(v.compareRanks->text(), QStringLiteral("Compare ranks…"));
        v.compareRanks->trigger();
        auto* dlg = w.findChild<RanksDialog*>();
        QVERIFY(dlg);
        QVERIFY(dlg->isVisible());
        QVERIFY(dlg->testAttribute(Qt::WA_DeleteOnClose));
        dlg->close();
    }
};

QTEST_MAIN(RanksTest)
#include "ranks_test.moc"

#pragma once
// The Guards tab's questions, answered by the core's guard engine off the UI thread:
// which symbols (t0, t1, ...) the entries of a key dir use, and, for given values, which entries
// pass, why the others fail, which one torch would serve, and whether that choice is ambiguous.
#include <QString>
#include <QStringList>
#include <QVector>

namespace kiln::ui {

class JobControl;

struct GuardRow {
    QString file;
    QString expr;  // empty: the entry has no guards (always a hit)
    bool pass = false;
    QString failing;  // the first failing conjunct, with the values it saw
    QString error;    // the entry or its expression could not be read
};

struct GuardOutcome {
    QString keyDir;
    QVector<qint64> values;
    QVector<GuardRow> rows;  // in torch's lookup order (sorted file names)
    QString served;          // file name, empty when nothing holds
    bool ambiguous = false;  // several entries hold: the sorted order decided
    QString error;
};

struct GuardSymbols {
    QString keyDir;
    QStringList symbols;  // union over the key dir's entries, in slot order
    QString error;
};

GuardSymbols loadGuardSymbols(const QString& keyDir, JobControl& ctl);
GuardOutcome evaluateGuards(const QString& keyDir, const QVector<qint64>& values, JobControl& ctl);

}  // namespace kiln::ui

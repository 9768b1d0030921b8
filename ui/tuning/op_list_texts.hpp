#pragma once
// What the Autotune view shows of a TimingSet beside its table model: the op list's lines and the
// distinct "used by" texts (the column is sized to the widest). Made where the set is read, off the
// UI thread: at a million files (thousands of ops) making them on delivery held the UI thread.
#include <QStringList>

#include "timings/timing_model.hpp"

namespace kiln::ui {

struct OpListTexts {
    QStringList ops;     // one line of the op list per op, in the set's order
    QStringList usedBy;  // AutotuneTableModel::usedByText of the choices, each distinct text once, none empty
};

OpListTexts opListTexts(const timings::TimingSet& set);

}  // namespace kiln::ui

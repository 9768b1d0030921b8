#pragma once
// One op per benchmark, one row per choice, whatever files describe them. A stderr AUTOTUNE table,
// the timing cache and an mm log written by the same autotuning name each choice differently
// (`triton_mm_18`, `triton_mm-cq3rzx...`, `triton#4`) and round differently (4 decimals, full
// precision). join_sources merges the ops that describe the same operation on the same device and
// inputs: each choice keeps one display name (the stderr table's when there is one), its other names
// as aliases, every source it was seen in, and the most precise time.
//
// What identifies the same choice across sources (torch 2.11 select_algorithm.py): the template
// (`triton_mm` from `triton_mm_<n>` or `triton_mm-<module key>`; an mm log only says "triton") and
// its config (BLOCK_M/N/K, num_stages, num_warps, GROUP_M, ...: the keys both sources carry must
// agree), or the extern kernel's name (mm log: "cublas"). The same op: same op name and input sizes,
// and, where a source does not name its device (stderr, mm log) or its sizes are symbolic (mm log
// `(s97, s52, s20)`), the matched choices' times agree (they are the same benchmark's numbers).
#include "timings/timing_model.hpp"

namespace kiln::timings {

// The work join_sources did, counted (not timed): how many pairs of ops it tried to join. A sized op
// is tried only against the ops of its sizes and those without sizes, so a timing cache of n inputs
// keys under one op costs about n tries, not the n^2 / 2 of trying every op of the name (issue 42 #15).
struct JoinSourcesWork {
    std::size_t pairs_tried = 0;
};

// `work`, when given, receives the count above (tests).
void join_sources(TimingSet& set, JoinSourcesWork* work = nullptr);

// The identity a choice name carries: template or extern, its family name, its module key.
struct ChoiceKind {
    bool is_template = false;
    bool known_kind = true;  // false: nothing in the name tells
    std::string family;      // "triton_mm", "mm"; empty when the source does not say
    std::string module_key;  // "cy2dwohf..." from "triton_mm-cy2d..." or a failed choice's module
};
ChoiceKind choice_kind(const std::string& name);

// The same choice, judged by kind, family, module key and the parameters both sides carry.
bool same_choice(const Choice& a, const Choice& b);

}  // namespace kiln::timings

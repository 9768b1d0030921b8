#pragma once
// The ops a re-tune measured completely on one device kind, ready to hand to torch: every choice of
// the op (every choice key torch's PersistentCache.lookup will ask for) measured ok on a device of
// that name, so torch benchmarks nothing. Kiln never writes times for a device kind that did not
// run them.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "handback/retune_run.hpp"
#include "inductor/opened_root.hpp"

namespace kiln::handback {

// The software half of torch's system dict: triton_key() and torch.version.cuda.
struct SoftwareVersions {
    std::string triton, cuda;
    std::string from;  // "python3 (torch 2.11.0+cu130)" or "the recorded file cache/<hash>"
};

struct MeasuredChoice {
    std::string name, kind;
    // +inf where torch records the choice as failed (`infinite_why` says why): it cannot launch
    // on this device kind, or torch recorded inf there and Kiln has nothing to run.
    double ms = 0;
    std::optional<double> spread_ms;
    // A Triton choice's config where it is known without its benchmark module (an AUTOTUNE table's
    // row, as `kiln-cli ranks` reads them); the lookup table falls back to it.
    nlohmann::ordered_json params = nlohmann::ordered_json::object();
    std::string infinite_why;
    // Per device of MeasuredOp::agreed_from, the time it measured (inf: not ok there).
    std::vector<double> device_ms;
    bool infinite() const { return !infinite_why.empty(); }
};

struct MeasuredOp {
    std::string op, inputs, precision;  // the timing cache's keys
    std::string device_name;            // the device that measured every choice
    int device = -1;                    // its index in the run (-1: several of that kind, or a fleet's)
    // `retune --each-device`: the devices of this kind that each measured every choice, when more
    // than one did. Each choice's `ms` is then the median of their times (the rule of `kiln-cli
    // ranks --agree`), so one winner is agreed across the machine's GPUs and every process that reads
    // the hand-back runs it.
    std::vector<int> agreed_from;
    SoftwareVersions versions;
    std::vector<MeasuredChoice> choices;
    std::string host;  // who measured it (fleet entries)

    // torch's CacheBase.get_system() for this device and software, "hash" included.
    nlohmann::ordered_json system() const;
    std::string system_hash() const;
    const MeasuredChoice* winner() const;  // the fastest choice (null when none has a finite time)
    // The fastest choice on agreed_from[k] alone (null when none ran there).
    const MeasuredChoice* device_winner(std::size_t k) const;
    // The devices of agreed_from that measured another choice strictly faster than winner() (ties
    // agree): the index k into agreed_from and that device's own fastest choice.
    struct Disagreement {
        std::size_t k;
        const MeasuredChoice* own;
    };
    std::vector<Disagreement> disagreements() const;
    bool devices_differed() const { return !disagreements().empty(); }
    int infinite_choices() const;  // choices written as Infinity
    std::string label() const;     // "mm [('cuda', 'torch.float16', 512, ...)] highest"
};

struct SkippedOp {
    std::string label;  // MeasuredOp::label form
    std::string device_name;
    std::string why;
};

struct Selection {
    std::vector<MeasuredOp> ops;
    std::vector<SkippedOp> skipped;
};

// Per op and device kind (device name): where two or more devices of that kind each measured every
// choice ok (`retune --each-device`), every choice's time is the median of theirs (agreed_from); where
// one did, the first (lowest index); else each choice from the first device of that kind that measured it ok (retune
// spreads an op's choices over the GPUs); an op some choice of which no such device measured ok
// is skipped with why. A choice "measured ok" includes one that fails as torch fails it, written as
// Infinity as torch writes it: its kernel could not launch or run there (Measurement::torch_inf), or
// Kiln cannot run it and torch recorded it as inf on this same device kind. A transient failure
// (timeout, crash) or Kiln's own (no binary, wrong output) leaves the op to torch. `python`: the software of this machine (from `--python`); without it each op keeps
// the Triton key and CUDA version of the file it was recorded in. `only_device`: just that index.
Selection complete_ops(const RetuneRun& run, const std::optional<SoftwareVersions>& python,
                       std::optional<int> only_device = std::nullopt);

// Where the run's recorded Triton key and CUDA version do not reproduce the hash of the file they
// name (a report saved with an abbreviated key), takes them from that file, cache/<hash> read beneath
// the opened `root` (nothing is read where it holds no descriptor). complete_ops skips an op whose
// recorded versions still do not reproduce it (the file name torch would look for is unknown then).
void fill_recorded_versions(RetuneRun& run, const inductor::OpenedRoot& root);

// Asks `python` (with torch) for triton_key() and torch.version.cuda.
Result<SoftwareVersions> python_versions(const std::string& python);

// `--shard I/N`: the I-th (0-based) of N deterministic slices of the ops.
struct Shard {
    int index = 0, count = 1;
};
Result<Shard> parse_shard(std::string_view text);
// Stable across machines and runs: sha256(op \n inputs \n precision) as a number, modulo N.
int shard_of(const std::string& op, const std::string& inputs, const std::string& precision, int count);
// The run with only the ops of `shard` (what a fleet host re-tunes).
RetuneRun shard_run(RetuneRun run, const Shard& shard);

}  // namespace kiln::handback

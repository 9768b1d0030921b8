#pragma once
// What `kiln-cli retune ROOT --json` prints (issue 30's contract): the devices it ran on and, per op
// of the cache's timing files, every choice with each device's measurement. The hand-back (issue 31)
// reads it from memory or from a saved run; `from_json` checks every field it uses (util/json_get): a
// device, op or choice with a wrong-typed field is marked unreadable with why, and the rest is read.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/result.hpp"

namespace kiln::handback {

struct RunDevice {
    int index = 0;
    std::string name;  // the driver's name: "NVIDIA H100 80GB HBM3"
    std::string arch;  // "sm_90"
};

struct Measurement {
    int device = 0;      // RunDevice::index
    std::string status;  // ok | failed | wrong | timeout | crashed
    std::optional<double> ms, spread_ms;
    std::string why;
    // The kernel could not launch or run on this GPU (retune's "torch_inf"): torch records such a
    // choice as inf, and so does the hand-back.
    bool torch_inf = false;
    bool ok() const;  // status "ok" with a finite, non-negative time
};

struct RunChoice {
    std::string name;  // the timing cache's choice key, exactly ("triton_mm-c…", "mm-c…")
    std::string kind;  // triton | extern | other
    bool runnable = false;
    std::string why;
    std::optional<double> recorded_ms;
    std::vector<Measurement> measured;
    std::string unreadable;                   // why this choice's entry (or one of its measurements) could not be read
    const Measurement* on(int device) const;  // nullptr when not measured there
};

// The timing cache file an op was read from: its system dict's parts.
struct RecordedFor {
    std::string system_hash, device, triton, cuda;
};

struct RunOp {
    std::string op, inputs, precision;  // the timing cache's keys, exactly
    RecordedFor recorded_for;
    std::vector<RunChoice> choices;
    std::string unreadable;     // why the op's own fields could not be read ("" when they could)
    std::string label() const;  // "mm [('cuda', ...)] highest"
};

struct RetuneRun {
    std::vector<RunDevice> devices;
    std::vector<RunOp> ops;
    std::vector<std::string> problems;  // devices that could not be read (left out)
    const RunDevice* device(int index) const;
};

// `origin` names the text in errors (a file path, "kiln-cli retune"). An error only when the text is
// no run at all (not an object, no "devices" or "ops" list, a device listed twice).
Result<RetuneRun> run_from_json(const nlohmann::ordered_json& j, const std::string& origin);
Result<RetuneRun> read_run_file(const std::string& path);
nlohmann::ordered_json to_json(const RetuneRun& run);

}  // namespace kiln::handback

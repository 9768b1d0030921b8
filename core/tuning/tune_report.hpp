#pragma once
// What a tuning session found (TuneReport, one ChoiceReport per choice), its JSON (the schema of
// `kiln-cli autotune --json`, read back by the GUI's launcher) and Inductor's AUTOTUNE table.
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuning/spec.hpp"
#include "util/result.hpp"
#include "worker/protocol.hpp"

namespace kiln::tuning {

// Where a choice stands after a session: how its benchmark ended (the worker's BenchStatus), or
// why it was not benchmarked. JSON: the names ("ok", "compile_error", ...).
enum class ChoiceStatus : std::uint8_t {
    ok,
    error,
    mismatch,
    timeout,
    crash,
    compile_error,  // its source did not compile
    cached,         // its time came from the timing cache
    skipped,        // the strategy's time budget ran out before it
};
NLOHMANN_JSON_SERIALIZE_ENUM(ChoiceStatus, {{ChoiceStatus::error, "error"},
                                            {ChoiceStatus::ok, "ok"},
                                            {ChoiceStatus::mismatch, "mismatch"},
                                            {ChoiceStatus::timeout, "timeout"},
                                            {ChoiceStatus::crash, "crash"},
                                            {ChoiceStatus::compile_error, "compile_error"},
                                            {ChoiceStatus::cached, "cached"},
                                            {ChoiceStatus::skipped, "skipped"}})
const char* choice_status_name(ChoiceStatus s);
ChoiceStatus choice_status(worker::BenchStatus s);

// A choice's time when it has none (failed, skipped): sorts after every measured one.
inline constexpr double kFailedMs = std::numeric_limits<double>::infinity();

struct ChoiceReport {
    std::string id;    // "<op>_<n>", n = position in the enumeration (0 = the reference)
    std::string key;   // the timing cache's choice key: <op>-<code hash>
    std::string name;  // parameters, "BLOCK_M=32, BLOCK_N=64"
    Bindings params;
    bool is_reference = false;
    bool from_cache = false;
    double ms = 0;  // +inf when it failed
    ChoiceStatus status = ChoiceStatus::ok;
    std::string reason;
    std::string device;
    double compile_seconds = 0;
    std::string library;  // the compiled .so (empty on a cache hit)
    worker::TimingStats stats;
    double overhead_seconds = 0;  // wall time of its benchmark beyond the kernel's own runs and the check
    double verify_seconds = 0;    // copying its output back and comparing it with the reference's
    nlohmann::json details = nlohmann::json::object();  // the worker's: run counts, phases_ms, ...
};

struct TuneReport {
    std::string op;
    std::string inputs_key;
    std::string precision;
    std::string device;  // devices used, "cuda:0,cuda:1"
    std::vector<ChoiceReport> choices;
    std::string best;  // key of the fastest choice
    bool cache_hit = false;
    bool in_process = false;
    std::filesystem::path session_log;
    std::filesystem::path cache_file;
    double bench_seconds = 0;
    double precompile_seconds = 0;
    double prepare_seconds = 0;           // starting the workers and warming up the devices, during precompile
    std::vector<nlohmann::json> workers;  // pongs of the pool's workers
    std::optional<Error> cache_error;     // the timings could not be merged into cache_file (see TimingCache)
};

// {"op", "inputs_key", "device", "timings": {key: ms|null}, "choices": {key: {"id", "params", "status",
// "device", "reference", "compile_seconds", "library"?, "overhead_ms"?, "verify_ms"?, "phases_ms"?,
// "stats"?}}, "failures": {key: reason}, "best", "cache_hit", "session_log", "cache_file", "precision",
// "bench_seconds", "precompile_seconds", "prepare_seconds", "workers"}.
nlohmann::ordered_json to_json(const TuneReport& report);
Result<TuneReport> tune_report_from_json(const nlohmann::json& j);

// Inductor's stderr block: "AUTOTUNE op(AxB, CxD)", strides, dtypes, the best choices with ms and
// % of best, then "SubProcess AUTOTUNE benchmarking takes X seconds and Y seconds precompiling".
std::string format_autotune_table(const TuneReport& report, const TuningSpec& spec, std::size_t top = 10);

}  // namespace kiln::tuning

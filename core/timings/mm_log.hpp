#pragma once
// The `TORCHINDUCTOR_MM_LOGGING_FILE` JSON: a list of {"invoke": "(M, K, N)"} records (one per
// mm lowering) and {"(M, K, N)": [{"type": "cublas"|"triton", "time": ms, "BLOCK_M": ..,
// "BLOCK_K": .., "BLOCK_N": .., "num_stages": .., "num_warps": ..}]} records (one per autotuning).
// The file names no choices, so they are called "cublas" and "triton#<i>" in file order.
#include <filesystem>
#include <vector>

#include "timings/timing_model.hpp"
#include "util/result.hpp"

namespace kiln::timings {

struct MmLog {
    std::vector<Op> ops;               // one per autotuning record
    std::vector<std::string> invokes;  // the (M, K, N) of every invoke record, in order
};

Result<MmLog> read_mm_log(const std::filesystem::path& path);
Result<MmLog> parse_mm_log(const std::string& text, const std::string& origin);

// Cheap sniff for directory scans: a JSON list whose first record is invoke or (M, K, N).
bool looks_like_mm_log(const std::string& head);

}  // namespace kiln::timings

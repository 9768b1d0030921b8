#pragma once
// One agreed choice per autotuned op for a group of ranks of one GPU kind, handed to every rank
// through what torch already reads (issue 43):
//  - each rank's own timing cache (`<root>/cache/<system hash>`): torch's PersistentCache.lookup
//    takes the fastest recorded choice and benchmarks nothing when every choice is there. Each rank
//    keeps its own times and its own choice names (a Triton choice's name hashes the kernel source,
//    which embeds the device index); only the agreed choice's time is changed, to the smallest time
//    any rank measured for it, lowered just below the rank's fastest other choice where it was not
//    already the fastest. Ops where the rank already runs the agreed choice are not touched. Written
//    through handback::write_timing_cache (Kiln's lock, read-merge-write, atomic replace; Infinity
//    kept for failed choices).
//  - `--pin`: one lookup table (handback/lookup_table) for the group's device, the agreed config of
//    each op, so that no rank autotunes those ops at all.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "handback/lookup_table.hpp"
#include "ranks/rank_inputs.hpp"
#include "util/result.hpp"

namespace kiln::ranks {

enum class AgreeRule {
    median,    // the choice with the smallest median of the ranks' times
    majority,  // the choice most ranks picked (ties: the smaller median)
};
Result<AgreeRule> parse_agree_rule(const std::string& text);  // "median" | "majority"
const char* agree_rule_name(AgreeRule r);
std::string agree_rule_text(AgreeRule r);  // the rule as the report states it

struct AgreedOp {
    std::string op, inputs_key, inputs, precision;
    std::string identity, label;                                       // the agreed choice
    nlohmann::ordered_json params = nlohmann::ordered_json::object();  // its config
    std::vector<std::string> names;                                    // per rank: its name for it
    std::vector<double> ms;                                            // per rank: the time it measured
    std::vector<std::string> winners;                                  // per rank: the label of the rank's own winner
    double median_ms = 0;
    int votes = 0;                                // ranks whose winner it was
    bool ranks_differed = false;                  // the ranks' winners were not all this
    std::vector<std::optional<double>> write_ms;  // per rank: the time written (nullopt: already fastest)
};

struct SkippedAgreement {
    std::string op;  // "mm 1024x384 bfloat16, ... highest"
    std::string why;
};

struct Agreement {
    AgreeRule rule = AgreeRule::median;
    std::string group;               // the group's label
    std::vector<std::string> ranks;  // labels, in order
    std::vector<AgreedOp> ops;       // every op all ranks autotuned that could be agreed
    std::vector<SkippedAgreement> skipped;
    std::size_t to_write() const;  // ops some rank's file must change for
};

// `group`: ranks of one kind (group_ranks), aligned (align_choices). Ops every rank autotuned; a choice
// is eligible when every rank measured it (a valid time).
Agreement agree(const std::vector<const LoadedRank*>& group, AgreeRule rule, const std::string& group_label);

struct WrittenRankCache {
    std::string rank, path;
    int ops = 0;  // ops whose agreed choice's time was written
};
// Writes each rank's timing cache (only the ops where that rank's file needs the change). Refused,
// with nothing written, when a rank's file's system block does not reproduce its file name.
Result<std::vector<WrittenRankCache>> write_agreed_caches(const std::vector<const LoadedRank*>& group,
                                                          const Agreement& agreement);

// The agreed ops as one lookup table for the group's device (modules read from the first rank's root
// give the Triton configs).
handback::LookupTable agreed_lookup_table(const std::vector<const LoadedRank*>& group, const Agreement& agreement);

nlohmann::ordered_json to_json(const Agreement& a);

}  // namespace kiln::ranks

#include "retune/inventory.hpp"

#include <cmath>
#include <cstdlib>
#include <map>

#include "inductor/beneath_root.hpp"
#include "inductor/timing_cache_file.hpp"
#include "retune/gemm_plan.hpp"
#include "retune/problem.hpp"
#include "retune/template_launch.hpp"
#include "retune/template_module.hpp"
#include "retune/triton_index.hpp"
#include "timings/kernel_files.hpp"
#include "util/json_get.hpp"

namespace kiln::retune {

std::pair<std::string, std::string> split_choice_key(const std::string& key) {
    auto dash = key.rfind("-c");
    if (dash == std::string::npos || key.size() - dash - 1 != 52) return {key, ""};
    return {key.substr(0, dash), key.substr(dash + 1)};
}

ExternStem parse_extern_stem(const std::string& stem) {
    ExternStem e;
    std::size_t at = stem.find('-');
    e.base = stem.substr(0, at);
    while (at != std::string::npos) {
        std::size_t next = stem.find('-', at + 1);
        std::string part = stem.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1);
        at = next;
        auto eq = part.find('=');
        if (eq == std::string::npos) {
            e.others.push_back(part);
            continue;
        }
        std::string value = part.substr(eq + 1);
        char* end = nullptr;
        double v = std::strtod(value.c_str(), &end);
        if (!value.empty() && end == value.c_str() + value.size()) e.numbers[part.substr(0, eq)] = v;
        else e.others.push_back(part);
    }
    return e;
}

InventoryCounts count_choices(const RetuneOp& op) {
    InventoryCounts c;
    for (const auto& ch : op.choices) {
        ++c.choices;
        if (ch.runnable) ++c.runnable;
        if (ch.kind == ChoiceKind::triton) {
            ++c.triton;
            if (!ch.binary.empty()) ++c.triton_with_binary;
        }
        if (ch.kind == ChoiceKind::extern_op) ++c.extern_ops;
    }
    return c;
}

namespace {

std::string str_at(const nlohmann::ordered_json& j, const char* a, const char* b = nullptr) {
    auto it = j.find(a);
    if (it == j.end()) return {};
    if (b) {
        if (!it->is_object()) return {};
        auto jt = it->find(b);
        if (jt == it->end()) return {};
        return jt->is_string() ? jt->get<std::string>() : jt->dump();
    }
    return it->is_string() ? it->get<std::string>() : it->dump();
}

void resolve_triton(RetuneChoice& c, const inductor::OpenedRoot& root, const std::string& stem,
                    const std::string& module_path, const Result<TemplateModule>& m, const Result<Problem>& problem,
                    const TritonIndex& index, const std::string& module_key, const InventoryOptions& o) {
    c.kind = ChoiceKind::triton;
    c.module = module_path;
    if (!m.ok()) {
        c.why = m.error().message;
        return;
    }
    c.kernel = m->kernel;
    c.config = m->config;
    std::string why;
    auto found = index.by_module.find(module_key);
    std::optional<IndexedBinary> bin =
        pick_binary(found == index.by_module.end() ? std::vector<IndexedBinary>{} : found->second, o.arch, why);
    if (bin) {
        c.binary = inductor::path_beneath(root, bin->binary.cubin);  // the launch keeps it relative, for the worker
        c.triton = bin->binary;
    }
    if (!problem.ok()) {
        c.why = problem.error().message;
        return;
    }
    auto grid = template_grid(stem, *problem, m->config);
    if (grid.ok()) {
        c.grid = grid->grid;
        c.grid_rule = grid->rule;
    }
    auto args = bind_arguments(*m, *problem);
    if (args.ok()) c.args = *args;
    if (!bin) c.why = why;
    else if (!grid.ok()) c.why = grid.error().message;
    else if (!args.ok()) c.why = args.error().message;
    else if (m->tensor_descriptors) c.why = "uses TMA tensor descriptors, which Kiln's launcher does not build yet";
    else if (auto u = worker::launch_unsupported(bin->binary); !u.empty()) c.why = u;
    else c.runnable = true;
}

void resolve_extern(RetuneChoice& c, const ExternStem& stem, const Result<Problem>& problem,
                    const std::string& precision) {
    c.kind = ChoiceKind::extern_op;
    c.config = nlohmann::ordered_json{{"aten", stem.base}};
    for (const auto& [k, v] : stem.numbers) c.config[k] = v;
    if (!stem.others.empty()) {
        c.why = "extern choice argument '" + stem.others.front() + "' has no cuBLAS plan";
        return;
    }
    if (!problem.ok()) {
        c.why = problem.error().message;
        return;
    }
    auto plan = plan_gemm(stem.base, *problem, precision);
    if (!plan.ok()) {
        c.why = plan.error().message;
        return;
    }
    for (const auto& [k, v] : stem.numbers) {
        if (k == "alpha") plan->alpha = v;
        else if (k == "beta" && plan->bias_input >= 0) plan->beta = v;
        else {
            c.why = "extern choice argument '" + k + "' has no cuBLAS plan";
            return;
        }
    }
    c.gemm = *plan;
    c.binary = plan->api;
    c.runnable = true;
}

}  // namespace

Result<RetuneReport> inventory(const inductor::OpenedRoot& root, const InventoryOptions& o) {
    RetuneReport rep;
    rep.root = root.path.string();
    std::vector<std::string> files;  // "cache/<system hash>", relative to the root
    if (auto listed = inductor::list_beneath(root, "cache"); listed.ok())
        for (const auto& e : *listed)
            if (e.regular) files.push_back("cache/" + e.name);
    std::sort(files.begin(), files.end());
    if (files.empty())
        return make_error(Errc::not_found, "no timing cache (cache/<system hash>) under this root", root.path.string(),
                          "run torch.compile with mode=\"max-autotune\" to fill it, or point at another root");
    TritonIndex own;
    if (!o.index) own = index_triton_cache(root);
    // Each module key is looked up and its module read once: every op of a timing cache names the same
    // few (150,000 ops in issue 42 #15 read them 150,000 times).
    std::map<std::string, std::string> module_of;               // key -> path relative to the root ("" when absent)
    std::map<std::string, Result<TemplateModule>> template_of;  // relative path -> its reading
    const TritonIndex& index = o.index ? *o.index : own;
    for (const auto& rel : files) {
        const std::string f = inductor::path_beneath(root, rel);
        auto text = inductor::read_beneath(root, rel, inductor::kMaxCacheFileBytes);
        auto data = text.ok() ? inductor::parse_cache_file(*text, f) : Result<nlohmann::ordered_json>(text.error());
        if (!data.ok()) {
            rep.warnings.push_back(data.error().str());
            continue;
        }
        const auto& sys = (*data)["system"];
        RecordedFor rf{str_at(sys, "hash"), str_at(sys, "device", "name"), str_at(sys, "version", "triton"),
                       str_at(sys, "version", "cuda")};
        if (rf.system_hash.empty()) rf.system_hash = rel.substr(rel.rfind('/') + 1);
        auto cache = data->find("cache");
        if (cache == data->end() || !cache->is_object()) continue;
        for (auto op_it = cache->begin(); op_it != cache->end(); ++op_it) {
            if (!op_it->is_object()) continue;
            for (auto in_it = op_it->begin(); in_it != op_it->end(); ++in_it) {
                if (!o.op_filter.empty() && op_it.key().find(o.op_filter) == std::string::npos &&
                    in_it.key().find(o.op_filter) == std::string::npos)
                    continue;
                if (!in_it->is_object()) continue;
                auto problem = make_problem(op_it.key(), in_it.key());
                for (auto pr_it = in_it->begin(); pr_it != in_it->end(); ++pr_it) {
                    if (!pr_it->is_object()) continue;
                    RetuneOp op;
                    op.op = op_it.key();
                    op.inputs = in_it.key();
                    op.precision = pr_it.key();
                    op.recorded_for = rf;
                    op.cache_file = f;
                    for (auto ch = pr_it->begin(); ch != pr_it->end(); ++ch) {
                        RetuneChoice c;
                        c.name = ch.key();
                        // Infinity (failed), NaN or a negative time is no recorded time to compare against.
                        if (auto ms = json_get::time_ms(*ch, {}); ms.ok()) c.recorded_ms = *ms;
                        auto [stem, key] = split_choice_key(c.name);
                        std::string module;
                        if (!key.empty()) {
                            auto known = module_of.find(key);
                            if (known == module_of.end())
                                known = module_of.emplace(key, timings::kernel_module_rel_for_key(root, key)).first;
                            module = known->second;
                        }
                        if (!module.empty() && stem.rfind("triton", 0) == 0) {
                            auto read = template_of.find(module);
                            if (read == template_of.end())
                                read = template_of.emplace(module, read_template_module(root, module)).first;
                            resolve_triton(c, root, stem, inductor::path_beneath(root, module), read->second, problem,
                                           index, key, o);
                        } else if (auto ext = parse_extern_stem(stem); is_known_extern(ext.base)) {
                            resolve_extern(c, ext, problem, op.precision);
                        } else {
                            c.kind = stem.rfind("triton", 0) == 0 ? ChoiceKind::triton : ChoiceKind::other;
                            c.why = stem.rfind("triton", 0) == 0
                                        ? "its benchmark module " + key + ".py is not in the cache"
                                        : "choice '" + stem +
                                              "' is neither a Triton template nor a known extern "
                                              "kernel (CUTLASS, subgraph and decompose-k choices are not "
                                              "re-tuned)";
                        }
                        op.choices.push_back(std::move(c));
                    }
                    rep.ops.push_back(std::move(op));
                }
            }
        }
    }
    return rep;
}

}  // namespace kiln::retune

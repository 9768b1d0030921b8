#include "handback/lookup_table.hpp"

#include <map>

#include <fcntl.h>
#include <unistd.h>

#include "inductor/beneath_root.hpp"
#include "timings/kernel_files.hpp"
#include "timings/py_literal.hpp"
#include "util/atomic_file.hpp"
#include "util/python_json.hpp"
#include "util/unique_fd.hpp"

namespace fs = std::filesystem;

namespace kiln::handback {
namespace {

using Json = nlohmann::ordered_json;

// Ops whose lookup key is the inputs and the op name alone; addmm and baddbmm add their scalars.
bool keyed_by_inputs_alone(const std::string& op) { return op == "mm" || op == "bmm"; }

// torch's KernelInputs scalars ("alpha=1&beta=1", sorted by name as choices.py joins them) for an
// op that has them. The timing cache does not record them, but the op's extern choice is named
// after them ("addmm-alpha=1-beta=1-c<hash>"), spelt as Python prints the values.
Result<std::string> lookup_scalars(const MeasuredOp& op) {
    for (const auto& c : op.choices) {
        if (c.name.rfind(op.op + "-", 0) != 0) continue;
        std::map<std::string, std::string> scalars;
        std::size_t at = op.op.size() + 1;
        while (at < c.name.size()) {
            std::size_t end = c.name.find('-', at);
            std::string part = c.name.substr(at, end == std::string::npos ? std::string::npos : end - at);
            if (auto eq = part.find('='); eq != std::string::npos) scalars[part.substr(0, eq)] = part.substr(eq + 1);
            if (end == std::string::npos) break;
            at = end + 1;
        }
        if (!scalars.count("alpha") || !scalars.count("beta")) continue;
        std::string out;
        for (const auto& [k, v] : scalars) out += (out.empty() ? "" : "&") + k + "=" + v;
        return out;
    }
    return make_error(Errc::not_found, "torch keys " + op.op +
                                           " by its scalars (alpha, beta) too, and no extern choice of this op "
                                           "names them");
}

std::string list_of(const std::vector<std::string>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
    return s + "]";
}

// The template kwargs torch records for a Triton choice (recorder.py: ktc.params), from its module,
// else from the config the caller read elsewhere (`known`).
Result<Json> triton_config(const std::string& template_name, const std::string& module_key,
                           const inductor::OpenedRoot& root, const Json& known) {
    const std::string rel = timings::kernel_module_rel_for_key(root, module_key);
    std::string module;
    timings::KernelModuleInfo info;
    if (!rel.empty()) {  // read beneath the opened root, as every cache reader reads (issue 44)
        KILN_TRY(info, timings::read_kernel_module_info(root, rel));
        module = info.path;
    } else if (known.is_object() && !known.empty()) {
        info.params = known;
        module = "the config given for " + module_key;
    } else {
        const std::string where =
            module_key.size() > 2 ? module_key.substr(1, 2) + "/" + module_key + ".py" : module_key;
        return make_error(Errc::not_found, "the winner's benchmark module is not in the cache",
                          inductor::path_beneath(root, where));
    }
    // The keys torch's recorder writes for a Triton mm config (README's example): the template
    // derives the rest itself. ALLOW_TF32 must not be given: torch 2.11 passes it to the template
    // on its own ("choice_or_none() got multiple values for keyword argument 'ALLOW_TF32'", seen
    // on an H100).
    Json config{{"template_id", "triton::" + template_name}};
    for (const char* k : {"EVEN_K", "USE_FAST_ACCUM", "ACC_TYPE", "num_stages", "num_warps", "BLOCK_M", "BLOCK_N",
                          "BLOCK_K", "GROUP_M"})
        if (info.params.contains(k)) config[k] = info.params[k];
    if (!config.contains("BLOCK_M") || !config.contains("num_warps"))
        return make_error(Errc::parse, "the winner's module names no tile (config_args) or launch (num_warps)", module);
    return config;
}

}  // namespace

Json LookupTable::table() const {
    Json t = Json::object();
    for (const auto& p : pinned) t[p.key] = Json::array({p.config});
    return t;
}

Result<std::string> lookup_input_key(const std::string& timing_inputs_key) {
    KILN_TRY(auto tensors, timings::parse_inputs_key(timing_inputs_key));
    if (tensors.empty()) return make_error(Errc::parse, "no inputs in the key", timing_inputs_key);
    std::string key = "(";
    for (size_t i = 0; i < tensors.size(); ++i) {
        const auto& t = tensors[i];
        for (const auto& s : t.sizes)
            if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
                return make_error(Errc::unsupported, "a symbolic size (" + s + ") has no hint in the timing cache",
                                  timing_inputs_key);
        key += (i ? ", " : "") + std::string("(torch.") + t.dtype + ", " + list_of(t.sizes) + ", " +
               list_of(t.strides) + ")";
    }
    if (tensors.size() == 1) key += ",";
    return key + ")";
}

LookupTable build_lookup_table(const std::vector<MeasuredOp>& ops, const inductor::OpenedRoot& root) {
    LookupTable out;
    for (const auto& op : ops) {
        auto skip = [&](std::string why) { out.skipped.push_back({op.label(), op.device_name, std::move(why)}); };
        std::string scalars;
        if (!keyed_by_inputs_alone(op.op)) {
            auto sc = lookup_scalars(op);
            if (!sc) {
                skip(sc.error().message);
                continue;
            }
            scalars = "+" + *sc;
        }
        const MeasuredChoice* w = op.winner();
        if (!w) {
            skip("no choice");
            continue;
        }
        auto inputs = lookup_input_key(op.inputs);
        if (!inputs) {
            skip(inputs.error().message);
            continue;
        }
        auto dash = w->name.find('-');
        std::string base = w->name.substr(0, dash);
        Json config;
        if (base.rfind("triton_", 0) == 0 && dash != std::string::npos) {
            auto c = triton_config(base.substr(7), w->name.substr(dash + 1), root, w->params);
            if (!c) {
                skip("winner " + w->name + ": " + c.error().str());
                continue;
            }
            config = std::move(c).value();
        } else if (w->kind == "extern" || (w->kind.empty() && base.find('_') == std::string::npos)) {
            config = Json{{"template_id", "aten::" + base}};
        } else {
            skip("winner " + w->name + " is neither a Triton template nor an aten kernel");
            continue;
        }
        std::string key = op.device_name + "+" + *inputs + scalars + "+" + op.op;
        for (const auto& p : out.pinned)
            if (p.key == key) {
                key.clear();
                break;
            }
        if (key.empty()) {
            skip("another op has the same lookup key (kept the first)");
            continue;
        }
        out.pinned.push_back({key, op.label(), op.device_name, w->name, w->ms, std::move(config)});
    }
    return out;
}

Status write_lookup_table(const fs::path& file, const LookupTable& table) {
    std::error_code ec;
    if (fs::symlink_status(file, ec).type() != fs::file_type::not_found)
        return make_error(Errc::busy, "the lookup table path exists; it was left as it is", file.string(),
                          "give a new file name");
    fs::path dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
    UniqueFd dfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!dfd.valid()) return io_error("open directory", dir.string(), errno);
    // replace=false: a file that appears meanwhile is not overwritten either.
    return write_atomic_at(dfd.get(), file.filename().string(), py_dumps(table.table(), {.indent = 2}), file.string(),
                           false);
}

}  // namespace kiln::handback

#include "tuning/spec.hpp"

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>

namespace fs = std::filesystem;

namespace kiln::tuning {

Result<TuningSpec> parse_spec(const nlohmann::json& j, const fs::path& base_dir) {
    TuningSpec s;
    const std::string ctx = base_dir.string();
    if (!j.is_object()) return make_error(Errc::parse, "a tuning spec is a JSON object", ctx);
    try {
        s.op = j.at("op").get<std::string>();
        std::string lang = j.value("lang", "cpp");
        if (lang == "cpp" || lang == "c++") s.lang = codecache::Lang::Cpp;
        else if (lang == "cuda") s.lang = codecache::Lang::Cuda;
        else return make_error(Errc::invalid_argument, "unknown lang '" + lang + "'", ctx, "use \"cpp\" or \"cuda\"");
        s.kernel_name = j.at("kernel_name").get<std::string>();
        for (const auto& t : j.at("inputs")) {
            KILN_TRY(auto meta, worker::tensor_from_json(t, ctx + ": inputs"));
            s.inputs.push_back(std::move(meta));
        }
        KILN_TRY(s.output, worker::tensor_from_json(j.at("output"), ctx + ": output"));
        if (j.contains("extra_args")) s.extra_args = j["extra_args"].get<std::vector<std::int64_t>>();
        if (j.contains("template")) {
            s.template_source = j["template"].get<std::string>();
        } else {
            fs::path tp = base_dir / j.at("template_file").get<std::string>();
            std::ifstream in(tp, std::ios::binary);
            if (!in) return make_error(Errc::not_found, "cannot read the kernel template", tp.string());
            std::stringstream ss;
            ss << in.rdbuf();
            s.template_source = ss.str();
        }
        if (j.contains("flags")) s.flags = j["flags"].get<std::vector<std::string>>();
        for (auto it = j.at("params").begin(); it != j.at("params").end(); ++it) {
            auto values = it.value().get<std::vector<std::int64_t>>();
            if (values.empty())
                return make_error(Errc::invalid_argument, "parameter '" + it.key() + "' has no values", ctx);
            s.params.emplace_back(it.key(), std::move(values));
        }
        if (j.contains("constants"))
            for (auto it = j["constants"].begin(); it != j["constants"].end(); ++it)
                s.constants[it.key()] = it.value().get<std::int64_t>();
        if (j.contains("restrictions"))
            for (const auto& r : j["restrictions"]) {
                KILN_TRY(auto e, guards::Expr::parse(r.get<std::string>(), guards::Dialect::restriction));
                s.restrictions.push_back(std::move(e));
            }
        if (j.contains("reference"))
            for (auto it = j["reference"].begin(); it != j["reference"].end(); ++it)
                s.reference[it.key()] = it.value().get<std::int64_t>();
        if (j.contains("tolerance")) {
            s.tolerance.rtol = j["tolerance"].value("rtol", s.tolerance.rtol);
            s.tolerance.atol = j["tolerance"].value("atol", s.tolerance.atol);
        }
        if (j.contains("devices")) {
            const auto& d = j["devices"];
            if (d.is_string()) s.devices = d.get<std::string>();
            else
                for (const auto& x : d)
                    s.devices += (s.devices.empty() ? "" : ",") +
                                 (x.is_string() ? x.get<std::string>() : std::to_string(x.get<int>()));
        }
        if (j.contains("strategy")) {
            const auto& st = j["strategy"];
            std::string kind = st.value("kind", "exhaustive");
            if (kind == "random") s.strategy.kind = SearchStrategy::random;
            else if (kind != "exhaustive")
                return make_error(Errc::invalid_argument, "unknown strategy '" + kind + "'", ctx,
                                  "use exhaustive or random");
            s.strategy.budget = st.value("budget", 0);
            s.strategy.seconds = st.value("seconds", 0.0);
            s.strategy.seed = st.value("seed", std::uint64_t{0});
        }
        s.precision = j.value("precision", s.precision);
        s.seed = j.value("seed", s.seed);
        if (j.contains("timing")) s.timing = worker::timing_options_from_json(j["timing"], s.timing);
    } catch (const nlohmann::json::exception& e) {
        return make_error(Errc::parse, std::string("bad tuning spec: ") + e.what(), ctx);
    }
    for (const auto& [name, v] : s.params)
        if (!s.reference.count(name))
            return make_error(Errc::invalid_argument, "the reference choice lacks parameter '" + name + "'", ctx);
    return s;
}

Result<TuningSpec> load_spec(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return make_error(Errc::not_found, "cannot read the tuning spec", path.string());
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
        return make_error(Errc::parse, std::string("invalid JSON: ") + e.what(), path.string());
    }
    auto s = parse_spec(j, path.parent_path());
    if (!s.ok()) return std::move(s.error()).with_context(path.string());
    s->path = path;
    return s;
}

std::string params_label(const TuningSpec& spec, const Bindings& params) {
    std::string out;
    for (const auto& [name, _] : spec.params) {
        auto it = params.find(name);
        if (it == params.end()) continue;
        out += (out.empty() ? "" : ", ") + name + "=" + std::to_string(it->second);
    }
    return out;
}

std::string render_source(const TuningSpec& spec, const Bindings& params) {
    std::string out = "// generated by kiln autotune: " + spec.op + "\n";
    for (const auto& [name, _] : spec.params) out += "#define " + name + " " + std::to_string(params.at(name)) + "\n";
    return out + spec.template_source;
}

static Result<bool> allowed(const TuningSpec& spec, const Bindings& params) {
    Bindings vars = spec.constants;
    for (const auto& [k, v] : params) vars[k] = v;
    for (const auto& r : spec.restrictions) {
        KILN_TRY(auto values, r.bind(vars));
        KILN_TRY(bool holds, r.evaluate(values));
        if (!holds) return false;
    }
    return true;
}

Result<std::vector<Candidate>> enumerate_choices(const TuningSpec& spec) {
    KILN_TRY(bool ref_ok, allowed(spec, spec.reference));
    if (!ref_ok)
        return make_error(Errc::invalid_argument, "the reference choice violates a restriction", spec.path.string());
    std::vector<Bindings> grid;
    std::vector<size_t> idx(spec.params.size(), 0);
    for (bool more = !spec.params.empty(); more;) {
        Bindings b;
        for (size_t i = 0; i < idx.size(); ++i) b[spec.params[i].first] = spec.params[i].second[idx[i]];
        KILN_TRY(bool ok, allowed(spec, b));
        if (ok && b != spec.reference) grid.push_back(std::move(b));
        more = false;
        for (size_t i = idx.size(); i-- > 0;) {
            if (++idx[i] < spec.params[i].second.size()) {
                more = true;
                break;
            }
            idx[i] = 0;
        }
    }
    if (spec.strategy.kind == SearchStrategy::random) {
        std::mt19937_64 rng(spec.strategy.seed);
        std::shuffle(grid.begin(), grid.end(), rng);
        if (spec.strategy.budget > 0 && grid.size() + 1 > static_cast<size_t>(spec.strategy.budget))
            grid.resize(static_cast<size_t>(std::max(spec.strategy.budget - 1, 0)));
    }
    std::vector<Candidate> out;
    out.push_back({spec.reference, params_label(spec, spec.reference), render_source(spec, spec.reference), true});
    for (auto& b : grid) out.push_back({b, params_label(spec, b), render_source(spec, b), false});
    return out;
}

}  // namespace kiln::tuning

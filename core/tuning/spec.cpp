#include "tuning/spec.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <set>

#include "util/python_json.hpp"
#include "util/regular_file.hpp"

namespace fs = std::filesystem;

namespace kiln::tuning {

namespace {

constexpr std::uint64_t kMaxSpecBytes = 64ull << 20;
// Beyond this many grid points a search must sample (random with a budget): enumerating them
// would take minutes and gigabytes before the first benchmark.
constexpr double kMaxEnumeratedChoices = 1e6;

Error bad_field(const std::string& field, const std::string& why) {
    return make_error(Errc::invalid_argument, field + " " + why, {}, "fix the field in the spec");
}

// Timing and strategy numbers are checked when the spec loads, naming the field (a negative
// warmup_ms used to surface in the worker as "vector::reserve").
Status check_numbers(const TuningSpec& s) {
    auto positive_ms = [](double v) { return std::isfinite(v) && v > 0 && v <= 3.6e6; };
    if (!positive_ms(s.timing.warmup_ms)) return bad_field("timing.warmup_ms", "must be above 0 and at most 3600000");
    if (!positive_ms(s.timing.rep_ms)) return bad_field("timing.rep_ms", "must be above 0 and at most 3600000");
    if (s.timing.min_reps < 1 || s.timing.min_reps > 1000000)
        return bad_field("timing.min_reps", "must be between 1 and 1000000");
    if (s.timing.max_reps < s.timing.min_reps || s.timing.max_reps > 1000000)
        return bad_field("timing.max_reps", "must be between timing.min_reps and 1000000");
    if (s.strategy.budget < 0) return bad_field("strategy.budget", "must be 0 (all) or more");
    if (!std::isfinite(s.strategy.seconds) || s.strategy.seconds < 0 || s.strategy.seconds > 7 * 24 * 3600.0)
        return bad_field("strategy.seconds", "must be 0 (none) or a number of seconds up to a week");
    if (!std::isfinite(s.tolerance.rtol) || s.tolerance.rtol < 0 || !std::isfinite(s.tolerance.atol) ||
        s.tolerance.atol < 0)
        return bad_field("tolerance", "rtol and atol must be finite and not negative");
    return ok_status();
}

}  // namespace

std::optional<SearchStrategy::Kind> strategy_kind_from_name(std::string_view name) {
    if (name == "exhaustive") return SearchStrategy::exhaustive;
    if (name == "random") return SearchStrategy::random;
    return std::nullopt;
}

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
            auto text = read_regular_file(tp, kMaxSpecBytes);
            if (!text.ok()) return std::move(text.error()).with_hint("template_file names the kernel template");
            s.template_source = std::move(*text);
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
            auto known = strategy_kind_from_name(kind);
            if (!known)
                return make_error(Errc::invalid_argument, "unknown strategy '" + kind + "'", ctx,
                                  "use exhaustive or random");
            s.strategy.kind = *known;
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
    KILN_CHECK(check_numbers(s));
    for (const auto& [name, v] : s.params)
        if (!s.reference.count(name))
            return make_error(Errc::invalid_argument, "the reference choice lacks parameter '" + name + "'", ctx);
    return s;
}

Result<TuningSpec> load_spec(const fs::path& path) {
    // A directory, FIFO or device given as the spec is a clear error, never a block or a stream.
    auto text = read_regular_file(path, kMaxSpecBytes);
    if (!text.ok()) {
        Error e = std::move(text.error());
        e.message = "cannot read the tuning spec: " + e.message;
        if (e.hint.empty()) e.hint = "give the path of a tuning spec file (JSON), e.g. resources/examples/*.json";
        return e;
    }
    KILN_CHECK(check_json_depth(*text, path.string()));
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(*text);
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
        auto values = r.bind(vars);
        if (!values.ok()) return std::move(values.error()).with_context(spec.path.string());
        auto holds = r.evaluate(values.value());
        if (!holds.ok()) return std::move(holds.error()).with_context(spec.path.string());
        if (!*holds) return false;
    }
    return true;
}

static Bindings bindings_at(const TuningSpec& spec, const std::vector<std::size_t>& idx) {
    Bindings b;
    for (std::size_t i = 0; i < idx.size(); ++i) b[spec.params[i].first] = spec.params[i].second[idx[i]];
    return b;
}

static double grid_size(const TuningSpec& spec) {
    double n = spec.params.empty() ? 0 : 1;
    for (const auto& [_, values] : spec.params) n *= static_cast<double>(values.size());
    return n;
}

// Every allowed point of the grid except the reference, in grid order.
static Result<std::vector<Bindings>> whole_grid(const TuningSpec& spec) {
    std::vector<Bindings> grid;
    std::vector<std::size_t> idx(spec.params.size(), 0);
    for (bool more = !spec.params.empty(); more;) {
        Bindings b = bindings_at(spec, idx);
        KILN_TRY(bool ok, allowed(spec, b));
        if (ok && b != spec.reference) grid.push_back(std::move(b));
        more = false;
        for (std::size_t i = idx.size(); i-- > 0;) {
            if (++idx[i] < spec.params[i].second.size()) {
                more = true;
                break;
            }
            idx[i] = 0;
        }
    }
    return grid;
}

// `wanted` distinct allowed points drawn at random without building the grid (issue 16.10: 7
// parameters x 10 values took gigabytes): draw an index per parameter, test, retry. A bounded number
// of draws, so a restriction that allows almost nothing gives fewer choices instead of a hang.
static Result<std::vector<Bindings>> sample_grid(const TuningSpec& spec, std::size_t wanted) {
    std::mt19937_64 rng(spec.strategy.seed);
    std::set<std::vector<std::size_t>> seen;
    std::vector<Bindings> out;
    const std::size_t max_draws = 1000 + 100 * wanted;
    std::vector<std::size_t> idx(spec.params.size());
    for (std::size_t draw = 0; draw < max_draws && out.size() < wanted; ++draw) {
        for (std::size_t i = 0; i < idx.size(); ++i)
            idx[i] = std::uniform_int_distribution<std::size_t>(0, spec.params[i].second.size() - 1)(rng);
        if (!seen.insert(idx).second) continue;
        Bindings b = bindings_at(spec, idx);
        if (b == spec.reference) continue;
        KILN_TRY(bool ok, allowed(spec, b));
        if (ok) out.push_back(std::move(b));
    }
    return out;
}

Result<std::vector<Candidate>> enumerate_choices(const TuningSpec& spec) {
    KILN_TRY(bool ref_ok, allowed(spec, spec.reference));
    if (!ref_ok)
        return make_error(Errc::invalid_argument, "the reference choice violates a restriction", spec.path.string());
    const bool random = spec.strategy.kind == SearchStrategy::random;
    const std::size_t wanted =
        random && spec.strategy.budget > 0 ? static_cast<std::size_t>(spec.strategy.budget - 1) : SIZE_MAX;
    const double points = grid_size(spec);
    std::vector<Bindings> grid;
    if (points <= kMaxEnumeratedChoices) {
        KILN_TRY(grid, whole_grid(spec));
        if (random) {
            std::mt19937_64 rng(spec.strategy.seed);
            std::shuffle(grid.begin(), grid.end(), rng);
            if (grid.size() > wanted) grid.resize(wanted);
        }
    } else if (wanted != SIZE_MAX) {
        KILN_TRY(grid, sample_grid(spec, wanted));
    } else {
        char n[32];
        std::snprintf(n, sizeof n, "%.3g", points);
        return make_error(Errc::invalid_argument, std::string("the parameter grid has ") + n + " points",
                          spec.path.string(), "use \"strategy\": {\"kind\": \"random\", \"budget\": N} to sample it");
    }
    std::vector<Candidate> out;
    out.push_back({spec.reference, params_label(spec, spec.reference), render_source(spec, spec.reference), true});
    for (auto& b : grid) out.push_back({b, params_label(spec, b), render_source(spec, b), false});
    return out;
}

}  // namespace kiln::tuning

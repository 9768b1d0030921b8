#include "inductor/graph_list.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <regex>

#include "inductor/debug_lines.hpp"
#include "inductor/graph_entry.hpp"
#include "inductor/guard_lookup.hpp"
#include "pickle/skim.hpp"
#include "util/cpus.hpp"
#include "util/parallel.hpp"

namespace kiln::inductor {

namespace fs = std::filesystem;

namespace {

std::vector<GraphInput> inputs_of(const std::vector<std::string>& lines) {
    std::vector<GraphInput> out;
    auto comps = parse_debug_lines(lines);
    if (!comps) return out;
    for (const auto& c : *comps)
        if (c.name.rfind("example_inputs[", 0) == 0) out.push_back({describe_input(c.value)});
    return out;
}

std::vector<GuardSymbol> symbols_of(const std::vector<std::string>& lines) {
    std::vector<GuardSymbol> out;
    for (const auto& s : guard_symbols(lines)) out.push_back({"t" + std::to_string(out.size()), s, {}});
    return out;
}

void fill_from_file(GraphRow& r, const fs::path& file) {
    struct stat st {};
    if (::stat(file.c_str(), &st) == 0) {
        r.size = static_cast<std::uint64_t>(st.st_size);
        r.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    }
    // The bundled Triton binaries (most of an entry's bytes) are skipped: nothing here reads them, and
    // the decode succeeds or fails exactly as on the whole file (pickle/skim.hpp).
    auto buffer = pickle::skim_file(file);
    auto entry = buffer ? decode_graph_entry(std::move(*buffer)) : Result<GraphEntry>(buffer.error());
    if (!entry) {
        r.error = entry.error().str();
        return;
    }
    r.guards = entry->guards_expr();
    if (r.kind == "fxgraph") {
        std::vector<std::string> lines = entry->debug_lines();
        r.inputs = inputs_of(lines);
        r.symbols = symbols_of(lines);
        r.compile_ns = entry->time_taken_ns();
        r.output_module = entry->cache_key();
    } else {
        std::vector<std::string> lines = entry->forward_debug_lines();
        r.inputs = inputs_of(lines);
        r.symbols = symbols_of(lines);
        r.compile_ns = entry->aot_time_taken_ns();
        r.forward_key = entry->forward_fx_key();
        r.backward_key = entry->backward_fx_key();
    }
}

// The rows of a key dir, filled later (fill_from_file) with `files` holding their paths.
Status add_dir_rows(const fs::path& root, const fs::path& key_dir, const std::string& kind, GraphList& out,
                    std::vector<fs::path>& files) {
    KILN_TRY(auto entries, key_dir_entries(key_dir));
    for (const auto& f : entries) {
        GraphRow r;
        r.kind = kind;
        r.key = key_dir.filename().string();
        r.file = f.filename().string();
        r.path = fs::relative(f, root).generic_string();
        out.rows.push_back(std::move(r));
        files.push_back(f);
    }
    return ok_status();
}

std::vector<fs::path> subdirs(const fs::path& dir) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
        if (it->is_directory(ec) && it->path().filename().string().front() != '.') out.push_back(it->path());
    std::sort(out.begin(), out.end());
    return out;
}

// Names from the trace: the compile that logged a cache event for the row's key.
void apply_trace(GraphList& list, const TraceRun& run) {
    std::map<std::string, const CacheEvent*> by_key;  // the last event per key
    for (const auto& e : run.events)
        if (!e.key.empty() && e.compile) by_key[e.key] = &e;
    for (auto& r : list.rows) {
        auto it = by_key.find(r.key);
        if (it == by_key.end()) continue;
        const TraceCompile& c = run.compiles[*it->second->compile];
        bool user = c.user_file.empty();
        r.function = user ? c.function : c.user_function;
        r.source_file = user ? c.file : c.user_file;
        r.line = user ? c.first_line : c.user_line;
        r.code = user ? std::string() : c.user_code;
        for (auto& s : r.symbols)
            if (const TraceSymbol* t = c.find_symbol(s.symbol)) s.source = t->source;
    }
}

}  // namespace

std::string describe_input(const std::string& v) {
    static const std::regex sym(R"(^\('([a-z]\w*)',\)$)");
    static const std::regex meta(R"(^TensorMetadata\(dtype=torch\.(\w+), shape=torch\.Size\(\[([^\]]*)\]\))");
    static const std::regex dev(R"(device=device\(type='(\w+)'(?:, index=(\d+))?\))");
    std::smatch m;
    if (std::regex_match(v, m, sym)) return m[1].str();
    if (!std::regex_search(v, m, meta)) return v.size() > 80 ? v.substr(0, 80) + "..." : v;
    std::string out = m[1].str() + "[" + m[2].str() + "]";
    if (std::regex_search(v, m, dev)) out += " " + m[1].str() + (m[2].matched ? ":" + m[2].str() : std::string());
    return out;
}

std::string GraphRow::label() const {
    std::string s;
    if (!function.empty()) {
        s = function + " (" + fs::path(source_file).filename().string();
        if (line) s += ":" + std::to_string(*line);
        s += ")";
    }
    if (!role.empty()) s += (s.empty() ? "" : " ") + role;
    std::string in;
    for (const auto& i : inputs) {
        std::size_t close = i.text.find(']');  // the device is left out: the same for most inputs
        std::string t = close == std::string::npos ? i.text : i.text.substr(0, close + 1);
        in += (in.empty() ? "" : ", ") + t;
        if (in.size() > 100) {
            in += ", ...";
            break;
        }
    }
    if (!in.empty()) s += (s.empty() ? "" : " ") + in;
    return s.empty() ? key : s;
}

Result<std::vector<GraphRow>> list_key_dir(const fs::path& path) {
    std::error_code ec;
    std::vector<fs::path> files;
    if (fs::is_directory(path, ec)) {
        KILN_TRY(files, key_dir_entries(path));
    } else if (fs::exists(path, ec)) {
        files.push_back(path);
    } else {
        return make_error(Errc::not_found, "no such key dir or entry", path.string());
    }
    std::vector<GraphRow> rows;
    for (const auto& f : files) {
        GraphRow r;
        fs::path dir = f.parent_path();
        r.kind = dir.parent_path().filename() == "aotautograd" ? "aotautograd" : "fxgraph";
        r.key = dir.filename().string();
        r.file = f.filename().string();
        r.path = f.string();
        fill_from_file(r, f);
        rows.push_back(std::move(r));
    }
    return rows;
}

std::vector<GuardSymbol> symbols_used(const GraphRow& row) {
    std::vector<GuardSymbol> out;
    if (!row.guards) return out;
    for (const auto& s : row.symbols)
        if (row.guards->find("L['" + s.name + "']") != std::string::npos) out.push_back(s);
    return out;
}

std::optional<fs::path> trace_beside(const fs::path& root) {
    std::error_code ec;
    fs::path parent = fs::absolute(root, ec).lexically_normal();
    if (parent.filename().empty()) parent = parent.parent_path();
    parent = parent.parent_path();
    for (const fs::path& t : {parent / "trace", parent / "h100" / "trace"})
        if (fs::is_directory(t, ec)) return t;
    return std::nullopt;
}

Result<GraphList> list_graphs(const fs::path& root, const std::optional<fs::path>& trace) {
    std::error_code ec;
    if (!fs::is_directory(root / "fxgraph", ec) && !fs::is_directory(root / "aotautograd", ec))
        return make_error(Errc::not_found, "no fxgraph/ or aotautograd/ directory under the root", root.string(),
                          "pass the Inductor cache root ($TORCHINDUCTOR_CACHE_DIR)");
    GraphList list;
    std::vector<fs::path> files;
    for (const auto& shard : subdirs(root / "fxgraph"))
        for (const auto& key : subdirs(shard)) KILN_CHECK(add_dir_rows(root, key, "fxgraph", list, files));
    for (const auto& key : subdirs(root / "aotautograd"))
        KILN_CHECK(add_dir_rows(root, key, "aotautograd", list, files));
    // Entries are independent: read and decoded in parallel, each into its own row.
    parallel_for(files.size(), usable_cpus(), nullptr, [&](std::size_t i) { fill_from_file(list.rows[i], files[i]); });
    // Link AOT entries and the FX graphs they hold.
    std::map<std::string, std::vector<GraphRow*>> fx_by_key;
    for (auto& r : list.rows)
        if (r.kind == "fxgraph") fx_by_key[r.key].push_back(&r);
    for (const auto& r : list.rows) {
        if (r.kind != "aotautograd") continue;
        for (auto [k, role] : {std::pair{r.forward_key, "forward"}, std::pair{r.backward_key, "backward"}}) {
            if (!k) continue;
            for (GraphRow* fx : fx_by_key[*k]) {
                fx->role = role;
                if (std::find(fx->used_by.begin(), fx->used_by.end(), r.key) == fx->used_by.end())
                    fx->used_by.push_back(r.key);
            }
        }
    }
    std::optional<fs::path> t = trace ? trace : trace_beside(root);
    if (t) {
        KILN_TRY(TraceRun run, read_trace_run(*t));
        apply_trace(list, run);
        list.trace = t->string();
    }
    return list;
}

nlohmann::ordered_json to_json(const GraphList& list) {
    using ojson = nlohmann::ordered_json;
    auto opt = [](const auto& v) { return v ? ojson(*v) : ojson(nullptr); };
    ojson out;
    out["trace"] = opt(list.trace);
    out["entries"] = ojson::array();
    for (const auto& r : list.rows) {
        ojson j;
        j["kind"] = r.kind;
        j["key"] = r.key;
        j["file"] = r.file;
        j["path"] = r.path;
        j["label"] = r.label();
        j["size"] = r.size;
        j["mtime_ns"] = opt(r.mtime_ns);
        j["compile_ns"] = opt(r.compile_ns);
        j["inputs"] = ojson::array();
        for (const auto& i : r.inputs) j["inputs"].push_back(i.text);
        j["guards"] = opt(r.guards);
        j["symbols"] = ojson::array();
        for (const auto& s : r.symbols)
            j["symbols"].push_back({{"name", s.name}, {"symbol", s.symbol}, {"source", s.source}});
        j["output_module"] = opt(r.output_module);
        j["forward_key"] = opt(r.forward_key);
        j["backward_key"] = opt(r.backward_key);
        j["used_by"] = r.used_by;
        j["role"] = r.role;
        j["function"] = r.function;
        j["source_file"] = r.source_file;
        j["line"] = opt(r.line);
        j["code"] = r.code;
        if (!r.error.empty()) j["error"] = r.error;
        out["entries"].push_back(std::move(j));
    }
    return out;
}

}  // namespace kiln::inductor

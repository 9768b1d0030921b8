#include "inductor/graph_list.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <string_view>

#include "inductor/beneath_root.hpp"
#include "inductor/debug_lines.hpp"
#include "inductor/graph_entry.hpp"
#include "inductor/guard_lookup.hpp"
#include "pickle/skim.hpp"
#include "util/cpus.hpp"
#include "util/parallel.hpp"
#include "util/regular_file.hpp"
#include "util/rel_path.hpp"
#include "util/text_scan.hpp"

namespace kiln::inductor {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kInputPrefix = "example_inputs[";

// A row's inputs and guard symbols both come from its example_inputs components: the lines are parsed
// once, and only those components copied (a row read is most of ls's and the GUI's entries' CPU).
void fill_inputs(GraphRow& r, const GraphEntry& entry, bool forward) {
    const KeyComponents& split = entry.key_components(forward);
    Result<std::vector<KeyComponent>> comps = std::vector<KeyComponent>{};
    if (split.all_split) {  // each line one component: nothing to join
        for (const auto& c : split.components)
            if (c.name.starts_with(kInputPrefix))
                comps->push_back(KeyComponent{std::string(c.hash), std::string(c.name), std::string(c.value)});
    } else {
        comps = parse_debug_lines_named(forward ? entry.forward_debug_line_views() : entry.debug_line_views(),
                                        kInputPrefix);
    }
    if (!comps) return;
    for (const auto& c : *comps) r.inputs.push_back({describe_input(c.value)});
    for (auto& s : symbols_of_inputs(*comps)) r.symbols.push_back({"t" + std::to_string(r.symbols.size()), s, {}});
}

// A row's fields from its entry file, opened (`file`: an error goes into the row).
void fill_from_opened(GraphRow& r, Result<OpenedFile> file, const std::string& origin, const EntryVisit& visit = {},
                      std::size_t index = 0) {
    if (!file) {
        r.error = file.error().str();
        return;
    }
    struct stat st {};
    if (::fstat(file->fd.get(), &st) == 0) {
        r.size = static_cast<std::uint64_t>(st.st_size);
        r.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    }
    // The bundled Triton binaries (most of an entry's bytes) are skipped: no field listed here is in them.
    auto buffer = pickle::skim_opened_file(*file, origin);
    auto entry = buffer ? decode_graph_entry(std::move(*buffer)) : Result<GraphEntry>(buffer.error());
    if (!entry) {
        r.error = entry.error().str();
        return;
    }
    r.guards = entry->guards_expr();
    if (r.kind == "fxgraph") {
        fill_inputs(r, *entry, false);
        r.compile_ns = entry->time_taken_ns();
        r.output_module = entry->cache_key();
    } else {
        fill_inputs(r, *entry, true);
        r.compile_ns = entry->aot_time_taken_ns();
        r.forward_key = entry->forward_fx_key();
        r.backward_key = entry->backward_fx_key();
    }
    if (visit) visit(index, r, *entry);
}

// An entry file's row before it is read, from its path relative to the root (<...>/<key>/<file>).
GraphRow row_of_rel(const char* kind, std::string_view rel) {
    const std::string_view dir = rel_dir(rel);
    GraphRow r;
    r.kind = kind;
    r.key = std::string(dir.substr(dir.rfind('/') == std::string_view::npos ? 0 : dir.rfind('/') + 1));
    r.file = std::string(rel.substr(dir.empty() ? 0 : dir.size() + 1));
    r.path = std::string(rel);
    return r;
}

Status has_graph_dirs(const OpenedRoot& root) {
    if (!is_directory_beneath(root, "fxgraph") && !is_directory_beneath(root, "aotautograd"))
        return make_error(Errc::not_found, "no fxgraph/ or aotautograd/ directory under the root", root.path.string(),
                          "pass the Inductor cache root ($TORCHINDUCTOR_CACHE_DIR)");
    return ok_status();
}

// The directories in `rel` beneath the root (relative to it), dot-names left out, by name.
std::vector<std::string> subdirs(const OpenedRoot& root, const std::string& rel) {
    std::vector<std::string> out;
    if (auto listed = list_beneath(root, rel))
        for (const auto& e : *listed)
            if (e.directory && e.name.front() != '.') out.push_back(rel + "/" + e.name);
    std::sort(out.begin(), out.end());
    return out;
}

GraphRow row_of(const GraphEntryFiles& files, std::size_t k) {
    return row_of_rel(k < files.fx_count ? "fxgraph" : "aotautograd", files.rels[k]);
}

// A root's entry files in list_graphs' order, relative to the root: fxgraph/<xx>/<key>/* by path, then
// aotautograd/<key>/*.
Result<GraphEntryFiles> entry_rels(const OpenedRoot& root) {
    KILN_CHECK(has_graph_dirs(root));
    GraphEntryFiles out;
    auto add_dir = [&](const std::string& key_dir) -> Status {
        KILN_TRY(auto files, key_dir_entries(root, key_dir));
        for (auto& f : files) out.rels.push_back(std::move(f));
        return ok_status();
    };
    for (const auto& shard : subdirs(root, "fxgraph"))
        for (const auto& key : subdirs(root, shard)) KILN_CHECK(add_dir(key));
    out.fx_count = out.rels.size();
    for (const auto& key : subdirs(root, "aotautograd")) KILN_CHECK(add_dir(key));
    return out;
}

// Reads every row's entry (beneath the root's descriptor), on the CPUs this process may use; false
// when cancelled.
bool fill_rows(const OpenedRoot& root, std::vector<GraphRow>& rows, const std::atomic<bool>* cancel,
               const EntryVisit& visit = {}, std::size_t threads = 0) {
    // Entries are independent: read and decoded in parallel, each into its own row.
    parallel_for(rows.size(), threads ? threads : usable_cpus(), cancel, [&](std::size_t i) {
        fill_from_opened(rows[i], open_beneath(root, rows[i].path), path_beneath(root, rows[i].path), visit, i);
    });
    return !(cancel && cancel->load());
}

// What the AOT entries say of the FX graphs they hold, by FX key: the role of the last one naming it
// (forward or backward) and every AOT key naming it, in the AOT rows' order.
struct AotLinks {
    struct Link {
        std::string role;
        std::vector<std::string> used_by;
    };
    std::map<std::string, Link> by_fx_key;

    void add(const GraphRow& aot) {
        for (auto [k, role] : {std::pair{aot.forward_key, "forward"}, std::pair{aot.backward_key, "backward"}}) {
            if (!k) continue;
            Link& l = by_fx_key[*k];
            l.role = role;
            if (std::find(l.used_by.begin(), l.used_by.end(), aot.key) == l.used_by.end()) l.used_by.push_back(aot.key);
        }
    }
    void apply(GraphRow& fx) const {
        auto it = by_fx_key.find(fx.key);
        if (it == by_fx_key.end()) return;
        fx.role = it->second.role;
        fx.used_by = it->second.used_by;
    }
};

// Links AOT entries and the FX graphs they hold.
void link_aot_entries(GraphList& list) {
    AotLinks links;
    for (const auto& r : list.rows)
        if (r.kind == "aotautograd") links.add(r);
    for (auto& r : list.rows)
        if (r.kind == "fxgraph") links.apply(r);
}

// A scan's graph entry files (indices into its artifacts) in list_graphs' order: fxgraph entries then
// aotautograd entries, each by path.
std::vector<std::uint32_t> entry_files(std::span<const Artifact> artifacts) {
    std::vector<std::uint32_t> out;
    for (std::uint32_t i = 0; i < artifacts.size(); ++i) {
        const Artifact& a = artifacts[i];
        if (a.category != Category::fxgraph && a.category != Category::aotautograd) continue;
        const std::string_view rel = a.rel_path();
        const auto slash = rel.rfind('/');
        if (slash == std::string_view::npos || slash + 1 >= rel.size() || rel[slash + 1] == '.') continue;
        out.push_back(i);
    }
    std::sort(out.begin(), out.end(), [&artifacts](std::uint32_t x, std::uint32_t y) {
        const Artifact &a = artifacts[x], &b = artifacts[y];
        return a.category != b.category ? a.category == Category::fxgraph : a.rel_path() < b.rel_path();
    });
    return out;
}
std::vector<std::uint32_t> entry_files(const ScanResult& scan) { return entry_files(std::span(scan.artifacts)); }

// An entry file's row before it is read: kind, key, file, path.
GraphRow unread_row(const Artifact& a) {
    return row_of_rel(a.category == Category::fxgraph ? "fxgraph" : "aotautograd", a.rel_path());
}

// A key dir's row before it is read, from its entry file's path as reports name it (<...>/<key>/<file>).
GraphRow key_dir_row(const std::string& path) {
    const fs::path f(path), dir = f.parent_path();
    GraphRow r;
    r.kind = dir.parent_path().filename() == "aotautograd" ? "aotautograd" : "fxgraph";
    r.key = dir.filename().string();
    r.file = f.filename().string();
    r.path = path;
    return r;
}

}  // namespace

namespace {

// `^\('(\w+)',\)$`: the name in a one-name tuple ("('s0',)" -> "s0"), "" for anything else.
std::string_view one_name_tuple(std::string_view v) {
    if (v.size() < 6 || !scan::has_at(v, 0, "('") || !scan::has_at(v, v.size() - 3, "',)")) return {};
    const std::string_view name = v.substr(2, v.size() - 5);
    return scan::skip_word(name, 0) == name.size() ? name : std::string_view();
}

}  // namespace

std::string describe_input(const std::string& v) {
    using namespace scan;
    // `^\('([a-z]\w*)',\)$`: a symbol.
    if (auto sym = one_name_tuple(v); !sym.empty() && sym[0] >= 'a' && sym[0] <= 'z') return std::string(sym);
    // `^TensorMetadata\(dtype=torch\.(\w+), shape=torch\.Size\(\[([^\]]*)\]\)`
    constexpr std::string_view meta = "TensorMetadata(dtype=torch.", shape = ", shape=torch.Size([";
    const std::size_t dtype_end = skip_word(v, meta.size());
    const std::size_t dims = dtype_end + shape.size();
    const std::size_t dims_end = v.find(']', std::min(dims, v.size()));
    if (!has_at(v, 0, meta) || dtype_end == meta.size() || !has_at(v, dtype_end, shape) ||
        dims_end == std::string::npos || !has_at(v, dims_end, "])"))
        return v.size() > 80 ? v.substr(0, 80) + "..." : v;
    std::string out = v.substr(meta.size(), dtype_end - meta.size()) + "[" + v.substr(dims, dims_end - dims) + "]";
    // `device=device\(type='(\w+)'(?:, index=(\d+))?\)`, the first match.
    constexpr std::string_view dev = "device=device(type='";
    for (std::size_t at = v.find(dev); at != std::string::npos; at = v.find(dev, at + 1)) {
        const std::size_t type = at + dev.size(), type_end = skip_word(v, type);
        if (type_end == type || !has_at(v, type_end, "'")) continue;
        const std::size_t index = type_end + 9, index_end = skip_digits(v, index);  // "', index="
        const bool indexed = has_at(v, type_end, "', index=") && index_end > index && has_at(v, index_end, ")");
        if (!indexed && !has_at(v, type_end + 1, ")")) continue;
        out += " " + v.substr(type, type_end - type) + (indexed ? ":" + v.substr(index, index_end - index) : "");
        break;
    }
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
        GraphRow r = key_dir_row(f.string());
        fill_from_opened(r, open_regular_file(f), r.path);
        rows.push_back(std::move(r));
    }
    return rows;
}

Result<std::vector<GraphRow>> list_key_dir(const OpenedRoot& root, std::string_view rel_key_dir) {
    if (!is_directory_beneath(root, rel_key_dir))
        return make_error(Errc::not_found, "no such key dir or entry", path_beneath(root, rel_key_dir));
    KILN_TRY(auto rels, key_dir_entries(root, rel_key_dir));
    std::vector<GraphRow> rows;
    for (const auto& rel : rels) {
        GraphRow r = key_dir_row(path_beneath(root, rel));
        fill_from_opened(r, open_beneath(root, rel), r.path);
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

std::vector<std::string> symbols_of_inputs(const std::vector<KeyComponent>& components) {
    std::vector<std::string> out;
    for (const auto& c : components) {
        if (c.name.rfind(kInputPrefix, 0) != 0) continue;
        // `^\('(s\d+)',\)$`
        std::string_view sym = one_name_tuple(c.value);
        if (sym.size() > 1 && sym[0] == 's' && scan::skip_digits(sym, 1) == sym.size()) out.emplace_back(sym);
    }
    return out;
}

std::vector<std::string> guard_symbols(const std::vector<std::string>& components) {
    auto comps = parse_debug_lines_named(components, kInputPrefix);
    return comps ? symbols_of_inputs(*comps) : std::vector<std::string>{};
}

Result<GraphList> list_graphs(const OpenedRoot& root) {
    KILN_TRY(GraphEntryFiles files, entry_rels(root));
    GraphList list;
    for (std::size_t k = 0; k < files.rels.size(); ++k) list.rows.push_back(row_of(files, k));
    fill_rows(root, list.rows, nullptr);
    link_aot_entries(list);
    return list;
}

Result<GraphList> list_graphs(const ScanResult& scan, const std::atomic<bool>* cancel) {
    GraphList list;
    for (auto i : entry_files(scan)) list.rows.push_back(unread_row(scan.artifacts[i]));
    if (!fill_rows(scan.opened_root(), list.rows, cancel)) return make_error(Errc::cancelled, "cancelled", scan.root);
    link_aot_entries(list);
    return list;
}

namespace {

// The engine of both for_each_graph_batch: `count` entry files, the first `fx_count` of them FX entries,
// `row_at(k)` making the k-th one's unread row; AOT rows go out first, so every FX row has its links.
Status rows_in_batches(const OpenedRoot& root, std::size_t fx_count, std::size_t count,
                       const std::function<GraphRow(std::size_t)>& row_at, std::size_t batch,
                       const std::function<void(std::vector<GraphRow>& rows)>& take, const std::atomic<bool>* cancel,
                       const EntryVisit& visit, std::size_t threads = 0) {
    batch = std::max<std::size_t>(batch, 1);
    AotLinks links;
    std::vector<GraphRow> rows;
    auto hand_over = [&](std::size_t from, std::size_t to, bool fx) {
        for (std::size_t at = from; at < to; at += batch) {
            rows.clear();
            for (std::size_t k = at; k < std::min(to, at + batch); ++k) rows.push_back(row_at(k));
            if (!fill_rows(root, rows, cancel, visit, threads)) return false;
            for (auto& r : rows) {
                if (fx) links.apply(r);
                else links.add(r);
            }
            take(rows);
        }
        rows.clear();
        return true;
    };
    if (!hand_over(fx_count, count, false) || !hand_over(0, fx_count, true))
        return make_error(Errc::cancelled, "cancelled", root.path.string());
    return ok_status();
}

}  // namespace

Status for_each_graph_batch(const ScanResult& scan, std::size_t batch,
                            const std::function<void(std::vector<GraphRow>& rows)>& take,
                            const std::atomic<bool>* cancel, const EntryVisit& visit) {
    // Only the files' indices wait (4 bytes an entry); a batch of rows is made, read, handed over, dropped.
    const std::vector<std::uint32_t> files = entry_files(scan);
    const auto first_aot = std::find_if(files.begin(), files.end(), [&scan](std::uint32_t i) {
        return scan.artifacts[i].category != Category::fxgraph;
    });
    const std::size_t fx_count = static_cast<std::size_t>(first_aot - files.begin());
    return rows_in_batches(
        scan.opened_root(), fx_count, files.size(), [&](std::size_t k) { return unread_row(scan.artifacts[files[k]]); },
        batch, take, cancel, visit);
}

Status for_each_graph_batch(const OpenedRoot& root, std::size_t batch,
                            const std::function<void(std::vector<GraphRow>& rows)>& take,
                            const std::atomic<bool>* cancel, const EntryVisit& visit) {
    // Only the files' relative paths wait (a row is ~800 bytes before it is read, its path ~100).
    KILN_TRY(GraphEntryFiles files, entry_rels(root));
    return for_each_graph_batch(root, files, batch, take, cancel, visit);
}

GraphEntryFiles graph_entry_files(std::span<const Artifact> artifacts) {
    GraphEntryFiles out;
    for (std::uint32_t i : entry_files(artifacts)) {
        out.rels.emplace_back(artifacts[i].rel_path());
        if (artifacts[i].category == Category::fxgraph) ++out.fx_count;
    }
    return out;
}

Status for_each_graph_batch(const OpenedRoot& root, const GraphEntryFiles& files, std::size_t batch,
                            const std::function<void(std::vector<GraphRow>& rows)>& take,
                            const std::atomic<bool>* cancel, const EntryVisit& visit, std::size_t threads) {
    return rows_in_batches(
        root, files.fx_count, files.rels.size(), [&](std::size_t k) { return row_of(files, k); }, batch, take, cancel,
        visit, threads);
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

#pragma once
// A typed view over one Inductor graph entry: the pickled `CompiledFxGraph` (fxgraph/...) or
// `AOTAutogradResult` (aotautograd/...), also the `data` of a remote-cache value. Decoding is
// the safe pickle decoder's (core/pickle): nothing in the file is imported or run.
//
// A GraphEntry shares ownership of the decoded Document, which keeps the file's bytes alive,
// so the string_views and value Refs it hands out stay valid as long as the entry (or a copy).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "inductor/debug_lines.hpp"
#include "pickle/decoder.hpp"
#include "pickle/value.hpp"
#include "util/result.hpp"

namespace kiln::inductor {

// One Triton kernel carried in `_triton_bundle` (TritonBundle.kernel_artifacts): its files
// (source, ttir, ptx, cubin, json, ...) travel inside the entry.
struct BundledFile {
    std::string filename;    // e.g. "triton_mm.cubin"
    std::uint64_t size = 0;  // bytes of the payload
};
struct BundledKernel {
    std::string kernel_hash;             // the Triton cache dir name
    std::string name;                    // kernel name: the stem shared by its files ("triton_mm")
    std::optional<std::int64_t> device;  // device index
    std::vector<BundledFile> files;
    std::uint64_t total_bytes() const;
};

// The components of an entry's key lines, split once per decoded entry (KeyComponentView: views into
// its document). A line that does not split is left out, and `all_split` says so: a reader that joins
// continuation lines (parse_debug_lines_named) then reads the lines themselves.
struct KeyComponents {
    bool has_lines = false;  // the entry records key lines
    bool all_split = true;   // every line is one "[hash] name: value" component
    std::vector<KeyComponentView> components;
};

class GraphEntry {
public:
    GraphEntry() = default;
    GraphEntry(std::shared_ptr<const pickle::Document> doc, std::string origin);

    // "torch._inductor.output_code.CompiledFxGraph", "...aot_autograd_result.AOTAutogradResult",
    // or whatever class the root object is (a newer torch may rename it).
    std::string type() const;
    bool is_fx_graph() const;
    bool is_aot_autograd() const;
    const std::string& origin() const { return origin_; }

    // Every attribute of the object (its BUILD state dict), in pickle order.
    std::vector<std::string> field_names() const;
    // A field's value by name, or null when the entry has no such field.
    pickle::Ref field(std::string_view name) const;

    // Typed accessors; nullopt/empty when the field is absent or of another type.
    std::optional<std::string> cache_key() const;           // output-code module key ("c...")
    std::optional<std::string_view> source_code() const;    // the wrapper module's Python source
    std::optional<std::string> guards_expr() const;         // None -> nullopt
    std::optional<std::string> fx_graph_cache_key() const;  // _fx_graph_cache_key ("f...")
    std::optional<std::int64_t> time_taken_ns() const;      // _time_taken_ns
    // AOT entries: forward_time_taken_ns + backward_time_taken_ns (either alone when the other is absent).
    std::optional<std::int64_t> aot_time_taken_ns() const;
    std::vector<std::string> debug_lines() const;  // _fx_graph_cache_debug_lines
    // The same lines without copies: views into this entry's decoded document (the `gm` component holds
    // the graph's whole code; a read of every entry for its inputs need not copy it).
    std::vector<std::string_view> debug_line_views() const;
    std::vector<std::string> device_types() const;  // OrderedSet of str
    std::vector<std::int64_t> device_idxs() const;  // OrderedSet of int
    std::vector<std::string> mutated_inputs() const;
    std::vector<std::int64_t> mutated_input_idxs() const;
    std::vector<std::string> constant_names() const;  // keys of `constants`
    // output_strides: one entry per output; nullopt where torch recorded None; strides as text
    // (they may be symbolic expressions such as "s27").
    std::vector<std::optional<std::vector<std::string>>> output_strides() const;
    std::vector<std::pair<std::string, std::int64_t>> counter_deltas() const;  // flattened "group.name"
    std::vector<BundledKernel> triton_bundle() const;
    // AOTAutograd entries: the FX graph cache keys of the compiled forward/backward graphs.
    std::optional<std::string> forward_fx_key() const;
    std::optional<std::string> backward_fx_key() const;
    // ...and the debug lines of those inner keys (`fx_graph_cache_info[1]`); empty when absent.
    std::vector<std::string> forward_debug_lines() const;
    std::vector<std::string_view> forward_debug_line_views() const;  // without copies, as debug_line_views
    // The components of debug_line_views (`forward`: of forward_debug_line_views), split on the first
    // call and kept: a read of every entry has several readers of each (ls's inputs, the health check,
    // portability), and the split of ~500 lines an entry was a sixth of that read. Safe from several
    // threads; valid as long as the entry (or a copy).
    const KeyComponents& key_components(bool forward = false) const;
    std::vector<std::string> backward_debug_lines() const;

    // {"type": "module.Class", "fields": {name: value}} with the mapping of pickle/json.hpp.
    nlohmann::ordered_json to_json() const;

    const pickle::Document& document() const { return *doc_; }
    std::shared_ptr<const pickle::Document> document_ptr() const { return doc_; }
    pickle::Ref root() const;

private:
    pickle::Ref state() const;  // the root object's BUILD state dict
    struct Split;               // key_components' results, made once
    std::shared_ptr<const pickle::Document> doc_;
    std::string origin_;
    std::shared_ptr<Split> split_;
};

// Maps and decodes a graph entry file. Errors carry the path and the pickle byte offset.
Result<GraphEntry> load_graph_entry(const std::filesystem::path& path, const pickle::Limits& limits = {});
// The same without reading the large bytes payloads (the bundled Triton binaries, pickle::skim_file):
// every field but those payloads' bytes, for readers that list many entries (ls, compile times).
Result<GraphEntry> skim_graph_entry(const std::filesystem::path& path);
// Decodes entry bytes from memory (remote cache); `origin` names them in errors.
Result<GraphEntry> decode_graph_entry(std::string_view bytes, std::string origin, const pickle::Limits& limits = {});
// Decodes an already loaded buffer without copying it.
Result<GraphEntry> decode_graph_entry(std::shared_ptr<const pickle::Buffer> buffer, const pickle::Limits& limits = {});

}  // namespace kiln::inductor

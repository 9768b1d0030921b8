// Graph entries: what torch's cache lookup does with the file (unpickle it, take the object as a
// CompiledFxGraph or AOTAutogradResult, follow an AOT entry to its forward/backward FX keys).
#include <unordered_set>

#include "health/check_context.hpp"
#include "inductor/debug_lines.hpp"
#include "inductor/graph_entry.hpp"
#include "inductor/output_code.hpp"
#include "pickle/buffer.hpp"
#include "pickle/decoder.hpp"
#include "pickle/skim.hpp"

namespace kiln::health::detail {

using inductor::Artifact;
using inductor::Category;

namespace {

// "[hash] value" of the named component, or empty.
std::string component(const std::vector<inductor::KeyComponentView>& components, std::string_view name) {
    for (const auto& c : components)
        if (c.name == name) return "[" + std::string(c.hash) + "] " + std::string(c.value);
    return {};
}

// Bundled Triton kernels the output code never launches: autotune candidates kept in the entry.
// Its path is left empty: the entry's own (EntryFindings::path) is moved into it when the report is made.
std::optional<UnusedCandidates> unused_candidates(const inductor::GraphEntry& e) {
    auto bundle = e.triton_bundle();
    if (bundle.empty()) return std::nullopt;
    std::unordered_set<std::string> launched;
    if (auto src = e.source_code())
        if (auto code = inductor::parse_output_code(*src))
            for (const auto& k : code->kernels)
                if (k.kind == inductor::KernelKind::triton) launched.insert(k.name);
    UnusedCandidates u;
    u.bundled = bundle.size();
    for (const auto& k : bundle)
        if (!launched.count(k.name)) {
            ++u.unused;
            u.unused_bytes += k.total_bytes();
        }
    if (u.unused == 0) return std::nullopt;
    return u;
}

// The Triton kernel dirs the entry bundles (TritonBundle.kernel_artifacts: the kernels this graph
// compiled, launched ones and autotune candidates): triton/<device>/<kernel_hash>, where torch's
// TritonBundler.read_and_emit writes them back on a hit, and where Triton looks for them otherwise.
void bundled_kernel_dirs(const inductor::GraphEntry& e, std::vector<Ref>& out) {
    for (const auto& k : e.triton_bundle()) {
        if (k.kernel_hash.empty() || k.kernel_hash.find('/') != std::string::npos || !k.device || *k.device < 0)
            continue;
        out.push_back(
            {"triton/" + std::to_string(*k.device) + "/" + k.kernel_hash, k.name, ProblemKind::triton_kernel_missing});
    }
}

}  // namespace

PooledString StringPool::intern(std::string s) {
    if (s.empty()) return {};
    std::lock_guard lock(mu_);
    auto it = strings_.find(s);
    if (it == strings_.end()) {
        auto kept = std::make_shared<const std::string>(std::move(s));
        it = strings_.emplace(std::string_view(*kept), kept).first;
    }
    return PooledString(it->second);
}

EntryFindings check_graph_entry(const Artifact& a, const ReadBeneath& files, StringPool& versions) {
    EntryFindings out;
    out.path = std::string(a.rel_path());
    out.group = a.group;
    out.mtime_ns = a.mtime_ns;
    // Decoded in two steps to tell a broken pickle from a sound one that holds something else. The
    // bundled Triton binaries (most of an entry's bytes) are skipped: only their sizes count here.
    auto file = files.open(a, out.problems);
    if (!file) return out;  // unreadable (reported) or gone since the scan
    auto buffer = pickle::skim_opened_file(*file, a.path());
    auto doc =
        buffer ? pickle::decode(std::move(*buffer)) : Result<std::shared_ptr<const pickle::Document>>(buffer.error());
    if (!doc) {
        out.problems.push_back(found(ProblemKind::entry_undecodable, a, doc.error().str()));
        return out;
    }
    std::optional<inductor::GraphEntry> entry;
    if (pickle::Ref root = (*doc)->root(); root && root->kind() == pickle::Kind::call)
        entry = inductor::GraphEntry(*doc, a.path());
    if (!entry) {
        out.problems.push_back(found(ProblemKind::entry_not_graph, a, "the pickle holds no object"));
        return out;
    }
    check_decoded_entry(*entry, a.category == Category::aotautograd, out, versions);
    return out;
}

void check_decoded_entry(const inductor::GraphEntry& entry, bool want_aot, EntryFindings& out, StringPool& versions) {
    if (want_aot ? !entry.is_aot_autograd() : !entry.is_fx_graph()) {
        out.problems.push_back(Found{
            ProblemKind::entry_not_graph, out.path,
            "the pickle holds " + entry.type() + ", not " + (want_aot ? "an AOTAutogradResult" : "a CompiledFxGraph"),
            out.group});
        return;
    }
    if (want_aot) {
        for (auto [which, key] : {std::pair{"forward", entry.forward_fx_key()}, {"backward", entry.backward_fx_key()}})
            if (key) out.keys.push_back({*key, which, ProblemKind::aot_fx_key_missing});
    } else {
        out.unused = unused_candidates(entry);
        bundled_kernel_dirs(entry, out.kernel_dirs);
    }
    out.decoded = true;
    // Views into `entry`: the `gm` component is not copied.
    const auto& components = entry.key_components(want_aot).components;
    out.torch_version = versions.intern(component(components, "torch_version"));
    out.system_version = versions.intern(component(components, "system_info[version]"));
}

}  // namespace kiln::health::detail

#pragma once
// Everything the inspector tabs show for one selected artifact, computed on a worker thread
// (reading, decoding, disassembling, formatting) and handed to the UI as one value.
#include <QByteArray>
#include <QString>
#include <QVector>

#include <memory>
#include <optional>
#include <vector>

#include "bundle/temp_root.hpp"
#include "inductor/graph_entry.hpp"
#include "pickle/disassemble.hpp"
#include "ui/browser/cache_tree.hpp"
#include "ui/source/syntax_highlighter.hpp"

namespace kiln::timings {
struct TimingSet;
}

namespace kiln::ui {

class JobControl;

// One component of a cache key (`_fx_graph_cache_debug_lines`, parsed by inductor/debug_lines.hpp).
struct KeyComponentRow {
    QString hash;
    QString name;
    QString value;        // may span lines (the graph code `gm`); not-text escaped (component_value_text)
    bool binary = false;  // torch printed it from bytes that are not text (`torch_version`)
};
// Parses with the core; on a parse error returns nothing and sets *error.
QVector<KeyComponentRow> toKeyComponents(const std::vector<std::string>& lines, QString* error);

struct InspectRequest {
    QString path;    // the file (or group dir) to inspect
    CacheNode node;  // what the browser knows about it
    QString root;    // the cache root, to resolve links
    // The root as the window opened it (frontend::open_cache), held while the job runs: what the
    // inspector reads beneath the root (the kernel join) goes through its descriptor (issue 44).
    std::shared_ptr<const bundle::RootOrBlob> opened;
    std::shared_ptr<const CacheTree> tree;  // to turn keys into links to their artifacts
    // `path` as the user knows it where it differs: a blob's file "<blob>[<path in it>]", never the
    // temporary folder it is unpacked into (frontend::in_given_terms).
    QString shownPath;
    // The root's timings as the window read them once (RootTimings' set): the kernel join looks the
    // templates' autotune rows up in it, never walking the root's timing sources again per entry (a
    // million-file cache: seconds a click). Null while that read runs: the kernels are joined without
    // autotune rows and Inspection::kernelsAwaitTimings says the Summary is to be made again with it.
    std::shared_ptr<const timings::TimingSet> timings;
};

struct Inspection {
    QString path;
    CacheNode node;
    QString error;                              // why it could not be read/decoded (also shown)
    std::optional<inductor::GraphEntry> entry;  // graph entries: the decoded pickle (immutable, shared)
    QString summaryHtml;
    bool kernelsAwaitTimings = false;  // summaryHtml joined kernels without InspectRequest::timings
    QString sourceTitle;
    QString sourceText;
    SourceLanguage sourceLanguage = SourceLanguage::plain;
    bool hasSource = false;
    QByteArray rawBytes;  // non-pickles: the file's bytes (for text or hex)
    bool rawIsText = false;
    std::shared_ptr<const std::vector<pickle::DisassembledOp>> ops;  // pickles: the opcode listing
    QString opsError;
    QVector<KeyComponentRow> components;
    QString keyDir;  // the key dir whose guards apply (graph entries, key dirs)
    qint64 elapsedMs = 0;
};

// Reads and decodes; never throws. Honours ctl.cancelled() between steps.
Inspection inspectArtifact(const InspectRequest& req, JobControl& ctl);

}  // namespace kiln::ui

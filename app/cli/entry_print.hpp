#pragma once
// How `show` prints a graph entry, shared by every command that shows one (`show FILE`,
// `bundle show BLOB KEY`): a file's bytes and a blob artifact's bytes go through the same decoder
// and the same printer.
#include <string>

#include "inductor/graph_entry.hpp"

namespace kiln::cli {

struct EntryPrintOptions {
    bool json = false;  // one JSON object a line: {"type", "fields"}
    std::string field;  // only this field
    bool raw = false;   // with `field`: its text as is
};

// Prints `entry` under the heading `label` (a path, a remote key, "BLOB[type key]"); returns the exit
// status (2 when --field names no field or --raw a field that is no text).
int print_entry(const std::string& label, const inductor::GraphEntry& entry, const EntryPrintOptions& options);

}  // namespace kiln::cli

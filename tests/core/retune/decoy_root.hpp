// The H100 fixture's root copied under DIR/inductor and opened, then renamed to DIR/moved with a decoy at
// its old path (a timing cache of another op, no modules, no Triton cache): what a test of "reads beneath
// the opened root, not its path" starts from (issue 44).
#pragma once

#include <filesystem>
#include <fstream>

#include "opened_dir.hpp"
#include "test_support.hpp"

namespace kiln::test {

struct DecoyedRoot {
    std::filesystem::path root, moved;
    OpenedDir opened;
};

inline DecoyedRoot open_h100_root_then_decoy(const ScratchDir& dir) {
    namespace fs = std::filesystem;
    DecoyedRoot d{dir.path() / "inductor", dir.path() / "moved", {}};
    fs::copy(h100_root(), d.root, fs::copy_options::recursive);
    d.opened = open_dir(d.root);
    fs::rename(d.root, d.moved);
    fs::create_directories(d.root / "cache");
    std::ofstream(d.root / "cache" / "decoy")
        << R"({"system": {"device": {"name": "decoy"}, "hash": "decoy"}, "cache": {"decoy_op": {"[]": {"float32": {"x": 1.0}}}}})";
    return d;
}

}  // namespace kiln::test

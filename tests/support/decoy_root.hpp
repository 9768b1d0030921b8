// A fixture's root copied under DIR/inductor and opened, then renamed to DIR/moved with a decoy at its
// old path (a timing cache of another op, no modules, no Triton cache): what a test of "reads or writes
// beneath the opened root, not its path" starts from (issue 44).
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

inline DecoyedRoot open_root_then_decoy(const ScratchDir& dir, const std::filesystem::path& fixture) {
    namespace fs = std::filesystem;
    DecoyedRoot d{dir.path() / "inductor", dir.path() / "moved", {}};
    fs::copy(fixture, d.root, fs::copy_options::recursive);
    d.opened = open_dir(d.root);
    fs::rename(d.root, d.moved);
    fs::create_directories(d.root / "cache");
    std::ofstream(d.root / "cache" / "decoy")
        << R"({"system": {"device": {"name": "decoy"}, "hash": "decoy"}, "cache": {"decoy_op": {"[]": {"float32": {"x": 1.0}}}}})";
    return d;
}

inline DecoyedRoot open_h100_root_then_decoy(const ScratchDir& dir) { return open_root_then_decoy(dir, h100_root()); }

}  // namespace kiln::test
